import type { TeamConfig } from "./config.ts";
import { subjectOf } from "./subjects.ts";

/** What a member shares: knowledge (memories, the graph) and, by opt-in, sessions. */
export interface SharePolicy {
  /** Every project (`"*"`), or these. */
  projects: "*" | ReadonlySet<string>;
  /** Memories and entities of no project. */
  global: boolean;
  /** Projects whose session events are shared too. */
  sessions: ReadonlySet<string>;
  prefix: string;
}

/** The policy config.json's `team` section describes. */
export function sharePolicy(team: TeamConfig): SharePolicy {
  return {
    projects: team.projects.includes("*") ? "*" : new Set(team.projects),
    global: team.global,
    sessions: new Set(team.sessions),
    prefix: team.subject_prefix,
  };
}

/** Whether knowledge of `project` (null: none) is shared. */
export function sharesProject(policy: SharePolicy, project: string | null): boolean {
  if (project === null) return policy.global;
  return policy.projects === "*" || policy.projects.has(project);
}

/** Whether the sessions of `project` are shared. */
export function sharesSessions(policy: SharePolicy, project: string | null): boolean {
  return project !== null && sharesProject(policy, project) && policy.sessions.has(project);
}

/**
 * The stream filters a member reads: one subject per shared project (or every
 * project's, when all are shared), the global subject when shared, and the
 * sessions subject of each project whose sessions it takes.
 */
export function readFilters(policy: SharePolicy): string[] {
  const filters = policy.projects === "*"
    ? [`${policy.prefix}.p.>`]
    : [...policy.projects].map((project) => subjectOf(policy.prefix, project));
  if (policy.global) filters.push(subjectOf(policy.prefix, null));
  for (const project of policy.sessions) {
    if (sharesSessions(policy, project)) {
      filters.push(subjectOf(policy.prefix, project, "sessions"));
    }
  }
  return filters;
}

/** Whether the stream filter `filter` takes in messages of `subject`. */
export function filterMatches(filter: string, subject: string): boolean {
  return filter.endsWith(".>") ? subject.startsWith(filter.slice(0, -1)) : filter === subject;
}
