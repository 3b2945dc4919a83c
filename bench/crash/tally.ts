/**
 * What one workload measured: its counters, and what a check after a kill found.
 * @module
 */

/** The counters of one workload, and what its report lines say. */
export interface Tally {
  name: string;
  /** What is run and killed. */
  what: string;
  rounds: number;
  /** SIGKILLs that hit a running process. */
  kills: number;
  /** Rounds whose command had already finished when its kill came. */
  finishedFirst: number;
  /** Writes acknowledged by the killed processes (ids printed, ACK lines, finished runs). */
  acked: number;
  /** Acknowledged items checked after the kills (everything acknowledged so far, each time). */
  checked: number;
  lost: number;
  duplicated: number;
  unopenable: number;
  checkErrors: number;
  verifyOk: number;
  verifyFailed: number;
  verifyReopenOk: number;
  reruns: number;
  rerunOk: number;
  /** Commands that exited non-zero inside a loop before its kill. */
  commandErrors: number;
  /** Opens after a kill that said a torn last record was cut off. */
  torn: number;
  /** First opens after a kill that printed any warning (a torn tail, a projection rebuilt). */
  warned: number;
  /** The warnings, shaped, with how often and one exact example. */
  warnings: Map<string, { n: number; example: string }>;
  failures: string[];
  notes: string[];
  verifyProblems: Map<string, number>;
  commandErrorSamples: Map<string, number>;
  seconds: number;
}

/** A tally with every counter at zero. */
export function newTally(name: string, what: string): Tally {
  return {
    name,
    what,
    rounds: 0,
    kills: 0,
    finishedFirst: 0,
    acked: 0,
    checked: 0,
    lost: 0,
    duplicated: 0,
    unopenable: 0,
    checkErrors: 0,
    verifyOk: 0,
    verifyFailed: 0,
    verifyReopenOk: 0,
    reruns: 0,
    rerunOk: 0,
    commandErrors: 0,
    torn: 0,
    warned: 0,
    warnings: new Map(),
    failures: [],
    notes: [],
    verifyProblems: new Map(),
    commandErrorSamples: new Map(),
    seconds: 0,
  };
}

/** What a check after a kill found. */
export interface Check {
  checked: number;
  lost: string[];
  duplicated?: string[];
}

/** Adds one to the count of `key`. */
export function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Prints one line about a round of a workload. */
export function logRound(t: Tally, round: number, quota: number, detail: string): void {
  console.log(`[crash] ${t.name} round ${round} (kill ${t.kills}/${quota}): ${detail}`);
}
