import type { NewEvent } from "../events/schema.ts";

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

/** Runs the real CLI in a child process, optionally in `cwd` and with `stdin` on its standard input. */
export async function cli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string; stdin?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    env,
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
