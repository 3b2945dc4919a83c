import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { openCairn } from "../../src/service/cairn.ts";
import { searchCode } from "../../src/service/code_search.ts";
import type { RecallAnswer } from "../../src/recall/answer.ts";
import { UserError } from "../../src/errors.ts";
import { tempDir } from "../helpers.ts";
import "../embed/shared_model.ts";

const FILES: Record<string, string> = {
  "src/net/retry.ts": `export function exponentialBackoff(attempt: number): number {
  // wait twice as long after each failed attempt, with jitter
  return Math.min(30_000, 2 ** attempt * 100 + Math.random() * 100);
}
`,
  "src/hooks.py": `class Request:
    def register_hook(self, event, hook):
        """Registers a callback that runs when the event fires."""
        self.hooks[event].append(hook)
`,
  "docs/hooks.md": "# Hooks\n\nRegister a hook to run a callback when an event fires.\n",
};

// Many plugins that name hooks more often than src/hooks.py does, so that a
// path filter applied after the cut would leave src/ with nothing.
for (let i = 0; i < 60; i++) {
  FILES[`plugins/plugin_${i}.py`] =
    `def register_hook_${i}(hooks):\n    """Register hook ${i}: the hook callback hook."""\n    hooks.add(${i})\n`;
}

/** `path:start-end name` of each code result. */
function places(answer: RecallAnswer): string[] {
  return answer.items.flatMap((item) =>
    item.type === "code" ? [`${item.code.path}:${item.code.start_line} ${item.code.name}`] : []
  );
}

Deno.test("searchCode() finds indexed code by meaning and words, filtered by language and path before the cut", async (t) => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  for (const [path, text] of Object.entries(FILES)) {
    await Deno.mkdir(dirname(join(repo, path)), { recursive: true });
    await Deno.writeTextFile(join(repo, path), text);
  }
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await cairn.code.index({ path: repo, project: "shop" });
    await cairn.memories.remember({ content: "Hooks are registered at startup.", project: "shop" });
    await cairn.store.runner.settled();

    await t.step("by meaning, with no word in common", async () => {
      const found = await searchCode(cairn, { query: "sleep longer before trying again" });
      assert.equal(places(found)[0], "src/net/retry.ts:1 exponentialBackoff");
      assert.equal(found.items[0]?.components.lexical, undefined, "no word matched");
    });

    await t.step("by words, within a project", async () => {
      const found = await searchCode(cairn, { query: "exponentialBackoff", project: "shop" });
      assert.equal(places(found)[0], "src/net/retry.ts:1 exponentialBackoff");
      const memory = await searchCode(cairn, { query: "Hooks are registered at startup." });
      assert.ok(memory.items.length > 0 && memory.items.every((item) => item.type === "code"));
    });

    await t.step("language and path filters run before the cut", async () => {
      const everywhere = places(await searchCode(cairn, { query: "register hook callback" }));
      assert.ok(!everywhere.includes("src/hooks.py:2 Request.register_hook"), "ranked low");
      const underSrc = places(
        await searchCode(cairn, { query: "register hook callback", path: "src/" }),
      );
      assert.ok(underSrc.includes("src/hooks.py:2 Request.register_hook"), underSrc.join("\n"));
      assert.ok(underSrc.every((place) => place.startsWith("src/")), underSrc.join("\n"));
      const file = places(
        await searchCode(cairn, { query: "register hook callback", path: "./src/hooks.py" }),
      );
      assert.ok(file.includes("src/hooks.py:2 Request.register_hook"), file.join("\n"));
      assert.ok(file.every((place) => place.startsWith("src/hooks.py:")), "a file is a prefix too");
      const markdown = places(
        await searchCode(cairn, { query: "register hook callback", language: "markdown" }),
      );
      assert.deepEqual(markdown.map((place) => place.split(":")[0]), ["docs/hooks.md"]);
    });

    await t.step("says when the limit was capped", async () => {
      const found = await searchCode(cairn, { query: "hook", limit: 80 });
      assert.equal(found.items.length, 50);
      assert.deepEqual(found.notes, ["limit capped at 50"]);
    });

    await t.step("refuses bad input with what to fix", async () => {
      await assert.rejects(
        searchCode(cairn, { query: "hook", language: "cobol" }),
        (error: Error) =>
          error instanceof UserError &&
          /language is one of typescript, .*python.*markdown, text, not "cobol"/.test(
            error.message,
          ),
      );
      await assert.rejects(
        searchCode(cairn, { query: "hook", project: "nope" }),
        UserError,
        "no project named nope is indexed; index it first (`cairn index PATH`, or the index_project tool)",
      );
      await assert.rejects(searchCode(cairn, { query: "  " }), /the query is empty/);
      for (const path of ["../other", "src/../../etc", "/etc"]) {
        await assert.rejects(
          searchCode(cairn, { query: "hook", path }),
          /must be relative to the project's root and stay inside it/,
          path,
        );
      }
    });
  } finally {
    await cairn.close();
  }
});

