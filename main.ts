/**
 * cairn's command-line entry point.
 * @module
 */
import { runCli } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await runCli(Deno.args));
