/**
 * The model's WordPiece tokenizer, loaded offline from `tokenizer.json`, with
 * the truncation the Python `tokenizers` library applies (cut the text's
 * tokens, keep the special tokens around them) so ids match the reference.
 * @module
 */
import { Tokenizer } from "@huggingface/tokenizers";
import { EmbedderError } from "./embedder.ts";
import { sharingModels } from "./shared_models.ts";

/** One tokenized text. */
export interface TokenizedText {
  /** Token ids, special tokens included, at most the limit long. */
  ids: number[];
  /** True when the text had more tokens than fit and its end was cut. */
  truncated: boolean;
}

/** Tokenizers loaded once for the process while models are shared, by file and length. */
const loaded = new Map<string, Promise<TextTokenizer>>();

/** Encodes texts to model input ids, truncating to a maximum length. */
export class TextTokenizer {
  private constructor(
    private readonly tokenizer: Tokenizer,
    /** The longest sequence produced, special tokens included. */
    readonly maxTokens: number,
    private readonly prefix: number[],
    private readonly suffix: number[],
  ) {}

  /** Loads `tokenizer.json` (already read as text, from `where`); no network is used. */
  static fromJson(json: string, maxTokens: number, where = "tokenizer.json"): TextTokenizer {
    let tokenizer: Tokenizer;
    try {
      tokenizer = new Tokenizer(JSON.parse(json), {});
    } catch (error) {
      throw new EmbedderError("model_invalid", `${where} could not be loaded: ${error}`, {
        cause: error,
      });
    }
    // The post-processor's template (BERT: [CLS] $A [SEP]) found by difference,
    // so truncation cuts the text and never the special tokens.
    const probe = "a";
    const bare = tokenizer.encode(probe, { add_special_tokens: false }).ids;
    const full = tokenizer.encode(probe, { add_special_tokens: true }).ids;
    const at = indexOfRun(full, bare);
    if (at < 0) {
      throw new EmbedderError("model_invalid", `${where} has an unsupported post-processor`);
    }
    const prefix = full.slice(0, at);
    const suffix = full.slice(at + bare.length);
    if (maxTokens <= prefix.length + suffix.length) {
      throw new EmbedderError("model_invalid", `max_tokens ${maxTokens} leaves no room for text`);
    }
    return new TextTokenizer(tokenizer, maxTokens, prefix, suffix);
  }

  /** Loads `tokenizer.json` from a file. */
  static async load(path: string, maxTokens: number): Promise<TextTokenizer> {
    return TextTokenizer.fromJson(await Deno.readTextFile(path), maxTokens, path);
  }

  /**
   * {@linkcode TextTokenizer.load}, or once `shareLoadedModels` (in
   * shared_models.ts) was called, the tokenizer already loaded from the same
   * file, unchanged, in this process (a tokenizer holds no state between texts).
   */
  static async open(path: string, maxTokens: number): Promise<TextTokenizer> {
    const file = sharingModels() && await Deno.stat(path).catch(() => undefined);
    if (!file) return await TextTokenizer.load(path, maxTokens);
    const key = JSON.stringify([path, maxTokens, file.size, file.mtime?.getTime()]);
    let loading = loaded.get(key);
    if (!loading) {
      loading = TextTokenizer.load(path, maxTokens);
      loaded.set(key, loading);
      loading.catch(() => loaded.delete(key));
    }
    return await loading;
  }

  /**
   * Encodes one text with special tokens, cutting its end if it is longer than
   * `limit` (at most {@linkcode TextTokenizer.maxTokens}).
   */
  encode(text: string, limit = this.maxTokens): TokenizedText {
    const body = this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    const room = Math.min(limit, this.maxTokens) - this.prefix.length - this.suffix.length;
    const truncated = body.length > room;
    const kept = truncated ? body.slice(0, room) : body;
    return { ids: [...this.prefix, ...kept, ...this.suffix], truncated };
  }
}

function indexOfRun(haystack: readonly number[], needle: readonly number[]): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
