import { withoutScope } from "../../src/recall/passage.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { formatMarkdown } from "../../src/ops/format.ts";
import type { Cairn } from "../../src/service/cairn.ts";
import { ArgumentsError, NotFoundError } from "../../src/errors.ts";
import { openHandle } from "../../src/service/open_item.ts";
import { open } from "../../src/ops/open_ops.ts";
import { tempDir } from "../helpers.ts";
import { answer, prompt, SESSION, tool } from "./claude_lines.ts";
import { openWithFakeModel } from "./fake_cairn.ts";

const OTHER = "5e55a0b1-0000-4000-8000-000000000002";
const cwd = "/home/dev/shop";

/** A function long enough to be cut in several parts, its later parts without its `def` line. */
const LONG_FUNCTION = [
  "def settle_invoices(ledger, invoices):",
  ...Array.from(
    { length: 80 },
    (_, i) => `    total_${i} = ledger.post(invoices[${i}], account="receivable_${i}")`,
  ),
  '    raise LedgerClosedError("the ledger was closed while settling")',
].join("\n") + "\n";

async function filledStore(dir: string): Promise<Cairn> {
  const cairn = await openWithFakeModel(join(dir, "store"));
  const project = join(dir, "shop");
  await Deno.mkdir(project);
  await Deno.writeTextFile(join(project, "ledger.py"), LONG_FUNCTION);
  await cairn.code.index({ path: project, project: "shop" });
  await Deno.writeTextFile(
    join(dir, "a.jsonl"),
    prompt("Set up continuous integration for the project", cwd, 0) +
      answer("Added a workflow that runs the tests.", cwd, 1) +
      prompt("Which host do we deploy the shop to?", cwd, 2) +
      tool("Edit", { file_path: `${cwd}/render.yaml` }, cwd, 3) +
      answer("We host it on the Render free tier and reseed the database on boot.", cwd, 4) +
      prompt("thanks", cwd, 5) +
      answer("You're welcome.", cwd, 6),
  );
  await Deno.writeTextFile(
    join(dir, "b.jsonl"),
    prompt("Skip blank records in the reader", cwd, 0, OTHER) +
      answer("Empty lines are now ignored.", cwd, 1, OTHER),
  );
  for (const file of ["a.jsonl", "b.jsonl"]) {
    await cairn.sessions.ingest({ path: join(dir, file), agent: "claude", final: true });
  }
  await cairn.store.runner.settled();
  return cairn;
}

Deno.test("open finds a memory with its history, a turn with its neighbours and files, a chunk with its outline", async () => {
  await using tmp = await tempDir();
  const cairn = await filledStore(tmp.path);
  try {
    const { memory } = await cairn.memories.remember({ content: "Retry failed webhooks 5 times" });
    await cairn.memories.revise({ id: memory.id, content: "Retry failed webhooks 7 times" });
    const opened = await openHandle(cairn, memory.id);
    assert.equal(opened.type, "memory");
    if (opened.type !== "memory") return;
    assert.equal(opened.memory.content, "Retry failed webhooks 7 times");
    assert.deepEqual(opened.versions.map((v) => [v.change, v.fields.content]), [
      ["remembered", "Retry failed webhooks 5 times"],
      ["revised", "Retry failed webhooks 7 times"],
    ]);

    // The handle recall prints opens the turn.
    const answered = await cairn.recall.run({
      query: "which host do we deploy to? Render free tier",
      sources: ["turn"],
      limit: 3,
      mode: "hybrid",
    });
    const handle = /\[session \d{4}-\d{2}-\d{2} ([^\]]+)\]/.exec(formatMarkdown(answered))![1]!;
    const turn = await openHandle(cairn, handle);
    assert.equal(turn.type, "turn");
    if (turn.type !== "turn") return;
    assert.match(turn.turn.text, /Render free tier/);
    assert.match(turn.before!.text, /continuous integration/);
    assert.match(turn.after!.text, /thanks/);
    assert.deepEqual(turn.files, [{ path: "render.yaml", tool: "Edit" }]);
    // The full session id opens it too; a prefix two sessions share does not.
    const full = await openHandle(cairn, `${SESSION}:${turn.turn.line}`);
    assert.equal(full.type === "turn" && full.turn.id, turn.turn.id);
    await assert.rejects(openHandle(cairn, "5e55a0b1:0"), ArgumentsError);

    const chunks = await cairn.graph.database.run(
      "MATCH (c:Chunk {path: 'ledger.py'}) RETURN c.id AS id ORDER BY c.start_line",
    );
    assert.ok(chunks.length >= 2, "the long function is cut in parts");
    const last = await openHandle(cairn, chunks.at(-1)!.id as string);
    assert.equal(last.type, "code");
    if (last.type !== "code") return;
    // A part opens the whole function, every line once, under the part's own handle.
    assert.equal(last.code.id, chunks.at(-1)!.id);
    assert.equal(last.code.signature, undefined);
    assert.deepEqual([last.code.start_line, last.code.end_line], [1, 82]);
    assert.equal(withoutScope(last.code.text), LONG_FUNCTION.trimEnd());
    // The function's parts are one entry of the outline, spanning them all, naming the part opened.
    assert.deepEqual(last.outline.map((entry) => [entry.name, entry.start_line, entry.end_line]), [
      ["settle_invoices", 1, 82],
    ]);
    assert.equal(last.outline[0]!.id, last.code.id);
    // A line of the file opens the part holding it.
    const byLine = await openHandle(cairn, "shop:ledger.py:82");
    assert.equal(byLine.type === "code" && byLine.code.id, last.code.id);
    const first = await openHandle(cairn, chunks[0]!.id as string);
    assert.equal(first.type === "code" && first.code.text, last.code.text);

    await assert.rejects(openHandle(cairn, "mem_nothing"), NotFoundError);
    await assert.rejects(openHandle(cairn, "shop:nowhere.py:1-2"), NotFoundError);
  } finally {
    await cairn.close();
  }
});

