/**
 * cairn's command-line entry point.
 * @module
 */
import { runCli } from "./src/cli/main.ts";
import { stopInferenceWorkers } from "./src/embed/worker_pool.ts";

if (import.meta.main) {
  const code = await runCli(Deno.args);
  // Exiting while a model is still loading or embedding would let onnxruntime abort the process.
  await stopInferenceWorkers();
  Deno.exit(code);
}
