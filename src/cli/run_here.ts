/**
 * A command run in this process, with the whole of cairn loaded: what
 * `main.ts` falls back to when the store's owner does not run the command.
 * @module
 */
import { stopInferenceWorkers } from "../embed/worker_pool.ts";
import { runCli, type RunOptions } from "./main.ts";

/** Runs the command line here and resolves to its exit code, once no model is loading. */
export async function runHere(argv: string[], options: RunOptions): Promise<number> {
  const code = await runCli(argv, undefined, options);
  // Exiting while a model is still loading or embedding would let onnxruntime abort the process.
  await stopInferenceWorkers();
  return code;
}
