/**
 * Events and queries shared by the lexical index's tests.
 * @module
 */
import type { BlobStore } from "../../events/blobs.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import type { TextProjection, TextSearchOptions } from "../../projections/text.ts";
import { remembered } from "../helpers.ts";

let seq = 0;
/** Gives events the place and time the log would. */
export function stored(...events: NewEvent[]): StoredEvent[] {
  return events.map((event) => ({ ...event, seq: ++seq, ts: new Date(0).toISOString() }));
}

/** A `file.indexed` event of `chunks`, their texts put in `blobs`. */
export async function fileIndexed(
  blobs: BlobStore,
  project: string,
  path: string,
  chunks: Array<{ id: string; name: string; text: string }>,
): Promise<NewEvent> {
  const hashes = await blobs.putMany(chunks.map((chunk) => chunk.text));
  return {
    type: "file.indexed",
    v: 1,
    data: {
      project,
      path,
      hash: "h",
      size: 1,
      mtime_ms: 0,
      language: "typescript",
      chunks: chunks.map((chunk, i) => ({
        id: chunk.id,
        start_line: 1,
        end_line: 2,
        kind: "function",
        name: chunk.name,
        text: hashes[i]!,
      })),
      references: [],
    },
  };
}

/** A `turn.ingested` event of project `p`, its text put in `blobs`. */
export async function turnIngested(
  blobs: BlobStore,
  session: string,
  line: number,
  text: string,
): Promise<NewEvent> {
  return {
    type: "turn.ingested",
    v: 1,
    data: {
      agent: "claude",
      session,
      line,
      project: "p",
      started_at: new Date(0).toISOString(),
      provisional: false,
      text: await blobs.put(text),
      mentions: [],
    },
  };
}

/** Every source, ten hits. */
export const ALL: TextSearchOptions = { sources: ["memory", "code", "turn"], limit: 10 };
/** The hits of a search, as `source:id`. */
export const ids = (projection: TextProjection, query: string, options = ALL) =>
  projection.search(query, options).map((hit) => `${hit.source}:${hit.id}`);

/** A memory of the `chat` conversation, so that it is also indexed with its neighbours. */
export function threaded(id: string, content: string): NewEvent {
  const event = remembered(id, content, "p");
  return { ...event, data: { ...event.data, source: "chat" } } as NewEvent;
}

/** What each query finds: by source, and in context (memories with neighbours, whole files). */
export function answersOf(projection: TextProjection, queries: string[]) {
  return queries.map((query) => ({
    search: projection.search(query, ALL),
    memory: projection.searchContext(query, { source: "memory", project: "p", limit: 5 }),
    code: projection.searchContext(query, { source: "code", project: "p", limit: 5 }),
  }));
}
