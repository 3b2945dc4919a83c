/**
 * A command line sent to the store's owner, as the owner checks it. Apart
 * from `owner_cli.ts`, which sends it: the sending process does not load zod.
 * @module
 */
import { z } from "zod";

/**
 * The longest argument and standard input relayed: far above what any command
 * takes, so that the command itself says what is too long (a question's
 * limit, say) rather than the relay.
 */
const RELAYED_CHARS = 64 * 1024 * 1024;

/** A command sent to the owner: the command's name and arguments, as typed after the globals. */
export const CliRequest = z.object({
  args: z.array(z.string().max(RELAYED_CHARS)).min(1).max(1_000),
  cwd: z.string().min(1).max(4_096),
  roots: z.array(z.string().min(1).max(4_096)).max(100),
  stdin: z.string().max(RELAYED_CHARS).optional(),
}).strict();

/** A command sent to the owner. */
export type CliRequest = z.infer<typeof CliRequest>;
