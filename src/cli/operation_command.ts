/**
 * The CLI commands of the operation table. An operation's flags come from
 * its zod input (`valid_from` is `--valid-from VALUE`, a boolean a bare
 * `--force`, a list one flag per value), its words from the positionals it
 * names, or from its own form (the graph's `relate FROM RELATION TO`);
 * operations named `graph add-entity`, `graph open`, … are the subcommands of
 * one `graph` command. A command prints its operation's text, or its data
 * under `--json`.
 * @module
 */
import type { ParseArgsConfig } from "node:util";
import { z } from "zod";
import { parseCommandArgs } from "./args.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";
import { describeIssues, UserError } from "../errors.ts";
import { didYouMean } from "../../text/did_you_mean.ts";
import { readTextArgument } from "./read_file.ts";
import type { AnyOperation } from "../ops/operation.ts";

type Kind = "boolean" | "list" | "number" | "text";

/** What a group of subcommands (`graph add-entity`, `graph open`, …) is, in `cairn --help`. */
const GROUPS: Record<string, string> = {
  graph: "the knowledge graph: entities, their observations and relations (MCP memory server)",
};

/**
 * The commands of `ops`, in order: one a command, and one for each group of
 * subcommands (`graph add-entity` and `graph open` are `graph`'s).
 */
export function commandsFor(ops: readonly AnyOperation[]): Command[] {
  const entries = new Map<string, AnyOperation[]>();
  for (const op of ops) {
    if (op.command === undefined) continue;
    const name = op.command.split(" ")[0]!;
    entries.set(name, [...entries.get(name) ?? [], op]);
  }
  return [...entries].map(([name, members]) =>
    members.length === 1 && members[0]!.command === name
      ? commandFor(members[0]!)
      : groupCommand(name, members)
  );
}

/** The command that runs `op` from the command line (an operation with a command). */
function commandFor(op: AnyOperation): Command {
  if (op.command === undefined) throw new Error(`operation ${op.tool} has no command`);
  return {
    name: op.command,
    summary: op.summary,
    usage: usageOf(op),
    check: (args) => {
      if (!op.cli?.custom) inputOf(op, args);
    },
    needsStore: () => !op.writes,
    async run(context: CommandContext) {
      const { input, json } = op.cli?.custom
        ? await customInputOf(op, context)
        : inputOf(op, context.args, await standardInputWords(op, context));
      const result = await withCairn(
        context,
        (cairn) =>
          op.run(cairn, input, {
            cwd: context.cwd,
            roots: context.roots,
            progress: context.progress,
          }),
        { settle: op.writes, warn: context.err, warmModel: op.writes },
      );
      const rendered = op.render(result, input);
      if (json || rendered.text) {
        context.out(json ? JSON.stringify(rendered.json ?? rendered.data) : rendered.text);
      }
      if (!rendered.problem) return 0;
      context.err(`cairn ${op.command}: ${rendered.problem}`);
      return 1;
    },
  };
}

/** A command of subcommands, each an operation's: `cairn graph open NAME`. */
function groupCommand(name: string, ops: readonly AnyOperation[]): Command {
  const subcommands = new Map(ops.map((op) => [op.command!.split(" ")[1]!, commandFor(op)]));
  const valid = [...subcommands.keys()].join(", ");
  const pick = (args: string[]) => {
    const [sub, ...rest] = args;
    if (!sub) throw new UsageError(`give a subcommand: ${valid}`);
    const command = subcommands.get(sub);
    if (!command) {
      throw new UsageError(
        `unknown subcommand "${sub}"${
          didYouMean(sub, [...subcommands.keys()])
        }; use one of ${valid}`,
      );
    }
    return { command, rest };
  };
  const width = Math.max(...ops.map((op) => subUsage(op).length));
  return {
    name,
    summary: GROUPS[name] ?? name,
    usage: `cairn ${name} SUBCOMMAND ... [--json]\n\n` +
      ops.map((op) => `  ${subUsage(op).padEnd(width)}  ${op.summary}`).join("\n") +
      "\n\n  --as-of D   as the graph was at the ISO 8601 date D\n" +
      "  --offset N  where a page starts: the offset the previous page printed\n" +
      "  --file F    instead of a change's arguments: the JSON array its MCP tool takes;\n" +
      "              - reads standard input",
    check: (args) => {
      const { command, rest } = pick(args);
      command.check?.(rest);
    },
    needsStore: ([sub = "", ...rest]) => subcommands.get(sub)?.needsStore?.(rest) ?? false,
    run(context) {
      const { command, rest } = pick(context.args);
      return command.run({ ...context, args: rest });
    },
  };
}

