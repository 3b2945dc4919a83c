/**
 * The graph signal: personalized PageRank over the neighbourhood of the best
 * hits of all sources, fused across sources (memories, code and turns seed
 * the walk, so a memory can lift another memory about the same entity and a
 * turn the files it touched; a source with weak evidence seeds little, so its
 * own hits do not come back on top of the walk). Code gets the walk's vote
 * only from what memories and turns name or touched (a second walk, restarting
 * at their seeds alone): a walk from code's own hits to their files and the
 * files that change with them was tuned away in 19 of 20 repositories' folds
 * (docs/decisions.md). The graph's entities seed the walk when found, and get
 * no vote from it.
 * @module
 */
import type { KuzuDb } from "../../../projections/graph/kuzu.ts";
import { DEFAULT_WEIGHTS, type Signal } from "../fuse.ts";
import { evidenceOf, fuseAcrossSources } from "../fuse_sources.ts";
import { type CodeFiles, neighbourhood, type Seeds } from "../graph_neighbourhood.ts";
import { type Edge, personalizedPageRank } from "../ppr.ts";
import { type Candidate, CANDIDATES, type Retriever } from "../retriever.ts";
import type { Source } from "../types.ts";

/** How many of the best fused hits seed the walk, per source asked. */
const SEEDS = 8;
/** The signals whose fusion picks the seeds. */
const SEED_SIGNALS: ReadonlySet<Signal> = new Set(["vector", "lexical", "context"]);

/**
 * The graph signal over `graph`; in hybrid mode, unless the request weighs
 * the graph 0 or asks for code alone.
 */
export function graphRetriever(graph: KuzuDb, codeFiles?: CodeFiles): Retriever {
  return {
    signal: "graph",
    reads: [...SEED_SIGNALS],
    async retrieve(ask, earlier) {
      const found = new Map<Source, Candidate[]>();
      const { request } = ask;
      const weight = request.weights?.graph ?? DEFAULT_WEIGHTS.graph;
      const sources = request.sources;
      const onlyCode = sources.every((source) => source === "code");
      if (request.mode !== "hybrid" || weight <= 0 || onlyCode) return found;
      // Entities add seeds only when found: the walk's size was tuned on stores without them.
      const seeding = sources.filter((source) =>
        source !== "entity" ||
        [...SEED_SIGNALS].some((signal) => (earlier.get(signal)?.get(source)?.length ?? 0) > 0)
      );
      const best = fuseAcrossSources(evidenceOf(earlier, sources), SEED_SIGNALS, ask.weightsOf)
        .slice(0, SEEDS * seeding.length);
      if (best.length === 0) return found;
      const seedIds: Seeds = Object.fromEntries(
        sources.map((source) => [source, best.filter((f) => f.source === source).map((f) => f.id)]),
      );
      const edges = await neighbourhood(graph, seedIds, sources, codeFiles);
      if (edges.length === 0) return found;
      const walk = (seeds: typeof best) =>
        rankOf(edges, new Map(seeds.map((f) => [`${f.source}:${f.id}`, f.score])));
      const fromAll = walk(best);
      const fromOthers = best.some((f) => f.source === "code")
        ? walk(best.filter((f) => f.source !== "code"))
        : fromAll;
      // An entity is a hub the walk passes through from every memory naming it: its own rank
      // there says how often it is named, not that it answers. Entities only seed the walk.
      for (const source of sources.filter((source) => source !== "entity")) {
        const prefix = `${source}:`;
        const list = (source === "code" ? fromOthers : fromAll)
          .filter(([node]) => node.startsWith(prefix)).slice(0, CANDIDATES)
          .map(([node, score]) => ({ id: node.slice(prefix.length), score }))
          .filter(({ id }) => ask.keep(source, id))
          .map(({ id, score }) => ({ ids: [id], evidence: score, score }));
        found.set(source, list);
      }
      return found;
    },
  };
}

/** Every node the walk from `seeds` reaches, best first. */
function rankOf(edges: readonly Edge[], seeds: ReadonlyMap<string, number>): [string, number][] {
  if (seeds.size === 0) return [];
  return [...personalizedPageRank(edges, seeds)].sort((a, b) => b[1] - a[1]);
}
