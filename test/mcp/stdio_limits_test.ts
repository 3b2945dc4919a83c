import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_MESSAGE_BYTES } from "../../src/mcp/bounded_stdio.ts";
import { MAIN, tempDir } from "../helpers.ts";
import { childEnv, killOwner } from "./mcp_client.ts";

const encoder = new TextEncoder();

/** Reads JSON-RPC answers off `lines` until one with `id` comes (within 30 s, else it fails). */
async function answerTo(
  lines: AsyncIterator<string>,
  id: number | null,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      lines.next(),
      new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), 30_000)),
    ]);
    clearTimeout(timer);
    if (next === "late") break;
    if (next.done) throw new Error(`standard output ended before the answer to ${id}`);
    const message = JSON.parse(next.value) as Record<string, unknown>;
    if (message.id === id) return message;
  }
  throw new Error(`no answer to ${id} within 30 s`);
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let at;
    while ((at = pending.indexOf("\n")) >= 0) {
      yield pending.slice(0, at);
      pending = pending.slice(at + 1);
    }
  }
}

/** Gives `store` no embedding model: the owner `cairn mcp` starts has none to load. */
async function withoutModel(store: string): Promise<void> {
  await Deno.mkdir(store, { recursive: true });
  await Deno.writeTextFile(
    join(store, "config.json"),
    JSON.stringify({ embedder: { kind: "onnx", model_dir: join(store, "no-model") } }),
  );
}

Deno.test("cairn mcp answers a message over its limit with an error and goes on; it exits when its client goes", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  await withoutModel(store);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--store", store, "mcp"],
    env: childEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = linesOf(child.stdout);
  const send = (message: unknown) => writer.write(encoder.encode(`${JSON.stringify(message)}\n`));
  try {
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "0" },
      },
    });
    assert.ok((await answerTo(lines, 1)).result);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // The official client writes the id last; a tool's own `id` argument is not the request's.
    const huge = JSON.stringify({
      method: "tools/call",
      params: {
        name: "revise",
        arguments: { id: "mem_abc", content: "x".repeat(25 * 1024 * 1024) },
      },
      jsonrpc: "2.0",
      id: 2,
    });
    assert.ok(huge.length > 20 * MAX_MESSAGE_BYTES);
    await writer.write(encoder.encode(`${huge}\n`));
    const refused = await answerTo(lines, 2);
    assert.match(
      (refused.error as { message: string }).message,
      /a message of \d+ bytes is over the limit of 1048576/,
    );
    await writer.write(encoder.encode("this is not json\n"));
    const garbled = (await answerTo(lines, null)).error as { code: number; message: string };
    assert.equal(garbled.code, -32700);
    assert.match(garbled.message, /^not JSON: /);
    // A batch (answered with a null id, as JSON-RPC asks), or an object that is no JSON-RPC
    // message, is told apart from text that is not JSON.
    await send([{ jsonrpc: "2.0", id: 4, method: "tools/list" }]);
    const batch = (await answerTo(lines, null)).error as { code: number; message: string };
    assert.deepEqual(batch, {
      code: -32600,
      message: "a batch (a JSON array) is not taken: send one message a line",
    });
    await send({ jsonrpc: "2.0", id: 5, method: "tools/list", extra: true });
    const odd = (await answerTo(lines, 5)).error as { code: number; message: string };
    assert.equal(odd.code, -32600);
    assert.match(odd.message, /^not a JSON-RPC 2\.0 message: it needs "jsonrpc": "2\.0"/);
    await send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    const listed = await answerTo(lines, 3);
    assert.ok((listed.result as { tools: unknown[] }).tools.length > 0, "it still answers");
    await writer.close();
    const status = await child.status;
    assert.equal(status.code, 0, "it ends with its input");
  } finally {
    await writer.close().catch(() => {});
    await child.stdout.cancel().catch(() => {});
    try {
      child.kill();
    } catch { /* already gone */ }
    await child.status;
    await killOwner(store);
  }
});
