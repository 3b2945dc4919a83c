import assert from "node:assert/strict";
import { join } from "node:path";
import { localTools } from "../../src/mcp/handlers.ts";
import { openCairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import { cairnInProcess } from "../cli/in_process.ts";

Deno.test("remember names a memory it may contradict and the revise step, at the CLI and over MCP", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cli = succeeding(store);
  const five = JSON.parse(
    await cli("remember", "Retry failed webhooks 5 times", "--project", "hooks", "--json"),
  ).memory.id as string;

  const seven = await cli("remember", "Retry failed webhooks 7 times", "--project", "hooks");
  const [head, line, note, ...rest] = seven.split("\n");
  assert.equal(head, "remembered:", "the new memory is stored");
  const id = line!.match(/`(mem_[^`]+)`$/)![1]!;
  assert.equal(
    note,
    `> Possible contradiction with memory \`${five}\` ("Retry failed webhooks 5 times"): ` +
      `numbers differ (5 vs 7). If this one replaces it: revise it with the new text ` +
      `(\`cairn revise ${five} "..."\`, or the revise tool; the old text stays in its history), ` +
      `then forget \`${id}\`.`,
  );
  assert.deepEqual(rest, []);
  const unrelated = await cli("remember", "Deploys run on Tuesdays", "--project", "hooks");
  assert.doesNotMatch(unrelated, /contradiction/);

  const cairn = await openCairn(store);
  try {
    const answer = await localTools(cairn)(
      "remember",
      { content: "Retry failed webhooks 9 times", project: "hooks" },
      { cwd: tmp.path, roots: [tmp.path] },
    );
    const text = answer.content[0]!.text;
    assert.match(text, new RegExp(`contradiction with memory \`${five}\`.*\\(5 vs 9\\)`));
    assert.match(text, new RegExp(`contradiction with memory \`${id}\`.*\\(7 vs 9\\)`));
    assert.deepEqual(
      (answer.structuredContent as { contradicts: string[] }).contradicts.toSorted(),
      [five, id].toSorted(),
    );
  } finally {
    await cairn.close();
  }
});

Deno.test("revise to the text another memory of its project holds says so", async () => {
  await using tmp = await tempDir();
  const cli = succeeding(join(tmp.path, "store"));
  const id = (out: string) => out.match(/`(mem_[^`]+)`$/m)![1]!;
  const first = id(await cli("remember", "Deploys go out on Tuesdays", "--project", "ops"));
  const second = id(await cli("remember", "Backups run nightly", "--project", "ops"));
  const revised = await cli("revise", second, "Deploys go out on Tuesdays");
  assert.match(
    revised,
    new RegExp(
      `^revised:\\n.*\\n> \`${first}\` says the same already: forget one of the two ` +
        `\\(\`cairn forget ${second}\`, or the forget tool\\)$`,
    ),
  );
  assert.doesNotMatch(await cli("revise", second, "Backups run at 2am"), /says the same/);
});

Deno.test("list for a project without memories says so, and names the projects that have some", async () => {
  await using tmp = await tempDir();
  const store = join(tmp.path, "store");
  const cli = succeeding(store);
  await cli("remember", "Deploys run on Tuesdays", "--project", "api");
  await cli("remember", "Tabs over spaces everywhere");
  const [note, ...listed] = (await cli("list", "--project", "apj")).split("\n");
  assert.equal(
    note,
    "> no memory is in project apj (memories are in api); below, the global memories, which " +
      "every project sees",
  );
  assert.match(listed.join("\n"), /^- \[note\] Tabs over spaces everywhere `mem_[^`]+`$/);
  assert.doesNotMatch(await cli("list", "--project", "api"), />/);
  assert.doesNotMatch(
    await cli("list", "--project", "api", "--kind", "decision"),
    />/,
    "a project with memories, none of that kind: no note",
  );
});

/** `cairn --store STORE ...` run here, failing the test unless it succeeds; its standard output. */
function succeeding(store: string) {
  return async (...args: string[]) => {
    const run = await cairnInProcess(store, ...args);
    assert.equal(run.code, 0, run.err);
    return run.out;
  };
}
