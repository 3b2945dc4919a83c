/** One scored document of a {@linkcode Bm25Index} search. */
export interface Bm25Hit<Meta> {
  key: string;
  meta: Meta;
  score: number;
}

/** Tuning of a {@linkcode Bm25Index}. */
export interface Bm25Options {
  /** Term-frequency saturation; 1.2 unless given. */
  k1?: number;
  /** Length normalisation; 0.75 unless given. */
  b?: number;
  /** BM25+ lower bound added to every matched term's saturation (Lv & Zhai 2011); 0 unless given. */
  delta?: number;
  /**
   * Multiply a document's score by how many distinct query terms it matched
   * (Lucene's classic coordination factor); off unless given.
   */
  coord?: boolean;
}

interface IndexedDoc<Meta> {
  meta: Meta;
  length: number;
  terms: Map<string, number>;
}

/**
 * An in-memory BM25 inverted index (Robertson idf `ln(1 + (N - df + .5) / (df + .5))`,
 * k1 1.2, b 0.75) that takes upserts and removals at any time. Collection
 * statistics are over every document, so scores stay comparable under a filter.
 *
 * @example
 * ```ts
 * const index = new Bm25Index<string>(codeTokens);
 * index.set("a", "getUserName returns the name", "project-x");
 * index.search("user name", 10, (project) => project === "project-x");
 * ```
 */
export class Bm25Index<Meta> {
  #docs = new Map<string, IndexedDoc<Meta>>();
  #postings = new Map<string, Map<string, number>>();
  #totalLength = 0;

  constructor(
    private readonly tokenize: (text: string) => string[],
    private readonly options: Bm25Options = {},
  ) {}

  /** Number of documents held. */
  get size(): number {
    return this.#docs.size;
  }

  /** The metadata of a document, if held. */
  meta(key: string): Meta | undefined {
    return this.#docs.get(key)?.meta;
  }

  /** Every document key, in insertion order. */
  keys(): IterableIterator<string> {
    return this.#docs.keys();
  }

  /** Indexes `text` under `key`, replacing any earlier document with that key. */
  set(key: string, text: string, meta: Meta): void {
    this.delete(key);
    const tokens = this.tokenize(text);
    const terms = new Map<string, number>();
    for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
    for (const [term, tf] of terms) {
      let posting = this.#postings.get(term);
      if (!posting) this.#postings.set(term, posting = new Map());
      posting.set(key, tf);
    }
    this.#docs.set(key, { meta, length: tokens.length, terms });
    this.#totalLength += tokens.length;
  }

  /** Removes a document; false when it was not there. */
  delete(key: string): boolean {
    const doc = this.#docs.get(key);
    if (!doc) return false;
    for (const term of doc.terms.keys()) {
      const posting = this.#postings.get(term)!;
      posting.delete(key);
      if (posting.size === 0) this.#postings.delete(term);
    }
    this.#totalLength -= doc.length;
    this.#docs.delete(key);
    return true;
  }

  /** Drops every document. */
  clear(): void {
    this.#docs.clear();
    this.#postings.clear();
    this.#totalLength = 0;
  }

  /** The best `limit` documents for `query` that `accept` lets through, best first. */
  search(query: string, limit: number, accept?: (meta: Meta) => boolean): Bm25Hit<Meta>[] {
    const n = this.#docs.size;
    if (n === 0 || limit <= 0) return [];
    const average = this.#totalLength / n || 1;
    const { k1 = 1.2, b = 0.75, delta = 0, coord = false } = this.options;
    const scores = new Map<string, number>();
    const matched = new Map<string, number>();
    const rejected = new Set<string>();
    for (const term of new Set(this.tokenize(query))) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [key, tf] of posting) {
        if (rejected.has(key)) continue;
        const doc = this.#docs.get(key)!;
        if (accept && !scores.has(key) && !accept(doc.meta)) {
          rejected.add(key);
          continue;
        }
        const norm = k1 * (1 - b + b * doc.length / average);
        scores.set(key, (scores.get(key) ?? 0) + idf * (delta + tf * (k1 + 1) / (tf + norm)));
        matched.set(key, (matched.get(key) ?? 0) + 1);
      }
    }
    if (coord) { for (const [key, count] of matched) scores.set(key, scores.get(key)! * count); }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, limit)
      .map(([key, score]) => ({ key, meta: this.#docs.get(key)!.meta, score }));
  }
}
