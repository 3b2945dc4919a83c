/**
 * The folder a command was typed in. Under `deno task cairn …` Deno runs the
 * task in cairn's own checkout and passes the folder it was started from in
 * `INIT_CWD`; `cairn index .` must mean that folder, not the checkout.
 * @module
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** `INIT_CWD` when this process runs in cairn's checkout (a `deno task`), else the working folder. */
export function callerFolder(env: (name: string) => string | undefined = Deno.env.get): string {
  const here = Deno.cwd();
  const init = env("INIT_CWD");
  if (!init || !Deno.mainModule.startsWith("file:")) return here;
  const checkout = dirname(fileURLToPath(Deno.mainModule));
  return here === checkout ? init : here;
}
