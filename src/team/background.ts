/**
 * The owner's sync in the background: while `cairn serve` runs a store whose
 * config.json has a `team` section, a pass every couple of seconds, so what a
 * teammate remembers shows up without anyone running `cairn sync`; and the
 * team's shared vectors offered to the store's embedding cache meanwhile.
 * @module
 */
import type { Store } from "../service/store.ts";
import type { TeamSyncState } from "../service/cairn.ts";
import { UserError } from "../errors.ts";
import { loadTeamConfig } from "./config.ts";
import { TeamUnreachable } from "./unreachable.ts";
import { teamSyncFor } from "./sync.ts";
import { shareVectors } from "../embed/shared_vectors.ts";
import type { TeamVectors } from "./team_vectors.ts";

/** How often the owner syncs. */
export const BACKGROUND_SYNC_MS = 2_000;

/** A background sync; `stop` waits for the pass under way. */
export interface BackgroundSync {
  /** How it goes; undefined before a pass ended, or while config.json names no team. */
  state(): TeamSyncState | undefined;
  stop(): Promise<void>;
}

/**
 * Starts syncing `store` every `intervalMs` while config.json has a `team`
 * section (read again each pass, so editing it takes effect). What moved, and
 * a server going away or coming back, is said once through `log`.
 */
export function syncInBackground(
  store: Store,
  log: (line: string) => void,
  intervalMs = BACKGROUND_SYNC_MS,
): BackgroundSync {
  let stopped = false;
  let wake = () => {};
  let problem: string | undefined;
  let state: TeamSyncState | undefined;
  let vectors: { key: string; shared: TeamVectors } | undefined;
  const unshare = async () => {
    if (!vectors) return;
    shareVectors(store.dir, undefined);
    await vectors.shared.close();
    vectors = undefined;
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        const team = await loadTeamConfig(store.dir);
        const key = JSON.stringify(team);
        if (vectors?.key !== key) await unshare();
        if (team?.vectors && !vectors) {
          const { TeamVectors } = await import("./team_vectors.ts");
          vectors = { key, shared: new TeamVectors(team) };
          shareVectors(store.dir, vectors.shared);
        }
        if (!team) state = undefined;
        else {
          const report = await (await teamSyncFor(store, team)).pass();
          if (problem) log("cairn serve: team sync works again");
          problem = undefined;
          const at = new Date().toISOString();
          const moved = report.published + report.applied > 0
            ? { at, published: report.published, applied: report.applied }
            : state?.lastMoved;
          state = { lastPass: at, ...(moved ? { lastMoved: moved } : {}), pending: report.pending };
          if (report.published + report.applied > 0) {
            log(
              `cairn serve: team sync published ${report.published}, took in ${report.applied} ` +
                `(${Math.round(report.ms)} ms)`,
            );
          }
        }
      } catch (error) {
        const message = error instanceof TeamUnreachable
          ? "no NATS server of the team answers"
          : (error as Error).message;
        if (message !== problem) {
          log(`cairn serve: team sync: ${error instanceof UserError ? error.message : message}`);
        }
        problem = message;
        state = {
          lastPass: new Date().toISOString(),
          ...(state?.lastMoved ? { lastMoved: state.lastMoved } : {}),
          pending: await stillToPublish(store).catch(() => state?.pending ?? 0),
          problem: message,
        };
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    state: () => state,
    async stop() {
      stopped = true;
      wake();
      await loop;
      await unshare();
    },
  };
}

/** How many of the store's events wait to be published, as a pass that reached the team would count them. */
async function stillToPublish(store: Store): Promise<number> {
  const team = await loadTeamConfig(store.dir);
  return team ? (await (await teamSyncFor(store, team)).ledger()).pending().length : 0;
}
