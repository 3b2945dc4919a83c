/**
 * A shared event as it travels in the team's stream: the event as its member
 * wrote it (without its local number and time, which travel beside it), and
 * the texts of the blobs it references, so a member takes it in whole.
 * @module
 */
import { z } from "zod";
import { blobsOf } from "../../events/compaction.ts";
import type { BlobStore } from "../../events/blobs.ts";
import { type NewEvent, type StoredEvent, validateEvent } from "../../events/schema.ts";
import { UserError } from "../errors.ts";

const Message = z.object({
  v: z.literal(1),
  member: z.string().min(1),
  seq: z.number().int().positive(),
  ts: z.string(),
  event: z.unknown(),
  blobs: z.record(z.string(), z.string()).optional(),
});

/** A message read from the stream. */
export interface Incoming {
  member: string;
  seq: number;
  ts: string;
  event: NewEvent;
  blobs: Record<string, string>;
}

/** The JetStream message id of this member's event `seq`: the event's name in the team. */
export function messageId(member: string, seq: number): string {
  return `${member}-${seq}`;
}

/** The message carrying `event` of `member`, with its blobs' texts. */
export async function encodeMessage(
  member: string,
  event: StoredEvent,
  blobs: BlobStore,
): Promise<string> {
  const { seq, ts, origin: _origin, ...written } = event;
  const hashes = blobsOf(event);
  const texts: Record<string, string> = {};
  for (const hash of hashes) texts[hash] = await blobs.get(hash);
  return JSON.stringify({
    v: 1,
    member,
    seq,
    ts,
    event: written,
    ...(hashes.length ? { blobs: texts } : {}),
  });
}

/** Reads a message of the stream; one this cairn cannot read is refused with what to do. */
export function decodeMessage(text: string, where: string): Incoming {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UserError(`${where} is not a cairn event (not JSON)`);
  }
  const parsed = Message.safeParse(json);
  if (!parsed.success) {
    throw new UserError(`${where} is not a cairn event message (or a newer one); upgrade cairn`);
  }
  let event: NewEvent;
  try {
    event = validateEvent(parsed.data.event);
  } catch (error) {
    throw new UserError(
      `${where} holds an event this cairn cannot read (${(error as Error).message}); upgrade cairn`,
    );
  }
  const { member, seq, ts, blobs = {} } = parsed.data;
  return { member, seq, ts, event, blobs };
}
