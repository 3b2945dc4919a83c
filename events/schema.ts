import { z } from "zod";
import {
  EntityCreated,
  EntityDeleted,
  ObservationsAdded,
  ObservationsDeleted,
  RelationCreated,
  RelationDeleted,
} from "./kinds/graph.ts";
import { MemoryForgotten, MemoryPurged, MemoryRemembered, MemoryRevised } from "./kinds/memory.ts";
import {
  FileIndexed,
  FileRemoved,
  ProjectDeleted,
  ProjectHistoryRead,
  ProjectRegistered,
} from "./kinds/code.ts";
import { TranscriptAdvanced, TurnIngested, TurnRetracted } from "./kinds/session.ts";
import { TeamSynced } from "./kinds/team.ts";
import { Origin } from "./origin.ts";

/** Every event kind, discriminated by `type`; each carries its schema version `v`. */
export const Event = z.discriminatedUnion("type", [
  MemoryRemembered,
  MemoryRevised,
  MemoryForgotten,
  MemoryPurged,
  EntityCreated,
  EntityDeleted,
  ObservationsAdded,
  ObservationsDeleted,
  RelationCreated,
  RelationDeleted,
  ProjectRegistered,
  ProjectDeleted,
  FileIndexed,
  FileRemoved,
  ProjectHistoryRead,
  TurnIngested,
  TurnRetracted,
  TranscriptAdvanced,
  TeamSynced,
]);

/** An event as a command produces it, before the log gives it a place. */
export type NewEvent = z.infer<typeof Event> & {
  /** Set on an event another member of the team wrote (see `origin.ts`); absent on one written here. */
  origin?: Origin;
};

/** The name of an event kind. */
export type EventType = NewEvent["type"];

/** The event of kind `T`. */
export type EventOf<T extends EventType> = Extract<z.infer<typeof Event>, { type: T }> & {
  origin?: Origin;
};

/** An event as the log holds it: its sequence number and when it was appended. */
export type StoredEvent = NewEvent & {
  /** Position in the log, from 1, strictly increasing (compaction leaves gaps). */
  seq: number;
  /** Append time, ISO 8601 UTC. */
  ts: string;
};

const currentVersion = new Map<string, number>(
  Event.options.map((option) => [option.shape.type.value, option.shape.v.value]),
);

const Envelope = z.object({ type: z.string(), v: z.number().int(), ts: z.string() }).loose();

/** Raised when a stored record is not a valid event of a version this code reads. */
export class EventDecodeError extends Error {
  override name = "EventDecodeError";
}

/**
 * Checks a record read from the log and returns it as an event.
 * A version newer than this code knows is refused rather than misread.
 */
export function decodeEvent(raw: unknown): NewEvent & { ts: string } {
  const envelope = Envelope.safeParse(raw);
  if (!envelope.success) throw new EventDecodeError("record is not an event envelope");
  const { type, v, ts } = envelope.data;
  const known = currentVersion.get(type);
  if (known === undefined) throw new EventDecodeError(`unknown event type "${type}"`);
  if (v > known) {
    throw new EventDecodeError(
      `event "${type}" has version ${v}, newer than this cairn reads (${known}); upgrade cairn`,
    );
  }
  const parsed = Event.safeParse(raw);
  if (!parsed.success) {
    throw new EventDecodeError(`invalid "${type}" event: ${z.prettifyError(parsed.error)}`);
  }
  return { ...parsed.data, ...originOf(raw), ts };
}

/** Checks an event a command wants to append; throws a readable error if it is malformed. */
export function validateEvent(event: unknown): NewEvent {
  const parsed = Event.safeParse(event);
  if (!parsed.success) throw new EventDecodeError(z.prettifyError(parsed.error));
  return { ...parsed.data, ...originOf(event) };
}

/** The event's checked `origin`, as an object to spread; empty when it has none. */
function originOf(raw: unknown): { origin?: Origin } {
  const origin = (raw as { origin?: unknown }).origin;
  if (origin === undefined) return {};
  const parsed = Origin.safeParse(origin);
  if (!parsed.success) {
    throw new EventDecodeError(`invalid event origin: ${z.prettifyError(parsed.error)}`);
  }
  return { origin: parsed.data };
}
