import { resolve } from "node:path";
import type { IndexReport } from "../service/code_index.ts";
import { skippedLines, statusLines } from "../service/index_status.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";
import { embeddingProgressText, indexProgressText, ProgressLine } from "./progress.ts";
import type { Cairn } from "../service/cairn.ts";
import { watchIndex } from "./index_watch.ts";

/** `cairn index PATH`: indexes a folder's code as a project, incrementally. */
export const indexCommand: Command = {
  name: "index",
  relayed: true,
  summary: "index a repository's code (again: only what changed)",
  usage: "cairn index PATH [--project NAME] [--watch] [--no-wait] [--json]\n" +
    "       cairn index --status [PROJECT] [--json]\n\n" +
    "  PATH       a repository, or a folder in one (only that folder is scanned)\n" +
    "  --project  the project's name (default: the repository's folder name)\n" +
    "  --watch    stay running and re-index as files change (batched after 500 ms of quiet;\n" +
    "             through the store's owner while one runs)\n" +
    "  --status   show what is indexed: files, chunks, last run and what it skipped\n" +
    "  --no-wait  return before the chunks' embeddings are computed (the next open does it)",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      project: { type: "string" },
      watch: { type: "boolean" },
      status: { type: "boolean" },
      "no-wait": { type: "boolean" },
      json: { type: "boolean" },
    }, true);
    if (positionals.length > 1) {
      throw new UsageError(`one PATH at most, got also "${positionals[1]}"`);
    }
    if (values.status) {
      const projects = await withCairn(
        context,
        (cairn) => cairn.code.status(positionals[0]),
        { warn: context.err },
      );
      if (values.json) context.out(JSON.stringify(projects));
      else if (projects.length === 0) context.out("no projects indexed; run `cairn index PATH`");
      else {for (const project of projects) {
          for (const line of statusLines(project)) context.out(line);
        }}
      return 0;
    }
    const [path] = positionals;
    if (!path) throw new UsageError("give the folder to index");
    const input = {
      path: resolve(context.cwd, path),
      ...(values.project ? { project: values.project } : {}),
    };
    if (values.watch) {
      const settle = values["no-wait"] !== true;
      return await watchIndex(context, input, settle, (report) => {
        for (const line of summary(report)) context.out(line);
      });
    }
    const line = new ProgressLine(context.err);
    // A command relayed to the owner answers once, at the end: no progress lines.
    const quiet = values.json === true || context.owner !== undefined;
    const report = await withCairn(context, async (cairn) => {
      const started = performance.now();
      const elapsed = () => (performance.now() - started) / 1000;
      const report = await cairn.code.index(
        input,
        quiet ? undefined : (progress) => line.show(indexProgressText(progress, elapsed())),
      );
      if (values["no-wait"] !== true) {
        await embedded(cairn, quiet ? undefined : line);
      }
      await cairn.text.saveIndexes();
      line.end();
      return report;
    }, { warn: context.err });
    if (values.json) context.out(JSON.stringify(report));
    else for (const line of summary(report)) context.out(line);
    return 0;
  },
};

/** Waits for the chunks' embeddings, showing how many files are left. */
async function embedded(cairn: Cairn, line: ProgressLine | undefined): Promise<void> {
  const left = () => cairn.store.runner.status().find((p) => p.name === "vectors")?.lag ?? 0;
  const first = left();
  const started = performance.now();
  const settled = cairn.store.runner.settled();
  let done = false;
  const finish = () => (done = true);
  settled.then(finish, finish);
  while (!done && line) {
    if (left() > 0) {
      line.show(
        embeddingProgressText(first - left(), left(), (performance.now() - started) / 1000),
      );
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([settled, new Promise((wake) => (timer = setTimeout(wake, 500)))]);
    clearTimeout(timer);
  }
  await settled;
}

/** The human summary of one index run. */
export function summary(report: IndexReport): string[] {
  const rate = report.indexed >= 100
    ? `, ${Math.round(report.indexed / report.seconds)} files/s`
    : "";
  return [
    `indexed project ${report.project} (${report.root}): ${report.indexed} files indexed, ` +
    `${report.unchanged} unchanged, ${report.removed} removed, ${report.skipped} skipped; ` +
    `${report.chunks} chunks in ${report.seconds.toFixed(2)} s${rate}`,
    ...skippedLines(report),
  ];
}
