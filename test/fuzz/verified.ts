/**
 * What every fuzz test ends with: the store closes, opens again with every
 * projection caught up, and `verify`'s checks find nothing wrong.
 * @module
 */
import assert from "node:assert/strict";
import { checkLog } from "../../events/verify.ts";
import { type Cairn, openCairn } from "../../src/service/cairn.ts";
import { storeLayout } from "../../src/service/paths.ts";
import { checkProjections } from "../../src/service/projection_check.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";

/** Opens `store` with the fake model, as every fuzz test does. */
export function openFuzzed(store: string): Promise<Cairn> {
  return openCairn(store, { embedder: new FakeEmbedder() });
}

/** Closes `cairn`, reopens its store and asserts it is whole. */
export async function assertStoreWhole(cairn: Cairn): Promise<void> {
  const store = cairn.store.dir;
  await cairn.store.runner.settled();
  await cairn.close();
  const again = await openFuzzed(store);
  try {
    await again.store.runner.settled();
    for (const { name, lag } of again.store.runner.status()) assert.equal(lag, 0, name);
  } finally {
    await again.close();
  }
  const log = await checkLog(storeLayout(store).log);
  assert.deepEqual(log.problems, []);
  const projections = await checkProjections(store);
  assert.deepEqual(projections, {
    checked: ["graph", "text", "vectors", "code_catalog", "session_state", "memory_history"],
    problems: [],
  });
}
