/**
 * The team's JetStream stream as sync uses it: connect (credentials from a
 * file only), make sure the stream exists, publish with a message id, and read
 * one filter from a position on. Written for servers from 2.9 on (Debian's):
 * reading uses a short-lived pull consumer with one `filter_subject`.
 * @module
 */
import type { NatsConnection } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  type JetStreamClient,
  type JetStreamManager,
  jetstreamManager,
} from "@nats-io/jetstream";
import { UserError } from "../errors.ts";
import type { TeamConfig } from "./config.ts";
import { streamSubjects } from "./subjects.ts";
import { connectToTeam } from "./connect.ts";

/** How long a duplicate publish (the same event id) is recognised by the server: a day. */
const DUPLICATE_WINDOW_NS = 24 * 3600 * 1e9;
/** Messages asked for at once while reading. */
const FETCH_BATCH = 256;

/** One message read from the stream. */
export interface StreamMessage {
  subject: string;
  streamSeq: number;
  text: string;
}

/** A connection to the team's stream. */
export class TeamStream {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** The stream's name. */
    readonly name: string,
  ) {}

  /** Connects to the team's servers and creates the stream when it is missing. */
  static async open(team: TeamConfig, timeoutMs = 2_000): Promise<TeamStream> {
    const connection = await connectToTeam(team, timeoutMs);
    try {
      const jsm = await jetstreamManager(connection, { timeout: timeoutMs });
      await ensureStream(jsm, team);
      return new TeamStream(connection, jetstream(connection), jsm, team.stream);
    } catch (error) {
      await connection.close().catch(() => {});
      if (error instanceof UserError) throw error;
      throw new UserError(
        `the NATS server has no usable JetStream for stream ${team.stream}: ` +
          `${(error as Error).message} (start nats-server with -js)`,
      );
    }
  }

  /**
   * Publishes `text` on `subject` with message id `id` and resolves to its
   * stream position; the server answers a repeated id with the first position.
   */
  async publish(subject: string, text: string, id: string): Promise<number> {
    try {
      const ack = await this.js.publish(subject, text, { msgID: id });
      return ack.seq;
    } catch (error) {
      throw refused(error, `publish to ${subject}`);
    }
  }

  /** The largest message the server takes, in bytes. */
  get maxPayload(): number {
    return this.connection.info?.max_payload ?? 1024 * 1024;
  }

  /** Reads the messages of `filter` from stream position `from` on, in order, to the end. */
  async *read(filter: string, from: number): AsyncIterable<StreamMessage[]> {
    // A named consumer is created on a subject that names its filter, which a server's
    // permissions can allow per project.
    const info = await this.jsm.consumers.add(this.name, {
      name: `read-${crypto.randomUUID().slice(0, 8)}`,
      filter_subject: filter,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
      ack_policy: AckPolicy.None,
      inactive_threshold: 30e9,
      mem_storage: true,
    }).catch((error) => {
      throw refused(error, `read ${filter}`);
    });
    try {
      let left = info.num_pending;
      const consumer = await this.js.consumers.get(this.name, info.name);
      while (left > 0) {
        const messages: StreamMessage[] = [];
        const batch = await consumer.fetch({
          max_messages: Math.min(left, FETCH_BATCH),
          expires: 5_000,
        });
        for await (const message of batch) {
          messages.push({
            subject: message.subject,
            streamSeq: message.seq,
            text: message.string(),
          });
          left = message.info.pending;
        }
        if (messages.length === 0) break;
        yield messages;
      }
    } finally {
      await this.jsm.consumers.delete(this.name, info.name).catch(() => {});
    }
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.connection.close().catch(() => {});
  }
}

/** `error`, or a {@linkcode UserError} saying what the server's permissions refused. */
function refused(error: unknown, what: string): unknown {
  const message = (error as Error).message ?? String(error);
  if (!/permission/i.test(message)) return error;
  return new UserError(
    `the team's NATS server does not let this member ${what} (${message}); ask whoever runs ` +
      "the server for access to the project, or take it out of team.projects in config.json",
  );
}

async function ensureStream(jsm: JetStreamManager, team: TeamConfig): Promise<void> {
  try {
    await jsm.streams.info(team.stream);
    return;
  } catch (error) {
    if (!/not found/i.test((error as Error).message)) throw error;
  }
  await jsm.streams.add({
    name: team.stream,
    subjects: streamSubjects(team.subject_prefix),
    duplicate_window: DUPLICATE_WINDOW_NS,
    num_replicas: team.replicas,
  });
}
