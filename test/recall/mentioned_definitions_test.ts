import assert from "node:assert/strict";
import type { Definition } from "../../projections/text.ts";
import { framePathIs, mentionedDefinitions } from "../../src/recall/mentioned_definitions.ts";

Deno.test("framePathIs() matches a printed path that ends with the indexed one, at a folder boundary", () => {
  assert.ok(framePathIs("/usr/lib/python3/site-packages/pkg/header.py", "pkg/header.py"));
  assert.ok(framePathIs("pkg/header.py", "pkg/header.py"));
  assert.ok(framePathIs("C:\\work\\pkg\\header.py", "pkg/header.py"));
  assert.ok(!framePathIs("/usr/lib/mypkg/header.py", "pkg/header.py"));
});

const DEFINITIONS: Definition[] = [
  { id: "c1", name: "PolyFit", path: "seaborn/_stats/regression.py" },
  { id: "c2", name: "PolyFit.__call__", path: "seaborn/_stats/regression.py" },
  { id: "c3", name: "parse_header", path: "pkg/header.py" },
  { id: "c4", name: "parse_header", path: "vendor/header.py" },
  ...Array.from({ length: 6 }, (_, i) => ({ id: `g${i}`, name: `C${i}.get`, path: `m${i}.py` })),
];
const lookup = (name: string) =>
  DEFINITIONS.filter((definition) => definition.name.split(".").at(-1) === name);

Deno.test("mentionedDefinitions() ranks each mention's definitions together, in the mentions' order", () => {
  assert.deepEqual(
    mentionedDefinitions(
      [
        { name: "parse_header", path: "/site-packages/pkg/header.py" },
        { name: "so.PolyFit" },
        { name: "PolyFit.__call__" },
        { name: "parse_header" },
        { name: "unknown_name" },
      ],
      lookup,
    ),
    [["c3"], ["c1"], ["c2"], ["c3", "c4"]],
  );
});

Deno.test("mentionedDefinitions() drops a name shared by too many definitions unless a frame gives its file", () => {
  assert.deepEqual(mentionedDefinitions([{ name: "get" }], lookup), []);
  assert.deepEqual(mentionedDefinitions([{ name: "C3.get" }], lookup), [["g3"]]);
  assert.deepEqual(mentionedDefinitions([{ name: "get", path: "/x/m4.py" }], lookup), [["g4"]]);
});
