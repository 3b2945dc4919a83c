/**
 * `deno task bench team`: the team store through real nats-servers on 127.0.0.1.
 * Sync: a store offline for 1,000 memories catching up (published, then taken
 * in by another member), and one memory from one member to another (a pass on
 * each) on one server and on a 3-node cluster; the memories' vectors come from
 * the stand-in endpoint, so the figures are the sync's. Vectors: a folder
 * (cairn's `events/` and `projections/`) indexed with the shipped model on
 * member A, then on member B, which takes A's vectors from the team: the
 * seconds until each can search it by meaning, and the texts B's model
 * embedded (0 is the point). Skipped, saying why, when nats-server is not installed.
 * @module
 */
import { join } from "node:path";
import type { Embedder } from "../text/embedder.ts";
import { CachedEmbedder } from "../src/embed/cache.ts";
import { shippedModelDir } from "../src/embed/load.ts";
import { OnnxEmbedder } from "../src/embed/onnx_embedder.ts";
import { shareVectors } from "../src/embed/shared_vectors.ts";
import { openCairn } from "../src/service/cairn.ts";
import { loadTeamConfig } from "../src/team/config.ts";
import { teamSyncFor } from "../src/team/sync.ts";
import { TeamVectors } from "../src/team/team_vectors.ts";
import { eventually, NATS_SERVER, NatsServer } from "../test/team/nats_server.ts";
import { MissingBenchData } from "./data.ts";
import { percentile, runInfo, writeSection } from "./report.ts";
import { type StandInEmbedder, startStandInEmbedder } from "./stand_in_embedder.ts";

const OFFLINE = 1_000;
const ROUNDS = 50;
const CLUSTER_ROUNDS = 21;
const ROOT = new URL("..", import.meta.url).pathname;
const FOLDERS = ["events", "projections"];

/** Measures the team store and records the figures in bench/RESULTS.md. */
export async function benchTeam(): Promise<void> {
  if (!NATS_SERVER) {
    throw new MissingBenchData(
      "team: nats-server is not on PATH (Debian: apt-get install nats-server); nothing measured",
    );
  }
  const info = await runInfo("team");
  const load = sampleLoad();
  const sync = await benchSync();
  const cluster = await benchCluster();
  const vectors = await benchVectors();
  const loads = load.stop();

  const ms = (n: number) => n.toFixed(0);
  const cores = navigator.hardwareConcurrency || 1;
  const body = [
    "## Team store: sync through NATS JetStream, vectors computed once",
    "",
    `**Machine load during the run:** 1-minute load average ${loads.first.toFixed(1)} at the ` +
    `start, ${loads.max.toFixed(1)} at most, ${loads.last.toFixed(1)} at the end, on ${cores} ` +
    "cores (sampled every 5 s)" +
    // The member embedding on its own keeps every core busy, with nats-server beside it.
    (loads.max > cores + 1
      ? "; other work shared the machine, so every time below is slower than " +
        "on an idle one."
      : "; a load up to one above the cores is the benchmark's own."),
    "",
    `Real nats-server (${await natsVersion()}) with JetStream on 127.0.0.1; every member is a ` +
    "store of its own in this process, synced by `TeamSync.pass()` (what `cairn sync` runs). " +
    "Sync figures: memories embedded by the stand-in endpoint, so they time the sync alone.",
    "",
    "| measure | value |",
    "| --- | --- |",
    `| catch-up: ${OFFLINE} memories written offline, published on reconnect | ` +
    `${ms(sync.publishMs)} ms (${ms(OFFLINE / sync.publishMs * 1000)} events/s) |`,
    `| catch-up: the same ${OFFLINE} taken in by another member | ` +
    `${ms(sync.takeMs)} ms (${ms(OFFLINE / sync.takeMs * 1000)} events/s) |`,
    `| one memory, member to member (a pass on each), one server, ${ROUNDS} memories | ` +
    `p50 ${ms(sync.p50)} ms, p95 ${ms(sync.p95)} ms |`,
    `| a pass with nothing to do | p50 ${ms(sync.idle)} ms |`,
    `| one memory to both other members, 3-node cluster, R3, ${cluster.rounds} memories | ` +
    `p50 ${ms(cluster.p50)} ms, p95 ${ms(cluster.p95)} ms |`,
    "",
    "A pass runs when someone asks (`cairn sync`) or every 2 s in the store's owner, so a " +
    "teammate's memory shows up in up to two such intervals plus the pass times above.",
    "",
    `Vectors: ${vectors.files} files (${vectors.chunks} chunks) of cairn's ` +
    `${FOLDERS.map((f) => `\`${f}/\``).join(" and ")}, indexed with the shipped model ` +
    `(\`${vectors.model}\`, loaded before the clock starts) until every chunk has its vector.`,
    "",
    "| member | searchable by meaning after | texts its model embedded | vectors from the team |",
    "| --- | ---: | ---: | ---: |",
    `| A, embedding itself | ${vectors.a.seconds.toFixed(1)} s | ${vectors.a.embedded} | ` +
    `${vectors.a.found} |`,
    `| B, the same files, vectors from the team | ${vectors.b.seconds.toFixed(1)} s | ` +
    `${vectors.b.embedded} | ${vectors.b.found} |`,
    "",
    `B's vector-only search for "${vectors.query}" answered with \`${vectors.topHit}\` first.`,
  ].join("\n");
  await writeSection("team", info, body);
  console.log(body);
}