Deno.test("recall's markdown shows a continuation part's signature and the line that answers", async () => {
  await using tmp = await tempDir();
  const cairn = await filledStore(tmp.path);
  try {
    const answer = await cairn.recall.run({
      query: "LedgerClosedError: the ledger was closed while settling",
      sources: ["code"],
      limit: 1,
      mode: "lexical",
    });
    const markdown = formatMarkdown(answer);
    assert.match(markdown, /^1\. \[code shop:ledger\.py:\d+-\d+\] `settle_invoices`\n```\n/);
    assert.match(markdown, /def settle_invoices\(ledger, invoices\):\n⋮\n/);
    assert.match(markdown, /raise LedgerClosedError\("the ledger was closed while settling"\)/);
  } finally {
    await cairn.close();
  }
});

Deno.test("open of a chunk's handle after its file was edited shows the chunk holding its first line now, and says so", async () => {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    const project = join(tmp.path, "shop");
    await Deno.mkdir(project);
    const file = join(project, "tax.py");
    const fn = (name: string) =>
      [
        `def ${name}(items):`,
        ...Array.from({ length: 30 }, (_, i) => `    ${name}_${i} = items[${i}] * RATE`),
        "    return items",
        "",
      ].join("\n");
    await Deno.writeTextFile(file, `${fn("tax_rate")}\n${fn("total")}`);
    await cairn.code.index({ path: project, project: "shop" });
    const before = await openHandle(cairn, "shop:tax.py:40");
    assert.ok(before.type === "code" && before.gone === undefined);
    const handle = before.code.id;
    const line = before.code.start_line;
    // Lines above it: no chunk has that handle any more, and another holds its first line.
    await Deno.writeTextFile(file, `${"# header\n".repeat(3)}${fn("tax_rate")}\n${fn("total")}`);
    await cairn.code.index({ path: project, project: "shop" });
    const after = await openHandle(cairn, handle);
    assert.ok(after.type === "code");
    assert.deepEqual(after.gone, { handle, line });
    assert.notEqual(after.code.id, handle);
    assert.ok(after.code.start_line <= line && line <= after.code.end_line);
    assert.match(
      open.render(after, { handle }).text,
      new RegExp(
        `^No chunk is ${handle} \\(its file changed since, or these lines are not one chunk's\\); ` +
          `this one holds line ${line}:`,
      ),
    );
    await assert.rejects(openHandle(cairn, "shop:tax.py:900-950"), NotFoundError);
  } finally {
    await cairn.close();
  }
});
