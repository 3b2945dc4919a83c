/**
 * Team sync through a real nats-server on 127.0.0.1 (`deno run -A bench/team_sync.ts`):
 * a store offline for 1,000 memories catching up (publish, then another
 * member taking them in), and the latency of one memory from one member to
 * another (a pass on each), p50/p95 over 50 memories. Embeddings come from the
 * stand-in endpoint, so the numbers are the sync's alone.
 * @module
 */
import { openCairn } from "../src/service/cairn.ts";
import { loadTeamConfig } from "../src/team/config.ts";
import { TeamSync, teamSyncFor } from "../src/team/sync.ts";
import { NatsServer } from "../test/team/nats_server.ts";
import { startStandInEmbedder } from "./stand_in_embedder.ts";

const OFFLINE = 1_000;
const ROUNDS = 50;

function percentile(values: number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

await using embedder = startStandInEmbedder();
await using server = await NatsServer.create(false);
const dirs: string[] = [];
async function member(name: string) {
  const dir = await Deno.makeTempDir({ prefix: `cairn-bench-team-${name}-` });
  dirs.push(dir);
  await Deno.writeTextFile(
    `${dir}/config.json`,
    JSON.stringify({
      embedder: { kind: "http", base_url: embedder.baseUrl, model: "stand-in", dims: 384 },
      team: { servers: [server.url], projects: ["api"], member: name },
    }),
  );
  const cairn = await openCairn(dir);
  const sync = await teamSyncFor(cairn.store, (await loadTeamConfig(dir))!);
  return { cairn, sync };
}

const alice = await member("alice");
const bob = await member("bob");
try {
  await alice.cairn.memories.importMany(
    Array.from({ length: OFFLINE }, (_, i) => ({
      content: `offline decision number ${i}: the service keeps ${i} replicas`,
      project: "api",
    })),
  );
  await server.start();
  let started = performance.now();
  const published = await alice.sync.pass();
  const publishMs = performance.now() - started;
  started = performance.now();
  const taken = await bob.sync.pass();
  const takeMs = performance.now() - started;
  console.log(
    `catch-up of ${OFFLINE}: published ${published.published} in ${publishMs.toFixed(0)} ms ` +
      `(${(published.published / publishMs * 1000).toFixed(0)} events/s); taken in ` +
      `${taken.applied} in ${takeMs.toFixed(0)} ms (${
        (taken.applied / takeMs * 1000).toFixed(0)
      } events/s)`,
  );

  started = performance.now();
  const fresh = new TeamSync(bob.cairn.store, (await loadTeamConfig(dirs[1]!))!, "bob");
  await fresh.ledger();
  console.log(
    `ledger folded from a log of ${bob.cairn.store.log.head} events in ` +
      `${(performance.now() - started).toFixed(0)} ms`,
  );

  const latencies: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await alice.cairn.memories.remember({
      content: `round ${i}: a fresh decision`,
      project: "api",
    });
    const t0 = performance.now();
    await alice.sync.pass();
    const report = await bob.sync.pass();
    latencies.push(performance.now() - t0);
    if (report.applied !== 1) throw new Error(`round ${i}: bob took in ${report.applied}`);
    const t1 = performance.now();
    await bob.sync.pass();
    idle.push(performance.now() - t1);
  }
  console.log(
    `one memory, a pass on each member: p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
      `p95 ${percentile(latencies, 95).toFixed(1)} ms; a pass with nothing to do: ` +
      `p50 ${percentile(idle, 50).toFixed(1)} ms`,
  );
} finally {
  await alice.cairn.close();
  await bob.cairn.close();
  for (const dir of dirs) await Deno.remove(dir, { recursive: true });
}
