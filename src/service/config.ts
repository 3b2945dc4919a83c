import { join } from "node:path";
import { z } from "zod";
import { describeIssues, UserError } from "./errors.ts";

const OnnxEmbedderConfig = z.object({
  kind: z.literal("onnx"),
  /** A model folder (model.onnx, tokenizer.json, manifest.json); default: the shipped model. */
  model_dir: z.string().min(1).optional(),
});

const HttpEmbedderConfig = z.object({
  kind: z.literal("http"),
  /** An OpenAI-compatible API root: `http://127.0.0.1:11434/v1` (Ollama), `https://api.openai.com/v1`. */
  base_url: z.url(),
  model: z.string().min(1),
  dims: z.number().int().positive(),
  /** The environment variable holding the API key (never the key itself). */
  api_key_env: z.string().min(1).optional(),
  query_prefix: z.string().optional(),
});

const RerankConfig = z.object({
  kind: z.literal("http"),
  /** A text-embeddings-inference style server: requests go to `<base_url>/rerank`. */
  base_url: z.url(),
  model: z.string().min(1),
  api_key_env: z.string().min(1).optional(),
  /** How many of the fused results are reranked. */
  top: z.number().int().min(2).max(50).default(20),
});

/** A store's settings, from `<store>/config.json`. */
export const Config = z.object({
  embedder: z.discriminatedUnion("kind", [OnnxEmbedderConfig, HttpEmbedderConfig]).default({
    kind: "onnx",
  }),
  rerank: RerankConfig.optional(),
});

/** A store's settings. */
export type Config = z.infer<typeof Config>;

/** Where a store keeps its settings. */
export function configPath(storeDir: string): string {
  return join(storeDir, "config.json");
}

/** Reads the store's settings; no file means the defaults, a bad one is refused with what to fix. */
export async function loadConfig(storeDir: string): Promise<Config> {
  const path = configPath(storeDir);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return Config.parse({});
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UserError(`${path} is not valid JSON; fix it or delete it to use the defaults`);
  }
  const parsed = Config.safeParse(json);
  if (!parsed.success) throw new UserError(`${path}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** The API key named by `api_key_env`, refused with a clear message when the variable is unset. */
export function apiKey(variable: string | undefined): string | undefined {
  if (!variable) return undefined;
  const key = Deno.env.get(variable);
  if (!key) throw new UserError(`the API key variable ${variable} named in config.json is not set`);
  return key;
}
