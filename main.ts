/**
 * cairn's command-line entry point. A command the store's owner runs is sent
 * to it first (`src/cli/client.ts`); the rest of cairn is loaded only when
 * the command runs here.
 * @module
 */
import { sendToOwner } from "./src/cli/client.ts";
import { ownerDisabledByEnv } from "./src/cli/global_options.ts";
import { commandArguments, relaunchWithLongArguments } from "./src/cli/long_arguments.ts";

/**
 * The module that runs a command here. Named by a variable, not a literal:
 * Deno loads every literally named module when the process starts, and the
 * store's modules would double the start of a command sent to the owner.
 * `deno task compile` includes it by name.
 */
const RUN_HERE = "./src/cli/run_here.ts";

if (import.meta.main) {
  const relaunched = await relaunchWithLongArguments(Deno.args);
  if (relaunched !== undefined) Deno.exit(relaunched);
  const argv = await commandArguments();
  const startOwner = !ownerDisabledByEnv();
  const sent = await sendToOwner(argv, startOwner);
  if ("code" in sent) Deno.exit(sent.code);
  const { runHere } = await import(RUN_HERE) as typeof import("./src/cli/run_here.ts");
  // An owner the fast path could not start is not tried again.
  Deno.exit(
    await runHere(argv, {
      startOwner: startOwner && !sent.tried,
      ...(sent.stdin === undefined ? {} : { stdin: sent.stdin }),
    }),
  );
}
