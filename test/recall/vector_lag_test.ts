import assert from "node:assert/strict";
import { lagText, lagWithin, waitingCount } from "../../src/recall/vector_lag.ts";

Deno.test("lagText() names the chunks of tests, docs and data apart from a project's own code", () => {
  const lag = {
    pending: [
      { source: "code" as const, project: "flask", documents: 412 },
      { source: "code" as const, project: "flask", documents: 1200, lowered: true as const },
      { source: "memory" as const, project: null, documents: 1 },
    ],
    rate: 16,
  };
  assert.equal(
    lagText(lag),
    "412 code chunks of flask, 1200 chunks of flask's tests, docs and data and 1 memory (about 2 min)",
  );
  const lowered = lagWithin({ pending: lag.pending.slice(1, 2) }, ["code"], "flask");
  assert.equal(waitingCount(lowered), 1200);
  assert.equal(lagText(lowered), "1200 chunks of flask's tests, docs and data");
  assert.equal(
    lagText({ pending: [{ source: "code", project: null, documents: 1, lowered: true }] }),
    "1 chunk of tests, docs and data",
  );
});
