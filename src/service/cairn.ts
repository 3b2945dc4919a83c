import { join } from "node:path";
import { CodeCatalog } from "../../projections/code_catalog.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import { SessionState } from "../../projections/session_state.ts";
import { TextProjection } from "../../projections/text.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import type { Embedder } from "../../text/embedder.ts";
import { LazyEmbedder } from "../embed/lazy_embedder.ts";
import { loadConfig } from "./config.ts";
import { embedderFor, rerankerFor } from "./providers.ts";
import { CodeIndex } from "./code_index.ts";
import { GraphOps } from "./graph_ops.ts";
import { Memories } from "./memories.ts";
import { nearestMemories } from "./nearest_memories.ts";
import { memoriesById } from "../../projections/graph/queries/memories.ts";
import { toMemory } from "../recall/memory_record.ts";
import { RecallService } from "../recall/answer.ts";
import { entitiesThen } from "./entities_then.ts";
import {
  alreadyReembedding,
  reembedOpenStore,
  type ReembedOptions,
  type ReembedProgress,
  type ReembedReport,
} from "./reembed.ts";
import { CodeWatches } from "./code_watch.ts";
import { languageOfPath } from "../ingest/code/source_file.ts";
import { Sessions } from "./sessions.ts";
import { Store, type StoreOptions } from "./store.ts";
import { storeLayout } from "./paths.ts";
import { finishPendingPurge } from "./pending_purge.ts";
import { type MovedAside, openOrRebuild } from "../../projections/damage.ts";
import type { VectorLag } from "../recall/vector_lag.ts";
import { waitsBehindCode } from "./vector_priority.ts";

/** Options for {@linkcode openCairn}. */
export interface CairnOptions extends StoreOptions {
  /** The embedding model; default: the shipped one, behind the store's cache. */
  embedder?: Embedder;
  /**
   * Whether recall waits for the embedding model to load (default true). A
   * server passes false: while the model loads it answers by words, and says so.
   */
  awaitModel?: boolean;
  /** Start loading the embedding model while the store opens (for a command that will embed). */
  warmModel?: boolean;
}

function reportMovedAside({ name, reason, to }: MovedAside): void {
  console.error(
    `cairn: the ${name} projection could not be read (${reason}); moved to ${to} and rebuilt from the log`,
  );
}

/** The store's owner, as `cairn status` tells it: this process, its port and since when. */
export interface ServedBy {
  pid: number;
  port: number;
  startedAt: string;
  /** How its sync with the team goes, when config.json names a team. */
  team?: () => TeamSyncState | undefined;
}

/** How an owner's sync with its team goes (see `src/team/background.ts`). */
export interface TeamSyncState {
  /** When the last pass ended. */
  lastPass: string;
  /** The last pass that moved anything: when, and how many events each way. */
  lastMoved?: { at: string; published: number; applied: number };
  /** Events of this store still to publish. */
  pending: number;
  /** Why the last pass failed (the server unreachable, a refused config), when it did. */
  problem?: string;
}

/** An open store with cairn's projections and the services built on them. */
export interface Cairn {
  store: Store;
  graph: GraphProjection;
  text: TextProjection;
  readonly vectors: VectorsProjection;
  readonly embedder: Embedder;
  memories: Memories;
  /** The knowledge-graph operations of the official MCP memory server. */
  entities: GraphOps;
  recall: RecallService;
  sessions: Sessions;
  code: CodeIndex;
  /** Folders being watched and re-indexed as they change (stopped by `close`). */
  watches: CodeWatches;
  /** The owner serving this store, when this process is it (set by `cairn serve` once it listens). */
  servedBy?: ServedBy;
  /** What still waits for a vector, and how fast vectors are being computed. */
  vectorLag(): Promise<VectorLag>;
  /**
   * Rebuilds every vector with another model while searches go on with the
   * old ones, then switches this store to the new model and vectors.
   */
  reembed(options?: ReembedOptions): Promise<ReembedReport>;
  /** How far a {@linkcode Cairn.reembed} running now has got; undefined when none runs. */
  reembedding(): ReembedProgress | undefined;
  close(): Promise<void>;
}

/** The projections of a store, by name, in the order {@linkcode openCairn} opens them. */
export const PROJECTION_NAMES = [
  "graph",
  "text",
  "vectors",
  "code_catalog",
  "session_state",
  "memory_history",
] as const;

