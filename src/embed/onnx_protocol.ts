/**
 * Messages between {@linkcode OnnxEmbedder} and its inference workers.
 * @module
 */
import type { Pooling } from "./pooling.ts";

/** Loads the model in a worker. */
export interface InitRequest {
  type: "init";
  /** Path of the ONNX file (the manifest's `model_file`); the worker reads the bytes itself (works in compiled binaries). */
  modelPath: string;
  threads: number;
  inputs: readonly string[];
  output: string;
  pooling: Pooling;
  dims: number;
}

/** Runs one padded batch: `ids` is `[batch, seqLen]` row-major, 0-padded; `lengths` the real lengths. */
export interface RunRequest {
  type: "run";
  id: number;
  ids: Int32Array<ArrayBuffer>;
  lengths: Int32Array<ArrayBuffer>;
  seqLen: number;
}

/** Stops the worker once its calls into onnxruntime have returned. */
export interface CloseRequest {
  type: "close";
}

/** Anything the embedder sends a worker. */
export type WorkerRequest = InitRequest | RunRequest | CloseRequest;

/** Anything a worker answers. */
export type WorkerResponse =
  | { type: "ready" }
  | { type: "init_failed"; message: string }
  | { type: "result"; id: number; vectors: Float32Array<ArrayBuffer> }
  | { type: "run_failed"; id: number; message: string }
  | { type: "closed" };
