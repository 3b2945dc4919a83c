import { join } from "node:path";
import { z } from "zod";
import { syncDir, writeFileAtomic } from "../events/durable_fs.ts";
import type { Checkpoint, CheckpointStore } from "./projection.ts";

const CheckpointSchema = z.object({
  version: z.number().int(),
  seq: z.number().int().nonnegative(),
  count: z.number().int().nonnegative().optional(),
  saved: z.number().int().nonnegative().optional(),
});

/** Checkpoints as small JSON files, `<dir>/<name>/checkpoint.json`, replaced atomically. */
export class FileCheckpoints implements CheckpointStore {
  constructor(private readonly dir: string) {}

  async read(name: string): Promise<Checkpoint | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path(name));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // A damaged checkpoint is no checkpoint: the projection is rebuilt from the log.
      return undefined;
    }
    const parsed = CheckpointSchema.safeParse(json);
    if (!parsed.success) return undefined;
    const { version, seq, count, saved } = parsed.data;
    return {
      version,
      seq,
      ...(count === undefined ? {} : { count }),
      ...(saved === undefined ? {} : { saved }),
    };
  }

  async write(name: string, checkpoint: Checkpoint): Promise<void> {
    await Deno.mkdir(join(this.dir, name), { recursive: true });
    await writeFileAtomic(this.#path(name), JSON.stringify(checkpoint));
  }

  async remove(name: string): Promise<void> {
    try {
      await Deno.remove(this.#path(name));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    await syncDir(join(this.dir, name));
  }

  /** Forgets every checkpoint, so each projection is rebuilt from the log on next open. */
  async clear(): Promise<void> {
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (entry.isDirectory) await Deno.remove(this.#path(entry.name)).catch(() => {});
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  #path(name: string): string {
    return join(this.dir, name, "checkpoint.json");
  }
}

/** Checkpoints held in memory, for tests and throw-away stores. */
export class MemoryCheckpoints implements CheckpointStore {
  #map = new Map<string, Checkpoint>();

  read(name: string): Promise<Checkpoint | undefined> {
    return Promise.resolve(this.#map.get(name));
  }

  write(name: string, checkpoint: Checkpoint): Promise<void> {
    this.#map.set(name, { ...checkpoint });
    return Promise.resolve();
  }

  remove(name: string): Promise<void> {
    this.#map.delete(name);
    return Promise.resolve();
  }
}
