/**
 * cairn's command-line entry point.
 * @module
 */
import { commandArguments, relaunchWithLongArguments } from "./src/cli/long_arguments.ts";
import { ownerDisabledByEnv, runCli } from "./src/cli/main.ts";
import { stopInferenceWorkers } from "./src/embed/worker_pool.ts";

if (import.meta.main) {
  const code = await relaunchWithLongArguments(Deno.args) ??
    await runCli(await commandArguments(), undefined, { startOwner: !ownerDisabledByEnv() });
  // Exiting while a model is still loading or embedding would let onnxruntime abort the process.
  await stopInferenceWorkers();
  Deno.exit(code);
}
