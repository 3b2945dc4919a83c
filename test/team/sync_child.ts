/**
 * A member's sync pass in a process of its own, killed (exit without any
 * cleanup, as SIGKILL would leave it) at the moment `Deno.args[1]` names:
 * `after-publish` (acknowledged, not yet recorded) or `before-append` (read
 * from the stream, not yet in the log).
 * @module
 */
import { openCairn } from "../../src/service/cairn.ts";
import { loadTeamConfig } from "../../src/team/config.ts";
import { teamSyncFor } from "../../src/team/sync.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";

const [dir, when] = Deno.args;
const cairn = await openCairn(dir!, { embedder: new FakeEmbedder() });
const sync = await teamSyncFor(cairn.store, (await loadTeamConfig(dir!))!);
const die = () => Deno.exit(137);
const faults = when === "after-publish" ? { afterPublish: die } : { beforeAppend: die };
// A cluster electing a new leader refuses for a moment: tried again for up to 20 s.
const deadline = Date.now() + 20_000;
for (;;) {
  try {
    await sync.pass({ faults });
    break;
  } catch (error) {
    if (Date.now() > deadline) throw error;
    console.error(`pass failed, trying again: ${(error as Error).message}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
console.log("the pass ended without being killed");
Deno.exit(1);
