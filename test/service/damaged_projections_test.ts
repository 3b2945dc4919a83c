import assert from "node:assert/strict";
import { join } from "node:path";
import type { Cairn } from "../../src/service/cairn.ts";
import { searchCode } from "../../src/service/code_search.ts";
import { formatMarkdown } from "../../src/ops/format.ts";
import { runCli } from "../../src/cli/main.ts";
import { checkProjections } from "../../src/service/projection_check.ts";
import { openWithFakeModel as open } from "./fake_cairn.ts";
import { filesHolding, tempDir } from "../helpers.ts";
import { answer, prompt, SESSION } from "./claude_lines.ts";

/** Every file name a Linux file system allows that the scanner would index. */
const ODD_NAMES = ["line\nbreak.py", "tab\there.py", 'quote"and\\slash.py', "emoji 🪨.py"];

async function writeRepo(repo: string): Promise<void> {
  await Deno.mkdir(repo, { recursive: true });
  for (const [i, name] of ODD_NAMES.entries()) {
    await Deno.writeTextFile(join(repo, name), `def handler_${i}():\n    return ${i}\n`);
  }
}

/** A store holding a memory, an indexed folder and a session, every vector in, closed. */
async function filledStore(root: string): Promise<string> {
  const store = join(root, "store");
  const repo = join(root, "repo");
  await writeRepo(repo);
  const cairn = await open(store);
  try {
    await cairn.memories.remember({ content: "Invoices are rendered with WeasyPrint" });
    await cairn.code.index({ path: repo, project: "repo" });
    const transcript = join(root, `${SESSION}.jsonl`);
    await Deno.writeTextFile(
      transcript,
      prompt("Render the invoices as PDF", repo, 0) + answer("They use WeasyPrint now.", repo, 1),
    );
    await cairn.sessions.ingest({ path: transcript, agent: "claude", final: true });
    await cairn.store.runner.settled();
  } finally {
    await cairn.close();
  }
  return store;
}

/** Asserts the store answers from every projection: words, graph, vectors all caught up. */
async function assertWhole(cairn: Cairn): Promise<void> {
  await cairn.store.runner.settled();
  for (const { name, lag } of cairn.store.runner.status()) assert.equal(lag, 0, name);
  assert.equal(cairn.vectors.counts().code, ODD_NAMES.length, "every chunk has its vector");
  assert.equal(cairn.vectors.counts().memory, 1);
  const words = cairn.text.search("WeasyPrint", { sources: ["memory"], limit: 5 });
  assert.equal(words.length, 1);
  const code = await searchCode(cairn, { query: "handler_0", project: "repo" });
  assert.equal(code.items[0]?.type === "code" && code.items[0].code.path, ODD_NAMES[0]);
}

Deno.test("file names with a newline, a tab, quotes or backslashes keep their vectors, and the store reopens", async () => {
  await using tmp = await tempDir();
  const store = await filledStore(tmp.path);
  const cairn = await open(store);
  try {
    await assertWhole(cairn);
    const paths = (await searchCode(cairn, { query: "handler", project: "repo", limit: 10 }))
      .items.flatMap((item) => item.type === "code" ? [item.code.path] : []);
    assert.deepEqual(paths.sort(), [...ODD_NAMES].sort());
    const answer = formatMarkdown(await searchCode(cairn, { query: "handler_0", project: "repo" }));
    assert.match(
      answer,
      /^1\. \[code repo:line\\nbreak\.py:1-2\] `handler_0`$/m,
      "shown on one line, escaped",
    );
  } finally {
    await cairn.close();
  }
});

/** Overwrites the whole file at `path` with random bytes of the same length (seeded). */
async function scramble(path: string, seed: number): Promise<void> {
  const size = Math.max(64, (await Deno.stat(path)).size);
  let state = seed;
  const bytes = Uint8Array.from({ length: size }, () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state >> 16;
  });
  await Deno.writeFile(path, bytes);
}

/** Every projection of a store. */
const PROJECTIONS = ["graph", "text", "vectors", "code_catalog", "session_state", "memory_history"];

