/**
 * What `cairn graph`'s subcommands take: their arguments, or the JSON array
 * the matching MCP tool takes, from a file or standard input, validated
 * whole before anything is written.
 * @module
 */
import { readTextArgument } from "./read_file.ts";
import { z } from "zod";
import { describeIssues, UserError } from "../service/errors.ts";
import { ObservationsInput } from "../service/graph_ops.ts";
import { type CommandContext, UsageError } from "./command.ts";

/** What every refusal of a graph change adds. */
export const NOTHING_CHANGED = "nothing was changed";

/** `delete_entities`' `entityNames`. */
export const Names = z.array(z.string().trim().min(1).max(200)).min(1).max(100);

/** `delete_observations`' `deletions`, which call the texts `observations`, as the service takes them. */
export const Deletions = z.array(
  z.object({ entityName: z.string(), observations: z.array(z.string()) }),
)
  .transform((items) => items.map((d) => ({ entityName: d.entityName, contents: d.observations })))
  .pipe(ObservationsInput);

/**
 * The subcommand's items, validated: from `--file` (a file, or `-` for
 * standard input) or else from its arguments, never both.
 */
export async function input<T extends z.ZodType>(
  context: CommandContext,
  { values, positionals }: { values: { file?: string }; positionals: string[] },
  schema: T,
  fromArgs: () => z.input<T>,
): Promise<z.output<T>> {
  const { file } = values;
  if (file === undefined) return schema.parse(fromArgs());
  const others = Object.keys(values).filter((key) => key !== "file" && key !== "json");
  if (positionals.length || others.length) {
    throw new UsageError("give either --file or the arguments, not both");
  }
  const source = file === "-" ? "standard input" : file;
  let json: unknown;
  try {
    json = JSON.parse(await readInput(context, file));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new UserError(`${source} is not JSON (${error.message}); ${NOTHING_CHANGED}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new UserError(`${source}: ${describeIssues(parsed.error)}; ${NOTHING_CHANGED}`);
  }
  return parsed.data;
}

async function readInput(context: CommandContext, file: string): Promise<string> {
  if (file !== "-") return await readTextArgument(context.cwd, file);
  if (context.stdin !== undefined) return context.stdin;
  return await new Response(Deno.stdin.readable).text();
}
