/**
 * Seeded randomness: the plan of a run (delays, texts, operations) repeats from its seed.
 * @module
 */

/** mulberry32: a small, fast, seeded PRNG in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded random source: integers, picks, chances, words and UUIDs. */
export class Rng {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.#next() * (high - low + 1));
  }
  /** One of `items`, each as likely. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }
  /** A word of lowercase letters no index would split or stem into something common. */
  word(length = 9): string {
    let word = "";
    for (let i = 0; i < length; i++) word += "bcdfghjklmnpqrstvwxz"[this.int(0, 19)];
    return word;
  }
  /** A random version-4 UUID. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${
      hex.slice(20)
    }`;
  }
}
