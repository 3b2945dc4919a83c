/**
 * One onnxruntime session and the tensors it is fed: shared by the inference
 * worker and the benchmark that measures raw onnxruntime against it.
 * @module
 */
import * as ort from "onnxruntime-node";
import { poolHidden, type Pooling } from "./pooling.ts";
import type { InitRequest, RunRequest } from "./onnx_protocol.ts";

/** The session options cairn uses: `threads` intra-op threads, full graph optimisation. */
export function sessionOptions(threads: number): ort.InferenceSession.SessionOptions {
  return { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: "all" };
}

/** Opens a session from the model file's bytes (read through Deno, so compiled binaries work). */
export async function openSession(
  modelPath: string,
  threads: number,
): Promise<ort.InferenceSession> {
  const bytes = await Deno.readFile(modelPath);
  return await ort.InferenceSession.create(bytes, sessionOptions(threads));
}

/**
 * Opens the graph at `modelPath` and checks it takes the manifest's `inputs`
 * and gives its `output`, so a manifest that does not fit its graph fails at
 * load, saying what the graph has, not at the first text.
 */
export async function openCheckedSession(
  modelPath: string,
  threads: number,
  { inputs, output }: Pick<InitRequest, "inputs" | "output">,
): Promise<ort.InferenceSession> {
  const session = await openSession(modelPath, threads).catch((error) => {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`onnxruntime cannot read ${modelPath} (${why}); re-download the model`);
  });
  const missing = inputs.filter((name) => !session.inputNames.includes(name));
  const problem = missing.length
    ? `no input named ${missing.join(", ")} (its inputs: ${session.inputNames.join(", ")})`
    : session.outputNames.includes(output)
    ? undefined
    : `no output named ${output} (its outputs: ${session.outputNames.join(", ")})`;
  if (!problem) return session;
  await session.release();
  throw new Error(
    `${modelPath} does not fit its manifest: the graph has ${problem}; fix the manifest`,
  );
}

/** The model's input tensors for one padded batch, limited to the inputs the model takes. */
export function feeds(request: RunRequest, inputs: readonly string[]): Record<string, ort.Tensor> {
  const { ids, lengths, seqLen } = request;
  const shape = [lengths.length, seqLen];
  const inputIds = new BigInt64Array(ids.length);
  const mask = new BigInt64Array(ids.length);
  for (let b = 0; b < lengths.length; b++) {
    for (let t = 0; t < lengths[b]!; t++) {
      const at = b * seqLen + t;
      inputIds[at] = BigInt(ids[at]!);
      mask[at] = 1n;
    }
  }
  const all: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor("int64", inputIds, shape),
    attention_mask: new ort.Tensor("int64", mask, shape),
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(ids.length), shape),
  };
  return Object.fromEntries(inputs.map((name) => [name, all[name]!]));
}

/** Runs one batch and returns its pooled unit vectors, flat (`[batch, dims]`). */
export async function embedBatch(
  session: ort.InferenceSession,
  config: Pick<InitRequest, "inputs" | "output" | "pooling" | "dims">,
  request: RunRequest,
): Promise<Float32Array<ArrayBuffer>> {
  const result = await session.run(feeds(request, config.inputs), [config.output]);
  const hidden = result[config.output];
  if (!hidden) throw new Error(`the model has no output named ${config.output}`);
  try {
    if (hidden.dims.at(-1) !== config.dims) {
      throw new Error(
        `the model outputs ${hidden.dims.at(-1)} dimensions, the manifest says ${config.dims}`,
      );
    }
    const batch = request.lengths.length;
    const positions = outputPositions(hidden.dims, request.seqLen, config.pooling);
    const mask = new Uint8Array(request.ids.length);
    request.lengths.forEach((length, b) =>
      mask.fill(1, b * request.seqLen, b * request.seqLen + length)
    );
    const vectors = poolHidden(
      hidden.data as Float32Array,
      mask,
      batch,
      positions,
      config.dims,
      config.pooling,
    );
    const flat = new Float32Array(batch * config.dims);
    vectors.forEach((v, b) => flat.set(v, b * config.dims));
    return flat;
  } finally {
    hidden.dispose();
  }
}

/**
 * The token positions the model's output holds per text: every input position,
 * or fewer for [CLS] pooling (a graph cut to compute its last layer for the
 * [CLS] row alone outputs one). Mean pooling needs every position.
 */
export function outputPositions(
  dims: readonly number[],
  seqLen: number,
  pooling: Pooling,
): number {
  const positions = dims.length === 3 ? dims[1]! : 0;
  const enough = pooling === "cls" ? positions >= 1 && positions <= seqLen : positions === seqLen;
  if (!enough) {
    throw new Error(
      `the model outputs [${
        dims.join(", ")
      }] for texts of ${seqLen} tokens; ${pooling} pooling needs ${
        pooling === "cls" ? "the [CLS] position" : "every position"
      }`,
    );
  }
  return positions;
}
