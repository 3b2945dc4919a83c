/**
 * The lines of a vector partition's key journal: which USearch key holds the
 * vector of which document. Ids and groups are file paths and session ids, so
 * a line must carry any character a file system or a JSON string allows; each
 * line is a JSON array. Lines of the first format (tab-separated, unescaped)
 * are still read when they are unambiguous.
 * @module
 */
import { ProjectionDamage } from "../damage.ts";

/** A journal line: a vector added under `key`, or the vector under `key` removed. */
export type JournalEntry =
  | { op: "+"; key: bigint; id: string; text: string; group: string }
  | { op: "-"; key: bigint };

/** The line recording that `key` holds the vector of `id` (text hash `text`, in `group`). */
export function addedLine(key: bigint, id: string, text: string, group: string): string {
  return JSON.stringify(["+", String(key), id, text, group]);
}

/** The line recording that the vector under `key` was removed. */
export function removedLine(key: bigint): string {
  return JSON.stringify(["-", String(key)]);
}

const KEY = /^[0-9]+$/;
const HASH = /^[0-9a-f]+$/;

/**
 * Reads one line; `undefined` for an empty one. Throws {@linkcode ProjectionDamage}
 * for a line that is neither format (a crash cannot make one: the journal's
 * last, torn line is cut off before this is asked).
 */
export function parseJournalLine(line: string, where: string): JournalEntry | undefined {
  if (line === "") return undefined;
  const entry = line.startsWith("[") ? fromJson(line) : fromTabs(line);
  if (!entry) throw new ProjectionDamage(`${where}: not a key journal line`);
  return entry;
}

function fromJson(line: string): JournalEntry | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || !fields.every((field) => typeof field === "string")) {
    return undefined;
  }
  return entryOf(fields as string[]);
}

/** The first format: `+ key id hash group` or `- key`, tab-separated, nothing escaped. */
function fromTabs(line: string): JournalEntry | undefined {
  const fields = line.split("\t");
  // An id or group holding a tab made more fields: which one held it cannot be told.
  if (fields[0] === "+" && (fields.length === 4 || fields.length === 5) && HASH.test(fields[3]!)) {
    return entryOf(fields);
  }
  if (fields[0] === "-" && fields.length === 2) return entryOf(fields);
  return undefined;
}

function entryOf(fields: readonly string[]): JournalEntry | undefined {
  const [op, key, id, text, group = ""] = fields;
  if (key === undefined || !KEY.test(key)) return undefined;
  if (op === "-" && fields.length === 2) return { op, key: BigInt(key) };
  if (op !== "+" || id === undefined || text === undefined) return undefined;
  if (fields.length > 5) return undefined;
  return { op, key: BigInt(key), id, text, group };
}
