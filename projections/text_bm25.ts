import { topK } from "./top_k.ts";

/** One scored document of a {@linkcode Bm25Index} search. */
export interface Bm25Hit<Meta> {
  key: string;
  meta: Meta;
  score: number;
  /**
   * How much of the query the document holds: its score before coordination
   * as a share of the best any document could reach (every query term,
   * saturated), 0 to 1, so that searches over different indexes, with
   * coordination or without, can be compared.
   */
  share: number;
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

/**
 * Which documents contain a term and how often, in the order they were
 * indexed: pairs (document number, term frequency) in one growable array.
 */
class Posting {
  /**
   * @param pairs the entries, then spare room
   * @param length numbers held in `pairs`: twice the entries
   * @param df live documents among the entries (removed ones stay until the next compaction)
   */
  constructor(public pairs: Uint32Array, public length = 0, public df = 0) {}

  /** An empty posting with room for `entries`. */
  static withRoom(entries = 1): Posting {
    return new Posting(new Uint32Array(2 * Math.max(1, entries)));
  }

  /** A posting over `pairs` as they are (a view, not a copy), all of them live. */
  static of(pairs: Uint32Array): Posting {
    return new Posting(
      pairs.length > 0 ? pairs : new Uint32Array(2),
      pairs.length,
      pairs.length / 2,
    );
  }

  push(doc: number, tf: number): void {
    if (this.length === this.pairs.length) {
      const grown = new Uint32Array(this.pairs.length * 2);
      grown.set(this.pairs);
      this.pairs = grown;
    }
    this.pairs[this.length++] = doc;
    this.pairs[this.length++] = tf;
  }
}

/**
 * A {@linkcode Bm25Index}'s content as flat arrays, to be kept on disk and
 * loaded without tokenizing anything: its documents in order, and its terms
 * with their postings, term `t`'s (document number, frequency) pairs being
 * `pairs[pairEnds[t - 1] ?? 0 .. pairEnds[t]]`, by ascending document number.
 */
export interface Bm25Image<Meta> {
  keys: string[];
  metas: Meta[];
  lengths: Uint32Array;
  terms: string[];
  pairEnds: Uint32Array;
  pairs: Uint32Array;
}

/**
 * An in-memory BM25 inverted index (Robertson idf `ln(1 + (N - df + .5) / (df + .5))`,
 * k1 1.2, b 0.75) that takes upserts and removals at any time. Collection
 * statistics are over every document, so scores stay comparable under a filter.
 * Postings are typed arrays of document numbers, a few bytes each, so that a
 * million code chunks fit: a removed document's entries are skipped, then
 * dropped once they outnumber the live ones.
 *
 * @example
 * ```ts
 * const index = new Bm25Index<string>(codeTokens);
 * index.set("a", "getUserName returns the name", "project-x");
 * index.search("user name", 10, (project) => project === "project-x");
 * ```
 */
export class Bm25Index<Meta> {
  /** Document number by key, for the live documents. */
  #numbers = new Map<string, number>();
  /** By document number: key, metadata, length in tokens and distinct terms; undefined once removed. */
  #keys: Array<string | undefined> = [];
  #metas: Array<Meta | undefined> = [];
  #lengths: number[] = [];
  #terms: Array<Uint32Array | undefined> = [];
  #termIds = new Map<string, number>();
  #postings: Posting[] = [];
  #totalLength = 0;
  #livePostings = 0;
  #deadPostings = 0;

  constructor(
    private readonly tokenize: (text: string) => string[],
    private readonly options: Bm25Options = {},
  ) {}

  /** Number of documents held. */
  get size(): number {
    return this.#numbers.size;
  }

  /** The metadata of a document, if held. */
  meta(key: string): Meta | undefined {
    const number = this.#numbers.get(key);
    return number === undefined ? undefined : this.#metas[number];
  }

  /** Every document key, in insertion order. */
  keys(): IterableIterator<string> {
    return this.#numbers.keys();
  }

  /** Indexes `text` under `key`, replacing any earlier document with that key. */
  set(key: string, text: string, meta: Meta): void {
    this.setTokens(key, this.tokenize(text), meta);
  }