/** A subcommand's usage after the group's name: `relate FROM RELATION TO | --file F`. */
function subUsage(op: AnyOperation): string {
  return `${op.command!.split(" ")[1]} ${op.cli?.custom?.words ?? ""}`.trim();
}

/** The input of an operation with a custom form, built from its words and checked by its schema. */
async function customInputOf(
  op: AnyOperation,
  context: CommandContext,
): Promise<{ input: Record<string, unknown>; json: boolean }> {
  const custom = op.cli!.custom!;
  const parsed = parseCommandArgs(
    context.args,
    { ...custom.options, json: { type: "boolean" } },
    true,
  );
  const { json, ...values } = parsed.values as Record<string, unknown>;
  const built = await custom.build(
    values,
    parsed.positionals,
    (file) => readInput(context, file),
  );
  const checked = z.object(op.input).safeParse(built, { reportInput: true });
  if (checked.success) return { input: checked.data, json: json === true };
  if (typeof values.file === "string") {
    // What a file held is not the command line's fault: a plain refusal, naming the file.
    const source = values.file === "-" ? "standard input" : values.file;
    const nothing = op.writes ? "; nothing was changed" : "";
    // The file holds the array a change takes under its one key: paths start inside it.
    const inFile = checked.error.issues.map((issue) => ({ ...issue, path: issue.path.slice(1) }));
    throw new UserError(`${source}: ${describeIssues({ issues: inFile })}${nothing}`);
  }
  const flag = (key: string) =>
    key in custom.options ? `--${key}` : `--${key.replaceAll("_", "-")}`;
  throw new UsageError(describeIssues(checked.error, flag));
}

/** A file argument's text, or standard input's for `-` (as the caller sent it through the owner). */
async function readInput(context: CommandContext, file: string): Promise<string> {
  if (file !== "-") return await readTextArgument(context.cwd, file);
  if (context.stdin !== undefined) return context.stdin;
  return await new Response(Deno.stdin.readable).text();
}

/**
 * Standard input's text when `args` give `op`'s closing words as a lone `-`
 * (`cairn recall -`: the question is a pasted issue or stack trace).
 */
async function standardInputWords(
  op: AnyOperation,
  context: CommandContext,
): Promise<string | undefined> {
  const takesRest = op.cli?.positionals?.some((positional) => positional.rest) ?? false;
  return takesRest && context.args.includes("-") ? await readInput(context, "-") : undefined;
}

/**
 * The input `args` give `op`, checked by its schema; and whether `--json` was
 * asked. A lone `-` for the closing words stands for `stdin`, when given.
 */
function inputOf(
  op: AnyOperation,
  args: string[],
  stdin?: string,
): { input: Record<string, unknown>; json: boolean } {
  const positionals = op.cli?.positionals ?? [];
  const flags = flagsOf(op);
  // `--json` is `--format json` for an operation that has a format (see parseCommandArgs).
  const options: NonNullable<ParseArgsConfig["options"]> = "format" in op.input
    ? {}
    : { json: { type: "boolean" } };
  for (const { flag, kind } of flags) {
    options[flag] = kind === "boolean"
      ? { type: "boolean" }
      : { type: "string", ...(kind === "list" ? { multiple: true } : {}) };
  }
  const parsed = parseCommandArgs(args, options, positionals.length > 0);
  const input: Record<string, unknown> = {};
  let words = parsed.positionals;
  for (const positional of positionals) {
    const fromStdin = positional.rest && stdin !== undefined && words.join(" ") === "-";
    const taken = fromStdin ? stdin : positional.rest ? words.join(" ") : words[0];
    words = positional.rest ? [] : words.slice(1);
    if (taken === undefined || !taken.trim()) {
      if (positional.missing) throw new UsageError(positional.missing);
      continue;
    }
    input[positional.key] = taken;
  }
  if (words.length > 0) throw new UsageError(`unexpected "${words[0]}"`);
  for (const { key, flag, kind } of flags) {
    const value = parsed.values[flag];
    if (value === undefined) continue;
    const parse = op.cli?.parse?.[key];
    if (kind === "number") input[key] = numberOf(flag, value as string);
    else if (kind === "list") {
      const values = op.cli?.commas?.includes(key)
        ? (value as string[]).flatMap((v) => v.split(",").map((part) => part.trim()))
        : value as string[];
      input[key] = values.map((v) => parse ? parse(v) : v);
    } else input[key] = parse && typeof value === "string" ? parse(value) : value;
  }
  const checked = z.object(op.input).safeParse(input, { reportInput: true });
  if (!checked.success) {
    // The input came from the command line: say it with the flags and words it was written in.
    const named = new Map<string, string>(flags.map(({ key, flag }) => [key, `--${flag}`]));
    for (const { key } of positionals) named.set(key, `the ${key}`);
    throw new UsageError(describeIssues(checked.error, (key) => named.get(key) ?? key));
  }
  return { input: checked.data, json: parsed.values.json === true };
}

