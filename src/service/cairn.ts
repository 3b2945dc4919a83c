import { join } from "node:path";
import { BlobStore } from "../../events/blobs.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { TextProjection } from "../../projections/text.ts";
import { Memories } from "./memories.ts";
import { storeLayout } from "./paths.ts";
import { RecallService } from "./recall_service.ts";
import { Store, type StoreOptions } from "./store.ts";

/** An open store with cairn's projections and the services built on them. */
export interface Cairn {
  store: Store;
  graph: GraphProjection;
  text: TextProjection;
  memories: Memories;
  recall: RecallService;
  close(): Promise<void>;
}

/** Opens the store in `dir` as its only writer, with every projection caught up. */
export async function openCairn(dir: string, options: StoreOptions = {}): Promise<Cairn> {
  let graph: GraphProjection | undefined;
  let text: TextProjection | undefined;
  const store = await Store.open(dir, {
    ...options,
    projections: async (projectionsDir) => {
      graph = await GraphProjection.open(join(projectionsDir, "graph"));
      text = await TextProjection.open(
        join(projectionsDir, "text"),
        new BlobStore(storeLayout(dir).blobs),
      );
      return [graph, text];
    },
  });
  const memories = new Memories(store, graph!);
  return {
    store,
    graph: graph!,
    text: text!,
    memories,
    recall: new RecallService({ graph: graph!.database, lexical: text! }, memories),
    close: () => store.close(),
  };
}
