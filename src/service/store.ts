import { BlobStore } from "../../events/blobs.ts";
import { FileLog } from "../../events/file_log.ts";
import type { Clock, EventLog } from "../../events/log.ts";
import { isDiskFull } from "../../events/disk_full.ts";
import { ensureSpace } from "../../events/disk_space.ts";
import { StoreLock } from "../../events/lock.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { FileCheckpoints } from "../../projections/checkpoints.ts";
import type { Projection } from "../../projections/projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { storeLayout } from "./paths.ts";

/** Builds the projections of a store from its projections directory, blob store and log. */
export type ProjectionFactory = (
  dir: string,
  blobs: BlobStore,
  log: EventLog,
) => Promise<Projection[]>;

/**
 * Chunk and turn texts written by this process stay in memory up to this size,
 * so the projections applying their events do not read them back from disk.
 */
const RECENT_BLOB_CHARS = 32 << 20;

/** Options for {@linkcode Store.open}. */
export interface StoreOptions {
  /** Builds the projections; default: none (the log and blobs alone). */
  projections?: ProjectionFactory;
  /** Segment size of the log (tests use small ones). */
  segmentBytes?: number;
  clock?: Clock;
  /** How long to wait for another process holding the store (default: the lock's). */
  lockWaitMs?: number;
}

/**
 * An open store: the writer lock, the event log, the blob store and the
 * projections kept at the log's head. Every change goes through
 * {@linkcode Store.append}.
 */
export class Store {
  readonly #interrupt = new AbortController();

  private constructor(
    /** The store directory. */
    readonly dir: string,
    /** The event log. */
    readonly log: EventLog,
    /** Large texts referenced by events. */
    readonly blobs: BlobStore,
    /** The projections and their checkpoints. */
    readonly runner: ProjectionRunner,
    private readonly lock: StoreLock,
  ) {}

  /** Opens (creating if needed) the store in `dir` as its only writer. */
  static async open(dir: string, options: StoreOptions = {}): Promise<Store> {
    const layout = storeLayout(dir);
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    // Memories, code and sessions are the user's alone, whoever made the folder and how; what the
    // user may do with it is left as it is (a folder made read-only stays so).
    if (Deno.build.os !== "windows") {
      const mode = (await Deno.stat(dir)).mode ?? 0o700;
      if ((mode & 0o077) !== 0) await Deno.chmod(dir, mode & 0o700);
    }
    const lock = await StoreLock.acquire(dir, options.lockWaitMs);
    try {
      // What a process that died left in the scratch folder is of no use to anyone.
      await Deno.remove(layout.scratch, { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      const log = await FileLog.open(layout.log, {
        ...(options.segmentBytes ? { segmentBytes: options.segmentBytes } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      });
      const blobs = new BlobStore(layout.blobs, { recentChars: RECENT_BLOB_CHARS });
      let projections: Projection[] = [];
      try {
        projections = await (options.projections?.(layout.projections, blobs, log) ??
          Promise.resolve([]));
        const runner = await ProjectionRunner.open(
          log,
          projections,
          new FileCheckpoints(layout.projections),
          () => ensureSpace(dir),
        );
        return new Store(dir, log, blobs, runner, lock);
      } catch (error) {
        // Nothing opened here stays open: a Kùzu database holds terabytes of address space.
        for (const projection of projections) await projection.close().catch(() => {});
        await log.close();
        throw error;
      }
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * Appends events durably, then brings the projections up to date. When the
   * events are in the log but the projections could not follow (a full disk),
   * throws {@linkcode AppendedButBehind}: the write happened.
   */
  async append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    // Commands read the projections to decide what to write (duplicates, known ids): they must be
    // current first. Projections left behind by a full disk stop the write, before the log.
    if (this.runner.behind()) await this.runner.catchUp();
    if (events.length === 0) return [];
    await ensureSpace(this.dir);
    const stored = await this.log.append(events);
    this.runner.observe(stored);
    try {
      await this.runner.catchUp();
    } catch (error) {
      throw new AppendedButBehind(stored, error);
    }
    return stored;
  }

  /**
   * Aborted once the store's owner stops (or the store closes): a long piece
   * of work (an index run, a wait for its vectors) ends at its next step, so
   * that the owner does not keep the store while it finishes.
   */
  get interrupted(): AbortSignal {
    return this.#interrupt.signal;
  }

  /** Tells long work to end at its next step (see {@linkcode Store.interrupted}). */
  interruptWork(): void {
    this.#interrupt.abort();
  }

  /** Ends long work, then closes projections, the log, and releases the lock. */
  async close(): Promise<void> {
    this.interruptWork();
    try {
      await this.runner.close();
      await this.log.close();
    } finally {
      await this.lock.release();
    }
  }
}

/**
 * Raised when events were appended to the log (they are kept, and every
 * projection catches up with them later) but the projections could not apply
 * them now.
 */
export class AppendedButBehind extends Error {
  override name = "AppendedButBehind";
  constructor(readonly stored: StoredEvent[], cause: unknown) {
    const reason = isDiskFull(cause)
      ? "the disk is full"
      : cause instanceof Error
      ? cause.message
      : String(cause);
    super(
      `${
        stored.length === 1 ? "the change was" : `${stored.length} changes were`
      } written to the ` +
        `log and are kept, but the search indexes could not take ${
          stored.length === 1 ? "it" : "them"
        } in (${reason}); they catch up when the store next opens` +
        (isDiskFull(cause) ? ", once there is space again" : ""),
      { cause },
    );
  }
}
