import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeIndex } from "../../src/service/code_index.ts";
import { formatProjects, listProjects } from "../../src/service/project_list.ts";
import { Store } from "../../src/service/store.ts";
import { tempDir } from "../helpers.ts";

Deno.test("listProjects() lists projects by name, at most 100, and says when it capped them", async () => {
  await using tmp = await tempDir();
  const store = await Store.open(join(tmp.path, "store"));
  try {
    const code = new CodeIndex(store);
    assert.equal(formatProjects(await listProjects(code)), "No project is indexed.");

    await store.append(
      Array.from({ length: 101 }, (_, i) => ({
        type: "project.registered" as const,
        v: 1 as const,
        data: { project: `p${String(i).padStart(3, "0")}`, root: `/src/p${i}` },
      })),
    );
    const list = await listProjects(new CodeIndex(store));
    assert.equal(list.projects.length, 100);
    assert.deepEqual(list.projects[0], {
      project: "p000",
      root: "/src/p0",
      files: 0,
      chunks: 0,
      lastIndexed: null,
    });
    assert.deepEqual(list.notes, ["capped at 100 of 101 projects"]);
    const lines = formatProjects(list).split("\n");
    assert.equal(lines[0], "- p000 (/src/p0): 0 files, 0 chunks, last indexed never");
    assert.equal(lines.at(-1), "> capped at 100 of 101 projects");
  } finally {
    await store.close();
  }
});
