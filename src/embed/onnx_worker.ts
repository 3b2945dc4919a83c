/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * A worker that owns one onnxruntime session and turns padded id batches into
 * pooled, normalised vectors, so inference never blocks the main event loop.
 * @module
 */
import type { InferenceSession } from "onnxruntime-node";
import { embedBatch, openCheckedSession } from "./onnx_session.ts";
import type { InitRequest, RunRequest, WorkerRequest, WorkerResponse } from "./onnx_protocol.ts";

let session: InferenceSession | undefined;
let config: InitRequest | undefined;

function reply(message: WorkerResponse, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

async function init(request: InitRequest): Promise<void> {
  try {
    session = await openCheckedSession(request.modelPath, request.threads, request);
    config = request;
    reply({ type: "ready" });
  } catch (error) {
    reply({ type: "init_failed", message: String(error) });
  }
}

async function run(request: RunRequest): Promise<void> {
  try {
    if (!session || !config) throw new Error("the model is not loaded");
    const vectors = await embedBatch(session, config, request);
    reply({ type: "result", id: request.id, vectors }, [vectors.buffer]);
  } catch (error) {
    reply({ type: "run_failed", id: request.id, message: String(error) });
  }
}

/** Loads and runs not yet finished: a close waits for them. */
const inFlight = new Set<Promise<void>>();

/**
 * Releases the session once every call into onnxruntime has returned, then
 * stops: a worker cut off in the middle of one brings the whole process down
 * (onnxruntime aborts with `std::bad_alloc`).
 */
async function close(): Promise<void> {
  await Promise.all(inFlight);
  await session?.release().catch(() => {});
  session = undefined;
  reply({ type: "closed" });
  self.close();
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (request.type === "close") {
    void close();
    return;
  }
  const work = request.type === "init" ? init(request) : run(request);
  inFlight.add(work);
  void work.finally(() => inFlight.delete(work));
};
