/** A plain BM25 index (k1 1.2, b 0.75): the outside baseline the benchmarks compare against. */
export class Bm25 {
  #docs: Array<{ id: string; length: number; terms: Map<string, number> }> = [];
  #df = new Map<string, number>();
  #totalLength = 0;

  constructor(
    private readonly tokenize: (text: string) => string[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {}

  /** Adds one document. */
  add(id: string, text: string): void {
    const tokens = this.tokenize(text);
    const terms = new Map<string, number>();
    for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
    for (const term of terms.keys()) this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
    this.#docs.push({ id, length: tokens.length, terms });
    this.#totalLength += tokens.length;
  }

  /** The ids of the best `k` documents for `query`, best first. */
  search(query: string, k: number): string[] {
    const n = this.#docs.length;
    const average = this.#totalLength / Math.max(1, n);
    const terms = [...new Set(this.tokenize(query))];
    const scored = this.#docs.map((doc) => {
      let score = 0;
      for (const term of terms) {
        const tf = doc.terms.get(term);
        if (!tf) continue;
        const df = this.#df.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += idf * tf * (this.k1 + 1) /
          (tf + this.k1 * (1 - this.b + this.b * doc.length / average));
      }
      return { id: doc.id, score };
    });
    return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score).slice(0, k).map((
      s,
    ) => s.id);
  }
}

/** Lower-cased word tokens: what the published baseline figures use. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
