import assert from "node:assert/strict";
import { FileLog } from "../../events/file_log.ts";
import { collect, remembered, tempDir } from "../helpers.ts";
import { fuzzSeed, Random } from "../fuzz/random.ts";

const CHILD = new URL("./crash_child.ts", import.meta.url).pathname;

/**
 * Runs the crash child with `args` and kills it `killAfterMs` after it first
 * writes (or once its output holds `until`); resolves to what it wrote and
 * how long it ran from its first write.
 */
async function runUntilKilled(
  args: string[],
  killAfterMs: number,
  until?: string,
): Promise<{ output: string; ranMs: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", CHILD, ...args],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of child.stdout) output += decoder.decode(chunk);
  })();
  // Wait for the child to start writing, then kill it at a random moment.
  while (!output) await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  const deadline = started + killAfterMs;
  while (performance.now() < deadline && !(until && output.includes(until))) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(5, killAfterMs)));
  }
  try {
    child.kill("SIGKILL");
  } catch {
    // It may have finished already.
  }
  await child.status;
  const ranMs = performance.now() - started;
  await reading;
  return { output, ranMs };
}

function idsOf(events: Awaited<ReturnType<typeof collect<unknown>>>): number[] {
  return events.map((event) => Number((event as { data: { id: string } }).data.id.slice(1)));
}

Deno.test("FileLog keeps every acknowledged event when the writer is killed with SIGKILL (20 rounds)", async () => {
  await using tmp = await tempDir();
  const random = new Random(fuzzSeed());
  let next = 0;
  for (let round = 0; round < 20; round++) {
    const { output } = await runUntilKilled(
      ["append", tmp.path, String(next)],
      random.next() * 150,
    );
    const acknowledged = Math.max(...output.trim().split("\n").map(Number));
    const log = await FileLog.open(tmp.path, { segmentBytes: 4096 });
    const events = await collect(log.read());
    const ids = idsOf(events);
    // Everything acknowledged is there, in order, with no gap and no partial event.
    assert.ok(
      ids.length >= acknowledged + 1,
      `round ${round} (seed ${random.seed}): ${ids.length} events, acked up to ${acknowledged}`,
    );
    assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i));
    assert.deepEqual(events.map((e) => (e as { seq: number }).seq), ids.map((id) => id + 1));
    // Appends continue where the log ends.
    const [appended] = await log.append([remembered(`m${ids.length}`)]);
    assert.equal(appended!.seq, ids.length + 1);
    await log.close();
    next = ids.length + 1;
  }
});

Deno.test("FileLog.rewrite() killed at random moments leaves the old log or the new, never a mix", async () => {
  await using template = await tempDir();
  const seed = await FileLog.open(template.path, { segmentBytes: 4096 });
  for (let i = 0; i < 40; i++) {
    await seed.append(Array.from({ length: 50 }, (_, j) => remembered(`m${i * 50 + j}`)));
  }
  await seed.close();
  const all = Array.from({ length: 2000 }, (_, i) => i);
  // The child keeps odd sequence numbers, which hold the even ids.
  const compacted = all.filter((id) => id % 2 === 0);
  const copyTemplate = async (to: string) => {
    for (const entry of Deno.readDirSync(template.path)) {
      await Deno.copyFile(`${template.path}/${entry.name}`, `${to}/${entry.name}`);
    }
  };
  const outcome = async (dir: string) => {
    const log = await FileLog.open(dir);
    const ids = JSON.stringify(idsOf(await collect(log.read())));
    await log.close();
    if (ids === JSON.stringify(all)) return "old";
    if (ids === JSON.stringify(compacted)) return "new";
    return `a mix of ${JSON.parse(ids).length} events`;
  };
  // One uninterrupted run tells how long a compaction takes here, from its first write.
  let duration: number;
  {
    await using tmp = await tempDir();
    await copyTemplate(tmp.path);
    const { output, ranMs } = await runUntilKilled(["compact", tmp.path], 60_000, "done");
    duration = ranMs;
    assert.match(output, /done/);
    assert.equal(await outcome(tmp.path), "new");
  }
  // Each round is killed in its own eighth of that time, at a seeded moment within it.
  const random = new Random(fuzzSeed());
  const outcomes: string[] = [];
  for (let round = 0; round < 8; round++) {
    await using tmp = await tempDir();
    await copyTemplate(tmp.path);
    await runUntilKilled(["compact", tmp.path], (round + random.next()) / 8 * duration);
    const result = await outcome(tmp.path);
    assert.ok(
      result === "old" || result === "new",
      `round ${round} (seed ${random.seed}): ${result}`,
    );
    outcomes.push(result);
  }
  // The early kills land before the rewrite commits: the old log is what they leave.
  assert.ok(
    outcomes.includes("old"),
    `no kill cut a rewrite short: ${outcomes} (seed ${random.seed})`,
  );
});
