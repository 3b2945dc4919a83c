/**
 * "Is it ready?" for an open store: what it holds (memories, projects, files
 * and chunks, sessions and turns, entities and relations), how far each projection has got, what
 * still waits for a vector and how long that should take, and the model.
 * @module
 */
import { entityCount, relationTotal } from "../../projections/graph/queries/entities.ts";
import { sessionCount } from "../../projections/graph/queries/sessions.ts";
import type { VectorSource } from "../../projections/vectors/backlog.ts";
import type { ProjectionStatus } from "../../projections/runner.ts";
import { LazyEmbedder } from "../embed/lazy_embedder.ts";
import { UnavailableEmbedder } from "../embed/unavailable_embedder.ts";
import type { VectorLag } from "../recall/vector_lag.ts";
import type { Embedder } from "../../text/embedder.ts";
import type { Cairn } from "./cairn.ts";
import type { ReembedProgress } from "./reembed.ts";
import { type NewerDefault, newerDefault } from "./store_model.ts";

/** What `cairn status` reports about an open store. */
export interface StoreStatus {
  store: string;
  /** The log's size on disk and its last event. */
  logBytes: number;
  head: number;
  memories: number;
  code: { projects: number; files: number; chunks: number };
  sessions: { sessions: number; turns: number };
  /** The knowledge graph's entities and the relations between them. */
  graph: { entities: number; relations: number };
  vectors: { held: Record<VectorSource, number>; lag: VectorLag };
  model: {
    id: string;
    state: "loaded" | "not loaded yet" | "unusable";
    reason?: string;
    /** The shipped default, when the store runs an older shipped model, and how to move to it. */
    newer?: NewerDefault;
  };
  projections: ProjectionStatus[];
  /** A `cairn reembed` running in this process, and how far it has got. */
  reembed?: ReembedProgress;
}

/** The status of the open store `cairn`. */
export async function storeStatus(cairn: Cairn): Promise<StoreStatus> {
  const texts = cairn.text.counts();
  const projects = await cairn.code.status();
  const sessions = await sessionCount(cairn.graph.database);
  const reembed = cairn.reembedding();
  return {
    store: cairn.store.dir,
    logBytes: await cairn.store.log.size(),
    head: cairn.store.log.head,
    memories: texts.memory,
    code: {
      projects: projects.length,
      files: projects.reduce((sum, p) => sum + p.files, 0),
      chunks: projects.reduce((sum, p) => sum + p.chunks, 0),
    },
    sessions: { sessions, turns: texts.turn },
    graph: {
      entities: await entityCount(cairn.graph.database),
      relations: await relationTotal(cairn.graph.database),
    },
    vectors: { held: cairn.vectors.counts(), lag: await cairn.vectorLag() },
    model: await modelState(cairn),
    projections: cairn.store.runner.status(),
    ...(reembed ? { reembed } : {}),
  };
}

async function modelState(cairn: Cairn): Promise<StoreStatus["model"]> {
  const id = cairn.vectors.model;
  const newer = await newerDefault(cairn.store.dir, id);
  return { id, ...loadState(cairn.embedder), ...(newer ? { newer } : {}) };
}

function loadState(embedder: Embedder): Pick<StoreStatus["model"], "state" | "reason"> {
  if (embedder instanceof UnavailableEmbedder) {
    return { state: "unusable", reason: embedder.reason.message };
  }
  if (embedder instanceof LazyEmbedder && !embedder.ready) return { state: "not loaded yet" };
  return { state: "loaded" };
}
