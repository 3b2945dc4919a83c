import { filesHoldingAny } from "../events/traces.ts";
import type { NewEvent } from "../events/schema.ts";

// No test reads or writes the user's shared embedding cache, however the tests are run (`deno task
// test` sets this too): each test's counts of what was embedded are its own.
if (Deno.env.get("CAIRN_CACHE_DIR") === undefined) Deno.env.set("CAIRN_CACHE_DIR", "off");

/** A temporary directory removed when the returned disposable is disposed. */
export async function tempDir(prefix = "cairn-test-"): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** A `memory.remembered` event with the given id and content. */
export function remembered(
  id: string,
  content = `content of ${id}`,
  project: string | null = "p",
): NewEvent {
  return {
    type: "memory.remembered",
    v: 1,
    data: { id, project, kind: "note", content, tags: [] },
  };
}

/** Drains an async iterable into an array. */
export function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  return Array.fromAsync(items);
}

/** Path to the repository's main.ts. */
export const MAIN = new URL("../main.ts", import.meta.url).pathname;

/**
 * Runs the real CLI in a child process, optionally in `cwd` and with `stdin`
 * on its standard input. It starts no store owner (`CAIRN_NO_OWNER=1`) unless
 * `env` says otherwise: tests of the owner start and stop it themselves.
 */
export async function cli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string; stdin?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    env: { CAIRN_NO_OWNER: "1", ...env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * The files under `dir` (recursively) whose bytes contain `text` (as written
 * or escaped in JSON), relative to `dir`: what a purge checks, see
 * `events/traces.ts`.
 */
export function filesHolding(dir: string, text: string): Promise<string[]> {
  return filesHoldingAny(dir, [text]);
}

/** Every file under `dir`, recursively, as a path. */
export async function* filesUnder(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield path;
  }
}

/** A store under `dir` whose config.json misspells `embedder`: no process can open it. */
export async function misconfiguredStore(dir: string): Promise<string> {
  const store = `${dir}/store`;
  await Deno.mkdir(store);
  await Deno.writeTextFile(`${store}/config.json`, JSON.stringify({ embeder: { kind: "onnx" } }));
  return store;
}
