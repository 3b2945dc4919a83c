/**
 * A few inference workers fed from one queue: each takes the next batch when
 * it is free, so both cores stay busy whatever the batch sizes.
 * @module
 */
import { EmbedderError } from "./embedder.ts";
import type { CloseRequest, InitRequest, RunRequest, WorkerResponse } from "./onnx_protocol.ts";
import { sharingModels } from "./shared_models.ts";

interface Job {
  request: RunRequest;
  urgent: boolean;
  resolve: (vectors: Float32Array<ArrayBuffer>) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

const WORKER_URL = new URL("./onnx_worker.ts", import.meta.url);

/**
 * Every inference worker started and not yet stopped, with its stop once one
 * is asked for. A worker must not be terminated, nor the process exit, while
 * it is inside onnxruntime: onnxruntime then aborts the whole process.
 */
const live = new Map<Worker, Promise<void> | undefined>();

/**
 * Stops a worker after its calls into onnxruntime return, and resolves once
 * it has (at once for a worker already stopped or dead).
 */
function stop(worker: Worker): Promise<void> {
  if (!live.has(worker)) return Promise.resolve();
  let stopping = live.get(worker);
  if (!stopping) {
    stopping = new Promise<void>((resolve) => {
      const done = () => {
        forget(worker);
        resolve();
      };
      // Listeners beside the pool's handlers: answers to calls still running go where they went.
      worker.addEventListener("message", (event: MessageEvent<WorkerResponse>) => {
        if (event.data.type === "closed") done();
      });
      worker.addEventListener("error", (event: ErrorEvent) => {
        event.preventDefault();
        done();
      });
      worker.postMessage({ type: "close" } satisfies CloseRequest);
    });
    live.set(worker, stopping);
  }
  return stopping;
}

/** A worker that has stopped or crashed: nothing runs in it any more, so it can go at once. */
function forget(worker: Worker): void {
  live.delete(worker);
  worker.terminate();
}

/**
 * Stops every inference worker still running, each after its current call
 * (a model still loading included): what a process awaits before it exits.
 */
export async function stopInferenceWorkers(): Promise<void> {
  kept.clear();
  await Promise.all([...live.keys()].map(stop));
}

/**
 * Pools kept loaded for the rest of the process, by the model file and
 * settings they load, once `shareLoadedModels` (in shared_models.ts) was called.
 */
const kept = new Map<string, Promise<WorkerPool>>();

/** Inference workers sharing one queue of batches. */
export class WorkerPool {
  readonly #slots: Slot[];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #failure: EmbedderError | undefined;
  /** Kept for the process (see `shareLoadedModels` in shared_models.ts): closing leaves it running. */
  #kept = false;

  private constructor(slots: Slot[]) {
    this.#slots = slots;
    for (const slot of slots) {
      slot.worker.onmessage = (event: MessageEvent<WorkerResponse>) =>
        this.#answer(slot, event.data);
      slot.worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        forget(slot.worker);
        this.#fail(
          new EmbedderError("inference_failed", `an inference worker crashed: ${event.message}`),
        );
      };
    }
  }

  /**
   * {@linkcode WorkerPool.start}, or once `shareLoadedModels` (in shared_models.ts) was
   * called, the pool already loaded with the same model file and settings.
   */
  static async open(count: number, init: InitRequest): Promise<WorkerPool> {
    const file = sharingModels() && await Deno.stat(init.modelPath).catch(() => undefined);
    if (!file) return await WorkerPool.start(count, init);
    const key = JSON.stringify([count, init, file.size, file.mtime?.getTime()]);
    while (true) {
      let loading = kept.get(key);
      if (!loading) {
        loading = WorkerPool.start(count, init).then((pool) => {
          pool.#kept = true;
          return pool;
        });
        kept.set(key, loading);
      }
      const pool = await loading.catch((error) => {
        if (kept.get(key) === loading) kept.delete(key);
        throw error;
      });
      if (!pool.#failure) return pool;
      // A worker crashed: that pool is done, and the next open starts a new one.
      if (kept.get(key) === loading) kept.delete(key);
    }
  }

  /** Starts `count` workers and loads the model in each; rejects if any cannot load it. */
  static async start(count: number, init: InitRequest): Promise<WorkerPool> {
    const workers = Array.from({ length: count }, () => new Worker(WORKER_URL, { type: "module" }));
    for (const worker of workers) live.set(worker, undefined);
    try {
      await Promise.all(workers.map((worker) => ready(worker, init)));
    } catch (error) {
      await Promise.all(workers.map(stop));
      throw error;
    }
    return new WorkerPool(workers.map((worker) => ({ worker, job: undefined })));
  }

  /**
   * Queues one batch; resolves with its flat vectors. An `urgent` batch (a
   * query someone waits for) goes before the queued ones (documents embedded
   * in the background), so it waits for at most the batches already running.
   */
  run(
    ids: Int32Array<ArrayBuffer>,
    lengths: Int32Array<ArrayBuffer>,
    seqLen: number,
    urgent = false,
  ): Promise<Float32Array<ArrayBuffer>> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const request: RunRequest = { type: "run", id: this.#nextId++, ids, lengths, seqLen };
      const job = { request, urgent, resolve, reject };
      // Urgent batches go after the urgent ones already waiting, before every other.
      const at = urgent ? this.#queue.findIndex((queued) => !queued.urgent) : -1;
      if (at < 0) this.#queue.push(job);
      else this.#queue.splice(at, 0, job);
      this.#pump();
    });
  }

  /**
   * Rejects queued and running batches, and stops the workers once their
   * current calls return (resolves then). A pool kept for the process (see
   * `shareLoadedModels` in shared_models.ts) goes on as it is.
   */
  async close(): Promise<void> {
    if (this.#kept) return;
    this.#fail(new EmbedderError("closed", "the embedder is closed"));
    await Promise.all(this.#slots.map((slot) => stop(slot.worker)));
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.job) continue;
      const job = this.#queue.shift();
      if (!job) return;
      slot.job = job;
      slot.worker.postMessage(job.request, [job.request.ids.buffer, job.request.lengths.buffer]);
    }
  }

  #answer(slot: Slot, message: WorkerResponse): void {
    const job = slot.job;
    if (!job || !("id" in message) || message.id !== job.request.id) return;
    slot.job = undefined;
    if (message.type === "result") job.resolve(message.vectors);
    else if (message.type === "run_failed") {
      job.reject(new EmbedderError("inference_failed", `embedding failed: ${message.message}`));
    }
    this.#pump();
  }

  #fail(error: EmbedderError): void {
    if (this.#failure) return;
    this.#failure = error;
    for (const slot of this.#slots) {
      void stop(slot.worker);
      slot.job?.reject(error);
      slot.job = undefined;
    }
    for (const job of this.#queue.splice(0)) job.reject(error);
  }
}

function ready(worker: Worker, init: InitRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerResponse>) => {
      if (event.data.type === "ready") resolve();
      else if (event.data.type === "init_failed") {
        reject(
          new EmbedderError(
            "model_invalid",
            `could not load the model: ${event.data.message}`,
          ),
        );
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      reject(
        new EmbedderError(
          "inference_failed",
          `the inference worker failed to start: ${event.message}`,
        ),
      );
    };
    worker.postMessage(init);
  });
}
