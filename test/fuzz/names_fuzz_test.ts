import assert from "node:assert/strict";
import { join } from "node:path";
import { searchCode } from "../../src/service/code_search.ts";
import { answer, line, prompt } from "../service/claude_lines.ts";
import { tempDir } from "../helpers.ts";
import { fuzzSeed, Random, randomString } from "./random.ts";
import { assertStoreWhole, openFuzzed } from "./verified.ts";

/**
 * A file name of random bytes: anything Linux allows (every byte but NUL and
 * `/`), UTF-8 or not, up to 200 bytes.
 */
function randomName(random: Random): number[] {
  const length = 1 + random.below(random.chance(0.2) ? 200 : 16);
  // Half of them UTF-8 (control characters, quotes, any script), half any bytes at all.
  const bytes = random.chance(0.5)
    ? [...new TextEncoder().encode(
      String.fromCodePoint(...Array.from({ length }, () => 1 + random.below(0x2fff))),
    )].slice(0, 200)
    : Array.from({ length }, () => 1 + random.below(255));
  const named = bytes.map((byte) => byte === 0x2f ? 0x5f : byte);
  return named.every((byte) => byte === 0x2e) ? [...named, 0x61] : named;
}

function isUtf8(bytes: readonly number[]): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Creates `folder/<name bytes>.py` through bash, which takes any byte (Deno paths are strings). */
async function createFile(folder: string, name: number[], text: string): Promise<void> {
  const escaped = name.map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("");
  const script = `n=$(printf '${escaped}.py'; echo x); printf '%s' "$2" > "$1/\${n%x}"`;
  const made = await new Deno.Command("bash", { args: ["-c", script, "bash", folder, text] })
    .output();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));
}

Deno.test("files named with any bytes a file system allows are indexed, found, and the store stays whole", async () => {
  const random = new Random(fuzzSeed() + 2);
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await Deno.mkdir(repo);
  const names = new Set<string>();
  let readable = 0;
  for (let i = 0; i < 60; i++) {
    const name = randomName(random);
    const key = name.join(",");
    if (names.has(key)) continue;
    names.add(key);
    // A slice of a UTF-8 name may cut a character in two: that one is not UTF-8 either.
    if (isUtf8(name)) readable++;
    await createFile(repo, name, `def fuzzed_function_${i}(value):\n    return value + ${i}\n`);
  }
  const files = (await Array.fromAsync(Deno.readDir(repo))).length;
  const cairn = await openFuzzed(join(tmp.path, "store"));
  try {
    const report = await cairn.code.index({ path: repo, project: "repo" });
    assert.equal(report.indexed, readable, JSON.stringify(report.skippedByReason));
    assert.deepEqual(report.skippedByReason, { "file name is not UTF-8": files - readable });
    assert.ok(readable > 20 && files - readable > 10, `${readable} of ${files} UTF-8`);
    await cairn.store.runner.settled();
    const found = await searchCode(cairn, { query: "fuzzed_function_7", project: "repo" });
    assert.equal(found.items[0]?.type, "code");
  } catch (error) {
    await cairn.close();
    throw error;
  }
  await assertStoreWhole(cairn);
});

Deno.test("transcripts with odd session ids, huge and broken lines are ingested bounded, and the store stays whole", async () => {
  const random = new Random(fuzzSeed() + 3);
  await using tmp = await tempDir();
  const cwd = join(tmp.path, "shop");
  await Deno.mkdir(join(cwd, ".git"), { recursive: true });
  const transcripts: string[] = [];
  for (let t = 0; t < 8; t++) {
    const session = random.pick([randomString(random), "a\nb", "\t\"'\\", "🪨".repeat(30), ""]);
    const lines: string[] = [];
    for (let at = 0; at < 12; at++) {
      switch (random.below(6)) {
        case 0:
          lines.push(
            prompt(
              `question ${t}.${at} about ${randomString(random).slice(0, 200)}`,
              cwd,
              at,
              session,
            ),
          );
          break;
        case 1:
          lines.push(
            answer(
              `answer ${t}.${at} ${"w".repeat(random.pick([10, 100_000, 3_000_000]))}`,
              cwd,
              at,
              session,
            ),
          );
          break;
        case 2:
          lines.push(`${randomString(random).slice(0, 500).replaceAll("\n", " ")}\n`);
          break;
        case 3:
          lines.push(prompt(`cut short ${at}`, cwd, at, session).slice(0, 40) + "\n");
          break;
        case 4:
          lines.push(
            line("user", { unexpected: randomString(random).slice(0, 100) }, cwd, at, session),
          );
          break;
        default:
          lines.push(
            `${JSON.stringify({ type: randomString(random).slice(0, 50), sessionId: session })}\n`,
          );
      }
    }
    const path = join(tmp.path, `t${t}.jsonl`);
    await Deno.writeTextFile(path, lines.join(""));
    transcripts.push(path);
  }
  const cairn = await openFuzzed(join(tmp.path, "store"));
  try {
    for (const path of transcripts) await cairn.sessions.ingest({ path, agent: "claude" });
    await cairn.store.runner.settled();
  } catch (error) {
    await cairn.close();
    throw error;
  }
  await assertStoreWhole(cairn);
});
