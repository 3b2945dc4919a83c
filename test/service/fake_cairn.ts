import { CachedEmbedder } from "../../src/embed/cache.ts";
import { type Cairn, openCairn } from "../../src/service/cairn.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";

/** Opens the store in `store` with the fake model behind the store's embedding cache. */
export async function openWithFakeModel(store: string): Promise<Cairn> {
  return await openCairn(store, { embedder: await CachedEmbedder.open(new FakeEmbedder(), store) });
}
