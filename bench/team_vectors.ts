/**
 * Vectors computed once for a team (`deno run -A bench/team_vectors.ts [FOLDER]`):
 * member A indexes a folder (default: cairn's `events/` and `projections/`)
 * with the shipped model, sharing its vectors through a real nats-server on
 * 127.0.0.1; member B indexes the same folder and takes them from the team.
 * Prints the time until each can search by meaning, and how many texts B's
 * model embedded (0 is the point).
 * @module
 */
import { join } from "node:path";
import { shareVectors } from "../src/embed/shared_vectors.ts";
import { openCairn } from "../src/service/cairn.ts";
import { loadTeamConfig } from "../src/team/config.ts";
import { TeamVectors } from "../src/team/team_vectors.ts";
import { NatsServer } from "../test/team/nats_server.ts";

const root = new URL("..", import.meta.url).pathname;
const folders = Deno.args.length ? Deno.args : [join(root, "events"), join(root, "projections")];

await using server = await NatsServer.create();
const work = await Deno.makeTempDir({ prefix: "cairn-bench-vectors-" });
try {
  const repo = join(work, "repo");
  await Deno.mkdir(repo, { recursive: true });
  for (const folder of folders) {
    await new Deno.Command("cp", { args: ["-r", folder, repo] }).output();
  }
  const seconds: number[] = [];
  const counts: string[] = [];
  for (const name of ["a", "b"]) {
    const dir = join(work, name);
    await Deno.mkdir(dir);
    await Deno.writeTextFile(
      join(dir, "config.json"),
      JSON.stringify({ team: { servers: [server.url], projects: [], member: name } }),
    );
    const vectors = new TeamVectors((await loadTeamConfig(dir))!);
    shareVectors(dir, vectors);
    const cairn = await openCairn(dir, { warmModel: true });
    try {
      const started = performance.now();
      const report = await cairn.code.index({ path: repo, project: "bench" });
      await cairn.store.runner.settled();
      seconds.push((performance.now() - started) / 1000);
      // Every vector the model computes is offered to the team: written = computed here.
      counts.push(
        `${name}: ${report.indexed} files, ${vectors.counts.written} texts embedded by its model, ` +
          `${vectors.counts.found} vectors from the team`,
      );
    } finally {
      await cairn.close();
      shareVectors(dir, undefined);
      await vectors.close();
    }
  }
  console.log(counts.join("; "));
  console.log(
    `searchable by meaning after: A (embedding itself) ${seconds[0]!.toFixed(1)} s, ` +
      `B (vectors from the team) ${seconds[1]!.toFixed(1)} s`,
  );
} finally {
  await Deno.remove(work, { recursive: true });
}
