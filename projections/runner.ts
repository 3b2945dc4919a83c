import type { EventLog } from "../events/log.ts";
import type { StoredEvent } from "../events/schema.ts";
import { isDiskFull } from "../events/disk_full.ts";
import { checkpointDisagrees } from "./damage.ts";
import type { CheckpointStore, Projection } from "./projection.ts";

/** How far one projection is behind the log. */
export interface ProjectionStatus {
  name: string;
  version: number;
  checkpoint: number;
  lag: number;
}

/** Events a projection takes in one `apply` while catching up (replays use it too). */
export const APPLY_BATCH = 512;
/**
 * Background projections (embeddings) take small batches, so a close waits for
 * at most a few seconds of work and progress is saved often: at most this many
 * events, and fewer when they hold {@linkcode BACKGROUND_WORK} between them.
 */
const BACKGROUND_BATCH = 16;
/**
 * Work (in a projection's {@linkcode Projection.workOf} units: texts to embed)
 * past which a background batch ends: about three seconds of embedding on two
 * cores. One file of hundreds of chunks is still one event and one batch; 16
 * such files would otherwise be one batch of a minute, whose first vectors
 * wait for its last.
 */
const BACKGROUND_WORK = 128;

/**
 * Keeps projections at the head of the log: on open it rebuilds any projection
 * whose code version changed and catches every one up; after each append the
 * store calls {@linkcode ProjectionRunner.catchUp} again. Projections marked
 * `background` (the slow ones, such as vectors) catch up in their own lane,
 * which `catchUp` starts but does not wait for.
 */
export class ProjectionRunner {
  #checkpoints = new Map<string, number>();
  #running: Promise<void> | undefined;
  #background: Promise<void> = Promise.resolve();
  #backgroundQueued = false;
  #stopping = false;
  /** Projections whose checkpoints stay off disk until a rewrite of their files succeeds. */
  #withdrawn = new Set<string>();
  /** Work that asked the background lane to wait, and what wakes it when none is left. */
  #holds = 0;
  #released = Promise.withResolvers<void>();

  #projections: Projection[];

  private constructor(
    private readonly log: EventLog,
    projections: readonly Projection[],
    private readonly store: CheckpointStore,
    /** Checks a batch may be written (the disk has room); throws if not. */
    private readonly beforeWrite: () => Promise<void>,
  ) {
    this.#projections = [...projections];
  }

  /** The projections, in the order they apply events. */
  get projections(): readonly Projection[] {
    return this.#projections;
  }

  /** Loads checkpoints, resets projections built by another code version, and catches up. */
  static async open(
    log: EventLog,
    projections: readonly Projection[],
    store: CheckpointStore,
    beforeWrite: () => Promise<void> = () => Promise.resolve(),
  ): Promise<ProjectionRunner> {
    const runner = new ProjectionRunner(log, projections, store, beforeWrite);
    for (const projection of projections) {
      const saved = await store.read(projection.name);
      const disagreement = await checkpointDisagrees(saved, projection, log.head);
      if (disagreement) {
        console.error(
          `cairn: the ${projection.name} projection ${disagreement} (files lost or damaged); ` +
            "rebuilding it from the log",
        );
        await runner.#reset(projection);
      } else if (saved && saved.version === projection.version && saved.seq <= log.head) {
        runner.#checkpoints.set(projection.name, saved.seq);
      } else {
        if (saved && saved.version !== projection.version && log.head > 0) {
          console.error(
            `cairn: this version of cairn builds the ${projection.name} projection differently; ` +
              `rebuilding it from the log's ${log.head} events (once)`,
          );
        }
        await runner.#reset(projection);
      }
    }
    try {
      await runner.catchUp();
    } catch (error) {
      // A store that cannot write (a full disk) is still read, with what its projections hold.
      if (!isDiskFull(error)) throw error;
      console.error(
        `cairn: the disk is full: the search indexes stay ${runner.#lag()} events behind the log ` +
          "until there is space again; answers leave those out",
      );
    }
    return runner;
  }

