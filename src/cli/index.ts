import { resolve } from "node:path";
import { index, indexStatus, indexText, reportLines } from "../ops/code_ops.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { UserError } from "../errors.ts";
import { withCairn } from "./with_cairn.ts";
import { vectorProgressText } from "../ops/progress_text.ts";
import { lagWithin, plural, waitingCount } from "../recall/vector_lag.ts";
import type { Cairn } from "../service/cairn.ts";
import { watchIndex } from "./index_watch.ts";

/** `cairn index PATH`: indexes a folder's code as a project, incrementally. */
export const indexCommand: Command = {
  name: "index",
  summary: "index a repository's code (again: only what changed)",
  usage: "cairn index PATH [--project NAME] [--watch] [--wait | --no-wait] [--json]\n" +
    "       cairn index --status [PROJECT] [--json]\n\n" +
    "  PATH       a repository, or a folder in one (only that folder is scanned)\n" +
    "  --project  the project's name (default: the repository's folder name)\n" +
    "  --watch    stay running and re-index as files change (batched after 500 ms of quiet;\n" +
    "             through the store's owner while one runs)\n" +
    "  --status   show what is indexed: files, chunks, last run and what it skipped\n" +
    "  --wait     wait until every vector is in, showing how far (the store's owner\n" +
    "             otherwise computes them in the background: words and the graph find\n" +
    "             the code at once, meaning as soon as the vectors are in)\n" +
    "  --no-wait  with --no-owner: return before the vectors are computed (the next open does it)",
  needsStore: (args) => args.includes("--status"),
  // Before an owner is started or asked: a command line that cannot run starts nothing.
  check(args) {
    const { values, positionals } = indexArgs(args);
    if (values.wait && values["no-wait"]) throw new UsageError("--wait or --no-wait, not both");
    if (positionals.length > 1) {
      throw new UsageError(`one PATH at most, got also "${positionals[1]}"`);
    }
    if (!values.status && positionals.length === 0) {
      throw new UsageError("give the folder to index");
    }
  },
  async run(context) {
    const { values, positionals } = indexArgs(context.args);
    if (values.status) {
      const input = positionals[0] ? { project: positionals[0] } : {};
      const all = await withCairn(context, (cairn) => indexStatus.run(cairn, input, context), {
        warn: context.err,
      });
      const rendered = indexStatus.render(all, input);
      context.out(values.json ? JSON.stringify(rendered.json) : rendered.text);
      return 0;
    }
    const input = {
      path: resolve(context.cwd, positionals[0]!),
      ...(values.project ? { project: values.project } : {}),
    };
    if (values.watch) {
      const settle = values["no-wait"] !== true;
      return await watchIndex(context, input, settle, (report) => {
        for (const line of reportLines(report)) context.out(line);
      });
    }
    const quiet = values.json === true;
    // The owner computes vectors after the command; a store opened here must have them before it closes.
    const wait = context.owner ? values.wait === true : values["no-wait"] !== true;
    const { result, vectors } = await withCairn(context, async (cairn) => {
      const result = await index.run(cairn, input, {
        cwd: context.cwd,
        roots: context.roots,
        ...(quiet ? {} : { progress: context.progress }),
      });
      if (!wait) return { result };
      const vectors = await vectorsIn(
        cairn,
        result.report.project,
        quiet ? () => {} : context.progress,
      );
      return { result: { ...result, lag: await cairn.vectorLag() }, vectors };
    }, { warn: context.err });
    context.out(
      values.json ? JSON.stringify(result.report) : indexText({
        ...result,
        ...(vectors ? { vectors } : {}),
        ...(context.owner ? {} : { leftForNextOpen: true }),
      }),
    );
    return 0;
  },
};

/** `index`'s arguments, parsed. */
function indexArgs(args: string[]) {
  return parseCommandArgs(args, {
    project: { type: "string" },
    watch: { type: "boolean" },
    status: { type: "boolean" },
    wait: { type: "boolean" },
    "no-wait": { type: "boolean" },
    json: { type: "boolean" },
  }, true);
}

/**
 * Waits until every chunk of `project` that gets a vector has it (other
 * projects' may still wait), showing how many are left; says how many it
 * waited for.
 */
async function vectorsIn(
  cairn: Cairn,
  project: string,
  progress: (text: string, done?: number) => void,
): Promise<{ computed: number; seconds: number }> {
  const started = performance.now();
  const waiting = async () => waitingCount(lagWithin(await cairn.vectorLag(), ["code"], project));
  const first = await waiting();
  const settled = cairn.store.runner.settled();
  let done = false;
  const finish = () => (done = true);
  settled.then(finish, finish);
  // Each pause ends early when the vectors are in, or when the owner stops.
  let wake = () => {};
  const interrupted = cairn.store.interrupted;
  const onInterrupt = () => wake();
  interrupted.addEventListener("abort", onInterrupt);
  try {
    while (!done) {
      const left = await waiting();
      if (left === 0) break;
      if (interrupted.aborted) {
        throw new UserError(
          `the store's owner is stopping with ${
            plural(left, "vector")
          } of ${project} still to compute: ` +
            "the next owner computes them (`cairn index --wait` waits again)",
        );
      }
      const seconds = (performance.now() - started) / 1000;
      progress(
        vectorProgressText(first - left, left, seconds),
        first ? 1 - left / first : undefined,
      );
      const timer = setTimeout(() => wake(), 500);
      await Promise.race([settled, new Promise<void>((resolve) => (wake = resolve))]);
      clearTimeout(timer);
    }
  } finally {
    interrupted.removeEventListener("abort", onInterrupt);
  }
  return { computed: first, seconds: (performance.now() - started) / 1000 };
}