Deno.test("searchCode() ranks the implementation above tests and changelogs that repeat its words, unless asked about them", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "shop");
  const files: Record<string, string> = {
    "shop/cart.py": `def apply_discount(total, code):
    """Lower the cart total by the discount code's percentage."""
    return total * (1 - CODES[code])
`,
    "tests/test_cart.py": `from shop.cart import apply_discount

def test_apply_discount_lowers_cart_total():
    # apply discount code to the cart total: the discount lowers the total
    assert apply_discount(100, "TEN") == 90  # discount code, cart total, discount
`,
    "CHANGES.rst": `Release 2.0
===========

- apply_discount: apply the discount code to the cart total once, not twice (the cart total
  was lowered by the discount code twice when a discount code was applied to the cart total).
`,
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(repo, path)), { recursive: true });
    await Deno.writeTextFile(join(repo, path), text);
  }
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await cairn.code.index({ path: repo, project: "shop" });
    await cairn.store.runner.settled();
    const found = await searchCode(cairn, { query: "apply discount code to the cart total" });
    assert.equal(places(found)[0], "shop/cart.py:1 apply_discount");
    const test = found.items.find((item) =>
      item.type === "code" && item.code.path.startsWith("tests/")
    );
    assert.deepEqual(test?.components.prior, { kind: "test file", factor: 0.25 });
    const aboutTests = await searchCode(cairn, { query: "the test of apply discount" });
    assert.ok(
      aboutTests.items.every((item) => item.components.prior?.kind !== "test file"),
      "asked about tests, tests keep their score",
    );
    const changelog = found.items.find((item) =>
      item.type === "code" && item.code.path === "CHANGES.rst"
    );
    assert.deepEqual(changelog?.components.prior, { kind: "changelog", factor: 0.25 });
    const aboutRelease = await searchCode(cairn, {
      query: "which release changed apply discount code to the cart total",
    });
    assert.equal(places(aboutRelease)[0], "CHANGES.rst:1 CHANGES.rst");
    assert.ok(aboutRelease.items.every((item) => item.components.prior?.kind !== "changelog"));
  } finally {
    await cairn.close();
  }
});

Deno.test("searchCode() puts the definition of a named symbol first, however its words rank", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "web");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(
    join(repo, "sessions.py"),
    `class Session:
    def request(self, method, url):
        """Sends a request."""
        return self.send(method, url)


def session():
    """Returns a Session: a session request helper, for a session request, any session request."""
    return Session()
`,
  );
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await cairn.code.index({ path: repo, project: "web" });
    await cairn.store.runner.settled();
    const words = await searchCode(cairn, { query: "session request" });
    assert.equal(places(words)[0], "sessions.py:7 session", "by words, the helper leads");
    for (const query of ["Session.request", "Session::request", "Session#request()", "request"]) {
      const named = await searchCode(cairn, { query });
      assert.equal(places(named)[0], "sessions.py:2 Session.request", query);
      assert.equal(named.items[0]!.components.namesSymbol, true, query);
    }
  } finally {
    await cairn.close();
  }
});

Deno.test("searchCode() ranks the definitions a pasted traceback names first, in the frame's file", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "fits");
  const sources: Record<string, string> = {
    "pkg/header.py": `def parse_header(text):\n    return text.splitlines()\n`,
    "vendor/header.py": `def parse_header(blob):\n    return blob.split(b"\\n")\n`,
    "pkg/cards.py": `def card_value(card):
    """Reading a header card value: the header card has a value attribute; header cards
    split their lines (splitlines) into header card values, header card keywords."""
    return card.split("=")[1]
`,
  };
  for (const [path, text] of Object.entries(sources)) {
    await Deno.mkdir(dirname(join(repo, path)), { recursive: true });
    await Deno.writeTextFile(join(repo, path), text);
  }
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await cairn.code.index({ path: repo, project: "fits" });
    await cairn.store.runner.settled();
    const query = `Reading a header card fails
Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/pkg/header.py", line 2, in parse_header
AttributeError: header card value has no attribute splitlines`;
    const byWords = await cairn.recall.run({
      query,
      project: null,
      sources: ["code"],
      limit: 10,
      mode: "lexical",
    });
    assert.equal(
      places(byWords)[0],
      "pkg/cards.py:1 card_value",
      "by words, the card helper leads",
    );
    const found = await searchCode(cairn, { query });
    assert.equal(places(found)[0], "pkg/header.py:1 parse_header");
    assert.deepEqual(found.items[0]!.components.mention, { rank: 1 });
    const vendored = found.items.find((item) =>
      item.type === "code" && item.code.path === "vendor/header.py"
    );
    assert.equal(
      vendored?.components.mention,
      undefined,
      "the namesake in another file is not named",
    );
  } finally {
    await cairn.close();
  }
});

Deno.test("searchCode() lists a large function once, by its best part", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "calc");
  await Deno.mkdir(repo);
  const steps = Array.from(
    { length: 200 },
    (_, i) => `    total += compound_interest_step_${i}(principal, rate)`,
  );
  await Deno.writeTextFile(
    join(repo, "interest.py"),
    `def compound_interest(principal, rate):\n    total = 0\n${
      steps.join("\n")
    }\n    return total\n\n\n` +
      `def simple_interest(principal, rate):\n    return principal * rate\n`,
  );
  const cairn = await openCairn(join(tmp.path, "store"));
  try {
    await cairn.code.index({ path: repo, project: "calc" });
    await cairn.store.runner.settled();
    const found = await searchCode(cairn, { query: "compound interest step of the principal" });
    const names = places(found).map((place) => place.split(" ")[1]);
    assert.deepEqual(names, ["compound_interest", "simple_interest"]);
  } finally {
    await cairn.close();
  }
});
