import { resolve } from "node:path";
import { z } from "zod";
import { MAX_QUERY_CHARS } from "../recall/recall.ts";
import { batchResults, formatDebug, formatJson, formatMarkdown } from "../recall/format.ts";
import type { SignalWeights } from "../recall/fuse.ts";
import type { RecallRequest, Source } from "../recall/types.ts";
import { UserError } from "../service/errors.ts";
import { parseJsonl } from "../service/jsonl.ts";
import { LANGUAGE_NAMES } from "../ingest/code/source_file.ts";
import { checkLanguage, checkPathPrefix } from "../service/code_filters.ts";
import { parseCommandArgs, parseLimit } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

const INCLUDE: Record<string, Source> = { memories: "memory", code: "code", sessions: "turn" };
const Include = z.enum(["memories", "code", "sessions"]);
const Mode = z.enum(["hybrid", "vector", "lexical"]);
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
  relayed: true,
  summary: "answer a question from memories, code and past sessions (hybrid search)",
  usage: "cairn recall QUERY [--project NAME] [--include memories,code,sessions] [--language L] " +
    "[--path PREFIX] [--limit N] [--mode hybrid|vector|lexical] " +
    "[--weights vector=0.4,lexical=0.15,context=0.15,graph=0.45] " +
    "[--as-of DATE] [--valid-at DATE] [--session ID] [--format markdown|json|debug]\n" +
    "       cairn recall --batch FILE.jsonl [--limit N] --format jsonl\n\n" +
    "  --language  only code in this language (python, typescript, markdown, ...)\n" +
    "  --path      only code under this folder or file of the project, like src/auth\n" +
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
      const lines = await readBatch(resolve(context.cwd, values.batch));
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
      });
      return 0;
    }
    const query = positionals.join(" ");
    if (!query.trim()) throw new UsageError("give the question to recall");
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
      mode: Mode.parse(values.mode ?? "hybrid"),
      ...(values.weights ? { weights: parseWeights(values.weights) } : {}),
      ...(values.session ? { session: values.session } : {}),
    };
    const answer = await withCairn(
      context,
      (cairn) =>
        cairn.recall.run(request, {
          ...(values["as-of"] ? { as_of: isoDate(values["as-of"], "--as-of") } : {}),
          ...(values["valid-at"] ? { valid_at: isoDate(values["valid-at"], "--valid-at") } : {}),
        }),
      { warn: context.err },
    );
    const format = values.format ?? "markdown";
    if (format === "json") context.out(formatJson(answer));
    else if (format === "debug") context.out(formatDebug(answer));
    else if (format === "markdown") context.out(formatMarkdown(answer));
    else throw new UsageError(`--format is markdown, json or debug (jsonl goes with --batch)`);
    return 0;
  },
};

async function readBatch(path: string): Promise<Array<z.infer<typeof BatchLine>>> {
  return parseJsonl(await Deno.readTextFile(path), path, BatchLine, "nothing was run");
}

function parseInclude(text: string | undefined): Source[] {
  if (!text) return ["memory", "code", "turn"];
  return text.split(",").map((name) => {
    const source = INCLUDE[name.trim()];
    if (!source) throw new UsageError(`--include takes memories, code and sessions, not "${name}"`);
    return source;
  });
}

const SIGNALS = ["vector", "lexical", "context", "graph"] as const;

function parseWeights(text: string): Partial<SignalWeights> {
  const weights: Partial<SignalWeights> = {};
  for (const part of text.split(",")) {
    const [name, value] = part.split("=");
    const weight = Number(value);
    const signal = SIGNALS.find((known) => known === name);
    if (!signal || !Number.isFinite(weight) || weight < 0) {
      throw new UsageError(
        `--weights looks like vector=0.4,lexical=0.15,context=0.15,graph=0.45, not "${part}"`,
      );
    }
    weights[signal] = weight;
  }
  return weights;
}

function isoDate(text: string, option: string): string {
  if (Number.isNaN(Date.parse(text))) {
    throw new UsageError(`${option} takes an ISO 8601 date, not "${text}"`);
  }
  return text;
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
