/**
 * A few inference workers fed from one queue: each takes the next batch when
 * it is free, so both cores stay busy whatever the batch sizes.
 * @module
 */
import { EmbedderError } from "./embedder.ts";
import type { InitRequest, RunRequest, WorkerResponse } from "./onnx_protocol.ts";

interface Job {
  request: RunRequest;
  resolve: (vectors: Float32Array<ArrayBuffer>) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

const WORKER_URL = new URL("./onnx_worker.ts", import.meta.url);

/** Inference workers sharing one queue of batches. */
export class WorkerPool {
  readonly #slots: Slot[];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #failure: EmbedderError | undefined;

  private constructor(slots: Slot[]) {
    this.#slots = slots;
    for (const slot of slots) {
      slot.worker.onmessage = (event: MessageEvent<WorkerResponse>) =>
        this.#answer(slot, event.data);
      slot.worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        this.#fail(
          new EmbedderError("inference_failed", `an inference worker crashed: ${event.message}`),
        );
      };
    }
  }

  /** Starts `count` workers and loads the model in each; rejects if any cannot load it. */
  static async start(count: number, init: InitRequest): Promise<WorkerPool> {
    const workers = Array.from({ length: count }, () => new Worker(WORKER_URL, { type: "module" }));
    try {
      await Promise.all(workers.map((worker) => ready(worker, init)));
    } catch (error) {
      for (const worker of workers) worker.terminate();
      throw error;
    }
    return new WorkerPool(workers.map((worker) => ({ worker, job: undefined })));
  }

  /** Queues one batch; resolves with its flat vectors. */
  run(
    ids: Int32Array<ArrayBuffer>,
    lengths: Int32Array<ArrayBuffer>,
    seqLen: number,
  ): Promise<Float32Array<ArrayBuffer>> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const request: RunRequest = { type: "run", id: this.#nextId++, ids, lengths, seqLen };
      this.#queue.push({ request, resolve, reject });
      this.#pump();
    });
  }

  /** Terminates the workers; queued and running batches are rejected. */
  close(): void {
    this.#fail(new EmbedderError("closed", "the embedder is closed"));
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
      slot.worker.terminate();
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
            `could not load ${init.modelPath}: ${event.data.message}; re-download the model`,
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
