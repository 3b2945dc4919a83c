import { join } from "node:path";
import { writeFileAtomic } from "../../events/durable_fs.ts";
import type { TeamConfig } from "./config.ts";

/**
 * This store's name in its team: config.json's `member`, else one drawn the
 * first time and kept in `<store>/team/member`. Together with an event's
 * number in this store's log it names the event everywhere (the JetStream
 * message id), so a copied store must be given a `member` of its own.
 */
export async function memberId(storeDir: string, team: TeamConfig): Promise<string> {
  if (team.member) return team.member;
  const dir = join(storeDir, "team");
  const path = join(dir, "member");
  try {
    return (await Deno.readTextFile(path)).trim();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await Deno.mkdir(dir, { recursive: true });
  const drawn = `m${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await writeFileAtomic(path, drawn + "\n");
  return drawn;
}
