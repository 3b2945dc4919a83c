import assert from "node:assert/strict";
import { planCompaction } from "../../events/compaction.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";
import { CodeCatalog } from "../../projections/code_catalog.ts";
import { collect, tempDir } from "../helpers.ts";

const HASH = "a".repeat(64);

function registered(project: string, root: string, gitRoot?: string): NewEvent {
  return {
    type: "project.registered",
    v: 1,
    data: { project, root, ...(gitRoot ? { git_root: gitRoot } : {}) },
  };
}

function indexed(project: string, path: string, hash: string, chunks = 1, chunker?: number) {
  return {
    type: "file.indexed",
    v: 1,
    data: {
      project,
      path,
      hash,
      size: hash.length,
      mtime_ms: 1000 + path.length,
      language: "typescript",
      ...(chunker ? { chunker } : {}),
      chunks: Array.from({ length: chunks }, (_, i) => ({
        id: `${project}:${path}:${i + 1}-${i + 1}`,
        start_line: i + 1,
        end_line: i + 1,
        kind: "function",
        name: `f${i}`,
        text: HASH,
      })),
      references: [],
    },
  } satisfies NewEvent;
}

function history(project: string, head: string): NewEvent {
  return { type: "project.history_read", v: 1, data: { project, head, commits: 1, pairs: [] } };
}

function removed(project: string, path: string): NewEvent {
  return { type: "file.removed", v: 1, data: { project, path } };
}

/** Code events of every kind, a minute apart, as a log holds them. */
async function codeEvents(): Promise<StoredEvent[]> {
  let minute = 0;
  const log = new MemoryLog(() => new Date(Date.UTC(2026, 0, 1, 0, minute++)));
  for (
    const batch of [
      [registered("shop", "/src/shop", "/src/shop")],
      [indexed("shop", "a.ts", "1", 3), indexed("shop", "b.ts", "2"), indexed("shop", "c.ts", "3")],
      // A file of a project never registered, and a removal from a project never seen.
      [indexed("loose", "x.py", "4"), removed("ghost", "y.py")],
      [removed("shop", "b.ts"), indexed("shop", "a.ts", "5", 2, 2)],
      [registered("tmp", "/tmp/t"), indexed("tmp", "t.ts", "6")],
      [{ type: "project.deleted", v: 1, data: { project: "tmp" } } satisfies NewEvent],
      // The same repository at a new root, and a file indexed again after its removal.
      [registered("shop", "/work/shop", "/work/shop"), indexed("shop", "b.ts", "7")],
      // Histories read: the last stands; one of a project never seen is skipped.
      [history("shop", "c1"), history("ghost", "c2"), history("shop", "c3")],
      [registered("tmp", "/tmp/t2"), { type: "memory.forgotten", v: 1, data: { id: "m" } }],
    ] as NewEvent[][]
  ) await log.append(batch);
  return await collect(log.read());
}

/** What `CodeIndex` folded from the log before the catalog was a projection. */
function foldedFromLog(events: readonly StoredEvent[]) {
  const known = new Map<
    string,
    {
      root: string;
      gitRoot?: string;
      files: Map<string, unknown>;
      lastIndexed: string | null;
      history?: { head: string; commits: number; pairs: number };
    }
  >();
  const projectOf = (name: string) => {
    let project = known.get(name);
    if (!project) known.set(name, project = { root: "", files: new Map(), lastIndexed: null });
    return project;
  };
  for (const event of events) {
    switch (event.type) {
      case "project.registered": {
        const project = projectOf(event.data.project);
        project.root = event.data.root;
        if (event.data.git_root) project.gitRoot = event.data.git_root;
        break;
      }
      case "project.deleted":
        known.delete(event.data.project);
        break;
      case "file.indexed": {
        const { hash, size, mtime_ms, chunks, chunker = 1 } = event.data;
        const project = projectOf(event.data.project);
        project.files.set(event.data.path, {
          hash,
          size,
          mtimeMs: mtime_ms,
          chunks: chunks.length,
          chunker,
        });
        project.lastIndexed = event.ts;
        break;
      }
      case "file.removed":
        known.get(event.data.project)?.files.delete(event.data.path);
        break;
      case "project.history_read": {
        const project = known.get(event.data.project);
        if (project) {
          project.history = {
            head: event.data.head,
            commits: event.data.commits,
            pairs: new Set(event.data.pairs.map((p) => [p.file, p.partner].sort().join("\0"))).size,
          };
        }
        break;
      }
    }
  }
  return known;
}

/** The catalog's answers, in the fold's shape: projects and files in their order. */
function answers(catalog: CodeCatalog) {
  return [...catalog.projects()].map(([name, project]) => ({
    name,
    ...project,
    files: new Map(
      [...project.files].map(([path, { indexedAt: _at, seq: _seq, ...file }]) => [path, file]),
    ),
  }));
}

