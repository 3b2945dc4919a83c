/**
 * Members of a team for the sync tests: each a store of its own, opened with
 * a fake embedder, whose config.json's `team` section points at one server.
 * @module
 */
import type { StoredEvent } from "../../events/schema.ts";
import { type Cairn, openCairn } from "../../src/service/cairn.ts";
import { storeLayout } from "../../src/service/paths.ts";
import { loadTeamConfig } from "../../src/team/config.ts";
import { type SyncOptions, type SyncReport, teamSyncFor } from "../../src/team/sync.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { CachedEmbedder } from "../../src/embed/cache.ts";

/** One member: its store, open, and how it syncs. */
export class Member implements AsyncDisposable {
  private constructor(
    readonly name: string,
    readonly dir: string,
    public cairn: Cairn,
    /** The model: what it was asked to embed. */
    readonly model: FakeEmbedder,
  ) {}

  /** A member named `name` sharing `projects` through the server at `url`. */
  static async create(
    name: string,
    url: string,
    team: Record<string, unknown> = {},
    options: { cached?: boolean } = {},
  ): Promise<Member> {
    const dir = await Deno.makeTempDir({ prefix: `cairn-team-${name}-` });
    await Deno.writeTextFile(
      `${dir}/config.json`,
      JSON.stringify({ team: { servers: [url], projects: ["api"], member: name, ...team } }),
    );
    const model = new FakeEmbedder();
    // Behind the store's embedding cache (and so the team's shared vectors), as a store runs.
    const embedder = options.cached ? await CachedEmbedder.open(model, dir) : model;
    return new Member(name, dir, await openCairn(dir, { embedder }), model);
  }

  /** One sync pass. */
  async sync(options: SyncOptions = {}): Promise<SyncReport> {
    const team = (await loadTeamConfig(this.dir))!;
    return await (await teamSyncFor(this.cairn.store, team)).pass(options);
  }

  /** Every event of the log. */
  async events(): Promise<StoredEvent[]> {
    return await Array.fromAsync(this.cairn.store.log.read());
  }

  /** Closes the store, runs `work` (another process may open it then), and opens it again. */
  async whileClosed<T>(work: () => Promise<T>): Promise<T> {
    await this.cairn.close();
    try {
      return await work();
    } finally {
      this.cairn = await openCairn(this.dir, { embedder: new FakeEmbedder() });
    }
  }

  /**
   * Runs a sync pass in a child process that dies at `when` (see
   * `sync_child.ts`), the store closed here meanwhile; resolves to its exit code.
   */
  killedSync(when: "after-publish" | "before-append"): Promise<number> {
    return this.whileClosed(async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          new URL("sync_child.ts", import.meta.url).pathname,
          this.dir,
          when,
        ],
        stdout: "piped",
        stderr: "piped",
      });
      return (await child.output()).code;
    });
  }

  /**
   * Closes the store and opens it again (a restart); with `replay`, its
   * projections are deleted first and rebuilt from its log alone.
   */
  async reopen(replay = false): Promise<void> {
    await this.cairn.close();
    if (replay) await Deno.remove(storeLayout(this.dir).projections, { recursive: true });
    this.cairn = await openCairn(this.dir, { embedder: new FakeEmbedder() });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.cairn.close().catch(() => {});
    await Deno.remove(this.dir, { recursive: true });
  }
}
