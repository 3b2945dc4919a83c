/**
 * What two statements of a fact differ in, word by word: the numbers they
 * state, the names they use and their negation. `remember` uses it to tell a
 * near-duplicate (nothing differs) from a changed fact ("5 times" now "7
 * times", black now ruff, "cache" now "do not cache").
 * @module
 */
import { lightStem, STOP_WORDS } from "./tokens.ts";

/** One kind of difference: what only the old text has, and what only the new one has. */
export interface Change {
  old: string[];
  new: string[];
}

/** How a new text differs from an old one, kind by kind; empty lists where they agree. */
export interface FactDifferences {
  /** Numbers (`5`, `30s`, `2.5`), or the same numbers in another order. */
  numbers: Change;
  /**
   * Identifiers and code-like tokens (`log_level`, `v2.0`, `--force`),
   * capitalised words past a sentence's start (`Redis`, `JWT`), and the words
   * put in others' place amid the same words (`black` → `ruff`, `JWT` →
   * `session cookies`).
   */
  names: Change;
  /** The negations (`not`, `never`, `no`, `don't`, `without`) of each, when their counts differ. */
  negation: Change;
  /**
   * When words are put in others' place in two places or more, not all of
   * them numbers: those replaced where no number is (`billing` → `search`
   * beside `8081` → `8082`). The new text then speaks of something else, and
   * contradicts nothing.
   */
  subject: Change;
}

const NEGATIONS = new Set([
  "not",
  "no",
  "never",
  "none",
  "nothing",
  "nobody",
  "nowhere",
  "neither",
  "nor",
  "without",
  "cannot",
  "dont",
  "doesnt",
  "didnt",
  "isnt",
  "arent",
  "wasnt",
  "werent",
  "cant",
  "couldnt",
  "shouldnt",
  "wouldnt",
  "mustnt",
  "hasnt",
  "havent",
  "hadnt",
]);

// Modal verbs: one put for another changes how a fact is put, not the fact (`must` / `need to`).
const MODALS = new Set("must need should shall can could may might would".split(" "));

const TOKEN = new RegExp(
  // A flag: `-A`, `--allow-all`.
  String.raw`--?[\p{L}\p{N}][\p{L}\p{N}_-]*|` +
    // A word, a number or a code-like token, with its inner `-`, `'` and `_` and its joins
    // by `. / : @ # +`: `don't`, `log_level`, `src/a.ts`, `v2.0.1`, `$5`, `30%`.
    String.raw`[$€£]?[\p{L}\p{N}][\p{L}\p{N}_'-]*(?:[./:@#+][\p{L}\p{N}_-]+)*%?`,
  "gu",
);

type Kind = "number" | "negation" | "name" | "word" | "stop";

interface Token {
  /** As written. */
  text: string;
  /** Lower-cased and stemmed: what two texts compare. */
  key: string;
  kind: Kind;
}

/**
 * What `next` changes in the fact `old` states. Empty lists everywhere mean
 * the same facts in other words (or none that these words show).
 *
 * @example
 * ```ts
 * factDifferences("Retry failed webhooks 5 times", "Retry failed webhooks 7 times").numbers;
 * // { old: ["5"], new: ["7"] }
 * ```
 */
export function factDifferences(old: string, next: string): FactDifferences {
  const before = tokensOf(old);
  const after = tokensOf(next);
  return {
    numbers: numberChange(before, after),
    names: nameChange(before, after),
    negation: negationChange(before, after),
    subject: subjectChange(before, after),
  };
}

/** Whether the texts state different facts: anything differs, even a number only one has. */
export function differs(differences: FactDifferences): boolean {
  return Object.values(differences).some((change) => change.old.length + change.new.length > 0);
}

/**
 * Whether the new text may contradict the old: a number or a name of the old
 * one replaced by another (not just one added), or the negation changed, and
 * the subject the same.
 */
