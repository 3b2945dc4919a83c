import { FileLog } from "../events/file_log.ts";
import type { NewEvent } from "../events/schema.ts";
import { median, runInfo, writeSection } from "./report.ts";

function memory(i: number): NewEvent {
  return {
    type: "memory.remembered",
    v: 1,
    data: {
      id: `m${i}`,
      project: "bench",
      kind: "fact",
      content:
        `Benchmark memory ${i}: the deploy script runs migrations before restarting workers.`,
      tags: ["bench"],
    },
  };
}

async function timed(run: (log: FileLog) => Promise<number>): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-log-" });
  try {
    const log = await FileLog.open(dir);
    const started = performance.now();
    const events = await run(log);
    const seconds = (performance.now() - started) / 1000;
    await log.close();
    return events / seconds;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function replayRate(count: number): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-replay-" });
  try {
    const log = await FileLog.open(dir);
    for (let b = 0; b < count / 1000; b++) {
      await log.append(Array.from({ length: 1000 }, (_, i) => memory(b * 1000 + i)));
    }
    const started = performance.now();
    let read = 0;
    for await (const _ of log.read(1)) read++;
    const seconds = (performance.now() - started) / 1000;
    await log.close();
    return read / seconds;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Append throughput (single, batched, concurrent) with fsync, and replay throughput of the log. */
export async function benchLog(): Promise<void> {
  const runs = 3;
  const single: number[] = [];
  const batched: number[] = [];
  const concurrent: number[] = [];
  const replay: number[] = [];
  for (let run = 0; run < runs; run++) {
    single.push(
      await timed(async (log) => {
        for (let i = 0; i < 500; i++) await log.append([memory(i)]);
        return 500;
      }),
    );
    batched.push(
      await timed(async (log) => {
        for (let b = 0; b < 200; b++) {
          await log.append(Array.from({ length: 100 }, (_, i) => memory(b * 100 + i)));
        }
        return 20_000;
      }),
    );
    concurrent.push(
      await timed(async (log) => {
        await Promise.all(Array.from({ length: 2000 }, (_, i) => log.append([memory(i)])));
        return 2000;
      }),
    );
    replay.push(await replayRate(100_000));
  }
  const fmt = (values: number[]) => Math.round(median(values)).toLocaleString("en-US");
  const body = `## Event log

| operation | events/s (median of ${runs}) |
| --- | ---: |
| append one event at a time, fsync each | ${fmt(single)} |
| append batches of 100, one fsync per batch | ${fmt(batched)} |
| 2,000 concurrent single appends (group commit) | ${fmt(concurrent)} |
| read and decode (replay source), 100k events | ${fmt(replay)} |`;
  console.log(body);
  await writeSection("log", await runInfo("speed"), body);
}
