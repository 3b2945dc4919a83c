import assert from "node:assert/strict";
import {
  contradicts,
  describeDifferences,
  differs,
  factDifferences,
} from "../../text/fact_differences.ts";

/** The differences of `next` from `old`, in words, or `same` / `added` when nothing contradicts. */
function verdict(old: string, next: string): string {
  const differences = factDifferences(old, next);
  if (contradicts(differences)) return describeDifferences(differences);
  return differs(differences) ? `added: ${describeDifferences(differences)}` : "same";
}

Deno.test("factDifferences() finds a number replaced by another, or the same numbers reordered", () => {
  assert.equal(
    verdict("Retry failed webhooks 5 times", "Retry failed webhooks 7 times"),
    "numbers differ (5 vs 7)",
  );
  assert.equal(
    verdict("Staging listens on 5433, prod on 5434", "Staging listens on 5434, prod on 5433"),
    "numbers differ (5433, 5434 vs 5434, 5433)",
  );
  assert.equal(verdict("The timeout is 30s", "The timeout is 60s"), "numbers differ (30s vs 60s)");
});

Deno.test("factDifferences() finds a name replaced: a capitalised word, a code-like token, or one word swapped for another", () => {
  assert.equal(
    verdict("We use black for formatting", "We use ruff for formatting"),
    "names differ (black vs ruff)",
  );
  assert.equal(
    verdict("Cache sessions in Redis", "Cache sessions in Memcached"),
    "names differ (Redis vs Memcached)",
  );
  assert.equal(
    verdict('Set log_level to "debug" in config/app.toml', "Set log_level to trace in app.yaml"),
    "names differ (config/app.toml vs app.yaml)",
  );
  assert.equal(
    verdict("The API uses JWT for auth", "The API uses session cookies for auth"),
    "names differ (JWT vs session cookies)",
  );
});

Deno.test("factDifferences() finds a negation added or removed, whatever its word", () => {
  assert.equal(
    verdict("Cache sessions in Redis", "Do not cache sessions in Redis"),
    "negation differs (none vs not)",
  );
  assert.equal(
    verdict("Always run the linter before committing", "Never run the linter before committing"),
    "negation differs (none vs never)",
  );
  assert.equal(
    verdict("Deploy on Fridays", "Don’t deploy on Fridays"),
    "negation differs (none vs don't)",
  );
  assert.equal(
    verdict("Use pnpm, not npm, in this repo", "Don't use npm; use pnpm in this repo"),
    "same",
    "one negation each",
  );
});

Deno.test("factDifferences() finds nothing in a paraphrase of the same facts", () => {
  for (
    const [old, next] of [
      ["We use black for formatting", "Formatting is done with black"],
      ["Retry failed webhooks 5 times", "Failed webhooks are retried 5 times"],
      ["Cache sessions in Redis", "Redis holds the session cache"],
      ["Tests must pass before merging", "Tests need to pass before a merge"],
      ["The staging database runs PostgreSQL 16.", "The staging database runs PostgreSQL 16!"],
    ]
  ) assert.equal(verdict(old!, next!), "same", `${old} / ${next}`);
});

Deno.test("factDifferences() tells a fact added from one replaced: more words are no contradiction", () => {
  assert.equal(
    verdict("Cache sessions in Redis", "Cache sessions in Redis with a 1 hour TTL"),
    "added: numbers differ (none vs 1), names differ (none vs TTL)",
  );
  assert.equal(
    verdict("Cache sessions in Redis", "Cache the rendered pages in Redis"),
    "same",
    "several plain words for one, no name among them, is not read as a swap",
  );
});

Deno.test("factDifferences() tells a fact about something else from a changed one: words replaced in a second place are its subject", () => {
  assert.equal(
    verdict("The billing service listens on port 8081", "The search service listens on port 8082"),
    "added: numbers differ (8081 vs 8082), subjects differ (billing vs search)",
  );
  assert.equal(
    verdict(
      "The payments API allows 100 requests per minute",
      "The geocoding API allows 50 requests per minute",
    ),
    "added: numbers differ (100 vs 50), subjects differ (payments vs geocoding)",
  );
  assert.equal(
    verdict("service-1 listens on port 9001", "service-2 listens on port 9002"),
    "added: numbers differ (9001 vs 9002), names differ (service-1 vs service-2), " +
      "subjects differ (service-1 vs service-2)",
  );
  assert.equal(
    verdict(
      "Temporary UI purge test: banana-ladder-99",
      "Another UI purge test: kiwi-staircase-42",
    ),
    "added: names differ (banana-ladder-99 vs kiwi-staircase-42), " +
      "subjects differ (Temporary, banana-ladder-99 vs Another, kiwi-staircase-42)",
  );
  assert.equal(
    verdict("We use black for formatting", "We use ruff for linting"),
    "added: subjects differ (black, formatting vs ruff, linting)",
  );
  // The same subject: one place changed, however many words it takes, or numbers alone in two.
  assert.equal(
    verdict("Deploys go out on Tuesdays at 10am", "Deploys now go out on Thursdays at 11am"),
    "numbers differ (10am vs 11am), names differ (Tuesdays vs Thursdays)",
  );
  assert.equal(
    verdict("Staging listens on 5433, prod on 5434", "Staging listens on 5434, prod on 5433"),
    "numbers differ (5433, 5434 vs 5434, 5433)",
  );
});
