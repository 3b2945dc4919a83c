import assert from "node:assert/strict";
import { chunkCode, ParseTimeoutError } from "../../src/ingest/code/chunk.ts";
import { languageOf, LANGUAGES, loadLanguage } from "../../src/ingest/code/languages.ts";
import { CHUNK_BUDGET, OVERLAP_LINES } from "../../src/ingest/code/pieces.ts";

async function chunks(path: string, source: string) {
  const result = chunkCode(source, await loadLanguage(languageOf(path)!), path);
  return {
    ...result,
    names: result.chunks.map((c) => `${c.kind} ${c.name} ${c.start_line}-${c.end_line}`),
  };
}

/** A body long enough that its definition is not merged with its neighbours. */
const body = (indent: string, comment = "#") =>
  `${indent}${comment} the body is long enough to stand as its own chunk of code\n`;

Deno.test("chunkCode() names Python methods by their class, with 1-based lines and the scope on top", async () => {
  const source = `import os
from requests.hooks import dispatch_hook

class Request(Base):
    """A request."""

    def __init__(self):
${body("        ")}        self.hooks = {}

    @property
    def register_hook(self, event, hook):
${body("        ")}        dispatch_hook(event)

def top():
${body("    ")}    return Request()
`;
  const { chunks: result, names, references } = await chunks("models.py", source);
  assert.deepEqual(names, [
    "class Request 1-6",
    "method Request.__init__ 7-9",
    "method Request.register_hook 11-14",
    "function top 16-18",
  ]);
  assert.match(result[1]!.text, /^in class Request\n {4}def __init__/);
  assert.match(result[2]!.text, /^in class Request\n {4}@property\n/);
  assert.deepEqual(
    references.map((r) => `${r.kind} ${r.name} ${r.line}`),
    [
      "import os 1",
      "import requests.hooks 2",
      "extends Base 4",
      "call dispatch_hook 14",
      "call Request 18",
    ],
  );
});

Deno.test("chunkCode() chunks TypeScript classes, methods, interfaces and arrow functions", async () => {
  const source = `import { open } from "./store.ts";

export class Store extends Base {
  read(key: string): string {
${body("    ", "//")}    return open(key);
  }
}

export interface Options {
  path: string;
${body("  ", "//")}}

export const helper = (a: number) => {
${body("  ", "//")}  return a + 1;
};
`;
  const { names, references } = await chunks("store.ts", source);
  assert.deepEqual(names, [
    "class Store 1-3",
    "method Store.read 4-7",
    "interface Options 10-13",
    "function helper 15-18",
  ]);
  assert.ok(references.some((r) => r.kind === "import" && r.name === "./store.ts"));
  assert.ok(references.some((r) => r.kind === "extends" && r.name === "Base" && r.line === 3));
  assert.ok(references.some((r) => r.kind === "call" && r.name === "open" && r.line === 6));
});

Deno.test("chunkCode() names Go methods by their receiver and parses a file without a final newline", async () => {
  const source = `package web

type Router struct {
	routes map[string]string
${body("\t", "//")}}

func (r *Router) Handle(path string) {
${body("\t", "//")}	fmt.Println(path)
}

func NewRouter() *Router {
${body("\t", "//")}	return &Router{}
}`;
  const { names } = await chunks("router.go", source);
  assert.deepEqual(names, [
    "struct Router 1-6",
    "method Router.Handle 8-11",
    "function NewRouter 13-16",
  ]);
});

Deno.test("chunkCode() names Rust methods by their impl and keeps traits and modules", async () => {
  const source = `use std::collections::HashMap;

pub struct Cache {
${body("    ", "//")}    map: HashMap<String, u32>,
}

impl Cache {
    pub fn get(&self, key: &str) -> Option<u32> {
${body("        ", "//")}        self.map.get(key).copied()
    }
}

pub trait Store {
${body("    ", "//")}    fn put(&mut self, key: String);
}
`;
  const { names, references } = await chunks("cache.rs", source);
  assert.deepEqual(names, [
    "struct Cache 1-6",
    "impl Cache 8-8",
    "method Cache.get 9-12",
    "interface Store 15-18",
  ]);
  assert.ok(references.some((r) => r.kind === "import" && r.name === "std::collections::HashMap"));
});