/** Opens the store in `dir` as its only writer, with every projection caught up. */
export async function openCairn(dir: string, options: CairnOptions = {}): Promise<Cairn> {
  let graph: GraphProjection | undefined;
  let text: TextProjection | undefined;
  let vectors: VectorsProjection | undefined;
  let catalog: CodeCatalog | undefined;
  let sessionState: SessionState | undefined;
  let history: MemoryHistory | undefined;
  let reembedRunning = false;
  let reembedding: ReembedProgress | undefined;
  const config = await loadConfig(dir);
  let embedder = options.embedder ?? await embedderFor(config, dir);
  if (options.warmModel && embedder instanceof LazyEmbedder) embedder.warm();
  const store = await Store.open(dir, {
    ...options,
    projections: async (projectionsDir, blobs, log) => {
      // A projection whose files are damaged is rebuilt from the log, never a store that won't open.
      const opened = <P>(name: string, open: (at: string) => Promise<P>) => {
        const at = join(projectionsDir, name);
        return openOrRebuild(at, storeLayout(dir).damaged, () => open(at), reportMovedAside);
      };
      // Kùzu opens the graph on its own threads while the others read their files here.
      const settled = await Promise.allSettled([
        opened("graph", (at) => GraphProjection.open(at)),
        opened("text", (at) => TextProjection.open(at, blobs)),
        opened(
          "vectors",
          (at) => VectorsProjection.open(at, embedder, blobs, log),
        ),
        opened("code_catalog", (at) => CodeCatalog.open(at)),
        opened("session_state", (at) => SessionState.open(at)),
        opened("memory_history", (at) => MemoryHistory.open(at)),
      ]);
      const failed = settled.find((result) => result.status === "rejected");
      if (failed) {
        // What did open is closed again: a Kùzu database left open keeps terabytes of address space.
        for (const result of settled) if (result.status === "fulfilled") await result.value.close();
        throw failed.reason;
      }
      [graph, text, vectors, catalog, sessionState, history] = settled.map((result) =>
        (result as PromiseFulfilledResult<unknown>).value
      ) as [
        GraphProjection,
        TextProjection,
        VectorsProjection,
        CodeCatalog,
        SessionState,
        MemoryHistory,
      ];
      return [graph, text, vectors, catalog, sessionState, history];
    },
  });
  try {
    if (await finishPendingPurge(store)) {
      console.error("cairn: finished a purge that a crash had interrupted");
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  const modelReady = options.awaitModel === false
    ? () => !(embedder instanceof LazyEmbedder) || embedder.ready
    : undefined;
  const vectorsCheckpoint = () =>
    store.runner.status().find((p) => p.name === "vectors")?.checkpoint ?? 0;
  const memories = new Memories(
    store,
    graph!,
    nearestMemories({
      embedder: () => embedder,
      vectors: () => vectors!,
      checkpoint: vectorsCheckpoint,
      read: async (ids) =>
        (await memoriesById(graph!.database, ids)).map(toMemory).filter((m) => !m.forgotten_at),
      ...(modelReady ? { modelReady } : {}),
    }),
    history,
  );
  const code = new CodeIndex(store, catalog);
  const watches = new CodeWatches(code);
  const vectorLag = async (): Promise<VectorLag> => {
    const checkpoint = vectorsCheckpoint();
    const rate = vectors!.rate();
    const pending = await vectors!.pending(checkpoint, waitsBehindCode);
    return { pending, ...(rate ? { rate } : {}) };
  };
  return {
    store,
    graph: graph!,
    text: text!,
    get vectors() {
      return vectors!;
    },
    get embedder() {
      return embedder;
    },
    memories,
    entities: new GraphOps(store, graph!.database),
    recall: new RecallService(
      {
        graph: graph!.database,
        lexical: text!,
        get vectors() {
          return vectors!;
        },
        embedQuery: (query) => embedder.embedQuery(query),
        queryCutAt: (query) => embedder.queryCutAt?.(query),
        ...(modelReady ? { modelReady } : {}),
        languageOf: (id) => {
          const path = text!.codePath(id);
          return path === undefined ? undefined : languageOfPath(path);
        },
        codePath: (id) => text!.codePath(id),
        codeName: (id) => text!.codeName(id),
        codeFiles: text!,
        hasFacts: (name) => text!.hasFacts(name),
        definitionsNamed: (name, project) => text!.definitionsNamed(name, project),
        vectorLag,
        vectorsHeld: (source, project) => vectors!.held(source, project),
      },
      memories,
      text!,
      (asOf) => entitiesThen(store.log, asOf),
      rerankerFor(config),
    ),
    sessions: new Sessions(store, () => code.projects(), sessionState),
    code,
    watches,
    vectorLag,
    reembed: async (reembedOptions = {}) => {
      // Two rebuilds into the same folder would each swap in what the other half-wrote.
      if (reembedRunning) throw alreadyReembedding(reembedding);
      reembedRunning = true;
      const onProgress = (progress: ReembedProgress) => {
        reembedding = progress;
        reembedOptions.onProgress?.(progress);
      };
      try {
        return await reembedOpenStore(store, {
          swap: (next, nextVectors) => {
            embedder = next;
            vectors = nextVectors;
            // The model the rebuild ran is the one the next search needs: load it now.
            if (next instanceof LazyEmbedder) next.warm();
          },
        }, { ...reembedOptions, onProgress });
      } finally {
        reembedRunning = false;
        reembedding = undefined;
      }
    },
    reembedding: () => reembedding,
    close: async () => {
      await watches.stopAll();
      await store.close();
    },
  };
}
