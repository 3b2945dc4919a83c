import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";
import { startedOwner } from "../mcp/owner_start.ts";
import { LINK_TTL_MS, loginLink } from "../ui/auth.ts";

/**
 * `cairn ui`: prints a one-time link to the web view the store's owner
 * serves (starting the owner when none runs). Opening the link logs that
 * browser in for the owner's lifetime (12 hours at most).
 */
export const uiCommand: Command = {
  name: "ui",
  summary: "a local web view of memories, the graph, sessions and index health (prints a link)",
  usage: "cairn ui\n\n" +
    "  Prints a one-time link to http://127.0.0.1:PORT/ui/ served by the store's owner;\n" +
    `  it logs one browser in and works once, within ${LINK_TTL_MS / 60_000} minutes.`,
  async run(context) {
    parseCommandArgs(context.args, {});
    const owner = await startedOwner(context.storeDir, { log: context.err });
    if (!owner) throw new Error("the store's owner (cairn serve) did not start");
    context.out(await loginLink(owner.port, owner.token));
    context.err(
      `cairn ui: open the link above in a browser on this machine (it works once, within ` +
        `${LINK_TTL_MS / 60_000} minutes); \`cairn ui\` again prints a new one`,
    );
    return 0;
  },
};
