import { BlobError, BlobStore } from "../../events/blobs.ts";
import { blobsOf } from "../../events/compaction.ts";
import { StoreLock } from "../../events/lock.ts";
import { checkLog, repairLog } from "../../events/verify.ts";
import { storeLayout } from "../service/paths.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";
import { checkStoreModel } from "./verify_model.ts";
import { askOwnerToStepAside } from "./step_aside.ts";
import { checkProjections } from "../service/projection_check.ts";
import { brokenBlobs, restoreCodeBlobs } from "../service/blob_repair.ts";
import { FileLog } from "../../events/file_log.ts";
import { writeVerifyRecord } from "../service/verify_record.ts";
import { plural } from "../recall/vector_lag.ts";

/**
 * `cairn verify`: checks every record and blob of a store and every file of its
 * embedding model; `--repair` keeps what can be read of the log.
 */
export const verify: Command = {
  name: "verify",
  summary: "check the whole store (log records, events, blobs, projections, the embedding " +
    "model's files); " +
    "--repair keeps every readable event",
  usage: "cairn verify [--repair]",
  needsStore: () => true,
  async run(context: CommandContext): Promise<number> {
    const { values } = parseCommandArgs(context.args, { repair: { type: "boolean" } });
    const layout = storeLayout(context.storeDir);
    if (values.repair) return await repair(context, layout);
    const blobs = new BlobStore(layout.blobs);
    const blobProblems: string[] = [];
    const unreadable = new Set<string>();
    // A finished purge leaves no text of its memory in the log (a team's store writes the
    // `memory.purged` again, for the others to take, once the memory's events are gone).
    const purged: string[] = [];
    const withText = new Set<string>();
    const check = await checkLog(layout.log, async (event) => {
      if (event.type === "memory.purged") purged.push(event.data.id);
      if (
        event.type === "memory.remembered" ||
        (event.type === "memory.revised" && event.data.content !== undefined)
      ) withText.add(event.data.id);
      for (const hash of blobsOf(event)) {
        try {
          await blobs.get(hash);
        } catch (error) {
          if (!(error instanceof BlobError)) throw error;
          blobProblems.push(`event ${event.seq}: ${error.message}`);
          unreadable.add(hash);
        }
      }
    });
    context.out(
      `${plural(check.events, "event")} in ${
        plural(check.segments, "segment")
      }, head ${check.head}`,
    );
    for (const problem of check.problems) {
      const where = problem.offset === undefined ? "" : ` at byte ${problem.offset}`;
      context.out(`problem: ${problem.segment}${where}: ${problem.message}`);
    }
    for (const problem of blobProblems) context.out(`problem: ${problem}`);
    const unfinishedPurges = [...new Set(purged)].filter((id) => withText.has(id));
    for (const id of unfinishedPurges) {
      context.out(
        `problem: the purge of memory ${id} did not finish: its content is still in the log; ` +
          "`cairn compact` finishes it (the next open does, after a crash)",
      );
    }
    const projections = await checkProjections(context.storeDir, (hash) => unreadable.has(hash));
    if ("skipped" in projections) {
      context.out(
        `projections not checked: ${projections.skipped}; \`cairn stop\` stops the store's ` +
          "owner, then `cairn verify` checks them too",
      );
    } else {
      context.out(`projections ${projections.checked.join(", ")} opened`);
      if (projections.notCounted) context.out(projections.notCounted);
    }
    const projectionProblems = "problems" in projections ? projections.problems : [];
    for (const problem of projectionProblems) context.out(`problem: ${problem}`);
    const model = await checkStoreModel(context.storeDir);
    context.out(model.summary);
    for (const problem of model.problems) context.out(`problem: ${problem}`);
    const logProblems = check.problems.length + blobProblems.length + unfinishedPurges.length;
    const total = logProblems + model.problems.length + projectionProblems.length;
    const at = new Date().toISOString();
    await writeVerifyRecord(context.storeDir, { at, head: check.head, problems: total });
    if (total === 0) {
      context.out(
        "skipped" in projections
          ? "ok: every record, event and blob checks out, and so does the model (the projections were not checked)"
          : "ok: every record, event and blob checks out, and so do the projections and the model",
      );
      return 0;
    }
    const problems = `${total} ${total === 1 ? "problem" : "problems"}`;
    context.out(
      logProblems > 0
        ? `${problems}; \`cairn verify --repair\` keeps every readable event`
        : `${problems}, each with what to do`,
    );
    return 1;
  },
};

async function repair(
  context: CommandContext,
  layout: ReturnType<typeof storeLayout>,
): Promise<number> {
  await askOwnerToStepAside(context);
  const lock = await StoreLock.acquire(context.storeDir);
  try {
    const result = await repairLog(layout.log);
    for (const problem of result.problems) {
      context.out(`dropped: ${problem.segment} ${problem.offset ?? ""} ${problem.message}`.trim());
    }
    for (const [from, to] of result.lost) {
      context.out(
        `lost: ${from === to ? `event ${from}` : `events ${from} to ${to}`} (unreadable)`,
      );
    }
    const log = await FileLog.open(layout.log, { readOnly: true });
    try {
      const blobs = new BlobStore(layout.blobs);
      const broken = await brokenBlobs(log, blobs);
      if (broken.size > 0) {
        const { restored, lost } = await restoreCodeBlobs(log, blobs, broken);
        context.out(
          `blobs: ${restored} of ${broken.size} missing or damaged restored from the files they ` +
            `came from${
              lost.length ? `; ${lost.length} lost (their documents go without text)` : ""
            }`,
        );
      }
    } finally {
      await log.close();
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