export function contradicts({ numbers, names, negation, subject }: FactDifferences): boolean {
  const replaced = (change: Change) => change.old.length > 0 && change.new.length > 0;
  if (replaced(subject)) return false;
  return replaced(numbers) || replaced(names) || negation.old.length !== negation.new.length;
}

/**
 * The differences in words, old before new: `numbers differ (5 vs 7), negation
 * differs (none vs not)`; empty when there are none.
 */
export function describeDifferences(differences: FactDifferences): string {
  const side = (words: string[]) => words.length ? words.join(", ") : "none";
  const labels = {
    numbers: "numbers differ",
    names: "names differ",
    negation: "negation differs",
    subject: "subjects differ",
  };
  return (Object.keys(labels) as Array<keyof FactDifferences>)
    .filter((kind) => differences[kind].old.length + differences[kind].new.length > 0)
    .map((kind) =>
      `${labels[kind]} (${side(differences[kind].old)} vs ${side(differences[kind].new)})`
    )
    .join(", ");
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.replaceAll("’", "'").matchAll(TOKEN)) {
    const written = match[0].replace(/'s$/i, "").replace(/['-]+$/, "");
    const bare = written.toLowerCase().replaceAll("'", "");
    tokens.push({
      text: written,
      key: lightStem(bare),
      kind: kindOf(written, bare, startsSentence(text, match.index)),
    });
  }
  return tokens;
}

