/**
 * Code to index: a folder of small Python files, and finding its functions with a words-only search.
 * @module
 */
import { join } from "node:path";
import { searchBatch } from "./checks.ts";
import type { Context } from "./context.ts";

/** A folder of small Python files; each file's function names, by path. */
export class CodeTree {
  readonly files = new Map<string, string[]>();
  constructor(readonly root: string, readonly ctx: Context) {}

  async write(path: string, serial: number): Promise<void> {
    const { rng } = this.ctx;
    const names = [`compute_${rng.word()}_${serial}`, `helper_${rng.word()}_${serial}`];
    const body = `def ${names[0]}(value):\n    """Scale the ${rng.word()} reading ${serial}."""\n` +
      `    return value * ${serial}\n\n\ndef ${names[1]}(items):\n` +
      `    return [item + ${serial} for item in items]\n`;
    await Deno.mkdir(join(this.root, "pkg"), { recursive: true });
    await Deno.writeTextFile(join(this.root, path), body);
    this.files.set(path, names);
  }

  async remove(path: string): Promise<void> {
    await Deno.remove(join(this.root, path));
    this.files.delete(path);
  }

  /** Every function with its file (small functions share a chunk, found by the file). */
  functions(files: Map<string, string[]> = this.files): Fn[] {
    return [...files].flatMap(([path, names]) => names.map((name) => ({ name, path })));
  }
}

/** A function name and the file that defines it. */
export interface Fn {
  name: string;
  path: string;
}

/**
 * The functions a words-only code search for their name does not find in their file of
 * `project` (within its first 5 answers).
 */
export async function missingFunctions(
  store: string,
  dir: string,
  project: string,
  functions: Fn[],
): Promise<string[]> {
  const answers = await searchBatch(
    store,
    dir,
    functions.map((fn) => ({ id: fn.name, query: fn.name, include: "code" })),
  );
  return functions.filter((fn) =>
    !(answers.get(fn.name) ?? []).some((hit) =>
      hit.project === project && hit.file_path === fn.path
    )
  ).map((fn) => `${fn.name} (${fn.path})`);
}