  /** Events the furthest-behind projection lacks. */
  #lag(): number {
    return Math.max(0, ...this.status().map((projection) => projection.lag));
  }

  /** True when a foreground projection has not applied every event in the log. */
  behind(): boolean {
    return this.#foreground().some((p) => (this.#checkpoints.get(p.name) ?? 0) < this.log.head);
  }

  /** Names of the projections this runner keeps. */
  get names(): string[] {
    return this.projections.map((projection) => projection.name);
  }

  /**
   * Applies every event past each foreground projection's checkpoint, and starts
   * the background lane. Calls are serialised.
   */
  catchUp(): Promise<void> {
    const next = this.#exclusive(() => this.#catchUpAll(this.#foreground()));
    this.#kickBackground();
    return next;
  }

  /**
   * Runs `work`, which rewrites the log and then the files of the `named`
   * projections (a purge), while no foreground projection applies events.
   * Their checkpoints are off disk until `work` succeeds, so a crash or a
   * failure on the way leaves them to be rebuilt from the log at the next open.
   * `work` learns the last event each projection holds from `applied`.
   */
  async rewriting<T>(
    named: readonly string[],
    work: (applied: (name: string) => number) => Promise<T>,
  ): Promise<T> {
    const chosen = named.flatMap((name) => this.#select(name));
    return await this.#exclusive(async () => {
      for (const projection of chosen) {
        this.#withdrawn.add(projection.name);
        await this.store.remove(projection.name);
      }
      const result = await work((name) => this.#checkpoints.get(name) ?? 0);
      for (const projection of chosen) {
        this.#withdrawn.delete(projection.name);
        await this.#save(projection, this.#checkpoints.get(projection.name) ?? 0);
      }
      return result;
    });
  }

  /**
   * Runs `work` (a large write, such as indexing a repository) with the
   * background lane paused after its current batch, so the two do not share
   * the cores; the lane goes on once no such work is left.
   */
  async withBackgroundPaused<T>(work: () => Promise<T>): Promise<T> {
    this.#holds++;
    try {
      return await work();
    } finally {
      if (--this.#holds === 0) {
        this.#released.resolve();
        this.#released = Promise.withResolvers<void>();
      }
    }
  }

  /** Shows events just appended to the projections that read ahead. */
  observe(events: readonly StoredEvent[]): void {
    for (const projection of this.#projections) projection.observe?.(events);
  }

  /** Resolves when the background projections have reached the head as it is now. */
  async settled(): Promise<void> {
    await this.#running?.catch(() => {});
    this.#kickBackground();
    await this.#background;
  }

  #foreground(): readonly Projection[] {
    return this.projections.filter((projection) => !projection.background);
  }

  #backgroundLane(): readonly Projection[] {
    return this.projections.filter((projection) => projection.background);
  }

  #kickBackground(): void {
    if (this.#backgroundLane().length === 0 || this.#backgroundQueued || this.#stopping) return;
    this.#backgroundQueued = true;
    this.#background = this.#background.then(async () => {
      // The write that kicked the lane finishes first: its caller waits for it, no one for the lane.
      await this.#running?.catch(() => {});
      this.#backgroundQueued = false;
      // The lane is read when it runs: a projection replaced meanwhile is not applied to.
      if (!this.#stopping) await this.#catchUpAll(this.#backgroundLane());
    }).catch((error) => {
      if (!this.#stopping) {
        console.error(`cairn: background projection failed: ${(error as Error).message}`);
      }
    });
  }

  /**
   * Puts another instance of the background projection `name`, built
   * elsewhere with every event up to `checkpoint`, in its place. `make` runs
   * while the background lane is idle and returns the new instance; until
   * then the current one goes on being used. The checkpoint on disk never runs
   * ahead of what the instance on disk holds, so a crash on the way applies
   * some events again (projections are idempotent) and skips none. Resolves
   * to the projection replaced, for the caller to close.
   */
  async replace(
    name: string,
    checkpoint: number,
    make: () => Promise<Projection>,
  ): Promise<Projection> {
    const swap = this.#background.then(async () => {
      const at = this.#projections.findIndex((p) => p.name === name && p.background);
      if (at < 0) throw new Error(`no background projection named "${name}"`);
      const current = this.#projections[at]!;
      await this.#save(current, Math.min(this.#checkpoints.get(name) ?? 0, checkpoint));
      const fresh = await make();
      this.#projections[at] = fresh;
      await this.#save(fresh, checkpoint);
      return current;
    });
    this.#background = swap.then(() => {}, () => {});
    const replaced = await swap;
    this.#kickBackground();
    return replaced;
  }

  /** Rebuilds one projection (or all) from the first event, background ones included. */
  async rebuild(name?: string): Promise<void> {
    const chosen = this.#select(name);
    await this.#running?.catch(() => {});
    await this.#background;
    await this.#exclusive(async () => {
      for (const projection of chosen) await this.#reset(projection);
    });
    await this.catchUp();
    await this.settled();
  }

  /** Each projection's checkpoint and lag behind the log head. */
  status(): ProjectionStatus[] {
    return this.projections.map((projection) => {
      const checkpoint = this.#checkpoints.get(projection.name) ?? 0;
      return {
        name: projection.name,
        version: projection.version,
        checkpoint,
        lag: Math.max(0, this.log.head - checkpoint),
      };
    });
  }

  /** Each projection's content digest, by name. */
  async digests(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const projection of this.projections) out[projection.name] = await projection.digest();
    return out;
  }

  /**
   * Stops the background lane after its current batch (a batch waiting on a
   * model is given up) and closes every projection.
   */
  async close(): Promise<void> {
    this.#stopping = true;
    this.#released.resolve();
    for (const projection of this.#backgroundLane()) projection.stop?.();
    await this.#running?.catch(() => {});
    await this.#background;
    for (const projection of this.projections) await projection.close();
  }

  #select(name: string | undefined): readonly Projection[] {
    if (name === undefined) return this.projections;
    const found = this.projections.find((projection) => projection.name === name);
    if (!found) {
      throw new Error(`no projection named "${name}"; known: ${this.names.join(", ")}`);
    }
    return [found];
  }

  /** Runs `work` after every earlier catch-up or rewrite, and before any later one. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = (this.#running ?? Promise.resolve()).then(work);
    this.#running = run.then(() => {}, () => {});
    return run;
  }

  async #reset(projection: Projection): Promise<void> {
    // Off disk first: a crash inside the reset must not leave the old checkpoint on emptied files.
    await this.store.remove(projection.name);
    await projection.reset();
    await this.#save(projection, 0);
  }

  /** Records that `projection` holds every event up to `seq`; on disk too unless withdrawn. */
  async #save(projection: Projection, seq: number): Promise<void> {
    if (!this.#withdrawn.has(projection.name)) {
      const count = await projection.count?.();
      const saved = projection.savedThrough?.();
      await this.store.write(projection.name, {
        version: projection.version,
        seq,
        ...(count === undefined ? {} : { count }),
        ...(saved === undefined ? {} : { saved }),
      });
    }
    this.#checkpoints.set(projection.name, seq);
  }

  async #catchUpAll(projections: readonly Projection[]): Promise<void> {
    const head = this.log.head;
    const behind = projections.filter((p) => (this.#checkpoints.get(p.name) ?? 0) < head);
    if (behind.length === 0) return;
    const from = Math.min(...behind.map((p) => this.#checkpoints.get(p.name) ?? 0)) + 1;
    const background = behind.every((p) => p.background);
    let batch: StoredEvent[] = [];
    let work = 0;
    for await (const event of this.log.read(from)) {
      batch.push(event);
      if (this.#stopping && background) return;
      if (background) work += Math.max(...behind.map((p) => p.workOf?.(event) ?? 0));
      if (
        background
          ? batch.length >= BACKGROUND_BATCH || work >= BACKGROUND_WORK
          : batch.length >= APPLY_BATCH
      ) {
        await this.#applyBatch(behind, batch);
        batch = [];
        work = 0;
      }
    }
    if (batch.length > 0) await this.#applyBatch(behind, batch);
    for (const projection of behind) {
      // Compaction may have dropped the last events: the head still counts as applied.
      if ((this.#checkpoints.get(projection.name) ?? 0) >= head) continue;
      await this.#save(projection, head);
    }
  }

  async #applyBatch(
    projections: readonly Projection[],
    batch: readonly StoredEvent[],
  ): Promise<void> {
    await this.beforeWrite();
    while (this.#holds > 0 && projections.every((p) => p.background) && !this.#stopping) {
      await this.#released.promise;
    }
    const last = batch.at(-1)!.seq;
    // Each checkpoint is written once its projection has applied the batch, side by side with the
    // next ones: file systems commit concurrent syncs together, so a batch costs about one commit.
    const saves: Promise<void>[] = [];
    try {
      for (const projection of projections) {
        const checkpoint = this.#checkpoints.get(projection.name) ?? 0;
        const fresh = batch.filter((event) => event.seq > checkpoint);
        if (fresh.length === 0) continue;
        await projection.apply(fresh);
        const save = this.#save(projection, last);
        // Awaited below: marked handled now, so a failure meanwhile does not end the process.
        save.catch(() => {});
        saves.push(save);
      }
    } finally {
      await Promise.allSettled(saves);
    }
    await Promise.all(saves);
  }
}
