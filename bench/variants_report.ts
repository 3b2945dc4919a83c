/**
 * The RESULTS section of `deno task bench variants`: each embedding variant's
 * ranking on the dev sets beside the reference model's.
 * @module
 */
import type { Summary } from "./code_scores.ts";
import type { Scores } from "./locomo.ts";

/** What one variant scored. */
export interface VariantQuality {
  id: string;
  locomo: { hybrid: Scores; vector: Scores; importSeconds: number };
  code: { hybrid: Summary; vector: Summary };
}

/** How far a variant may fall below the reference on the issue's four measures. */
export const TOLERANCE = 0.01;

/**
 * The `variants` section: each variant's ranking beside the reference's, its
 * differences, and whether it keeps the ranking (none of the issue's four
 * measures falls by more than {@linkcode TOLERANCE}).
 */
export function variantsReport(qualities: VariantQuality[], reference: VariantQuality): string {
  const cell = (value: number, base: number) =>
    value === base
      ? value.toFixed(3)
      : `${value.toFixed(3)} (${value > base ? "+" : "−"}${Math.abs(value - base).toFixed(3)})`;
  // The issue's four measures: a variant keeps the ranking when none falls by more than TOLERANCE.
  const measures = (q: VariantQuality) => [
    q.locomo.hybrid.r10,
    q.locomo.hybrid.ndcg10,
    q.code.hybrid.file5,
    q.code.hybrid.fn10,
  ];
  const rows = qualities.map((q) => {
    const r = reference;
    const holds = measures(q).every((value, i) => measures(r)[i]! - value <= TOLERANCE + 1e-9);
    return `| ${q.id} | ${cell(q.locomo.hybrid.r10, r.locomo.hybrid.r10)} | ${
      cell(q.locomo.hybrid.ndcg10, r.locomo.hybrid.ndcg10)
    } | ${cell(q.locomo.hybrid.h1, r.locomo.hybrid.h1)} | ${
      cell(q.locomo.vector.r10, r.locomo.vector.r10)
    } | ${cell(q.code.hybrid.file1, r.code.hybrid.file1)} | ${
      cell(q.code.hybrid.file5, r.code.hybrid.file5)
    } | ${cell(q.code.hybrid.fn10, r.code.hybrid.fn10)} | ${
      cell(q.code.vector.file5, r.code.vector.file5)
    } | ${q.locomo.importSeconds.toFixed(1)} | ${q === r ? "reference" : holds ? "yes" : "no"} |`;
  });
  const { issues, withSpans } = reference.code.hybrid;
  return `## Ranking per embedding variant

Each variant's stores run on its model (a config.json naming the folder); ${reference.id} is the
reference. LoCoMo: the dev split, every question over memories. Code: the fixed subset of
SWE-bench Lite's dev split (${issues} issues over all nine repositories, ${withSpans} with function
spans; bench/code_sets.ts), each issue over its own commit. Differences are against the reference;
a variant keeps the ranking when none of LoCoMo hybrid R@10 and nDCG@10, code hybrid file Acc@5 and
function Acc@10 falls by more than ${TOLERANCE}.

| variant | LoCoMo hybrid R@10 | nDCG@10 | Hit@1 | vector R@10 | code hybrid file Acc@1 | Acc@5 | function Acc@10 | vector file Acc@5 | LoCoMo import s | keeps the ranking |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.join("\n")}`;
}
