/**
 * A model folder's `manifest.json`: what the model is, how to run it, and the
 * sha256 of every file, checked before the model is used.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { EmbedderError } from "./embedder.ts";

/** The schema of `manifest.json`. */
export const ModelManifestSchema = z.object({
  name: z.string().min(1),
  source: z.string(),
  dims: z.number().int().positive(),
  pooling: z.enum(["cls", "mean"]),
  normalize: z.boolean(),
  max_tokens: z.number().int().min(3),
  query_prefix: z.string().default(""),
  document_prefix: z.string().default(""),
  quantization: z.string().default("none"),
  inputs: z.array(z.enum(["input_ids", "attention_mask", "token_type_ids"])).min(1),
  output: z.string().min(1),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/, "expected a lowercase sha256")),
}).superRefine((manifest, context) => {
  for (const required of ["model.onnx", "tokenizer.json"]) {
    if (!(required in manifest.files)) {
      context.addIssue({ code: "custom", path: ["files"], message: `no checksum for ${required}` });
    }
  }
});

/** A parsed model manifest. */
export type ModelManifest = z.infer<typeof ModelManifestSchema>;

/** A model folder whose files were all found and matched their checksums. */
export interface ModelFolder {
  dir: string;
  manifest: ModelManifest;
  /** `name` plus the quantization when there is one, e.g. `bge-small-en-v1.5-int8`. */
  id: string;
}

/** The embedder id of a manifest: the model name, plus its quantization unless none. */
export function modelId(manifest: ModelManifest): string {
  const name = manifest.name.toLowerCase();
  return manifest.quantization === "none" ? name : `${name}-${manifest.quantization}`;
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
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new EmbedderError(
      "model_invalid",
      `${where} is not a valid model manifest: ${issues.join("; ")}`,
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
        `no embedding model at ${dir} (manifest.json not found); reinstall cairn or download the model`,
      );
    }
    throw error;
  }
  const manifest = parseManifest(text, where);
  if (options.verify ?? true) await verifyFiles(dir, manifest.files);
  return { dir, manifest, id: modelId(manifest) };
}

/** Checks that each file in `files` (name → sha256) exists in `dir` with that checksum. */
export async function verifyFiles(dir: string, files: Record<string, string>): Promise<void> {
  await Promise.all(
    Object.entries(files).map(async ([name, expected]) => {
      const path = join(dir, name);
      let actual: string;
      try {
        actual = await sha256File(path);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) {
          throw new EmbedderError(
            "model_missing",
            `model file ${path} is missing; reinstall or re-download the model`,
          );
        }
        throw error;
      }
      if (actual !== expected) {
        throw new EmbedderError(
          "model_damaged",
          `model file ${path} is damaged (sha256 ${actual}, expected ${expected}); re-download the model`,
        );
      }
    }),
  );
}

/** The sha256 of a file's bytes, as lowercase hex, read in chunks (model files are large). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path, { read: true });
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}