Deno.test("chunkCode() names Java methods by their class and nested classes by their outer class", async () => {
  const source = `package app;

import java.util.List;

public class Service extends Base {
    public List<String> names() {
${body("        ", "//")}        return List.of();
    }

    static class Inner {
        void run() {
${body("            ", "//")}            names();
        }
    }
}
`;
  const { names, references } = await chunks("Service.java", source);
  assert.deepEqual(names, [
    "class Service 1-5",
    "method Service.names 6-9",
    "class Service.Inner 11-11",
    "method Service.Inner.run 12-15",
  ]);
  assert.ok(references.some((r) => r.kind === "import" && r.name === "java.util.List"));
  assert.ok(references.some((r) => r.kind === "extends" && r.name === "Base"));
});

const SMOKE: Record<string, string> = {
  "a.ts": "function alpha(): number { return 1; }\n",
  "a.tsx": "function alpha() { return <div />; }\n",
  "a.js": "function alpha() { return 1; }\n",
  "a.py": "def alpha():\n    return 1\n",
  "a.rs": "fn alpha() -> u32 { 1 }\n",
  "a.go": "package a\n\nfunc alpha() int { return 1 }\n",
  "A.java": "class Alpha { int one() { return 1; } }\n",
  "a.c": "int alpha(void) { return 1; }\n",
  "a.cpp": "int alpha() { return 1; }\n",
  "a.rb": "def alpha\n  1\nend\n",
  "a.cs": "class Alpha { int One() { return 1; } }\n",
  "a.php": "<?php\nfunction alpha() { return 1; }\n",
};

Deno.test("every grammar loads and yields a definition", async () => {
  assert.equal(Object.keys(SMOKE).length, LANGUAGES.length);
  for (const [path, source] of Object.entries(SMOKE)) {
    const { names } = await chunks(path, source);
    assert.ok(names.some((name) => /alpha|Alpha/.test(name)), `${path}: ${names.join(", ")}`);
  }
});

Deno.test("chunkCode() still gives chunks for a file with syntax errors", async () => {
  const source = `def good():
${body("    ")}    return 1

def broken(:
    return (
`;
  const { names, chunks: result } = await chunks("bad.py", source);
  // tree-sitter's error recovery may stretch `good` over the broken lines.
  assert.match(names[0]!, /^function good 1-/);
  assert.ok(result.some((chunk) => chunk.text.includes("def broken")));
});

Deno.test("chunkCode() splits a large function into overlapping parts within the budget", async () => {
  const lines = Array.from({ length: 200 }, (_, i) => `    total += compute_step_${i}(value)`);
  const source = `def big(value):\n    total = 0\n${lines.join("\n")}\n    return total\n`;
  const { chunks: result } = await chunks("big.py", source);
  assert.ok(result.length > 3);
  for (const chunk of result) {
    assert.equal(chunk.name, "big");
    assert.ok(chunk.text.length <= CHUNK_BUDGET + 100, `${chunk.text.length}`);
  }
  assert.equal(result[0]!.start_line, 1);
  assert.equal(result.at(-1)!.end_line, 203);
  assert.equal(result[1]!.start_line, result[0]!.end_line + 1 - OVERLAP_LINES);
  assert.match(result[1]!.text, /^in function big \(continued\)\n/);
});

Deno.test("chunkCode() keeps a small function whole with its closures and cuts a large one at them", async () => {
  const small = `def retry(times):
    def wrap(fn):
${body("        ")}        return fn
    return wrap
`;
  assert.deepEqual((await chunks("retry.py", small)).names, ["function retry 1-5"]);

  const big = `def outer(items):
${body("    ").repeat(12)}    def inner(item):
${body("        ").repeat(8)}        return item
${body("    ").repeat(12)}    return [inner(i) for i in items]
`;
  assert.deepEqual((await chunks("outer.py", big)).names, [
    "function outer 1-13",
    "function outer.inner 14-23",
    "function outer 24-36",
  ]);
});

Deno.test("chunkCode() gives up on a parse that takes too long", async () => {
  const source = "def f():\n    return 1\n".repeat(20_000);
  const language = await loadLanguage(languageOf("slow.py")!);
  assert.throws(() => chunkCode(source, language, "slow.py", 0), ParseTimeoutError);
  assert.ok(chunkCode("def f():\n    return 1\n", language, "ok.py").chunks.length > 0);
});
