import assert from "node:assert/strict";
import { codeMentions, codeNames, commandPaths } from "../../text/code_mentions.ts";

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

Deno.test("codeNames() finds paths and identifiers, not ordinary words", () => {
  assert.deepEqual(
    codeNames("Fix src/auth/login.ts and README.md; call getUserName() from user_service"),
    {
      paths: ["src/auth/login.ts", "README.md"],
      symbols: ["getUserName", "user_service"],
    },
  );
  assert.deepEqual(codeNames("We deploy on Tuesdays after the standup."), {
    paths: [],
    symbols: [],
  });
});

Deno.test("commandPaths takes the path-like words of a shell command, not flags, URLs or code", () => {
  assert.deepEqual(
    commandPaths(
      "cd /home/dev/shop && npm test -- test/retry.test.ts --config=jest.config.js 2>/dev/null | tee out.log",
    ),
    ["/home/dev/shop", "test/retry.test.ts", "jest.config.js"],
  );
  assert.deepEqual(commandPaths("cargo build --release && git push origin HEAD"), []);
  assert.deepEqual(commandPaths(`node -e "console.log(process.version)"`), []);
  assert.deepEqual(commandPaths("curl https://example.com/a.json -o data.json"), ["data.json"]);
  assert.deepEqual(commandPaths("ls src/*.ts $HOME/x FOO=bar Makefile"), ["Makefile"]);
  assert.deepEqual(commandPaths("npm i @types/node zod@4"), []);
});
