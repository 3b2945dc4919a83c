import assert from "node:assert/strict";
import { reciprocalRankFusion, RRF_K, type SignalWeights } from "../../src/recall/fuse.ts";
import { fuseAcrossSources, type SourceEvidence } from "../../src/recall/fuse_sources.ts";
import type { Source } from "../../src/recall/types.ts";

const EVEN: SignalWeights = { vector: 1, lexical: 1, context: 1, graph: 1, mention: 1, file: 1 };
/** Weights as code's: each signal its own. */
const UNEVEN: SignalWeights = {
  vector: 0.4,
  lexical: 0.2,
  context: 0.1,
  graph: 0.2,
  mention: 0.3,
  file: 0.1,
};
const ALL = new Set(["vector", "lexical", "context", "graph", "mention", "file"] as const);

function evidence(parts: Partial<SourceEvidence>): SourceEvidence {
  return { vector: [], lexical: [], context: [], graph: [], mention: [], file: [], ...parts };
}

Deno.test("fuseAcrossSources() ranks a lone memory by its evidence, not by its source's size", () => {
  // The memory is the closest vector and the best lexical share; code has many weaker candidates.
  const code = evidence({
    vector: Array.from({ length: 20 }, (_, i) => [`c${i}`, 0.3 + i / 100] as const),
    lexical: Array.from({ length: 20 }, (_, i) => [`c${i}`, 0.2 - i / 200] as const),
  });
  const memory = evidence({ vector: [["m", 0.2]], lexical: [["m", 0.6]] });
  const fused = fuseAcrossSources(
    new Map<Source, SourceEvidence>([["code", code], ["memory", memory]]),
    ALL,
    () => EVEN,
  );
  assert.deepEqual([fused[0]!.source, fused[0]!.id], ["memory", "m"]);
  assert.deepEqual(fused[0]!.ranks, { vector: 1, lexical: 1 });
  assert.deepEqual(fused[1]!.ranks, { vector: 2, lexical: 2 });
});

Deno.test("fuseAcrossSources() puts a weakly matching source below a strongly matching one", () => {
  const turn = evidence({ vector: [["t1", 0.15], ["t2", 0.25]], lexical: [["t1", 0.5]] });
  const memory = evidence({ vector: [["m1", 0.45]] });
  const fused = fuseAcrossSources(
    new Map<Source, SourceEvidence>([["memory", memory], ["turn", turn]]),
    ALL,
    () => EVEN,
  );
  assert.deepEqual(fused.map((f) => `${f.source}:${f.id}`), ["turn:t1", "turn:t2", "memory:m1"]);
});

Deno.test("fuseAcrossSources() with one source keeps that source's own fusion order", () => {
  const code = evidence({
    vector: [["a", 0.1], ["b", 0.2], ["c", 0.3]],
    lexical: [["c", 0.9], ["d", 0.5]],
    context: [{ ids: ["b", "d"], share: 0.4 }],
    graph: [["d", 0.02]],
    mention: [["c"]],
    file: [{ ids: ["a", "d"], distance: 0.2 }, { ids: ["c"], distance: 0.25 }],
  });
  const fused = fuseAcrossSources(new Map([["code", code]]), ALL, () => UNEVEN);
  const alone = reciprocalRankFusion(
    {
      vector: ["a", "b", "c"],
      lexical: ["c", "d"],
      context: [["b", "d"]],
      graph: ["d"],
      mention: [["c"]],
      file: [["a", "d"], "c"],
    },
    UNEVEN,
  );
  assert.deepEqual(fused.map((f) => f.id), alone.map((f) => f.id));
  // Scaled so that the vector, lexical, context and file weights sum to one: the graph and
  // named definitions add to a score.
  assert.ok(Math.abs(fused[0]!.score - alone[0]!.score / 0.8) < 1e-12);
});

Deno.test("fuseAcrossSources() scales each source's weights so none is favoured by its tuning", () => {
  const heavy: SignalWeights = { vector: 3, lexical: 3, context: 3, graph: 0, mention: 0, file: 0 };
  const light: SignalWeights = {
    vector: 0.1,
    lexical: 0.1,
    context: 0.1,
    graph: 0,
    mention: 0,
    file: 0,
  };
  const fused = fuseAcrossSources(
    new Map<Source, SourceEvidence>([
      ["memory", evidence({ vector: [["m", 0.30]] })],
      ["code", evidence({ vector: [["c", 0.20]] })],
    ]),
    ALL,
    (source) => source === "memory" ? heavy : light,
  );
  assert.deepEqual(fused.map((f) => f.source), ["code", "memory"]);
  // Vector and words match any source by content: their weights are what a source could reach.
  assert.equal(fused[0]!.score, (1 / 2) / (RRF_K + 1));
});

Deno.test("fuseAcrossSources() does not count against a source a context or file it cannot have", () => {
  // A plain memory, first by vector and words, has no thread to be found through; the code
  // chunk is found through its file's words and meaning as well, and first in the graph, but
  // ranks lower.
  const fused = fuseAcrossSources(
    new Map<Source, SourceEvidence>([
      ["memory", evidence({ vector: [["m", 0.1]], lexical: [["m", 0.8]], graph: [["m", 0.02]] })],
      [
        "code",
        evidence({
          vector: [["c", 0.3]],
          lexical: [["c", 0.4]],
          context: [{ ids: ["c"], share: 0.3 }],
          graph: [["c", 0.03]],
          file: [{ ids: ["c"], distance: 0.3 }],
        }),
      ],
    ]),
    ALL,
    () => UNEVEN,
  );
  assert.deepEqual(fused.map((f) => f.source), ["memory", "code"]);
  assert.ok(Math.abs(fused[0]!.score - (0.4 / 6 + 0.2 / 6 + 0.2 / 7) / 0.6) < 1e-12);
});

Deno.test("fuseAcrossSources() fuses only the signals asked for", () => {
  const fused = fuseAcrossSources(
    new Map([["memory", evidence({ vector: [["a", 0.1]], lexical: [["b", 0.9]] })]]),
    new Set(["lexical"] as const),
    () => EVEN,
  );
  assert.deepEqual(fused.map((f) => f.id), ["b"]);
});
