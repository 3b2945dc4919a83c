import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../events/durable_fs.ts";
import { ModelManifestSchema } from "../embed/manifest.ts";
import { describeIssues, UserError } from "../errors.ts";
import { closest } from "../../text/did_you_mean.ts";

const OnnxEmbedderConfig = z.strictObject({
  kind: z.literal("onnx"),
  /** A model folder (manifest.json and the files it lists); default: the shipped model. */
  model_dir: z.string().min(1).optional(),
  /** A model on a hub, downloaded into the store's cache on first use; needs `manifest`. */
  model: z.string().regex(
    /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)*$/,
    "expected a hub model name like BAAI/bge-small-en-v1.5",
  ).optional(),
  /** The hub's root: files come from `<hub_url>/<model>/resolve/main/<file>`; default Hugging Face. */
  hub_url: z.url().optional(),
  /** The hub model's manifest.json, inline: how to run it, and the sha256 each file must have. */
  manifest: ModelManifestSchema.optional(),
}).superRefine((settings, context) => {
  const issue = (path: string, message: string) =>
    context.addIssue({ code: "custom", path: [path], message });
  if (settings.model !== undefined && settings.model_dir !== undefined) {
    issue("model", "give model (from a hub) or model_dir (a folder), not both");
  }
  if (settings.model !== undefined && settings.manifest === undefined) {
    issue("manifest", "a hub model needs its manifest, with the sha256 of every file");
  }
  if (settings.model === undefined && settings.manifest !== undefined) {
    issue("model", "name the hub model the manifest describes");
  }
  if (settings.model === undefined && settings.hub_url !== undefined) {
    issue("model", "name the model to download from hub_url");
  }
});

const HttpEmbedderConfig = z.strictObject({
  kind: z.literal("http"),
  /** An OpenAI-compatible API root: `http://127.0.0.1:11434/v1` (Ollama), `https://api.openai.com/v1`. */
  base_url: z.url(),
  model: z.string().min(1),
  dims: z.number().int().positive(),
  /** The environment variable holding the API key (never the key itself). */
  api_key_env: z.string().min(1).optional(),
  query_prefix: z.string().optional(),
});

const RerankConfig = z.strictObject({
  kind: z.literal("http"),
  /** A text-embeddings-inference style server: requests go to `<base_url>/rerank`. */
  base_url: z.url(),
  model: z.string().min(1),
  api_key_env: z.string().min(1).optional(),
  /** How many of the fused results are reranked. */
  top: z.number().int().min(2).max(50).default(20),
});

/**
 * A store's settings, from `<store>/config.json`. A key cairn does not know is
 * refused rather than ignored, so a misplaced setting never leaves a store on
 * the defaults without a word.
 */
export const Config = z.strictObject({
  embedder: z.discriminatedUnion("kind", [OnnxEmbedderConfig, HttpEmbedderConfig]).default({
    kind: "onnx",
  }),
  rerank: RerankConfig.optional(),
  /** Read and checked by the team layer (`src/team/config.ts`). */
  team: z.unknown().optional(),
});

/** The embedder's keys, which a hand-written config.json sometimes puts at the top. */
const EMBEDDER_KEYS = new Set([
  ...Object.keys(OnnxEmbedderConfig.shape),
  ...Object.keys(HttpEmbedderConfig.shape),
]);

/** A store's settings. */
export type Config = z.infer<typeof Config>;

/** The embedder part of a store's settings. */
export type EmbedderSettings = Config["embedder"];

/** Where a store keeps its settings. */
export function configPath(storeDir: string): string {
  return join(storeDir, "config.json");
}

/** Reads the store's settings; no file means the defaults, a bad one is refused with what to fix. */
export async function loadConfig(storeDir: string): Promise<Config> {
  return checkedConfig(storeDir, await readConfigJson(storeDir));
}

/** `json` as settings, or a {@linkcode UserError} naming config.json and what to fix. */
function checkedConfig(storeDir: string, json: unknown): Config {
  const parsed = Config.safeParse(json);
  if (!parsed.success) {
    throw new UserError(
      `${configPath(storeDir)}: ${describeIssues(parsed.error)}${embedderHint(json)}` +
        keyGuesses(parsed.error.issues),
    );
  }
  return parsed.data;
}

/** The keys each part of config.json takes, by the part's path. */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  "": Object.keys(Config.shape),
  embedder: [...EMBEDDER_KEYS],
  rerank: Object.keys(RerankConfig.shape),
};

/** ` (did you mean "embedder"?)` for each unknown key close to a known one, or "". */
function keyGuesses(issues: ReadonlyArray<z.core.$ZodIssue>): string {
  const guesses = issues.flatMap((issue) => {
    if (issue.code !== "unrecognized_keys") return [];
    const known = KNOWN_KEYS[issue.path.join(".")] ?? [];
    return issue.keys.flatMap((key) => {
      const guess = closest(key, known);
      return guess ? [`"${guess}" for "${key}"`] : [];
    });
  });
  return guesses.length ? ` (did you mean ${guesses.join(", ")}?)` : "";
}

/** How to write an embedder setting given at the top of config.json, or "". */
function embedderHint(json: unknown): string {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "";
  const misplaced = Object.keys(json).filter((key) => key !== "kind" && EMBEDDER_KEYS.has(key));
  if (misplaced.length === 0) return "";
  return ` (${misplaced.join(", ")} belongs under "embedder", as in ` +
    `{"embedder": {"kind": "onnx", "model_dir": "/path/to/model"}})`;
}

/**
 * Replaces the `embedder` of config.json, keeping every other setting as
 * written; the file is replaced atomically, so a crash leaves the old settings
 * or the new ones, never half of either.
 */
export async function saveEmbedderSettings(
  storeDir: string,
  embedder: EmbedderSettings,
): Promise<void> {
  const json = await readConfigJson(storeDir);
  const kept = typeof json === "object" && json !== null && !Array.isArray(json) ? json : {};
  const settings = { ...kept, embedder };
  checkedConfig(storeDir, settings);
  await writeFileAtomic(configPath(storeDir), JSON.stringify(settings, null, 2) + "\n");
}

/** config.json as JSON, `{}` when there is none (its sections other than cairn's own read it too). */
export async function readConfigJson(storeDir: string): Promise<unknown> {
  const path = configPath(storeDir);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UserError(`${path} is not valid JSON; fix it or delete it to use the defaults`);
  }
}

/** The API key named by `api_key_env`, refused with a clear message when the variable is unset. */
export function apiKey(variable: string | undefined): string | undefined {
  if (!variable) return undefined;
  const key = Deno.env.get(variable);
  if (!key) throw new UserError(`the API key variable ${variable} named in config.json is not set`);
  return key;
}
