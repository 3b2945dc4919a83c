import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { replayInto } from "../../projections/graph/graph_rebuild.ts";
import type { KuzuDb } from "../../projections/graph/kuzu.ts";
import { parseAsOf } from "./dates.ts";
import { storeLayout } from "./paths.ts";
import type { Store } from "./store.ts";

/** Events of code and sessions: the knowledge graph's reads never show them. */
const NOT_ENTITIES = /^(file|turn|transcript)\./;

/**
 * The knowledge graph as it was at `asOf`: the log's events of memories,
 * entities and relations up to then, replayed into a throwaway graph database
 * in the store's scratch folder, which is deleted when disposed. The log is the history,
 * so the live graph keeps no old versions.
 */
export async function graphAsOf(
  store: Store,
  asOf: string,
): Promise<{ db: KuzuDb } & AsyncDisposable> {
  const limit = parseAsOf(asOf);
  const scratch = storeLayout(store.dir).scratch;
  await Deno.mkdir(scratch, { recursive: true, mode: 0o700 });
  const dir = await Deno.makeTempDir({ dir: scratch, prefix: "graph-as-of-" });
  const remove = () => Deno.remove(dir, { recursive: true });
  let graph: GraphProjection | undefined;
  try {
    graph = await GraphProjection.open(dir);
    await replayInto(graph, store.log, {
      past: (event) => Date.parse(event.ts) > limit,
      skip: (event) => NOT_ENTITIES.test(event.type),
    });
  } catch (error) {
    await graph?.close();
    await remove();
    throw error;
  }
  const past = graph;
  return {
    db: past.database,
    [Symbol.asyncDispose]: async () => {
      await past.close();
      await remove();
    },
  };
}
