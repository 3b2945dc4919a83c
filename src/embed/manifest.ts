/**
 * A model folder's `manifest.json`: what the model is, how to run it, and the
 * sha256 of every file, checked before the model is used.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { describeIssues } from "../errors.ts";
import { EmbedderError } from "./embedder.ts";

/**
 * Why `path` cannot name a file of a model folder, or undefined when it can: a
 * manifest names files by paths relative to the folder, `/`-separated, that
 * stay inside it, so a manifest (a hub model's comes from config.json) can never
 * make cairn read or write a file elsewhere.
 */
export function folderPathProblem(path: string): string | undefined {
  if (path === "") return "is empty";
  if (/^([/\\]|[A-Za-z]:)/.test(path)) {
    return "is absolute; give a path relative to the model folder, like onnx/model.onnx";
  }
  if (path.includes("\\")) return "has a backslash; separate folders with /, like onnx/model.onnx";
  const parts = path.split("/");
  if (parts.includes("..")) return "leaves the model folder (..); give a path inside it";
  if (parts.some((part) => part === "" || part === ".")) return "has an empty or . folder name";
  return undefined;
}

const FolderPath = z.string().superRefine((path, context) => {
  const problem = folderPathProblem(path);
  if (problem) context.addIssue({ code: "custom", message: `"${path}" ${problem}` });
});

/** The schema of `manifest.json`; a key it does not know (a misspelt `max_batch`) is refused. */
export const ModelManifestSchema = z.strictObject({
  name: z.string().min(1),
  source: z.string(),
  dims: z.number().int().positive(),
  pooling: z.enum(["cls", "mean"]),
  normalize: z.boolean(),
  max_tokens: z.number().int().min(3),
  /**
   * Most tokens of a document's vector, when fewer than `max_tokens`: a longer
   * passage's vector reads its start (its words are all searched); queries
   * keep `max_tokens`. A shorter window costs less of the model's time.
   */
  document_tokens: z.number().int().min(3).optional(),
  query_prefix: z.string().default(""),
  document_prefix: z.string().default(""),
  quantization: z.string().default("none"),
  /**
   * Most texts in one inference batch. 1 for a model whose vectors depend on
   * the batch they run in (dynamic int8 quantizes activations per batch), so a
   * text gets the same vector alone or among others.
   */
  max_batch: z.number().int().positive().optional(),
  inputs: z.array(z.enum(["input_ids", "attention_mask", "token_type_ids"])).min(1),
  output: z.string().min(1),
  /** The ONNX graph, relative to the folder; hub repositories often keep it in `onnx/`. */
  model_file: FolderPath.default("model.onnx"),
  /** The tokenizer, relative to the folder. */
  tokenizer_file: FolderPath.default("tokenizer.json"),
  /** The sha256 of every file, by its path relative to the folder. */
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/, "expected a lowercase sha256")),
}).superRefine((manifest, context) => {
  if (manifest.document_tokens !== undefined && manifest.document_tokens > manifest.max_tokens) {
    context.addIssue({
      code: "custom",
      path: ["document_tokens"],
      message: `${manifest.document_tokens} is more than max_tokens (${manifest.max_tokens})`,
    });
  }
  for (const path of Object.keys(manifest.files)) {
    const problem = folderPathProblem(path);
    if (problem) {
      context.addIssue({ code: "custom", path: ["files", path], message: `"${path}" ${problem}` });
    }
  }
  for (
    const [field, required] of [
      ["model_file", manifest.model_file],
      ["tokenizer_file", manifest.tokenizer_file],
    ] as const
  ) {
    if (!(required in manifest.files)) {
      context.addIssue({
        code: "custom",
        path: ["files"],
        message: `no checksum for ${required} (the ${field}); add its sha256 to files`,
      });
    }
  }
});

/** A parsed model manifest. */
export type ModelManifest = z.infer<typeof ModelManifestSchema>;

