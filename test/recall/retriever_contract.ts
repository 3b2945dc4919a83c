import assert from "node:assert/strict";
import { askOf, type RankingDeps } from "../../src/recall/ask.ts";
import type { Signal } from "../../src/recall/fuse.ts";
import { MODE_SIGNALS } from "../../src/recall/recall.ts";
import {
  type Ask,
  type Candidate,
  CANDIDATES,
  type Candidates,
  retrieveAll,
  type Retriever,
} from "../../src/recall/retriever.ts";
import type { RecallMode, RecallRequest, Source } from "../../src/recall/types.ts";

/** A store the contract asks: its retrievers, what recall's ranking reads, and whether a document is in it. */
export interface ContractStore {
  retrievers: readonly Retriever[];
  deps: RankingDeps;
  exists(source: Source, id: string): Promise<boolean>;
  /** Questions its documents answer, by words and by meaning; none is in a project named `nowhere`. */
  questions: readonly string[];
  /** A code language some of its code is in, and some not. */
  language: string;
  /** A session whose turns are still in its context (left out when it asks). */
  session: string;
}

/**
 * What `retriever` answers `request`, with the ask it was given, after the
 * retrievers of `all` whose lists it reads.
 */
export async function retrieverAnswer(
  retriever: Retriever,
  all: readonly Retriever[],
  deps: RankingDeps,
  request: RecallRequest,
): Promise<{ ask: Ask; found: Candidates }> {
  const ask = await askOf(deps, request, () => {});
  const earlier = await retrieveAll(all.filter((r) => retriever.reads.includes(r.signal)), ask);
  return { ask, found: await retriever.retrieve(ask, earlier) };
}

/** How each signal's own score orders its list: a distance, or a score (higher is better). */
const ORDER: Record<Signal, "ascending" | "descending" | "listed"> = {
  vector: "ascending",
  lexical: "descending",
  context: "descending",
  graph: "descending",
  mention: "listed",
  file: "ascending",
};

const ALL: Source[] = ["memory", "code", "turn"];

/**
 * The contract every retriever keeps, checked on `store`: it answers only the
 * sources asked, at most CANDIDATES entries per source (and as many more of
 * the code recall may lower, counted apart), each a document the
 * store holds and the request's filters keep, best first by its own score; the
 * same question gets the same answer; it says nothing in a mode that does
 * not use its signal, nor of a project the store does not hold.
 */
export async function checkRetrieverContract(
  retriever: Retriever,
  store: ContractStore,
): Promise<void> {
  const answer = (request: RecallRequest) =>
    retrieverAnswer(retriever, store.retrievers, store.deps, request);
  const request = (query: string, parts: Partial<RecallRequest> = {}): RecallRequest => ({
    query,
    sources: ALL,
    limit: 10,
    mode: "hybrid",
    ...parts,
  });
  let answered = 0;
  for (const query of store.questions) {
    for (const parts of [{}, { language: store.language, session: store.session }]) {
      const { ask, found } = await answer(request(query, parts));
      for (const [source, list] of found) {
        assert.ok(
          ALL.includes(source),
          `${retriever.signal}: a source nobody asked for: ${source}`,
        );
        await checkList(retriever.signal, source, list, store, {
          keep: (id) => ask.keep(source, id),
          lowerable: (id) => ask.kindsOf(source, id).length > 0,
        });
        answered += list.length;
      }
      const again = await answer(request(query, parts));
      assert.deepEqual(
        again.found,
        found,
        `${retriever.signal}: "${query}" answered twice the same`,
      );
    }
    const some = await answer(request(query, { sources: ["memory"] }));
    for (const source of some.found.keys()) {
      assert.equal(source, "memory", `${retriever.signal} answered ${source} when asked memories`);
    }
    for (const mode of ["vector", "lexical"] as RecallMode[]) {
      if (MODE_SIGNALS[mode].has(retriever.signal)) continue;
      const { found } = await answer(request(query, { mode }));
      assert.equal(count(found), 0, `${retriever.signal} answered in ${mode} mode`);
    }
  }
  assert.ok(
    answered > 0,
    `${retriever.signal} found nothing for any question; the check proves nothing`,
  );
  const { found } = await answer(request(store.questions[0]!, { project: "nowhere" }));
  assert.equal(count(found), 0, `${retriever.signal} found something in a project nobody has`);
}

async function checkList(
  signal: Signal,
  source: Source,
  list: readonly Candidate[],
  store: ContractStore,
  { keep, lowerable }: { keep(id: string): boolean; lowerable(id: string): boolean },
): Promise<void> {
  const lowered = list.filter((candidate) => lowerable(candidate.ids[0]!)).length;
  for (const [kind, length] of [["", list.length - lowered], [" lowerable", lowered]] as const) {
    assert.ok(length <= CANDIDATES, `${signal} ${source}: ${length}${kind} > ${CANDIDATES}`);
  }
  const seen = new Set<string>();
  for (const [i, candidate] of list.entries()) {
    assert.ok(candidate.ids.length > 0, `${signal} ${source}: an empty entry`);
    for (const id of candidate.ids) {
      assert.ok(keep(id), `${signal} ${source}: ${id} fails the request's filters`);
      assert.ok(await store.exists(source, id), `${signal} ${source}: no document ${id}`);
      if (candidate.ids.length === 1) {
        assert.ok(!seen.has(id), `${signal} ${source}: ${id} listed twice`);
        seen.add(id);
      }
    }
    const previous = list[i - 1];
    if (!previous || ORDER[signal] === "listed") continue;
    assert.ok(
      ORDER[signal] === "ascending"
        ? previous.score <= candidate.score
        : previous.score >= candidate.score,
      `${signal} ${source}: entry ${i} (${candidate.score}) is out of order after ${previous.score}`,
    );
  }
}

function count(found: Candidates): number {
  return [...found.values()].reduce((sum, list) => sum + list.length, 0);
}
