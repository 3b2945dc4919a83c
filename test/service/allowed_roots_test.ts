import assert from "node:assert/strict";
import { join } from "node:path";
import { allowedRoots, checkAllowedPath } from "../../src/service/allowed_roots.ts";
import { tempDir } from "../helpers.ts";

Deno.test("checkAllowedPath() accepts paths under an allowed root and refuses the rest", async () => {
  await using tmp = await tempDir();
  const home = await Deno.realPath(tmp.path);
  await Deno.mkdir(join(home, "ana", "code"), { recursive: true });
  await Deno.mkdir(join(home, "ana", "repo"));
  await Deno.mkdir(join(home, "anabel"));
  const roots = [join(home, "ana")];
  assert.equal(
    checkAllowedPath(join(home, "ana", "code", "..", "repo"), roots),
    join(home, "ana", "repo"),
  );
  assert.equal(checkAllowedPath(join(home, "ana"), roots), join(home, "ana"));
  assert.throws(() => checkAllowedPath(join(home, "anabel"), roots), /outside the folders/);
  assert.throws(
    () => checkAllowedPath(join(home, "anabel"), roots, "in the test's environment"),
    /add a folder that holds it to CAIRN_ALLOWED_ROOTS in the test's environment/,
  );
  assert.throws(() => checkAllowedPath("/etc", roots), /CAIRN_ALLOWED_ROOTS/);
  assert.throws(() => checkAllowedPath("/", ["/"]), /outside the folders/);
  assert.throws(() => checkAllowedPath(join(home, "ana", "nope"), roots), /no file or folder at/);
});

Deno.test("checkAllowedPath() follows symbolic links: a link inside a root to a folder outside is refused", async () => {
  await using tmp = await tempDir();
  const base = await Deno.realPath(tmp.path);
  const allowed = join(base, "allowed");
  const outside = join(base, "outside");
  await Deno.mkdir(allowed);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "secret.jsonl"), "{}\n");
  await Deno.symlink(outside, join(allowed, "link"));
  await Deno.symlink(join(outside, "secret.jsonl"), join(allowed, "file.jsonl"));
  assert.throws(
    () => checkAllowedPath(join(allowed, "link"), [allowed]),
    new RegExp(`${outside} \\(where ${allowed}/link leads\\) is outside the folders`),
  );
  assert.throws(
    () => checkAllowedPath(join(allowed, "link", "secret.jsonl"), [allowed]),
    /outside/,
  );
  assert.throws(() => checkAllowedPath(join(allowed, "file.jsonl"), [allowed]), /outside/);
  await Deno.symlink(allowed, join(base, "to-allowed"));
  assert.equal(
    checkAllowedPath(join(base, "to-allowed"), [allowed]),
    join(base, "to-allowed"),
    "a link from outside into a root leads inside; the path keeps its name",
  );
  assert.equal(
    checkAllowedPath(allowed, [join(base, "to-allowed")]),
    allowed,
    "roots are real too",
  );
});

Deno.test("checkAllowedPath() refuses system folders and everything inside them", async () => {
  await using tmp = await tempDir();
  const base = await Deno.realPath(tmp.path);
  await Deno.symlink("/etc", join(base, "etc"));
  assert.throws(() => checkAllowedPath("/etc/hostname", ["/etc"]), /in the system folder \/etc,/);
  assert.throws(() => checkAllowedPath("/proc/self", [base]), /outside the folders/);
  assert.throws(
    () => checkAllowedPath(join(base, "etc"), [join(base, "etc")]),
    /\/etc \(where .*\/etc leads\) is in the system folder \/etc, which cairn never reads/,
  );
  assert.throws(
    () => checkAllowedPath("/usr/share", ["/usr/share/doc", "/"]),
    /outside the folders/,
    "/ is never a root",
  );
  assert.equal(
    checkAllowedPath("/usr/share/doc", ["/usr/share/doc"]),
    "/usr/share/doc",
    "a root set inside a system folder (a home at /var/home/ana) allows what it holds",
  );
});

Deno.test("allowedRoots() defaults to the home folder and never allows / or system folders", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.deepEqual(allowedRoots(env({ HOME: "/home/ana" })), ["/home/ana"]);
  assert.deepEqual(
    allowedRoots(env({ HOME: "/home/ana", CAIRN_ALLOWED_ROOTS: "/:/etc:/srv/code" })),
    ["/srv/code"],
  );
});
