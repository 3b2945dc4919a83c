import assert from "node:assert/strict";
import { allowedRoots, checkAllowedPath } from "../../src/mcp/allowed_roots.ts";

Deno.test("checkAllowedPath() accepts folders under an allowed root and refuses the rest", () => {
  const roots = ["/home/ana"];
  assert.equal(checkAllowedPath("/home/ana/code/../repo", roots), "/home/ana/repo");
  assert.equal(checkAllowedPath("/home/ana", roots), "/home/ana");
  assert.throws(() => checkAllowedPath("/home/anabel", roots), /outside the folders/);
  assert.throws(() => checkAllowedPath("/etc", roots), /CAIRN_ALLOWED_ROOTS/);
  assert.throws(() => checkAllowedPath("/", ["/"]), /outside the folders/);
});

Deno.test("allowedRoots() defaults to the home folder and never allows / or system folders", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.deepEqual(allowedRoots(env({ HOME: "/home/ana" })), ["/home/ana"]);
  assert.deepEqual(
    allowedRoots(env({ HOME: "/home/ana", CAIRN_ALLOWED_ROOTS: "/:/etc:/srv/code" })),
    ["/srv/code"],
  );
});
