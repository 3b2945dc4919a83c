/**
 * Seeded random inputs for the fuzz tests: the same seed gives the same run,
 * so a failure can be replayed (`CAIRN_FUZZ_SEED`).
 * @module
 */

/** A deterministic random source (mulberry32). */
export class Random {
  #state: number;

  constructor(readonly seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The seed of this run: `CAIRN_FUZZ_SEED`, else a fixed one. */
export function fuzzSeed(): number {
  return Number(Deno.env.get("CAIRN_FUZZ_SEED") ?? 20261125);
}

const WORDS = [
  "billing",
  "retry",
  "postgres",
  "auth",
  "login.ts",
  "Request.register_hook",
  "ci.yml",
];
const ODD = [
  "",
  " ",
  "\n",
  "a\nb",
  "tab\there",
  "\u0000nul",
  "\u202eevil",
  "🪨🪨",
  "\ud800",
  "../../etc/passwd",
  "/",
  "C:\\Windows",
  "%s%n",
  "${HOME}",
  "'; DROP TABLE Memory; --",
  "MATCH (n) DETACH DELETE n",
  "x".repeat(5_000),
];

/** A string from ordinary to hostile: empty, control characters, huge, Cypher, paths. */
export function randomString(random: Random): string {
  switch (random.below(6)) {
    case 0:
      return random.pick(WORDS);
    case 1:
      return random.pick(ODD);
    case 2:
      return String.fromCharCode(
        ...Array.from({ length: 1 + random.below(40) }, () => random.below(0x3000)),
      );
    case 3:
      return "y".repeat(random.pick([65_536, 65_537, 70_000, 200_000]));
    case 4:
      return `${random.pick(WORDS)} ${random.pick(WORDS)} ${random.below(1000)}`;
    default:
      return new Date(Date.UTC(2020 + random.below(8), random.below(14), random.below(33)))
        .toISOString()
        .slice(0, random.pick([10, 19, 24]));
  }
}

/** Any JSON value, of any shape, deep at most `depth`. */
export function randomJson(random: Random, depth = 2): unknown {
  switch (random.below(depth > 0 ? 8 : 6)) {
    case 0:
      return randomString(random);
    case 1:
      return random.pick([
        0,
        1,
        -1,
        50,
        51,
        100,
        101,
        1000,
        1e9,
        -1e9,
        1.5,
        12_000,
        50_000,
        Number.MAX_SAFE_INTEGER,
        -Number.MAX_SAFE_INTEGER,
      ]);
    case 2:
      return random.chance(0.5);
    case 3:
      return null;
    case 4:
      return [];
    case 5:
      return {};
    case 6:
      return Array.from({ length: random.below(5) }, () => randomJson(random, depth - 1));
    default:
      return Object.fromEntries(
        Array.from(
          { length: random.below(4) },
          () => [randomString(random), randomJson(random, depth - 1)],
        ),
      );
  }
}
