import assert from "node:assert/strict";
import { join } from "node:path";
import { shippedManifest } from "../embed/model_hub.ts";
import { localServer } from "../embed/local_server.ts";
import { tempDir } from "../helpers.ts";
import { cliHere } from "../cli/in_process.ts";
import { httpClient, text } from "./mcp_client.ts";
import { serveHere } from "./serve_here.ts";

/** A store holding two memories embedded with the shipped model, with `config` as its config.json then. */
async function storeWith(root: string, config: unknown): Promise<string> {
  const store = join(root, "store");
  const memories = join(root, "memories.jsonl");
  await Deno.writeTextFile(
    memories,
    [
      { id: "a", content: "Nightly backups of the billing database run at 02:00" },
      { id: "b", content: "The search service is written in Rust" },
    ].map((record) => JSON.stringify(record)).join("\n"),
  );
  const imported = await cliHere(["--store", store, "import", memories]);
  assert.equal(imported.code, 0, imported.stderr);
  await Deno.writeTextFile(join(store, "config.json"), JSON.stringify(config));
  return store;
}

/**
 * Asks the store's owner through MCP by words and by recall, and returns
 * recall's answer; `answered` runs then, before the owner stops.
 */
async function askThroughMcp(store: string, answered = () => {}): Promise<string> {
  await using _serve = await serveHere(store);
  await using client = await httpClient(store);
  try {
    const words = await client.callTool({ name: "search_text", arguments: { query: "backups" } });
    assert.match(text(words), /Nightly backups/);
    const remembered = await client.callTool({
      name: "remember",
      arguments: { content: "Deploys happen on Tuesday mornings" },
    });
    assert.notEqual((remembered as { isError?: boolean }).isError, true, text(remembered));
    const recalled = await client.callTool({
      name: "recall",
      arguments: { query: "when do the billing backups run?" },
    });
    assert.notEqual((recalled as { isError?: boolean }).isError, true, text(recalled));
    assert.match(text(recalled), /Nightly backups/);
    return text(recalled);
  } finally {
    answered();
  }
}

Deno.test("while the embedding model is still loading, MCP answers by words and says semantic search is not ready", async () => {
  await using tmp = await tempDir();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // A hub that never finishes sending the model: the owner's model stays "loading".
  await using hub = localServer(async () => {
    await held;
    return new Response("gone", { status: 404 });
  });
  const store = await storeWith(tmp.path, {
    embedder: {
      kind: "onnx",
      model: "org/slow",
      hub_url: hub.url,
      manifest: await shippedManifest(),
    },
  });
  // Released before the owner stops: it would wait for the model still loading.
  const answer = await askThroughMcp(store, release);
  assert.match(answer, /semantic search is not ready \(the embedding model is still loading\)/);
});

Deno.test("with its model folder gone, MCP answers by words and says why semantic search is not ready", async () => {
  await using tmp = await tempDir();
  const store = await storeWith(tmp.path, {
    embedder: { kind: "onnx", model_dir: join(tmp.path, "no-such-model") },
  });
  const answer = await askThroughMcp(store);
  assert.match(
    answer,
    /semantic search is not ready \(the embedding model cannot be used: no embedding/,
  );
});
