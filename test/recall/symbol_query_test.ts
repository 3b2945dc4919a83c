import assert from "node:assert/strict";
import { namesSymbol, symbolOf } from "../../src/recall/symbol_query.ts";

Deno.test("symbolOf() reads a symbol in any language's notation, and nothing from words", () => {
  assert.equal(symbolOf("Session.request"), "Session.request");
  assert.equal(symbolOf(" Session::request "), "Session.request");
  assert.equal(symbolOf("Session#request()"), "Session.request");
  assert.equal(symbolOf("$store->get"), "$store.get");
  assert.equal(symbolOf("résumé_parser"), "résumé_parser");
  for (const query of ["session request", "how are hooks run?", "a.b c", "1st", "Session.", ""]) {
    assert.equal(symbolOf(query), undefined, query);
  }
});

Deno.test("namesSymbol() matches the whole name or its last qualified parts only", () => {
  assert.ok(namesSymbol("Session.request", "Session.request"));
  assert.ok(namesSymbol("Session.request", "request"));
  assert.ok(namesSymbol("api.Session.request", "Session.request"));
  assert.ok(!namesSymbol("Session.request_hook", "request"));
  assert.ok(!namesSymbol("BaseSession.request", "Session.request"));
  assert.ok(!namesSymbol("request.Session", "request"));
});
