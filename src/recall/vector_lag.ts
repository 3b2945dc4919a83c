/**
 * How far the vectors are behind, in words: what waits for a vector and how
 * long it should take, for recall's notes, `cairn status` and `index --wait`.
 * @module
 */
import type { PendingDocuments } from "../../projections/vectors/backlog.ts";

/** What waits for a vector, and the recent embedding rate (texts per second) if known. */
export interface VectorLag {
  pending: PendingDocuments[];
  rate?: number;
}

/** Documents waiting in all of `lag`. */
export function waitingCount(lag: VectorLag): number {
  return lag.pending.reduce((sum, p) => sum + p.documents, 0);
}

/** The part of `lag` a search over `sources` in `project` (all when null) would miss. */
export function lagWithin(
  lag: VectorLag,
  sources: readonly string[],
  project: string | null,
): VectorLag {
  const pending = lag.pending.filter((p) =>
    sources.includes(p.source) && (project === null || p.project === null || p.project === project)
  );
  return { pending, ...(lag.rate === undefined ? {} : { rate: lag.rate }) };
}

/**
 * `412 code chunks of flask, 3 memories and 20 session turns (about 35 s)`;
 * the chunks of files recall lowers, which wait behind a project's own code,
 * as `1200 chunks of flask's tests, docs and data`.
 */
export function lagText(lag: VectorLag): string {
  const parts = lag.pending.map((p) => {
    if (p.source === "memory") return plural(p.documents, "memory", "memories");
    if (p.source === "entity") {
      return plural(p.documents, "fact of the graph", "facts of the graph");
    }
    if (p.lowered) {
      const of = p.project === null ? " of" : ` of ${p.project}'s`;
      return `${plural(p.documents, "chunk")}${of} tests, docs and data`;
    }
    const what = p.source === "code" ? plural(p.documents, "code chunk", "code chunks") : plural(
      p.documents,
      "session turn",
      "session turns",
    );
    return p.project === null ? what : `${what} of ${p.project}`;
  });
  const listed = parts.length > 1
    ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
    : parts[0] ?? "nothing";
  const eta = etaSeconds(lag);
  return eta === undefined ? listed : `${listed} (about ${formatSeconds(eta)})`;
}

/** Seconds until every waiting document has its vector, at the recent rate; undefined if unknown. */
export function etaSeconds(lag: VectorLag): number | undefined {
  return lag.rate ? waitingCount(lag) / lag.rate : undefined;
}

/** `35 s`, `4 min`, `2 h 10 min`. */
export function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `1 event`, `3 events`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
