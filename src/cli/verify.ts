import { BlobError, BlobStore } from "../../events/blobs.ts";
import { blobsOf } from "../../events/compaction.ts";
import { StoreLock } from "../../events/lock.ts";
import { checkLog, repairLog } from "../../events/verify.ts";
import { EmbedderError } from "../embed/embedder.ts";
import { shippedModelDir } from "../embed/load.ts";
import { loadModelFolder } from "../embed/manifest.ts";
import { storeLayout } from "../service/paths.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";

/** `cairn verify`: checks every record and blob of a store; `--repair` keeps what can be read. */
export const verify: Command = {
  name: "verify",
  summary:
    "check the whole store (log records, events, blobs); --repair keeps every readable event",
  usage: "cairn verify [--repair]",
  async run(context: CommandContext): Promise<number> {
    const { values } = parseCommandArgs(context.args, { repair: { type: "boolean" } });
    const layout = storeLayout(context.storeDir);
    if (values.repair) return await repair(context, layout);
    const blobs = new BlobStore(layout.blobs);
    const blobProblems: string[] = [];
    const check = await checkLog(layout.log, async (event) => {
      for (const hash of blobsOf(event)) {
        try {
          await blobs.get(hash);
        } catch (error) {
          if (!(error instanceof BlobError)) throw error;
          blobProblems.push(`event ${event.seq}: ${error.message}`);
        }
      }
    });
    context.out(`${check.events} events in ${check.segments} segments, head ${check.head}`);
    for (const problem of check.problems) {
      const where = problem.offset === undefined ? "" : ` at byte ${problem.offset}`;
      context.out(`problem: ${problem.segment}${where}: ${problem.message}`);
    }
    for (const problem of blobProblems) context.out(`problem: ${problem}`);
    const modelProblem = await checkModel();
    if (modelProblem) context.out(`problem: ${modelProblem}`);
    const total = check.problems.length + blobProblems.length + (modelProblem ? 1 : 0);
    if (total === 0) {
      context.out("ok: every record, event and blob checks out, and so does the model");
      return 0;
    }
    context.out(`${total} problems; \`cairn verify --repair\` keeps every readable event`);
    return 1;
  },
};

/** Checks the shipped model's files against their sha256; returns the problem, if any. */
async function checkModel(): Promise<string | undefined> {
  try {
    await loadModelFolder(shippedModelDir(), { verify: true });
    return undefined;
  } catch (error) {
    if (error instanceof EmbedderError) return error.message;
    throw error;
  }
}

async function repair(
  context: CommandContext,
  layout: ReturnType<typeof storeLayout>,
): Promise<number> {
  const lock = await StoreLock.acquire(context.storeDir);
  try {
    const result = await repairLog(layout.log);
    for (const problem of result.problems) {
      context.out(`dropped: ${problem.segment} ${problem.offset ?? ""} ${problem.message}`.trim());
    }
    await new FileCheckpoints(layout.projections).clear();
    context.out(
      `repaired: kept ${result.events} readable events (head ${result.head}); ` +
        "projections will be rebuilt on next open",
    );
    return 0;
  } finally {
    await lock.release();
  }
}
