import assert from "node:assert/strict";
import {
  codeMentions,
  type Definition,
  framePathIs,
  mentionedDefinitions,
} from "../../src/recall/code_mentions.ts";

Deno.test("codeMentions() reads Python, IPython and JavaScript stack frames, innermost first", () => {
  const python = `Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/usr/lib/python3/dist-packages/astropy/io/ascii/ui.py", line 856, in write
  File "/usr/lib/python3/dist-packages/astropy/io/ascii/core.py", line 1, in _get_writer
TypeError: bad`;
  assert.deepEqual(codeMentions(python), [
    { name: "_get_writer", path: "/usr/lib/python3/dist-packages/astropy/io/ascii/core.py" },
    { name: "write", path: "/usr/lib/python3/dist-packages/astropy/io/ascii/ui.py" },
    { name: "TypeError" },
  ]);
  const ipython = `File ~/code/seaborn/seaborn/_core/plot.py:841, in Plot._plot(self, pyplot)
File ~/code/seaborn/seaborn/_core/scales.py:351, in ContinuousBase._setup(self, data)
~/old/seaborn/axisgrid.py in map_diag(self, func)`;
  assert.deepEqual(codeMentions(ipython), [
    { name: "map_diag", path: "~/old/seaborn/axisgrid.py" },
    { name: "ContinuousBase._setup", path: "~/code/seaborn/seaborn/_core/scales.py" },
    { name: "Plot._plot", path: "~/code/seaborn/seaborn/_core/plot.py" },
  ]);
  const node = `Error: nope
    at Parser.parseHeader (/home/me/app/src/parser.ts:12:7)
    at async main (file:///home/me/app/main.ts:3:1)`;
  assert.deepEqual(codeMentions(node), [
    { name: "main", path: "file:///home/me/app/main.ts" },
    { name: "Parser.parseHeader", path: "/home/me/app/src/parser.ts" },
  ]);
});

Deno.test("codeMentions() reads names written as code and leaves prose, file names and receivers", () => {
  const query = "PolyFit is not robust: `Request.register_hook()` and so.Plot call " +
    "self.resolve_redirects, then getUserName( with header_rows; see setup.py, www.example.com, " +
    "the Header class and RST output.";
  assert.deepEqual(codeMentions(query).map((mention) => mention.name), [
    "PolyFit",
    "Request.register_hook",
    "so.Plot",
    "resolve_redirects",
    "getUserName",
    "header_rows",
  ]);
});

Deno.test("codeMentions() gives each frame and name once, a frame's name before the same name in prose", () => {
  const query = `parse_header breaks
  File "lib/pkg/header.py", line 3, in parse_header
During handling of the above exception, another exception occurred:
  File "lib/pkg/header.py", line 3, in parse_header
parse_header again`;
  assert.deepEqual(codeMentions(query), [{ name: "parse_header", path: "lib/pkg/header.py" }]);
});

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