async function filesIn(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.isFile).map((e) => e.name);
}

Deno.test("a projection whose files are damaged or deleted is moved aside and rebuilt from the log, and the store answers as before", async (t) => {
  await using tmp = await tempDir();
  const store = await filledStore(tmp.path);
  const projections = join(store, "projections");
  // An empty file (a journal just folded into its snapshot) holds nothing to lose.
  const damaged = (await Promise.all(
    PROJECTIONS.map(async (projection) =>
      (await filesIn(join(projections, projection))).map((name) => join(projection, name))
    ),
  )).flat().filter((name) => !name.endsWith("checkpoint.json") && !name.endsWith("model.json"))
    .filter((name) => Deno.statSync(join(projections, name)).size > 0);
  for (const projection of PROJECTIONS) {
    assert.ok(damaged.some((name) => name.startsWith(`${projection}/`)), `${projection} has data`);
  }
  assert.ok(damaged.some((name) => name.endsWith(".kuzu")), damaged.join(", "));
  assert.ok(damaged.some((name) => name.endsWith(".keys")), damaged.join(", "));
  const faults = [
    ...damaged.flatMap((file, i) => [
      { file, fault: "scrambled", apply: (path: string) => scramble(path, i + 1) },
      { file, fault: "deleted", apply: (path: string) => Deno.remove(path) },
    ]),
    // A checkpoint that does not parse is no checkpoint: that projection is rebuilt, quietly.
    ...PROJECTIONS.map((name) => ({
      file: join(name, "checkpoint.json"),
      fault: "scrambled",
      apply: (path: string) => scramble(path, 99),
    })),
  ];
  for (const { file, fault, apply } of faults) {
    await t.step(`${file} ${fault}`, async () => {
      await apply(join(projections, file));
      const warnings: string[] = [];
      const error = console.error;
      console.error = (...args: unknown[]) => warnings.push(args.join(" "));
      let cairn: Cairn;
      try {
        cairn = await open(store);
      } finally {
        console.error = error;
      }
      try {
        const projection = file.split("/")[0]!;
        const moved = warnings.filter((line) => line.includes(`the ${projection} projection`));
        if (!file.endsWith("checkpoint.json")) {
          assert.equal(moved.length, 1, warnings.join("\n"));
          assert.match(moved[0]!, /rebuil(t|ding it) from the log/);
          const aside = /moved to (\S+) and/.exec(moved[0]!)?.[1];
          if (aside) assert.ok((await Deno.stat(aside)).isDirectory, "kept aside, not deleted");
        }
        await assertWhole(cairn);
      } finally {
        await cairn.close();
      }
    });
  }
});

Deno.test("checkProjections() names a projection that cannot be read or lost documents, and changes nothing", async () => {
  await using tmp = await tempDir();
  const store = await filledStore(tmp.path);
  assert.deepEqual(await checkProjections(store), {
    checked: PROJECTIONS,
    problems: [],
  });
  const graph = join(store, "projections", "graph", "graph.kuzu");
  await scramble(graph, 7);
  const keys = (await filesIn(join(store, "projections", "vectors")))
    .find((name) => name.startsWith("code.") && name.endsWith(".keys"))!;
  await Deno.remove(join(store, "projections", "vectors", keys));
  const scrambled = await Deno.readFile(graph);
  const check = await checkProjections(store);
  assert.ok("problems" in check);
  assert.equal(check.problems.length, 2, check.problems.join("\n"));
  assert.match(check.problems[0]!, /^projection graph: cannot be read \(.+\); it is rebuilt/);
  assert.match(
    check.problems[1]!,
    /^projection vectors: holds 6 entries where its checkpoint says 10/,
  );
  assert.deepEqual(await Deno.readFile(graph), scrambled, "the damaged file is left for the open");
});

