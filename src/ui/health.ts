/**
 * The web view's health page, as data: what `cairn status` says of the store
 * (counts, vectors still to compute, projections and the model), each
 * project's code index, the log's segments, and the owner serving the page.
 * @module
 */
import { storeLayout } from "../service/paths.ts";
import { type StoreStatus, storeStatus } from "../service/store_status.ts";
import type { ProjectStatus } from "../service/code_index.ts";
import type { Cairn } from "../service/cairn.ts";
import { ownerOf, type StatusReport } from "../ops/status_ops.ts";
import { readVerifyRecord, type VerifyRecord } from "../service/verify_record.ts";

/** What the health page shows. */
export interface Health {
  status: StoreStatus;
  /** Each indexed project, with the vectors its code and sessions still wait for. */
  projects: Array<ProjectStatus & { pending: number }>;
  log: { head: number; bytes: number; segments: number };
  /** The owner serving the page; null in a test serving it without `cairn serve`. */
  owner: StatusReport["owner"];
  /** What the last `cairn verify` found, and when; null when none was recorded. */
  lastVerify: VerifyRecord | null;
}

/** The health of the open store `cairn`. */
export async function health(cairn: Cairn): Promise<Health> {
  const status = await storeStatus(cairn);
  const pendingBy = new Map<string, number>();
  for (const { project, documents } of status.vectors.lag.pending) {
    const key = project ?? "";
    pendingBy.set(key, (pendingBy.get(key) ?? 0) + documents);
  }
  const projects = (await cairn.code.status()).map((project) => ({
    ...project,
    pending: pendingBy.get(project.project) ?? 0,
  }));
  return {
    status,
    projects,
    log: {
      head: status.head,
      bytes: status.logBytes,
      segments: await segmentCount(storeLayout(cairn.store.dir).log),
    },
    owner: ownerOf(cairn),
    lastVerify: await readVerifyRecord(cairn.store.dir) ?? null,
  };
}

async function segmentCount(folder: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir(folder)) if (entry.name.endsWith(".seg")) count++;
  return count;
}
