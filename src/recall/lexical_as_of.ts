import { RANKING } from "../../projections/text.ts";
import { Bm25Index } from "../../projections/text_bm25.ts";
import { codeTokens } from "../../text/tokens.ts";
import type { LexicalSearch, Source } from "./types.ts";
import type { MemoryRecord } from "./memory_record.ts";

/**
 * Words-only search where memories are as they were at a past moment (`then`,
 * folded from the log): a memory forgotten since is found, and one reworded
 * since is found by its words then. Code and sessions, and memories found
 * through their neighbours, come from the live index.
 */
export function lexicalAsOf(
  live: LexicalSearch,
  then: ReadonlyMap<string, MemoryRecord>,
): LexicalSearch {
  const index = new Bm25Index<{ id: string; project: string | null }>(codeTokens, RANKING);
  for (const memory of then.values()) {
    if (memory.forgotten_at) continue;
    index.set(memory.id, `${memory.content}\n${memory.tags.join(" ")}`, {
      id: memory.id,
      project: memory.project,
    });
  }
  return {
    search(query, options) {
      const others = options.sources.filter((source) => source !== "memory");
      const found = others.length > 0 ? live.search(query, { ...options, sources: others }) : [];
      if (others.length === options.sources.length) return found;
      const project = options.project;
      const memories = index.search(
        query,
        options.limit,
        project == null ? undefined : (meta) => meta.project === project || meta.project === null,
      ).map((hit) => ({
        source: "memory" as Source,
        id: hit.meta.id,
        score: hit.score,
        share: hit.share,
      }));
      return interleave([
        memories,
        ...others.map((source) => found.filter((hit) => hit.source === source)),
      ])
        .slice(0, options.limit);
    },
    searchContext: (query, options) => live.searchContext(query, options),
    termWeight: (text, sources) => live.termWeight(text, sources),
  };
}

/** The lists' hits by rank, first of each list, then second of each, and so on. */
function interleave<T>(lists: readonly T[][]): T[] {
  const out: T[] = [];
  for (let rank = 0; lists.some((list) => rank < list.length); rank++) {
    for (const list of lists) if (rank < list.length) out.push(list[rank]!);
  }
  return out;
}
