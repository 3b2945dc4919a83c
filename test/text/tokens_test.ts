import assert from "node:assert/strict";
import { codeTokens, identifierParts, lightStem, wordTokens } from "../../text/tokens.ts";

const plain = (text: string) => codeTokens(text, { stem: false });

Deno.test("codeTokens() keeps a camelCase identifier whole and adds its parts", () => {
  assert.deepEqual(plain("getUserName"), ["getusername", "get", "user", "name"]);
  assert.deepEqual(plain("HTTPServer"), ["httpserver", "http", "server"]);
});

Deno.test("codeTokens() splits snake_case, kebab-case and dotted identifiers", () => {
  assert.deepEqual(plain("user_name"), ["user_name", "user", "name"]);
  assert.deepEqual(plain("max-retry-count"), ["max-retry-count", "max", "retry", "count"]);
  assert.deepEqual(plain("os.path.join"), ["os.path.join", "os", "path", "join"]);
  assert.deepEqual(plain("Foo::bar"), ["foo::bar", "foo", "bar"]);
});

Deno.test("codeTokens() splits a path and adds its file name", () => {
  assert.deepEqual(plain("src/auth/login.ts"), [
    "src/auth/login.ts",
    "src",
    "auth",
    "login",
    "ts",
    "login.ts",
  ]);
});

Deno.test("codeTokens() keeps numbers and drops standalone stop words only", () => {
  assert.deepEqual(plain("The retry is 30 seconds"), ["retry", "30", "seconds"]);
  assert.deepEqual(plain("isReady"), ["isready", "is", "ready"]);
  assert.deepEqual(plain("if not null"), ["if", "not", "null"]);
  assert.deepEqual(plain("I'm at Caroline's"), ["caroline"]);
});

Deno.test("codeTokens() ends a sentence without swallowing its full stop", () => {
  assert.deepEqual(plain("It was powerful."), ["powerful"]);
});

Deno.test("codeTokens() stems words and identifier parts, never the whole identifier", () => {
  assert.deepEqual(codeTokens("She painted sunrises"), ["paint", "sunris"]);
  assert.deepEqual(codeTokens("getUsers"), ["getusers", "get", "user"]);
});

Deno.test("lightStem() folds plurals, -ing and -ed but keeps short stems", () => {
  assert.equal(lightStem("paints"), "paint");
  assert.equal(lightStem("painted"), "paint");
  assert.equal(lightStem("running"), "run");
  assert.equal(lightStem("classes"), "class");
  assert.equal(lightStem("batteries"), "battery");
  assert.equal(lightStem("embed"), "embed");
  assert.equal(lightStem("embedded"), "embed");
  assert.equal(lightStem("string"), "string");
  assert.equal(lightStem("status"), "status");
  assert.equal(lightStem("v1"), "v1");
});

Deno.test("identifierParts() splits at case and digit changes", () => {
  assert.deepEqual(identifierParts("parseHTTPRequest2"), ["parse", "http", "request", "2"]);
});

Deno.test("wordTokens() gives lower-cased runs of letters and digits", () => {
  assert.deepEqual(wordTokens("Hey Mel! getUserName 2023"), ["hey", "mel", "getusername", "2023"]);
});

Deno.test("codeTokens() cuts runs of any length into bounded terms instead of running out of stack", () => {
  const run = "a".repeat(10_000_000);
  const terms = codeTokens(run);
  assert.ok(terms.length > 0 && terms.every((term) => term.length <= 128));
  const joined = codeTokens(`${"x/".repeat(1_000_000)}end`);
  assert.ok(joined.every((term) => term.length <= 33 * 129));
});