async function applyInBatches(catalog: CodeCatalog, events: readonly StoredEvent[], size: number) {
  for (let at = 0; at < events.length; at += size) await catalog.apply(events.slice(at, at + size));
}

Deno.test("CodeCatalog answers what the fold of the log's code events answered, whatever the batches", async () => {
  const events = await codeEvents();
  const expected = [...foldedFromLog(events)].map(([name, project]) => ({ name, ...project }));
  for (const size of [1, 2, events.length]) {
    const catalog = CodeCatalog.inMemory();
    await applyInBatches(catalog, events, size);
    assert.deepEqual(answers(catalog), expected, `batches of ${size}`);
    assert.equal(await catalog.count(), 3 + 4, "three projects, four files");
  }
});

Deno.test("CodeCatalog keeps what it applied across a reopen, and skips events handed again", async () => {
  await using tmp = await tempDir();
  const events = await codeEvents();
  const catalog = await CodeCatalog.open(tmp.path);
  await applyInBatches(catalog, events, 3);
  const digest = await catalog.digest();
  const before = answers(catalog);
  // After a crash the runner hands again the events past its checkpoint.
  await catalog.apply(events.slice(-5));
  assert.equal(await catalog.digest(), digest);
  await catalog.close();

  const reopened = await CodeCatalog.open(tmp.path);
  assert.deepEqual(answers(reopened), before);
  assert.equal(await reopened.digest(), digest);
  await reopened.apply(events);
  assert.equal(await reopened.digest(), digest, "the whole log again changes nothing");
  await reopened.close();
});

Deno.test("CodeCatalog.reset() empties it, on disk too, and the log builds it again the same", async () => {
  await using tmp = await tempDir();
  const events = await codeEvents();
  const catalog = await CodeCatalog.open(tmp.path);
  await catalog.apply(events);
  const digest = await catalog.digest();
  await catalog.reset();
  assert.equal(await catalog.count(), 0);
  await catalog.close();

  const emptied = await CodeCatalog.open(tmp.path);
  assert.equal(await emptied.count(), 0);
  await applyInBatches(emptied, events, 2);
  assert.equal(await emptied.digest(), digest);
  await emptied.close();
});

Deno.test("CodeCatalog: a project registered again outside a repository no longer has a git root", async () => {
  const log = new MemoryLog();
  await log.append([registered("lib", "/src/lib", "/src/lib")]);
  await log.append([registered("lib", "/data/lib")]);
  const catalog = CodeCatalog.inMemory();
  await catalog.apply(await collect(log.read()));
  assert.deepEqual(catalog.project("lib"), {
    root: "/data/lib",
    lastIndexed: null,
    files: new Map(),
  });
});

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** A project whose file indexed last leaves the index again. */
async function lastFileRemoved(): Promise<StoredEvent[]> {
  let minute = 0;
  const log = new MemoryLog(() => new Date(Date.UTC(2026, 0, 1, 0, minute++)));
  await log.append([registered("shop", "/src/shop")]);
  await log.append([indexed("shop", "a.ts", "1"), indexed("shop", "b.ts", "2")]);
  await log.append([indexed("shop", "c.ts", "3")]);
  await log.append([indexed("shop", "a.ts", "4")]);
  await log.append([removed("shop", "a.ts")]);
  return await collect(log.read());
}

Deno.test("CodeCatalog holds the same once its log is compacted", async () => {
  for (const events of [await codeEvents(), await lastFileRemoved()]) {
    const catalog = CodeCatalog.inMemory();
    await catalog.apply(events);
    const { drop } = await planCompaction(each(events));
    assert.ok(drop.size > 0);
    const compacted = CodeCatalog.inMemory();
    await compacted.apply(events.filter((event) => !drop.has(event.seq)));
    assert.equal(await compacted.digest(), await catalog.digest());
  }
});

Deno.test("CodeCatalog: once the file indexed last leaves, the project was last indexed when its latest remaining file was", async () => {
  const events = await lastFileRemoved();
  const catalog = CodeCatalog.inMemory();
  await catalog.apply(events);
  assert.equal(catalog.project("shop")?.lastIndexed, "2026-01-01T00:02:00.000Z");
  await catalog.apply([{ ...events.at(-1)!, seq: 9, ...removed("shop", "c.ts") }]);
  assert.equal(catalog.project("shop")?.lastIndexed, "2026-01-01T00:01:00.000Z");
  await catalog.apply([{ ...events.at(-1)!, seq: 10, ...removed("shop", "b.ts") }]);
  assert.equal(catalog.project("shop")?.lastIndexed, null);
});
