/**
 * Where transcripts lie on disk. Claude Code writes a session to
 * `<project>/<session>.jsonl` and each of its sub-agents (Task) to
 * `<project>/<session>/subagents/agent-<id>.jsonl` (before 2.1,
 * `<project>/agent-<id>.jsonl`), with the parent's `sessionId` in every
 * record. The agents it runs for itself (`agent-acompact-…` to compact,
 * `agent-aprompt_suggestion-…`, `agent-aside_question-…`) re-read the session
 * they serve: they are not transcripts.
 * @module
 */
import { basename, dirname, join } from "node:path";
import { UserError } from "../../errors.ts";

/** A Task sub-agent's id is bare hex (`agent-ab81802`); the harness's own carry a kind and a dash. */
const HARNESS_AGENT = /^agent-[a-z_]+-/;

/** True for a transcript: a `.jsonl` file that is not one of the harness's own agents. */
export function isTranscriptFile(path: string): boolean {
  return path.endsWith(".jsonl") && !HARNESS_AGENT.test(basename(path));
}

/** True for a sub-agent's own transcript (`agent-<id>.jsonl`). */
export function isSubAgentFile(path: string): boolean {
  return basename(path).startsWith("agent-");
}

/**
 * The session a sub-agent's file belongs to when its records do not say:
 * the folder it lies in (`<session>/subagents/`), or null.
 */
export function parentSessionOf(path: string): string | null {
  return basename(dirname(path)) === "subagents" ? basename(dirname(dirname(path))) : null;
}

/** The transcripts of a session's sub-agents (`<session>/subagents/*.jsonl` beside it), sorted. */
export async function subAgentFiles(transcript: string): Promise<string[]> {
  if (isSubAgentFile(transcript)) return [];
  const dir = join(dirname(transcript), basename(transcript, ".jsonl"), "subagents");
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isFile && isTranscriptFile(path)) files.push(path);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return files.sort();
}

/**
 * The transcripts at `targets`: each file itself, or every transcript below a
 * directory (symbolic links inside it are not followed); each once, sorted.
 * `whose` names the agent in errors; with `check`, every target and file must
 * pass it (the allowed roots) before any is returned.
 */
export async function transcriptsAt(
  targets: readonly string[],
  whose: string,
  check?: (path: string) => void,
): Promise<string[]> {
  const files = new Set<string>();
  for (const target of targets) {
    const stat = await Deno.stat(target).catch(() => undefined);
    if (!stat) {
      throw new UserError(
        `no ${whose} transcripts at ${target}; give a transcript file or directory`,
      );
    }
    check?.(target);
    if (stat.isDirectory) (await transcriptsBelow(target)).forEach((file) => files.add(file));
    else if (isTranscriptFile(target)) files.add(target);
    else {
      throw new UserError(
        `${target} is not a ${whose} transcript; give a session's .jsonl file or a directory`,
      );
    }
  }
  const sorted = [...files].sort();
  if (check) sorted.forEach(check);
  return sorted;
}

async function transcriptsBelow(dir: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && isTranscriptFile(path)) files.push(path);
    }
  };
  await walk(dir);
  return files;
}
