/** Facts about the run that every result section carries. */
export interface RunInfo {
  date: string;
  machine: string;
  commit: string;
  command: string;
}

/** Collects the date, machine, commit and command of this benchmark run. */
export async function runInfo(suite: string): Promise<RunInfo> {
  const git = await new Deno.Command("git", {
    args: ["rev-parse", "--short", "HEAD"],
    stdout: "piped",
    stderr: "null",
  })
    .output().catch(() => undefined);
  const commit = git?.success ? new TextDecoder().decode(git.stdout).trim() : "uncommitted";
  const memory = Deno.systemMemoryInfo();
  return {
    date: new Date().toISOString().slice(0, 10),
    machine: `${navigator.hardwareConcurrency} cores, ${
      (memory.total / 2 ** 30).toFixed(0)
    } GiB, ${Deno.build.os}/${Deno.build.arch}`,
    commit,
    command: `deno task bench ${suite}`,
  };
}

const RESULTS = new URL("./RESULTS.md", import.meta.url);

/**
 * Replaces the section of `suite` in bench/RESULTS.md (between its markers)
 * with `body`, stamped with the run's facts; other suites' sections stay.
 */
export async function writeSection(suite: string, info: RunInfo, body: string): Promise<void> {
  let text: string;
  try {
    text = await Deno.readTextFile(RESULTS);
  } catch {
    text =
      "# Benchmark results\n\nEvery figure below was measured by the command named in its section.\n";
  }
  const begin = `<!-- ${suite}:begin -->`;
  const end = `<!-- ${suite}:end -->`;
  const section =
    `${begin}\n${body.trim()}\n\n_${info.date}, ${info.machine}, commit ${info.commit}, ` +
    `\`${info.command}\`_\n${end}`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  text = start >= 0 && stop > start
    ? text.slice(0, start) + section + text.slice(stop + end.length)
    : `${text.trimEnd()}\n\n${section}\n`;
  await Deno.writeTextFile(RESULTS, text);
  // Keep the file as `deno task check` wants it: aligned tables.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", RESULTS.pathname] }).output();
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The value below which a share `q` of the values fall (nearest rank). */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
