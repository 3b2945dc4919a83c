import { join } from "node:path";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { Memories } from "./memories.ts";
import { Store, type StoreOptions } from "./store.ts";

/** An open store with cairn's projections and the services built on them. */
export interface Cairn {
  store: Store;
  graph: GraphProjection;
  memories: Memories;
  close(): Promise<void>;
}

/** Opens the store in `dir` as its only writer, with every projection caught up. */
export async function openCairn(dir: string, options: StoreOptions = {}): Promise<Cairn> {
  let graph: GraphProjection | undefined;
  const store = await Store.open(dir, {
    ...options,
    projections: async (projectionsDir) => {
      graph = await GraphProjection.open(join(projectionsDir, "graph"));
      return [graph];
    },
  });
  return {
    store,
    graph: graph!,
    memories: new Memories(store, graph!),
    close: () => store.close(),
  };
}
