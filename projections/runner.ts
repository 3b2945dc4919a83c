import type { EventLog } from "../events/log.ts";
import type { StoredEvent } from "../events/schema.ts";
import type { CheckpointStore, Projection } from "./projection.ts";

/** How far one projection is behind the log. */
export interface ProjectionStatus {
  name: string;
  version: number;
  checkpoint: number;
  lag: number;
}

const BATCH = 512;
/**
 * Background projections (embeddings) take small batches, so a close waits for
 * at most a few seconds of work and progress is saved often.
 */
const BACKGROUND_BATCH = 16;

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

  private constructor(
    private readonly log: EventLog,
    private readonly projections: readonly Projection[],
    private readonly store: CheckpointStore,
  ) {}

  /** Loads checkpoints, resets projections built by another code version, and catches up. */
  static async open(
    log: EventLog,
    projections: readonly Projection[],
    store: CheckpointStore,
  ): Promise<ProjectionRunner> {
    const runner = new ProjectionRunner(log, projections, store);
    for (const projection of projections) {
      const saved = await store.read(projection.name);
      if (saved && saved.version === projection.version && saved.seq <= log.head) {
        runner.#checkpoints.set(projection.name, saved.seq);
      } else {
        await runner.#reset(projection);
      }
    }
    await runner.catchUp();
    return runner;
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
    const previous = this.#running ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => this.#catchUpAll(this.#foreground()));
    this.#running = next;
    this.#kickBackground();
    return next;
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

  #kickBackground(): void {
    const lane = this.projections.filter((projection) => projection.background);
    if (lane.length === 0 || this.#backgroundQueued || this.#stopping) return;
    this.#backgroundQueued = true;
    this.#background = this.#background.then(async () => {
      this.#backgroundQueued = false;
      if (!this.#stopping) await this.#catchUpAll(lane);
    }).catch((error) => {
      console.error(`cairn: background projection failed: ${(error as Error).message}`);
    });
  }

  /** Rebuilds one projection (or all) from the first event, background ones included. */
  async rebuild(name?: string): Promise<void> {
    const chosen = this.#select(name);
    await this.#running?.catch(() => {});
    await this.#background;
    for (const projection of chosen) await this.#reset(projection);
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

  /** Stops the background lane after its current batch and closes every projection. */
  async close(): Promise<void> {
    this.#stopping = true;
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

  async #reset(projection: Projection): Promise<void> {
    await projection.reset();
    await this.store.write(projection.name, { version: projection.version, seq: 0 });
    this.#checkpoints.set(projection.name, 0);
  }

  async #catchUpAll(projections: readonly Projection[]): Promise<void> {
    const head = this.log.head;
    const behind = projections.filter((p) => (this.#checkpoints.get(p.name) ?? 0) < head);
    if (behind.length === 0) return;
    const from = Math.min(...behind.map((p) => this.#checkpoints.get(p.name) ?? 0)) + 1;
    let batch: StoredEvent[] = [];
    for await (const event of this.log.read(from)) {
      batch.push(event);
      if (this.#stopping && behind.every((p) => p.background)) return;
      if (batch.length >= (behind.every((p) => p.background) ? BACKGROUND_BATCH : BATCH)) {
        await this.#applyBatch(behind, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await this.#applyBatch(behind, batch);
    for (const projection of behind) {
      // Compaction may have dropped the last events: the head still counts as applied.
      if ((this.#checkpoints.get(projection.name) ?? 0) >= head) continue;
      await this.store.write(projection.name, { version: projection.version, seq: head });
      this.#checkpoints.set(projection.name, head);
    }
  }

  async #applyBatch(
    projections: readonly Projection[],
    batch: readonly StoredEvent[],
  ): Promise<void> {
    const last = batch.at(-1)!.seq;
    for (const projection of projections) {
      const checkpoint = this.#checkpoints.get(projection.name) ?? 0;
      const fresh = batch.filter((event) => event.seq > checkpoint);
      if (fresh.length === 0) continue;
      await projection.apply(fresh);
      await this.store.write(projection.name, { version: projection.version, seq: last });
      this.#checkpoints.set(projection.name, last);
    }
  }
}
