/**
 * Real GitHub issues with their fixes from Multi-SWE-bench (ByteDance-Seed,
 * arXiv 2504.02605), read from a fetched git mirror that holds its per-repository
 * `*_dataset.jsonl` files. Only the fields the mined dev set needs are read:
 * the issue texts are the query, as in SWE-bench; the gold is what the
 * fix patch changed. No test patch, no test names.
 * @module
 */

/** One Multi-SWE-bench record, the fields read. */
export interface MsweRecord {
  org: string;
  repo: string;
  number: number;
  base: { sha: string };
  resolved_issues: Array<{ number: number; title: string; body: string | null }>;
  fix_patch: string;
  instance_id?: string;
}

/** A Multi-SWE-bench issue in the form the set is built from. */
export interface MsweIssue {
  id: string;
  repo: string;
  baseCommit: string;
  /** The resolved issues' titles and bodies, in order, blank-line separated. */
  query: string;
  /** Every path the fix patch changed (old side), tests included if the patch had any. */
  patchFiles: string[];
  /** The pull request and the issues it resolved. */
  numbers: number[];
}

/** The records of a `*_dataset.jsonl` text; Git LFS pointers and broken lines are left out. */
export function parseMsweJsonl(text: string): MsweRecord[] {
  return text.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      const record = JSON.parse(line) as MsweRecord;
      return record.base?.sha && record.fix_patch ? [record] : [];
    } catch {
      return [];
    }
  });
}

/** A record as an issue: the query is the issue text as its author wrote it, nothing stripped. */
export function msweIssue(record: MsweRecord): MsweIssue {
  const query = record.resolved_issues
    .map((issue) => `${issue.title}\n${issue.body ?? ""}`.replace(/\r\n/g, "\n").trim())
    .join("\n\n");
  return {
    id: record.instance_id ?? `${record.org}__${record.repo}-${record.number}`,
    repo: `${record.org}/${record.repo}`,
    baseCommit: record.base.sha,
    query,
    patchFiles: patchFiles(record.fix_patch),
    numbers: [record.number, ...record.resolved_issues.map((issue) => issue.number)],
  };
}

/** The paths a unified git patch changes, as they were before it (`a/` side; new files by their new path). */
export function patchFiles(patch: string): string[] {
  const files = [...patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)]
    .map((match) => match[1]!);
  return [...new Set(files)];
}
