/**
 * CLI commands while a `cairn serve` owns the store: the owner holds the
 * store's writer lock, so a command sent to it runs there, on the owner's open
 * store, and its output comes back. The request carries the caller's working
 * folder (relative paths start there) and, for `ingest --hook`, its standard
 * input. Protected like MCP: 127.0.0.1, the store's bearer token.
 * @module
 */
import { z } from "zod";
import { neverSent, ownerDied, ownerFetch } from "../mcp/owner_death.ts";
import { readOwnerRecord, readToken } from "../mcp/owner_file.ts";
import { provesOwner } from "../mcp/owner_proof.ts";

/** The path the owner runs relayed commands on. */
export const CLI_PATH = "/cli";

/** A command sent to the owner: the command's name and arguments, as typed after the globals. */
export const CliRequest = z.object({
  args: z.array(z.string().max(65_536)).min(1).max(1_000),
  cwd: z.string().min(1).max(4_096),
  roots: z.array(z.string().min(1).max(4_096)).max(100),
  stdin: z.string().max(65_536).optional(),
}).strict();

/** What the owner answers: the exit code and the lines written. */
export const CliAnswer = z.object({
  code: z.number().int(),
  out: z.array(z.string()),
  err: z.array(z.string()),
});

/** What the owner answers: the exit code and the lines written. */
export type CliAnswer = z.infer<typeof CliAnswer>;

/**
 * Sends a command to the store's owner and waits for its answer; undefined
 * when no owner is recorded or none answers (the caller then opens the store
 * itself, and meets the lock if something else holds it).
 */
export async function runInOwner(
  storeDir: string,
  request: z.infer<typeof CliRequest>,
): Promise<CliAnswer | undefined> {
  const record = await readOwnerRecord(storeDir);
  const token = record ? await readToken(storeDir) : undefined;
  if (!record || !token || !await provesOwner(record.port, token)) return undefined;
  let body: unknown;
  try {
    const response = await ownerFetch(`http://127.0.0.1:${record.port}${CLI_PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    body = await response.json().catch(() => undefined);
  } catch (error) {
    if (neverSent(error)) return undefined;
    const died = await ownerDied(storeDir, `\`cairn ${request.args.join(" ")}\``, error);
    return { code: 1, out: [], err: [`cairn: ${died.message}`] };
  }
  const answer = CliAnswer.safeParse(body);
  if (answer.success) return answer.data;
  const error = (body as { error?: unknown } | undefined)?.error;
  // Something else listens on a dead owner's port: not ours to ask.
  if (typeof error !== "string") return undefined;
  return {
    code: 1,
    out: [],
    err: [`cairn: the store's owner (pid ${record.pid}) refused the command: ${error}`],
  };
}
