/**
 * Memories: their texts, import records, making some, and checking them against what was acknowledged.
 * @module
 */
import { join } from "node:path";
import { brief, cairnOk } from "./cairn.ts";
import { listAll, type Memory, textsInLog } from "./checks.ts";
import type { Context } from "./context.ts";
import { lines } from "./output.ts";
import type { Check } from "./tally.ts";

/** Compares the memories a store lists with what was acknowledged. */
export async function checkMemories(
  store: string,
  expected: Map<string, string>,
  options: {
    project?: string;
    /** Acknowledged as forgotten (must be listed as forgotten). */
    forgotten?: Set<string>;
    /** Acknowledged as purged (must not be listed, nor be in the log). */
    purged?: Map<string, string>;
    /** The one write that was running at the kill: either outcome is right. */
    inflight?: { id: string; content?: string; forget?: boolean; purge?: boolean };
  } = {},
): Promise<Check & { memories: Map<string, Memory> }> {
  const memories = new Map<string, Memory>();
  const listed = await listAll(store, options.project);
  const lost: string[] = [];
  const duplicated: string[] = [];
  for (const memory of listed) {
    if (memories.has(memory.id)) duplicated.push(`${memory.id} listed twice`);
    memories.set(memory.id, memory);
  }
  const inflight = options.inflight;
  for (const [id, content] of expected) {
    const memory = memories.get(id);
    const running = inflight?.id === id;
    if (!memory) {
      if (!(running && inflight.purge)) lost.push(`memory ${id} is gone`);
      continue;
    }
    if (memory.content !== content && !(running && memory.content === inflight.content)) {
      lost.push(
        `memory ${id} reads "${brief(memory.content, 80)}", not the acknowledged "${
          brief(content, 80)
        }"`,
      );
    }
    const forgotten = memory.forgotten_at !== undefined;
    const shouldBe = options.forgotten?.has(id) ?? false;
    if (forgotten !== shouldBe && !(running && (inflight.forget || inflight.purge))) {
      lost.push(
        shouldBe ? `memory ${id} was forgotten (acknowledged) but is not` : `memory ${id} is ` +
          "forgotten, though nothing acknowledged forgetting it",
      );
    }
  }
  const purged = options.purged ?? new Map<string, string>();
  for (const id of purged.keys()) {
    if (memories.has(id)) lost.push(`memory ${id} was purged (acknowledged) but is still listed`);
  }
  const inLog = await textsInLog(store, [...purged.values()]);
  for (const [id, content] of purged) {
    const files = inLog.get(content);
    if (files) lost.push(`the purged content of ${id} is still in ${files.join(", ")}`);
  }
  return {
    checked: expected.size + purged.size,
    lost,
    duplicated,
    memories,
  };
}

/** The text of memory number `n`, with random words no other memory shares. */
export function memoryText(ctx: Context, n: number): string {
  const { rng } = ctx;
  return `Crash note ${n}: the ${rng.word()} service keeps ${rng.word()} records for ${
    rng.int(2, 900)
  } days`;
}

/** The memories `remember --json` lines (CLI) acknowledged: id and the content it stored. */
export function remembered(out: string): Array<{ id: string; content: string }> {
  const made: Array<{ id: string; content: string }> = [];
  for (const line of lines(out)) {
    if (!line.startsWith("{")) continue;
    try {
      const memory = (JSON.parse(line) as { memory?: { id?: unknown; content?: unknown } }).memory;
      if (typeof memory?.id === "string" && typeof memory.content === "string") {
        made.push({ id: memory.id, content: memory.content });
      }
    } catch { /* not a remember answer */ }
  }
  return made;
}

/** JSONL records for `cairn import`, with ids. */
export function importRecords(
  ctx: Context,
  prefix: string,
  count: number,
  project: string,
): Array<{ id: string; content: string; project: string }> {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    content: `Imported record ${prefix} ${i}: the ${ctx.rng.word()} queue drains ` +
      `${ctx.rng.word()} jobs every ${ctx.rng.int(2, 900)} seconds`,
    project,
  }));
}

/** Writes `records` to `path`, one JSON line each. */
export async function writeJsonl(path: string, records: unknown[]): Promise<void> {
  await Deno.writeTextFile(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

/** A few memories made with `remember --json`, for the workloads that change memories. */
export async function rememberSome(
  ctx: Context,
  store: string,
  count: number,
  project: string,
): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const text = memoryText(ctx, i);
    const ran = await cairnOk(store, ["remember", text, "--project", project, "--json"]);
    made.set((JSON.parse(ran.out) as { memory: { id: string } }).memory.id, text);
  }
  return made;
}

/** Imports `count` records and returns their memories' ids and contents. */
export async function importSome(
  ctx: Context,
  store: string,
  count: number,
  project: string,
): Promise<Map<string, string>> {
  const file = join(ctx.tmp, `${project}-seed.jsonl`);
  await writeJsonl(file, importRecords(ctx, project, count, project));
  await cairnOk(store, ["import", file]);
  return new Map((await listAll(store, project)).map((m) => [m.id, m.content]));
}
