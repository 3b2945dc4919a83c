/**
 * `reembed`: rebuilds every vector with the model config.json names now, or
 * moves the store to another model folder, while searches go on with the
 * old vectors; resumable.
 * @module
 */
import { join, resolve } from "node:path";
import { z } from "zod";
import { EmbedderError } from "../embed/embedder.ts";
import { checkFiles, describeFileProblem, loadModelFolder } from "../embed/manifest.ts";
import { TextTokenizer } from "../embed/tokenizer.ts";
import { UserError } from "../errors.ts";
import { formatSeconds, plural } from "../recall/vector_lag.ts";
import type { EmbedderSettings } from "../service/config.ts";
import type { VectorSource } from "../../projections/vectors/backlog.ts";
import type { ReembedOptions, ReembedProgress, ReembedReport } from "../service/reembed.ts";
import type { Caller } from "./operation.ts";
import { operation } from "./operation.ts";

/** What a re-embedding did, and the model folder config.json names now, if it moved there. */
export interface ReembedResult extends ReembedReport {
  modelDir?: string;
}

/** `reembed`, on the store's owner (the CLI runs it on a store no process has open otherwise). */
export const reembed = operation({
  command: "reembed",
  summary: "rebuild every vector with the embedding model config.json names, or move the store " +
    "to the model folder --model-dir names (resumable)",
  description: "Rebuild every vector with another embedding model.",
  core: false,
  writes: true,
  input: { model_dir: z.string().min(1).max(4096).optional() },
  output: { model: z.string(), seconds: z.number() },
  cli: {
    values: { model_dir: "DIR" },
    help:
      "Without --model-dir, the vectors are rebuilt with the model config.json names, or with\n" +
      "cairn's default model when it names none (how a store built with an older default moves).\n\n" +
      "  --model-dir  a model folder (its manifest.json and every file the manifest lists, " +
      "checked\n" +
      "               by sha256 before anything is done) to rebuild the vectors with; config.json\n" +
      "               is switched to it once every vector is rebuilt and swapped in. Until then\n" +
      "               the store keeps its old model and vectors, and running the same command\n" +
      "               again continues an interrupted run. While a `cairn serve` owns the store,\n" +
      "               the rebuild runs there and searches go on with the old vectors meanwhile",
  },
  async run(cairn, input, caller): Promise<ReembedResult> {
    const options = await reembedOptions(input, caller);
    return withModelDir(await cairn.reembed(options), options);
  },
  render(result: ReembedResult) {
    const counts = (Object.keys(SOURCE_NAMES) as VectorSource[])
      .map((source) => {
        const [one, many] = SOURCE_NAMES[source];
        return plural(result.vectors[source], one, many);
      })
      .join(", ");
    const resumed = result.resumedFrom > 0
      ? ` (continued an interrupted run from event ${result.resumedFrom})`
      : "";
    const lines = [
      `vectors rebuilt with ${result.model} in ${result.seconds.toFixed(1)} s${resumed}: ${counts}`,
    ];
    if (result.modelDir) lines.push(`config.json now names the model folder ${result.modelDir}`);
    return { text: lines.join("\n"), data: { model: result.model, seconds: result.seconds } };
  },
});

/** The options a `reembed` input asks for: the model folder, checked, and progress to the caller. */
export async function reembedOptions(
  input: { model_dir?: string | undefined },
  caller: Caller,
): Promise<ReembedOptions> {
  const embedder = input.model_dir === undefined
    ? undefined
    : await modelDirSettings(resolve(caller.cwd, input.model_dir));
  return {
    ...(embedder ? { embedder } : {}),
    onProgress: (progress) =>
      caller.progress?.(
        `embedding with ${progress.model}: ${vectorsSoFar(progress)}${timeLeft(progress)}, ` +
          `event ${progress.events} of ${progress.of}`,
        progress.of ? progress.events / progress.of : undefined,
      ),
  };
}

/** How the rebuilt vectors of each source are counted in words. */
const SOURCE_NAMES = {
  memory: ["memory", "memories"],
  code: ["code chunk", "code chunks"],
  turn: ["session turn", "session turns"],
  entity: ["fact of the graph", "facts of the graph"],
} as const satisfies Record<VectorSource, readonly [string, string]>;

/** "553 of about 1654 vectors", or "553 vectors" when the store's count is not known. */
export function vectorsSoFar({ vectors, expected }: ReembedProgress): string {
  return expected ? `${vectors} of about ${plural(expected, "vector")}` : plural(vectors, "vector");
}

/** ", about 20 s left" once the pace and the store's count are known, else nothing. */
export function timeLeft({ vectors, expected, rate }: ReembedProgress): string {
  return expected && rate && expected > vectors
    ? `, about ${formatSeconds((expected - vectors) / rate)} left`
    : "";
}

/** `report`, with the model folder config.json was switched to, if any. */
export function withModelDir(report: ReembedReport, options: ReembedOptions): ReembedResult {
  const settings = options.embedder;
  return settings?.kind === "onnx" && settings.model_dir
    ? { ...report, modelDir: settings.model_dir }
    : report;
}

/**
 * The settings naming the model folder `path`, once its manifest, every file's
 * sha256 and its tokenizer check out; else a {@linkcode UserError} saying what to fix.
 */
async function modelDirSettings(path: string): Promise<EmbedderSettings> {
  const refuse = (problem: string) =>
    new UserError(
      `--model-dir ${path}: ${problem}. Nothing was re-embedded; the store keeps its current model`,
    );
  const stat = await Deno.stat(path).catch(() => undefined);
  if (!stat?.isDirectory) {
    throw refuse("no such folder; give the folder that holds the model's manifest.json");
  }
  if (!(await Deno.stat(join(path, "manifest.json")).catch(() => undefined))) {
    throw refuse(
      "no manifest.json; a model folder needs one saying how to run the model and the sha256 " +
        "of each file (like models/bge-small-en-v1.5/manifest.json in cairn's source)",
    );
  }
  let manifest;
  try {
    ({ manifest } = await loadModelFolder(path, { verify: false }));
  } catch (error) {
    if (!(error instanceof EmbedderError)) throw error;
    throw refuse(`${error.message}; fix manifest.json`);
  }
  const problems = await checkFiles(path, manifest.files);
  if (problems.length > 0) {
    throw refuse(
      `${problems.map(describeFileProblem).join("; ")}; copy the model's files again, or correct ` +
        "their sha256 in manifest.json if it is the manifest that is wrong",
    );
  }
  try {
    await TextTokenizer.load(join(path, manifest.tokenizer_file), manifest.max_tokens);
  } catch (error) {
    if (!(error instanceof EmbedderError)) throw error;
    throw refuse(`${error.message}; check tokenizer_file in manifest.json`);
  }
  return { kind: "onnx", model_dir: path };
}
