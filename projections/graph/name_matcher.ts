const MAX_WORDS = 4;

/** Splits text into words, keeping identifiers such as `Request.register_hook` or `src/a.ts` whole. */
function words(text: string): string[] {
  return text.toLowerCase().split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, ""))
    .filter(Boolean);
}

/**
 * Finds which known names (entities, later files and symbols) a text mentions:
 * whole words or phrases of up to four words, case-insensitive.
 */
export class NameMatcher {
  #names = new Map<string, string>();

  /** Adds a name to look for. */
  add(name: string): void {
    const key = words(name).join(" ");
    if (key && key.split(" ").length <= MAX_WORDS) this.#names.set(key, name);
  }

  /** Whether `name` is looked for. */
  has(name: string): boolean {
    return this.#names.has(words(name).join(" "));
  }

  /** Stops looking for a name. */
  delete(name: string): void {
    this.#names.delete(words(name).join(" "));
  }

  /** Forgets every name. */
  clear(): void {
    this.#names.clear();
  }

  /** The known names `text` mentions, each once, in order of first mention. */
  match(text: string): string[] {
    const found = new Set<string>();
    const tokens = words(text);
    for (let i = 0; i < tokens.length; i++) {
      for (let n = 1; n <= MAX_WORDS && i + n <= tokens.length; n++) {
        const name = this.#names.get(tokens.slice(i, i + n).join(" "));
        if (name) found.add(name);
      }
    }
    return [...found];
  }
}