/** A model folder whose files were all found and matched their checksums. */
export interface ModelFolder {
  dir: string;
  manifest: ModelManifest;
  /** The embedder id, e.g. `bge-small-en-v1.5-int8` (see {@linkcode modelId}). */
  id: string;
}

/**
 * The embedder id of a manifest: the model name, plus its quantization unless
 * none, plus `-docN` when documents are read through a window of N tokens
 * shorter than the model's (their vectors differ, so they are cached apart).
 */
export function modelId(manifest: ModelManifest): string {
  const name = manifest.name.toLowerCase();
  const quantized = manifest.quantization === "none" ? name : `${name}-${manifest.quantization}`;
  const window = documentTokens(manifest);
  return window < manifest.max_tokens ? `${quantized}-doc${window}` : quantized;
}

/** The most tokens a document's vector reads, special tokens included. */
export function documentTokens(manifest: ModelManifest): number {
  return manifest.document_tokens ?? manifest.max_tokens;
}

/** Parses manifest text, naming the file and the fields that are wrong. */
export function parseManifest(text: string, where: string): ModelManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EmbedderError("model_invalid", `${where} is not valid JSON: ${error}`);
  }
  const parsed = ModelManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new EmbedderError(
      "model_invalid",
      `${where} is not a valid model manifest: ${describeIssues(parsed.error)}`,
    );
  }
  return parsed.data;
}

/**
 * Reads `<dir>/manifest.json` and checks every listed file's sha256. Throws an
 * {@linkcode EmbedderError} naming the missing or damaged file.
 */
export async function loadModelFolder(
  dir: string,
  options: { verify?: boolean } = {},
): Promise<ModelFolder> {
  const where = join(dir, "manifest.json");
  let text: string;
  try {
    text = await Deno.readTextFile(where);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new EmbedderError(
        "model_missing",
        `no embedding model at ${dir} (manifest.json not found)`,
      );
    }
    throw error;
  }
  const manifest = parseManifest(text, where);
  if (options.verify ?? true) await verifyFiles(dir, manifest.files);
  return { dir, manifest, id: modelId(manifest) };
}

/** A file of a model folder that is not as its manifest says. */
export interface FileProblem {
  /** The file's path, the folder's joined to the manifest's. */
  path: string;
  kind: "missing" | "damaged";
  expected: string;
  /** The sha256 found, for a damaged file. */
  actual?: string;
}

/** Every file in `files` (path → sha256) that is missing from `dir` or has another checksum. */
export async function checkFiles(
  dir: string,
  files: Record<string, string>,
): Promise<FileProblem[]> {
  const checked = await Promise.all(
    Object.entries(files).map(async ([name, expected]): Promise<FileProblem | undefined> => {
      const path = join(dir, name);
      let actual: string;
      try {
        actual = await sha256File(path);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return { path, kind: "missing", expected };
        throw error;
      }
      return actual === expected ? undefined : { path, kind: "damaged", expected, actual };
    }),
  );
  return checked.filter((problem) => problem !== undefined);
}

/** A file problem as one line: `model file /m/tokenizer.json is damaged (sha256 …, expected …)`. */
export function describeFileProblem(problem: FileProblem): string {
  return problem.kind === "missing"
    ? `model file ${problem.path} is missing`
    : `model file ${problem.path} is damaged (sha256 ${problem.actual}, expected ${problem.expected})`;
}

/** Checks that each file in `files` (path → sha256) exists in `dir` with that checksum. */
export async function verifyFiles(dir: string, files: Record<string, string>): Promise<void> {
  const [problem] = await checkFiles(dir, files);
  if (!problem) return;
  throw new EmbedderError(
    problem.kind === "missing" ? "model_missing" : "model_damaged",
    `${describeFileProblem(problem)}; reinstall or re-download the model`,
  );
}

/** The sha256 of a file's bytes, as lowercase hex, read in chunks (model files are large). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path, { read: true });
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}
