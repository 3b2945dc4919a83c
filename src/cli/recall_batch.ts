/**
 * `cairn recall --batch FILE.jsonl`: many questions in one process, one
 * answer line each with its time (what the benchmarks drive).
 * @module
 */
import { z } from "zod";
import { LANGUAGE_NAMES, languageNamed } from "../ingest/code/source_file.ts";
import { batchResults, formatMarkdown } from "../ops/format.ts";
import { MAX_QUERY_CHARS } from "../recall/recall.ts";
import type { RecallRequest } from "../recall/types.ts";
import { Include, sourcesOf } from "../ops/include.ts";
import { parseJsonl } from "../ingest/jsonl.ts";
import { parseCommandArgs, parseLimit } from "./args.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { readTextArgument } from "./read_file.ts";
import { withCairn } from "./with_cairn.ts";

const Mode = z.enum(["hybrid", "vector", "lexical"]);
const Language = z.string().refine(
  (name) => languageNamed(name) !== undefined,
  { error: `language is one of ${LANGUAGE_NAMES.join(", ")}` },
).transform((name) => languageNamed(name)!);

const BatchLine = z.object({
  id: z.string().min(1),
  query: z.string().min(1).max(MAX_QUERY_CHARS),
  project: z.string().min(1).nullable().optional(),
  include: z.array(Include).min(1).optional(),
  language: Language.optional(),
  mode: Mode.optional(),
  /** Also answer with the markdown an agent reads (to measure what it shows). */
  markdown: z.boolean().optional(),
  /** The asking session: its turns still in its context are left out. */
  session: z.string().min(1).optional(),
  /** The file-aware session pipeline: false turns it off (an ablation), numbers tune it. */
  session_files: z.union([
    z.literal(false),
    z.object({
      threshold: z.number().min(0).max(2).optional(),
      file_distance: z.number().min(0).max(2).optional(),
    }).strict(),
  ]).optional(),
}).strict();

/** `command` (recall), which also answers `--batch FILE.jsonl`. */
export function withBatch(command: Command): Command {
  return {
    ...command,
    usage: `${command.usage.split("\n")[0]}\n` +
      "       cairn recall --batch FILE.jsonl [--limit N] --format jsonl" +
      command.usage.slice(command.usage.split("\n")[0]!.length),
    check: (args) => args.includes("--batch") ? void batchArgs(args) : single(args, command),
    run: (context) => {
      if (context.args.includes("--batch")) return recallBatch(context);
      single(context.args, command);
      return command.run(context);
    },
  };
}

/** Checks the arguments of one question: `--format jsonl` is only for a batch. */
function single(args: string[], command: Command): void {
  const at = args.findIndex((arg) => arg === "--format" || arg === "--format=jsonl");
  if (at >= 0 && (args[at] === "--format=jsonl" || args[at + 1] === "jsonl")) {
    throw new UsageError(
      '--format is markdown, json or debug, not "jsonl" (jsonl goes with --batch)',
    );
  }
  command.check?.(args);
}

function batchArgs(args: string[]): { file: string; limit: number } {
  const { values, positionals } = parseCommandArgs(args, {
    batch: { type: "string" },
    limit: { type: "string" },
    format: { type: "string" },
  }, true);
  if (values.format !== undefined && values.format !== "jsonl") {
    throw new UsageError(`--batch answers in jsonl, not "${values.format}"`);
  }
  if (positionals.length > 0) {
    throw new UsageError(`--batch reads its questions from the file, not "${positionals[0]}"`);
  }
  if (!values.batch) throw new UsageError("--batch takes a FILE.jsonl of questions");
  return { file: values.batch, limit: parseLimit(values.limit) };
}

async function recallBatch(context: CommandContext): Promise<number> {
  const { file, limit } = batchArgs(context.args);
  const lines = parseJsonl(
    await readTextArgument(context.cwd, file),
    file,
    BatchLine,
    "nothing was run",
  );
  await withCairn(context, async (cairn) => {
    for (const line of lines) {
      const started = performance.now();
      const answer = await cairn.recall.run({
        query: line.query,
        project: line.project ?? null,
        sources: sourcesOf(line.include),
        ...(line.language ? { language: line.language } : {}),
        ...(line.session ? { session: line.session } : {}),
        ...(line.session_files === undefined
          ? {}
          : { sessionFiles: sessionFiles(line.session_files) }),
        limit,
        mode: line.mode ?? "hybrid",
      });
      const elapsed = performance.now() - started;
      context.out(
        JSON.stringify({
          id: line.id,
          elapsed_ms: Math.round(elapsed * 10) / 10,
          results: batchResults(answer),
          ...(line.markdown ? { markdown: formatMarkdown(answer) } : {}),
        }),
      );
    }
  }, { warmModel: lines.some((line) => line.mode !== "lexical") });
  return 0;
}

/** A batch line's `session_files` as recall takes it. */
function sessionFiles(
  option: false | { threshold?: number | undefined; file_distance?: number | undefined },
): NonNullable<RecallRequest["sessionFiles"]> {
  if (option === false) return false;
  return {
    ...(option.threshold === undefined ? {} : { threshold: option.threshold }),
    ...(option.file_distance === undefined ? {} : { fileDistance: option.file_distance }),
  };
}