  /**
   * Indexes a document already tokenized with this index's tokenizer (which
   * must give the same terms as {@linkcode Bm25Index.set} would for its text).
   */
  setTokens(key: string, tokens: readonly string[], meta: Meta): void {
    this.delete(key);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    const number = this.#keys.length;
    const terms = new Uint32Array(counts.size);
    let i = 0;
    for (const [term, tf] of counts) {
      let id = this.#termIds.get(term);
      if (id === undefined) {
        id = this.#postings.length;
        this.#termIds.set(term, id);
        this.#postings.push(Posting.withRoom());
      }
      const posting = this.#postings[id]!;
      posting.push(number, tf);
      posting.df++;
      terms[i++] = id;
    }
    this.#numbers.set(key, number);
    this.#keys.push(key);
    this.#metas.push(meta);
    this.#lengths.push(tokens.length);
    this.#terms.push(terms);
    this.#totalLength += tokens.length;
    this.#livePostings += terms.length;
  }

  /** Removes a document; false when it was not there. */
  delete(key: string): boolean {
    const number = this.#numbers.get(key);
    if (number === undefined) return false;
    const terms = this.#terms[number]!;
    for (const id of terms) this.#postings[id]!.df--;
    this.#totalLength -= this.#lengths[number]!;
    this.#livePostings -= terms.length;
    this.#deadPostings += terms.length;
    this.#numbers.delete(key);
    this.#keys[number] = undefined;
    this.#metas[number] = undefined;
    this.#terms[number] = undefined;
    if (this.#deadPostings > Math.max(this.#livePostings, 4096)) this.#compact();
    return true;
  }

  /** The content as an image (removed documents dropped first). */
  toImage(): Bm25Image<Meta> {
    if (this.#numbers.size !== this.#keys.length) this.#compact();
    const pairEnds = new Uint32Array(this.#postings.length);
    let end = 0;
    this.#postings.forEach((posting, id) => pairEnds[id] = end += posting.length);
    const pairs = new Uint32Array(end);
    this.#postings.forEach((posting, id) =>
      pairs.set(posting.pairs.subarray(0, posting.length), pairEnds[id]! - posting.length)
    );
    return {
      keys: this.#keys as string[],
      metas: this.#metas as Meta[],
      lengths: Uint32Array.from(this.#lengths),
      terms: [...this.#termIds.keys()],
      pairEnds,
      pairs,
    };
  }

  /**
   * An index holding an image's content, tokenizing new documents and
   * queries with `tokenize` (the tokenizer the image was made with).
   */
  static fromImage<Meta>(
    image: Bm25Image<Meta>,
    tokenize: (text: string) => string[],
    options: Bm25Options = {},
  ): Bm25Index<Meta> {
    const index = new Bm25Index<Meta>(tokenize, options);
    index.#keys = image.keys;
    index.#metas = image.metas;
    index.#lengths = Array.from(image.lengths);
    index.#numbers = new Map(image.keys.map((key, number) => [key, number]));
    index.#termIds = new Map(image.terms.map((term, id) => [term, id]));
    index.#postings = image.terms.map((_, id) =>
      Posting.of(image.pairs.subarray(image.pairEnds[id - 1] ?? 0, image.pairEnds[id]))
    );
    index.#terms = termsByDocument(image);
    index.#totalLength = index.#lengths.reduce((sum, length) => sum + length, 0);
    index.#livePostings = image.pairs.length / 2;
    return index;
  }

  /** Drops every document. */
  clear(): void {
    this.#numbers.clear();
    this.#keys = [];
    this.#metas = [];
    this.#lengths = [];
    this.#terms = [];
    this.#termIds.clear();
    this.#postings = [];
    this.#totalLength = 0;
    this.#livePostings = 0;
    this.#deadPostings = 0;
  }

  /** The best `limit` documents for `query` that `accept` lets through, best first. */
  search(query: string, limit: number, accept?: (meta: Meta) => boolean): Bm25Hit<Meta>[] {
    const n = this.#numbers.size;
    if (n === 0 || limit <= 0) return [];
    const average = this.#totalLength / n || 1;
    const { k1 = 1.2, b = 0.75, delta = 0, coord = false } = this.options;
    const count = this.#keys.length;
    const scores = new Float64Array(count);
    const matched = new Uint16Array(count);
    // Per document: 0 not met yet, 1 scored, 2 refused by `accept` (asked once).
    const state = new Uint8Array(count);
    const touched: number[] = [];
    const terms = new Set(this.tokenize(query));
    let ceiling = 0;
    for (const term of terms) {
      const id = this.#termIds.get(term);
      const posting = id === undefined ? undefined : this.#postings[id]!;
      const df = posting?.df ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      ceiling += idf * (delta + k1 + 1);
      if (!posting || df === 0) continue;
      const pairs = posting.pairs;
      for (let i = 0; i < posting.length; i += 2) {
        const number = pairs[i]!;
        if (this.#keys[number] === undefined || state[number] === 2) continue;
        if (state[number] === 0) {
          if (accept && !accept(this.#metas[number] as Meta)) {
            state[number] = 2;
            continue;
          }
          state[number] = 1;
          touched.push(number);
        }
        const tf = pairs[i + 1]!;
        const norm = k1 * (1 - b + b * this.#lengths[number]! / average);
        scores[number]! += idf * (delta + tf * (k1 + 1) / (tf + norm));
        matched[number]!++;
      }
    }
    const shares = new Map(touched.map((number) => [number, scores[number]! / ceiling]));
    if (coord) { for (const number of touched) scores[number]! *= matched[number]!; }
    const keys = this.#keys;
    const better = (x: number, y: number) =>
      scores[x]! > scores[y]! || (scores[x] === scores[y] && keys[x]! < keys[y]!);
    return topK(touched, limit, better)
      .map((number) => ({
        key: keys[number]!,
        meta: this.#metas[number]!,
        score: scores[number]!,
        share: shares.get(number)!,
      }));
  }

  /**
   * How much `text` could tell this index apart: the idf summed over its
   * distinct terms that some document holds (a term none holds finds nothing).
   */
  weight(text: string): number {
    const n = this.#numbers.size;
    let sum = 0;
    for (const term of new Set(this.tokenize(text))) {
      const id = this.#termIds.get(term);
      const df = id === undefined ? 0 : this.#postings[id]!.df;
      if (df > 0) sum += Math.log(1 + (n - df + 0.5) / (df + 0.5));
    }
    return sum;
  }

  /** Renumbers the live documents densely and drops the removed ones' postings. */
  #compact(): void {
    const renumbered = new Int32Array(this.#keys.length).fill(-1);
    const keys: string[] = [];
    const metas: Meta[] = [];
    const lengths: number[] = [];
    const terms: Uint32Array[] = [];
    for (const [number, key] of this.#keys.entries()) {
      if (key === undefined) continue;
      renumbered[number] = keys.length;
      keys.push(key);
      metas.push(this.#metas[number]!);
      lengths.push(this.#lengths[number]!);
      terms.push(this.#terms[number]!);
    }
    // Insertion order of the live keys is kept: the map is rebuilt in document order.
    this.#numbers = new Map(keys.map((key, number) => [key, number]));
    const termIds = new Map<string, number>();
    const postings: Posting[] = [];
    const remap = new Int32Array(this.#postings.length).fill(-1);
    for (const [term, id] of this.#termIds) {
      const old = this.#postings[id]!;
      if (old.df === 0) continue;
      const posting = Posting.withRoom(old.df);
      posting.df = old.df;
      for (let i = 0; i < old.length; i += 2) {
        const number = renumbered[old.pairs[i]!]!;
        if (number >= 0) posting.push(number, old.pairs[i + 1]!);
      }
      remap[id] = postings.length;
      termIds.set(term, postings.length);
      postings.push(posting);
    }
    this.#keys = keys;
    this.#metas = metas;
    this.#lengths = lengths;
    this.#terms = terms.map((ids) => ids.map((id) => remap[id]!));
    this.#termIds = termIds;
    this.#postings = postings;
    this.#deadPostings = 0;
  }
}

/** Each document's term ids, from an image's postings (views of one array). */
function termsByDocument(image: Bm25Image<unknown>): Uint32Array[] {
  const { pairs, pairEnds } = image;
  const ends = new Uint32Array(image.keys.length);
  for (let i = 0; i < pairs.length; i += 2) ends[pairs[i]!]!++;
  for (let number = 1; number < ends.length; number++) ends[number]! += ends[number - 1]!;
  const ids = new Uint32Array(pairs.length / 2);
  const next = new Uint32Array(ends.length);
  for (let number = 1; number < ends.length; number++) next[number] = ends[number - 1]!;
  for (let id = 0, i = 0; id < pairEnds.length; id++) {
    for (; i < pairEnds[id]!; i += 2) ids[next[pairs[i]!]!++] = id;
  }
  return Array.from(ends, (end, number) => ids.subarray(ends[number - 1] ?? 0, end));
}