/** Every flag of `op`: the input keys no positional fills, and how each is written. */
function flagsOf(op: AnyOperation): Array<{ key: string; flag: string; kind: Kind }> {
  const filled = new Set((op.cli?.positionals ?? []).map((p) => p.key));
  return Object.entries(op.input).filter(([key]) => !filled.has(key)).map(([key, schema]) => ({
    key,
    flag: op.cli?.flags?.[key] ?? key.replaceAll("_", "-"),
    kind: kindOf(schema as z.ZodType),
  }));
}

/** `schema` without its optional and default wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) {
    inner = inner.def.innerType as z.ZodType;
  }
  return inner;
}

/** How a flag of this schema is written. */
function kindOf(schema: z.ZodType): Kind {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodBoolean) return "boolean";
  if (inner instanceof z.ZodArray) return "list";
  if (inner instanceof z.ZodNumber) return "number";
  return "text";
}

/**
 * What a flag's value is called in the usage: the operation's own name for
 * it, a short list of choices (`hybrid|vector|lexical`), `DATE`, `NAME`, or
 * the flag's name.
 */
function placeholderOf(op: AnyOperation, key: string, flag: string): string {
  const own = op.cli?.values?.[key];
  if (own) return own;
  const choices = choicesOf(op.input[key] as z.ZodType);
  const joined = choices?.join(op.cli?.commas?.includes(key) ? "," : "|");
  if (joined && joined.length <= 40) return joined;
  if (/(^as_of|_from|_to|_at)$/.test(key)) return "DATE";
  if (key === "project") return "NAME";
  return flag.toUpperCase().replaceAll("-", "_");
}

/** The choices of an enum (or a list of one), looking through optional and default. */
function choicesOf(schema: z.ZodType): string[] | undefined {
  let inner = unwrapped(schema);
  if (inner instanceof z.ZodArray) inner = unwrapped(inner.def.element as z.ZodType);
  return inner instanceof z.ZodEnum ? inner.options.map(String) : undefined;
}

function numberOf(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) {
    throw new UsageError(`--${flag} takes a number, not "${text}"`);
  }
  return value;
}

/** `cairn remember TEXT [--kind KIND] [--tag TAG]... [--force] [--json]`, then the help lines. */
function usageOf(op: AnyOperation): string {
  const custom = op.cli?.custom;
  if (custom) return `cairn ${op.command} ${custom.words} [--json]`;
  const words = (op.cli?.positionals ?? []).map((p) => (p.missing ? p.name : `[${p.name}]`));
  const flags = flagsOf(op).map(({ key, flag, kind }) => {
    if (kind === "boolean") return `[--${flag}]`;
    const value = kind === "number" ? "N" : placeholderOf(op, key, flag);
    return kind === "list" ? `[--${flag} ${value}]...` : `[--${flag} ${value}]`;
  });
  const json = "format" in op.input ? [] : ["[--json]"];
  const line = ["cairn", op.command, ...words, ...flags, ...json].join(" ");
  return op.cli?.help ? `${line}\n\n${op.cli.help}` : line;
}
