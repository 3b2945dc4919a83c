/**
 * What went wrong, classified once for the CLI and MCP alike: input to fix,
 * something not found, something not ready (the store held by another
 * process, a model that cannot be used), a damaged store (its message says
 * how to repair it), a full disk, or a fault of cairn's own (the only kind
 * whose stack is worth logging).
 * @module
 */
import { z } from "zod";
import { BlobError } from "../../events/blobs.ts";
import { isDiskFull } from "../../events/disk_full.ts";
import { StoreLockedError } from "../../events/lock.ts";
import { LogCorruptError } from "../../events/log.ts";
import { EventDecodeError } from "../../events/schema.ts";
import { ModelMismatchError } from "../../projections/vectors/vectors_projection.ts";
import { EmbedderError } from "../embed/embedder.ts";
import { describeIssues, NotFoundError, UserError } from "../errors.ts";
import { AppendedButBehind } from "../service/store.ts";

/** The kinds of failure. */
export type FailureKind =
  | "bad_input"
  | "not_found"
  | "not_ready"
  | "damaged"
  | "disk_full"
  | "internal";

/** A failure, classified, with the words to tell it in. */
export interface Failure {
  kind: FailureKind;
  message: string;
}

const NOT_READY = [StoreLockedError, EmbedderError, ModelMismatchError, AppendedButBehind];
const STORE_DAMAGE = [LogCorruptError, EventDecodeError, BlobError];

/** Classifies `error` and says it in words a person or an agent can act on. */
export function classify(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof z.ZodError) return { kind: "bad_input", message: describeIssues(error) };
  if (error instanceof NotFoundError) return { kind: "not_found", message };
  if (NOT_READY.some((kind) => error instanceof kind)) return { kind: "not_ready", message };
  if (STORE_DAMAGE.some((kind) => error instanceof kind)) return { kind: "damaged", message };
  if (error instanceof UserError) return { kind: "bad_input", message };
  if (error instanceof Deno.errors.PermissionDenied) {
    return {
      kind: "bad_input",
      message: `${message}: cairn writes in its store (its lock and log, even to read) and in ` +
        "the folders it is told to write; give this user write access, or use a store it may " +
        "write (--store, CAIRN_HOME)",
    };
  }
  if (isDiskFull(error)) {
    return {
      kind: "disk_full",
      message: `the disk is full (${message}); free some space and run it again: what was ` +
        "written before is kept",
    };
  }
  return { kind: "internal", message };
}
