import { join, resolve } from "node:path";
import { EmbedderError } from "../embed/embedder.ts";
import { checkFiles, describeFileProblem, loadModelFolder } from "../embed/manifest.ts";
import { TextTokenizer } from "../embed/tokenizer.ts";
import type { EmbedderSettings } from "../service/config.ts";
import { UserError } from "../errors.ts";
import { reembed } from "../service/reembed.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";

/** `cairn reembed`: rebuilds the vectors with the model config.json names now, or another folder. */
export const reembedCommand: Command = {
  name: "reembed",
  summary: "rebuild every vector with the embedding model config.json names, or move the store " +
    "to the model folder --model-dir names (resumable)",
  usage: "cairn reembed [--model-dir DIR]\n\n" +
    "  --model-dir  a model folder (its manifest.json and every file the manifest lists, checked\n" +
    "               by sha256 before anything is done) to rebuild the vectors with; config.json\n" +
    "               is switched to it once every vector is rebuilt and swapped in. Until then\n" +
    "               the store keeps its old model and vectors, and running the same command\n" +
    "               again continues an interrupted run. While a `cairn serve` owns the store,\n" +
    "               the rebuild runs there and searches go on with the old vectors meanwhile",
  async run(context) {
    const { values } = parseCommandArgs(context.args, { "model-dir": { type: "string" } });
    const dir = values["model-dir"];
    if (dir === "") throw new UsageError("--model-dir needs a model folder");
    const embedder = dir === undefined
      ? undefined
      : await modelDirSettings(resolve(context.cwd, dir));
    const options = {
      ...(embedder ? { embedder } : {}),
      onProgress: (done: number, total: number) =>
        context.progress(`embedding: event ${done} of ${total}`, total ? done / total : undefined),
    };
    // Inside the owner the store goes on serving its old vectors until the new ones are in.
    const report = context.owner
      ? await context.owner.reembed(options)
      : await reembed(context.storeDir, options);
    const counts = Object.entries(report.vectors).map(([source, n]) => `${n} ${source}`).join(", ");
    const resumed = report.resumedFrom > 0
      ? ` (continued an interrupted run from event ${report.resumedFrom})`
      : "";
    context.out(
      `vectors rebuilt with ${report.model} in ${report.seconds.toFixed(1)} s${resumed}: ${counts}`,
    );
    if (embedder?.kind === "onnx") {
      context.out(`config.json now names the model folder ${embedder.model_dir}`);
    }
    return 0;
  },
};

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