Deno.test("checkProjections() names vectors lost behind a checkpoint that agrees, and a rebuild computes them again", async () => {
  await using tmp = await tempDir();
  const store = await filledStore(tmp.path);
  // What two rebuilds of one folder left (session 33): no memory vectors, a checkpoint counting none.
  const vectors = join(store, "projections", "vectors");
  for (const name of await filesIn(vectors)) {
    if (name.startsWith("memory.")) await Deno.remove(join(vectors, name));
  }
  const checkpointFile = join(vectors, "checkpoint.json");
  const checkpoint = JSON.parse(await Deno.readTextFile(checkpointFile));
  await Deno.writeTextFile(
    checkpointFile,
    JSON.stringify({ ...checkpoint, count: checkpoint.count - 1 }),
  );
  const check = await checkProjections(store);
  assert.ok("problems" in check);
  assert.deepEqual(check.problems, [
    "projection vectors: holds 0 memory vectors where the log has 1; " +
    "`cairn replay --projection vectors` computes them again",
  ]);
  // Vectors still being computed are not counted, and verify says so.
  await Deno.writeTextFile(
    checkpointFile,
    JSON.stringify({ ...checkpoint, seq: checkpoint.seq - 1 }),
  );
  const lagging = await checkProjections(store);
  assert.ok("problems" in lagging);
  assert.deepEqual(lagging.problems, []);
  assert.match(
    lagging.notCounted ?? "",
    /^the vectors were not counted against the log: they are 1 event behind/,
  );
  await Deno.writeTextFile(
    checkpointFile,
    JSON.stringify({ ...checkpoint, count: checkpoint.count - 1 }),
  );
  // What `cairn replay --projection vectors` does.
  const cairn = await open(store);
  try {
    await cairn.store.runner.rebuild("vectors");
    assert.equal(cairn.vectors.counts().memory, 1);
  } finally {
    await cairn.close();
  }
  assert.deepEqual(await checkProjections(store), { checked: PROJECTIONS, problems: [] });
});

Deno.test("a missing or damaged blob leaves its one document without a vector; the projection keeps going", async () => {
  await using tmp = await tempDir();
  const store = await filledStore(tmp.path);
  const [blob] = await filesHolding(join(store, "blobs"), "handler_0");
  await Deno.writeTextFile(join(store, "blobs", blob!), "damaged");
  const cairn = await open(store);
  const warnings: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => warnings.push(args.join(" "));
  try {
    await cairn.store.runner.rebuild("vectors");
  } finally {
    console.error = error;
  }
  try {
    for (const { name, lag } of cairn.store.runner.status()) assert.equal(lag, 0, name);
    assert.equal(cairn.vectors.counts().code, ODD_NAMES.length - 1);
    assert.equal(cairn.vectors.counts().memory, 1, "what came after it has its vector");
    assert.equal(
      warnings.filter((line) => /has no vector/.test(line)).length,
      1,
      warnings.join("\n"),
    );
  } finally {
    await cairn.close();
  }
});

Deno.test("verify --repair restores a code chunk's lost blob from the file it came from, and names the rest", async () => {
  await using tmp = await tempDir();
  const store = await filledStore(tmp.path);
  const [blob] = await filesHolding(join(store, "blobs"), "handler_1");
  await Deno.writeTextFile(join(store, "blobs", blob!), "damaged");
  const [other] = await filesHolding(join(store, "blobs"), "handler_2");
  await Deno.remove(join(store, "blobs", other!));
  await Deno.writeTextFile(join(tmp.path, "repo", ODD_NAMES[2]!), "def changed():\n    pass\n");
  const out: string[] = [];
  const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
  assert.equal(await runCli(["--store", store, "verify", "--repair"], io), 0, out.join("\n"));
  assert.ok(
    out.includes(
      "blobs: 1 of 2 missing or damaged restored from the files they came from; 1 lost " +
        "(their documents go without text)",
    ),
    out.join("\n"),
  );
  assert.match(await Deno.readTextFile(join(store, "blobs", blob!)), /handler_1/);
  const cairn = await open(store);
  try {
    await cairn.store.runner.settled();
    assert.equal(
      cairn.vectors.counts().code,
      ODD_NAMES.length - 1,
      "only the lost one has no vector",
    );
  } finally {
    await cairn.close();
  }
});
