import assert from "node:assert/strict";
import type { Summary } from "../../bench/code_scores.ts";
import type { Scores } from "../../bench/locomo.ts";
import { type VariantQuality, variantsReport } from "../../bench/variants_report.ts";

function locomo(r10: number, ndcg10: number): Scores {
  return { r1: 0.2, r5: 0.5, r10, h1: 0.4, h10: 0.9, ndcg10 };
}

function code(file5: number, fn10: number): Summary {
  return {
    issues: 42,
    withSpans: 30,
    file1: 0.5,
    file3: 0.7,
    file5,
    file10: 0.9,
    fn5: 0.3,
    fn10,
  };
}

function variant(id: string, r10: number, ndcg10: number, file5: number, fn10: number) {
  return {
    id,
    locomo: { hybrid: locomo(r10, ndcg10), vector: locomo(0.6, 0.5), importSeconds: 50 },
    code: { hybrid: code(file5, fn10), vector: code(0.8, 0.4) },
  } satisfies VariantQuality;
}

Deno.test("variantsReport() keeps a variant within 0.01 on all four measures and refuses one below", () => {
  const reference = variant("fp32", 0.746, 0.577, 0.881, 0.5);
  const close = variant("int8", 0.736, 0.572, 0.881, 0.5);
  const worse = variant("int4", 0.746, 0.577, 0.857, 0.5);
  const report = variantsReport([reference, close, worse], reference);
  const row = (id: string) => report.split("\n").find((line) => line.startsWith(`| ${id} |`))!;
  assert.match(row("fp32"), /\| reference \|$/);
  assert.match(row("int8"), /^\| int8 \| 0\.736 \(−0\.010\) \| 0\.572 \(−0\.005\) \|/);
  assert.match(row("int8"), /\| yes \|$/);
  assert.match(row("int4"), /0\.857 \(−0\.024\)/);
  assert.match(row("int4"), /\| no \|$/);
  assert.match(report, /42 issues over all nine repositories, 30 with function/);
});