/** The 1-minute load average, sampled until `stop`. */
function sampleLoad(): { stop(): { first: number; max: number; last: number } } {
  const samples = [Deno.loadavg()[0]!];
  const timer = setInterval(() => samples.push(Deno.loadavg()[0]!), 5_000);
  return {
    stop() {
      clearInterval(timer);
      samples.push(Deno.loadavg()[0]!);
      return { first: samples[0]!, max: Math.max(...samples), last: samples.at(-1)! };
    },
  };
}

async function natsVersion(): Promise<string> {
  const output = await new Deno.Command(NATS_SERVER!, { args: ["--version"], stdout: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout).trim().replace(/^nats-server: /, "");
}

/** A member of a team: a fresh store whose config.json points at `servers`. */
async function member(
  name: string,
  servers: string[],
  embedder: StandInEmbedder,
  dirs: string[],
  team: Record<string, unknown> = {},
) {
  const dir = await Deno.makeTempDir({ prefix: `cairn-bench-team-${name}-` });
  dirs.push(dir);
  await Deno.writeTextFile(
    join(dir, "config.json"),
    JSON.stringify({
      embedder: { kind: "http", base_url: embedder.baseUrl, model: "stand-in", dims: 384 },
      team: { servers, projects: ["api"], member: name, ...team },
    }),
  );
  const cairn = await openCairn(dir);
  const sync = await teamSyncFor(cairn.store, (await loadTeamConfig(dir))!);
  return { name, cairn, sync };
}

type Member = Awaited<ReturnType<typeof member>>;

/** Closes the members and removes their stores. */
async function dispose(members: Member[], dirs: string[]): Promise<void> {
  for (const { cairn } of members) await cairn.close().catch(() => {});
  for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
}

async function benchSync() {
  await using embedder = startStandInEmbedder();
  await using server = await NatsServer.create(false);
  const dirs: string[] = [];
  const members: Member[] = [];
  try {
    const alice = await member("alice", [server.url], embedder, dirs);
    members.push(alice);
    const bob = await member("bob", [server.url], embedder, dirs);
    members.push(bob);
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
    if (published.published !== OFFLINE || taken.applied !== OFFLINE) {
      throw new Error(
        `published ${published.published}, taken in ${taken.applied}, not ${OFFLINE}`,
      );
    }
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
    return {
      publishMs,
      takeMs,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      idle: percentile(idle, 0.5),
    };
  } finally {
    await dispose(members, dirs);
  }
}

async function benchCluster() {
  await using embedder = startStandInEmbedder();
  const nodes = await NatsServer.cluster(3);
  const dirs: string[] = [];
  const members: Member[] = [];
  try {
    for (const [i, name] of ["alice", "bob", "carol"].entries()) {
      // Each member knows every node, its own first.
      const servers = [...nodes.slice(i), ...nodes.slice(0, i)].map((node) => node.url);
      members.push(await member(name, servers, embedder, dirs, { replicas: 3 }));
    }
    for (const { sync } of members) await eventually(() => sync.pass());
    const latencies: number[] = [];
    for (let i = 0; i < CLUSTER_ROUNDS; i++) {
      const writer = members[i % members.length]!;
      await writer.cairn.memories.remember({
        content: `cluster round ${i}: ${writer.name} decided`,
        project: "api",
      });
      const started = performance.now();
      await writer.sync.pass();
      for (const reader of members) {
        if (reader === writer) continue;
        const report = await reader.sync.pass();
        if (report.applied !== 1) {
          throw new Error(`cluster round ${i}: ${reader.name} took in ${report.applied}`);
        }
      }
      latencies.push(performance.now() - started);
    }
    return {
      rounds: CLUSTER_ROUNDS,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
    };
  } finally {
    await dispose(members, dirs);
    for (const node of nodes) await node[Symbol.asyncDispose]();
  }
}

/** The shipped model, counting the texts it embeds (queries apart). */
class CountingEmbedder implements Embedder {
  embedded = 0;
  constructor(private readonly inner: Embedder) {}
  get id(): string {
    return this.inner.id;
  }
  get dims(): number {
    return this.inner.dims;
  }
  embedDocuments(texts: readonly string[], urgent?: boolean): Promise<Float32Array[]> {
    this.embedded += texts.length;
    return this.inner.embedDocuments(texts, urgent);
  }
  embedQuery(text: string): Promise<Float32Array> {
    return this.inner.embedQuery(text);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const QUERY = "append events to the log and cut a torn last record";

async function benchVectors() {
  await using server = await NatsServer.create();
  const work = await Deno.makeTempDir({ prefix: "cairn-bench-team-vectors-" });
  try {
    const repo = join(work, "repo");
    await Deno.mkdir(repo, { recursive: true });
    for (const folder of FOLDERS) {
      const copied = await new Deno.Command("cp", { args: ["-r", join(ROOT, folder), repo] })
        .output();
      if (!copied.success) throw new Error(`could not copy ${folder}/ into ${repo}`);
    }
    const runs: Array<{ seconds: number; embedded: number; found: number }> = [];
    let files = 0;
    let chunks = 0;
    let model = "";
    let topHit = "(nothing)";
    for (const name of ["a", "b"]) {
      const dir = join(work, name);
      await Deno.mkdir(dir);
      await Deno.writeTextFile(
        join(dir, "config.json"),
        JSON.stringify({ team: { servers: [server.url], projects: [], member: name } }),
      );
      const vectors = new TeamVectors((await loadTeamConfig(dir))!);
      shareVectors(dir, vectors);
      // The shipped model behind the store's cache, as a store opens it, but counted.
      const counted = new CountingEmbedder(
        await OnnxEmbedder.open(shippedModelDir(), { verify: false }),
      );
      await counted.embedQuery("warm up");
      model = counted.id;
      const cairn = await openCairn(dir, { embedder: await CachedEmbedder.open(counted, dir) });
      try {
        const started = performance.now();
        const report = await cairn.code.index({ path: repo, project: "bench" });
        await cairn.store.runner.settled();
        runs.push({
          seconds: (performance.now() - started) / 1000,
          embedded: counted.embedded,
          found: vectors.counts.found,
        });
        files = report.indexed;
        chunks = report.chunks;
        if (name === "b") {
          const answer = await cairn.recall.run({
            query: QUERY,
            project: "bench",
            sources: ["code"],
            limit: 3,
            mode: "vector",
          });
          const first = answer.items[0];
          if (first?.type === "code") topHit = `${first.code.path} ${first.code.name}`;
        }
      } finally {
        await cairn.close();
        shareVectors(dir, undefined);
        await vectors.close();
      }
    }
    return { files, chunks, model, a: runs[0]!, b: runs[1]!, query: QUERY, topHit };
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}