function kindOf(written: string, bare: string, initial: boolean): Kind {
  if (NEGATIONS.has(bare) || /n't$/i.test(written)) return "negation";
  if (/^-?[$€£]?\p{N}/u.test(written)) return "number";
  if (STOP_WORDS.has(bare)) return "stop";
  const codeLike = /[_./:@#+]/.test(written) || /\p{N}/u.test(written) ||
    /\p{Ll}\p{Lu}/u.test(written) || written.startsWith("-") || /^\p{Lu}{2,}/u.test(written);
  if (codeLike || (!initial && /^\p{Lu}/u.test(written))) return "name";
  return "word";
}

/** Whether the token at `index` starts a sentence, line or item: a capital there is no name. */
function startsSentence(text: string, index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const char = text[i]!;
    if (char === "\n" || ".!?".includes(char)) return true;
    if (!/[\s"'(\[*-]/.test(char)) return false;
  }
  return true;
}

function numberChange(before: Token[], after: Token[]): Change {
  const old = before.filter((t) => t.kind === "number").map((t) => t.key);
  const next = after.filter((t) => t.kind === "number").map((t) => t.key);
  const change = { old: without(old, next), new: without(next, old) };
  // The same numbers in another order ("5433 for staging, 5434 for prod") are other facts.
  const reordered = change.old.length === 0 && change.new.length === 0 &&
    old.join(" ") !== next.join(" ");
  return reordered ? { old, new: next } : change;
}

function nameChange(before: Token[], after: Token[]): Change {
  const keys = (tokens: Token[]) => new Set(tokens.map((t) => t.key));
  const onlyIn = (tokens: Token[], other: Set<string>) =>
    unique(tokens.filter((t) => t.kind === "name" && !other.has(t.key)).map((t) => t.text));
  const change = { old: onlyIn(before, keys(after)), new: onlyIn(after, keys(before)) };
  const swap = swappedWords(before, after);
  if (!swap) return change;
  // A name already listed is not listed again as the swap that holds it.
  const plus = (listed: string[], phrase: string) =>
    listed.some((name) => phrase.split(" ").includes(name)) ? listed : [...listed, phrase];
  return { old: plus(change.old, swap[0]), new: plus(change.new, swap[1]) };
}

/**
 * The words the new text puts in place of some of the old's, the words
 * around them (stop words aside) the same: one word for another (`We use
 * black for formatting` / `We use ruff for formatting`), or up to three for up
 * to three when a name is among them (`JWT` / `session cookies`).
 */
function swappedWords(before: Token[], after: Token[]): [string, string] | undefined {
  const old = before.filter((t) => t.kind !== "stop");
  const next = after.filter((t) => t.kind !== "stop");
  let start = 0;
  while (start < old.length && start < next.length && old[start]!.key === next[start]!.key) {
    start++;
  }
  let end = 0;
  while (
    end < old.length - start && end < next.length - start &&
    old[old.length - 1 - end]!.key === next[next.length - 1 - end]!.key
  ) end++;
  const [a, b] = [old.slice(start, old.length - end), next.slice(start, next.length - end)];
  const plain = (t: Token) => (t.kind === "word" || t.kind === "name") && !MODALS.has(t.key);
  const short = (words: Token[]) => words.length >= 1 && words.length <= 3 && words.every(plain);
  if (!short(a) || !short(b)) return undefined;
  const named = [...a, ...b].some((t) => t.kind === "name");
  if (!named && (a.length > 1 || b.length > 1)) return undefined;
  const phrase = (words: Token[]) => words.map((t) => t.text).join(" ");
  return [phrase(a), phrase(b)];
}

function subjectChange(before: Token[], after: Token[]): Change {
  const places = replacedPlaces(before, after);
  const numbered = (tokens: Token[]) => tokens.some((t) => t.kind === "number");
  const wordy = places.filter(([old, next]) => !numbered(old) && !numbered(next));
  if (places.length < 2 || wordy.length === 0) return { old: [], new: [] };
  const texts = (tokens: Token[]) => tokens.map((t) => t.text);
  return {
    old: unique(wordy.flatMap(([old]) => texts(old))),
    new: unique(wordy.flatMap(([, next]) => texts(next))),
  };
}

/** Longest texts aligned word by word, in words of one times words of the other. */
const MAX_ALIGNED = 40_000;

/**
 * The places where the new text has other words than the old (stop words,
 * negations and modal verbs aside), each as the old words and the new: words
 * the texts share are aligned (their longest common sequence), and words only
 * added or only dropped replace nothing. None for texts too long to align.
 */
function replacedPlaces(before: Token[], after: Token[]): Array<[Token[], Token[]]> {
  const content = (t: Token) => t.kind !== "stop" && t.kind !== "negation" && !MODALS.has(t.key);
  const a = before.filter(content);
  const b = after.filter(content);
  if (a.length * b.length > MAX_ALIGNED) return [];
  const width = b.length + 1;
  // common[i * width + j]: the longest common sequence of a[i..] and b[j..].
  const common = new Uint16Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] = a[i]!.key === b[j]!.key
        ? common[(i + 1) * width + j + 1]! + 1
        : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
    }
  }
  const places: Array<[Token[], Token[]]> = [];
  let place: [Token[], Token[]] = [[], []];
  const close = () => {
    if (place[0].length > 0 && place[1].length > 0) places.push(place);
    place = [[], []];
  };
  for (let i = 0, j = 0; i < a.length || j < b.length;) {
    if (i < a.length && j < b.length && a[i]!.key === b[j]!.key) {
      close();
      i++;
      j++;
    } else if (
      j >= b.length || (i < a.length && common[(i + 1) * width + j]! >= common[i * width + j + 1]!)
    ) place[0].push(a[i++]!);
    else place[1].push(b[j++]!);
  }
  close();
  return places;
}

function negationChange(before: Token[], after: Token[]): Change {
  const old = before.filter((t) => t.kind === "negation").map((t) => t.text.toLowerCase());
  const next = after.filter((t) => t.kind === "negation").map((t) => t.text.toLowerCase());
  return old.length === next.length ? { old: [], new: [] } : { old, new: next };
}

/** `items` less one occurrence of each of `others`. */
function without(items: string[], others: string[]): string[] {
  const left = [...others];
  return items.filter((item) => {
    const at = left.indexOf(item);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
