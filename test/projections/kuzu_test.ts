import assert from "node:assert/strict";
import { join } from "node:path";
import { KuzuDb } from "../../projections/graph/kuzu.ts";
import { tempDir } from "../helpers.ts";

async function databaseWith(path: string, name: string): Promise<KuzuDb> {
  const db = await KuzuDb.open(path);
  await db.exec("CREATE NODE TABLE Item(name STRING, PRIMARY KEY(name))");
  await db.run("CREATE (:Item {name: $name})", { name });
  return db;
}

const names = async (db: KuzuDb) =>
  (await db.run("MATCH (i:Item) RETURN i.name AS name")).map((row) => row.name);

Deno.test("KuzuDb.replaceWith() swaps the files under the same handle, after running statements and before later ones", async () => {
  await using tmp = await tempDir();
  const fresh = join(tmp.path, "fresh.kuzu");
  await (await databaseWith(fresh, "new")).close();
  const db = await databaseWith(join(tmp.path, "live.kuzu"), "old");
  try {
    const before = names(db);
    const swap = db.replaceWith(fresh);
    const after = names(db);
    await swap;
    assert.deepEqual(await before, ["old"]);
    assert.deepEqual(await after, ["new"]);
    assert.deepEqual(await names(db), ["new"]);
    const files = [...Deno.readDirSync(tmp.path)].map((entry) => entry.name);
    assert.ok(!files.includes("fresh.kuzu"), "the fresh database was moved, not copied");
  } finally {
    await db.close();
  }
});

Deno.test("KuzuDb.run() takes an empty list after IN, which crashes Kùzu itself untyped", async () => {
  await using tmp = await tempDir();
  const db = await databaseWith(join(tmp.path, "items.kuzu"), "a");
  try {
    const query = "MATCH (i:Item) WHERE i.name IN $names OR i.name IN $names RETURN i.name AS name";
    assert.deepEqual(await db.run(query, { names: [] }), []);
    assert.deepEqual((await db.run(query, { names: ["a", "b"] })).map((row) => row.name), ["a"]);
  } finally {
    await db.close();
  }
});
