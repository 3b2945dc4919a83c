import { z } from "zod";
import { MAX_QUERY_CHARS } from "../recall/recall.ts";
import { batchResults, formatDebug, formatJson, formatMarkdown } from "../recall/format.ts";
import { DEFAULT_WEIGHTS, type Signal, type SignalWeights } from "../recall/fuse.ts";
import type { RecallRequest, Source } from "../recall/types.ts";
import { UserError } from "../service/errors.ts";
import type { TimeFilters } from "../service/recall_service.ts";
import { parseJsonl } from "../service/jsonl.ts";
import { LANGUAGE_NAMES } from "../ingest/code/source_file.ts";
import { checkLanguage, checkPathPrefix } from "../service/code_filters.ts";
import { parseCommandArgs, parseDateOption, parseLimit } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";
import { readTextArgument } from "./read_file.ts";

const INCLUDE: Record<string, Source> = { memories: "memory", code: "code", sessions: "turn" };
const Include = z.enum(["memories", "code", "sessions"]);
const Mode = z.enum(["hybrid", "vector", "lexical"]);
const FORMATS = { markdown: formatMarkdown, json: formatJson, debug: formatDebug };
const SIGNALS = Object.keys(DEFAULT_WEIGHTS) as Signal[];
/** `vector=…,lexical=…,…` with the weights recall uses unless told otherwise. */
const DEFAULT_WEIGHTS_TEXT = SIGNALS.map((signal) => `${signal}=${DEFAULT_WEIGHTS[signal]}`)
  .join(",");
const Language = z.string().refine(
  (name) => LANGUAGE_NAMES.includes(name),
  { error: `language is one of ${LANGUAGE_NAMES.join(", ")}` },
);

const BatchLine = z.object({
  id: z.string().min(1),
  query: z.string().min(1).max(MAX_QUERY_CHARS),
  project: z.string().min(1).nullable().optional(),
  include: z.array(Include).min(1).optional(),
  language: Language.optional(),
  mode: Mode.optional(),
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
});

/** `cairn recall`: one ranked, compact answer over memories, code and sessions. */
export const recallCommand: Command = {
  name: "recall",
  owner: "start",
  summary: "answer a question from memories, code and past sessions (hybrid search)",
  usage: "cairn recall QUERY [--project NAME] [--include memories,code,sessions] [--language L] " +
    `[--path PREFIX] [--limit N] [--mode ${Mode.options.join("|")}] ` +
    `[--weights ${DEFAULT_WEIGHTS_TEXT}] ` +
    `[--as-of DATE] [--valid-at DATE] [--session ID] [--format ${
      Object.keys(FORMATS).join("|")
    }]\n` +
    "       cairn recall --batch FILE.jsonl [--limit N] --format jsonl\n\n" +
    "  --language  only code in this language (python, typescript, markdown, ...)\n" +
    "  --path      only code under this folder or file of the project, like src/auth\n" +
    "  --weights   how much each signal counts (the defaults shown)\n" +
    "  --session   the asking agent's session id: its turns still in its context are left out",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      project: { type: "string" },
      include: { type: "string" },
      language: { type: "string" },
      path: { type: "string" },
      limit: { type: "string" },
      mode: { type: "string" },
      weights: { type: "string" },
      format: { type: "string" },
      batch: { type: "string" },
      "as-of": { type: "string" },
      "valid-at": { type: "string" },
      session: { type: "string" },
    }, true);
    const limit = parseLimit(values.limit);
    if (values.batch) {
      if (values.format !== undefined && values.format !== "jsonl") {
        throw new UsageError(`--batch answers in jsonl, not "${values.format}"`);
      }
      const lines = await readBatch(context.cwd, values.batch);
      await withCairn(context, async (cairn) => {
        for (const line of lines) {
          const started = performance.now();
          const answer = await cairn.recall.run({
            query: line.query,
            project: line.project ?? null,
            sources: (line.include ?? ["memories", "code", "sessions"]).map((name) =>
              INCLUDE[name]!
            ),
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
            }),
          );
        }
      }, { warmModel: lines.some((line) => line.mode !== "lexical") });
      return 0;
    }
    const query = positionals.join(" ");
    if (!query.trim()) throw new UsageError("give the question to recall");
    const format = parseFormat(values.format);
    if (query.length > MAX_QUERY_CHARS) {
      throw new UserError(
        `the query has ${query.length} characters; the limit is ${MAX_QUERY_CHARS}`,
      );
    }
    const request: RecallRequest = {
      query,
      project: values.project ?? null,
      sources: parseInclude(values.include),
      ...(values.language ? { language: checkLanguage(values.language) } : {}),
      ...(values.path ? { pathPrefix: checkPathPrefix(values.path) } : {}),
      limit,
      mode: parseMode(values.mode),
      ...(values.weights ? { weights: parseWeights(values.weights) } : {}),
      ...(values.session ? { session: values.session } : {}),
    };
    const filters = parseTimeFilters(values["as-of"], values["valid-at"]);
    const answer = await withCairn(context, (cairn) => cairn.recall.run(request, filters), {
      warn: context.err,
      warmModel: request.mode !== "lexical",
    });
    context.out(FORMATS[format](answer));
    return 0;
  },
};

async function readBatch(cwd: string, file: string): Promise<Array<z.infer<typeof BatchLine>>> {
  return parseJsonl(await readTextArgument(cwd, file), file, BatchLine, "nothing was run");
}

function parseInclude(text: string | undefined): Source[] {
  if (!text) return ["memory", "code", "turn"];
  return text.split(",").map((name) => {
    const source = INCLUDE[name.trim()];
    if (!source) throw new UsageError(`--include takes memories, code and sessions, not "${name}"`);
    return source;
  });
}

function parseTimeFilters(asOf: string | undefined, validAt: string | undefined): TimeFilters {
  return {
    ...(asOf === undefined ? {} : { as_of: parseDateOption(asOf, "--as-of") }),
    ...(validAt === undefined ? {} : { valid_at: parseDateOption(validAt, "--valid-at") }),
  };
}

function parseMode(text: string | undefined): z.infer<typeof Mode> {
  const mode = Mode.safeParse(text ?? "hybrid");
  if (!mode.success) throw new UsageError(`--mode is ${either(Mode.options)}, not "${text}"`);
  return mode.data;
}

function parseFormat(text: string | undefined): keyof typeof FORMATS {
  const format = text ?? "markdown";
  if (Object.hasOwn(FORMATS, format)) return format as keyof typeof FORMATS;
  const batch = format === "jsonl" ? " (jsonl goes with --batch)" : "";
  throw new UsageError(`--format is ${either(Object.keys(FORMATS))}, not "${format}"${batch}`);
}

/** `a, b or c`. */
function either(options: readonly string[]): string {
  return `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`;
}

function parseWeights(text: string): Partial<SignalWeights> {
  const weights: Partial<SignalWeights> = {};
  for (const part of text.split(",")) {
    const [name, value] = part.split("=");
    const weight = Number(value);
    const signal = SIGNALS.find((known) => known === name);
    if (!signal || !Number.isFinite(weight) || weight < 0) {
      throw new UsageError(
        `--weights looks like ${DEFAULT_WEIGHTS_TEXT}, not "${part}"`,
      );
    }
    weights[signal] = weight;
  }
  return weights;
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
