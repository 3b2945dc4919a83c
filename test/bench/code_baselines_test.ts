import assert from "node:assert/strict";
import { join } from "node:path";
import { FileBaselines, sourceExtensions } from "../../bench/code_baselines.ts";
import { tempDir } from "../helpers.ts";

Deno.test("sourceExtensions() gives cairn's endings of each language, TypeScript's with .tsx", () => {
  assert.deepEqual([...sourceExtensions(["go", "rust"])].sort(), [".go", ".rs"]);
  assert.ok(sourceExtensions(["typescript"]).has(".tsx"));
  assert.ok(sourceExtensions(["javascript"]).has(".mjs"));
  assert.throws(() => sourceExtensions(["cobol"]), /cobol: not a language cairn parses/);
});

Deno.test("FileBaselines reads every source file of the set's languages and nothing else", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {
    "cmd/flags.go": "func parseFlags() { viper config flags }",
    "src/lib.rs": "fn config_flags() {} // viper",
    "docs/flags.md": "viper config flags viper config flags",
    "app.py": "def config(): pass",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir.path, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir.path, path), text);
  }
  const baselines = await FileBaselines.build(dir.path, ["go", "rust"]);
  assert.deepEqual(baselines.bm25Files("viper config flags", 10).sort(), [
    "cmd/flags.go",
    "src/lib.rs",
  ]);
  assert.deepEqual(baselines.grepFiles("viper flags", 10).sort(), ["cmd/flags.go", "src/lib.rs"]);
});
