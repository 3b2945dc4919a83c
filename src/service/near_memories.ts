/**
 * The stored memories close in meaning to a new one, sorted out: the one it
 * repeats (not stored again) and those it may contradict (named in the answer,
 * so that the old one can be revised).
 * @module
 */
import { contradicts, differs, factDifferences } from "../../text/fact_differences.ts";
import type { Contradiction, MemoryRecord } from "../recall/memory_record.ts";

/**
 * Two memories of one project this similar (cosine) are the same memory, if
 * they state the same numbers, names and negation. Calibrated for
 * bge-small-en-v1.5, whose cosines run high: a paraphrase scores about 0.97,
 * "max 5" against "max 3" 0.973 (docs/decisions.md).
 */
export const DUPLICATE_COSINE = 0.98;

/**
 * Two memories of one project this similar (cosine) state the same fact, so
 * a number, name or negation that differs may contradict it. With the shipped
 * int8 model one name swapped in a short sentence scores 0.760-0.879
 * (JWT/session cookies 0.760, FastAPI/Flask 0.760, Go/Rust 0.781, black/ruff
 * 0.811), one number or a negation 0.92-0.96; related memories that are not the
 * same fact and differ in a name stay at or below 0.745 ("The frontend is built
 * with Vite" / "The backend is built with Go"). See docs/decisions.md.
 */
export const CONTRADICTION_COSINE = 0.755;

/** The kind of a memory that is a conversation's turn (LoCoMo's, an imported chat). */
const CONVERSATION = "conversation";

/** A stored memory close in meaning to a new text, with their cosine similarity. */
export interface NearMemory {
  memory: MemoryRecord;
  cosine: number;
}

/**
 * The memory among `near` that `content` repeats (at {@linkcode DUPLICATE_COSINE}
 * with nothing differing), and the ones it may contradict (at
 * {@linkcode CONTRADICTION_COSINE} with a number, name or negation replaced),
 * closest first. `near` holds live memories of the new one's project.
 */
export function sortOutNear(
  content: string,
  near: readonly NearMemory[],
): { same?: MemoryRecord; contradictions: Contradiction[] } {
  const compared = near.toSorted((a, b) => b.cosine - a.cosine).map((candidate) => ({
    ...candidate,
    differences: factDifferences(candidate.memory.content, content),
  }));
  const same = compared.find(({ cosine, differences }) =>
    cosine >= DUPLICATE_COSINE && !differs(differences)
  );
  if (same) return { same: same.memory, contradictions: [] };
  return {
    contradictions: compared
      .filter(({ cosine, differences }) =>
        cosine >= CONTRADICTION_COSINE && contradicts(differences)
      )
      .map(({ memory, differences }) => ({ memory, differences })),
  };
}

/** Whether `memory` is a conversation's turn: a record of what was said, not a fact that holds. */
export function isConversation(memory: Pick<MemoryRecord, "kind">): boolean {
  return memory.kind === CONVERSATION;
}

/**
 * The newest memory among `near` that may replace `memory`: stored or revised
 * after it, at {@linkcode CONTRADICTION_COSINE} or closer, with a number,
 * name or negation of it replaced; undefined when none does. Conversation
 * turns record what was said, not what holds: they replace nothing and are
 * replaced by nothing (two speakers' "Thanks, Mel!" and "Wow, Jon!" differ in
 * names and state no fact).
 */
export function newerContradiction(
  memory: MemoryRecord,
  near: readonly NearMemory[],
): Contradiction | undefined {
  if (isConversation(memory)) return undefined;
  return near
    .filter(({ memory: other, cosine }) =>
      other.id !== memory.id && !isConversation(other) &&
      other.updated_at > memory.updated_at && cosine >= CONTRADICTION_COSINE
    )
    .map(({ memory: other }) => ({
      memory: other,
      differences: factDifferences(memory.content, other.content),
    }))
    .filter(({ differences }) => contradicts(differences))
    .sort((a, b) => (a.memory.updated_at < b.memory.updated_at ? 1 : -1))[0];
}
