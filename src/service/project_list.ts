/**
 * The indexed projects in one short answer, for `cairn projects` and the
 * `list_projects` tool alike.
 * @module
 */
import { plural } from "../recall/vector_lag.ts";
import type { CodeIndex, ProjectStatus } from "./code_index.ts";

/** Most projects one answer lists. */
export const MAX_PROJECTS = 100;

/** One project as listed: its counts without its last run's report. */
export type ProjectSummary = Omit<ProjectStatus, "lastRun">;

/** The projects listed, and what to tell the caller (a cap). */
export interface ProjectList {
  projects: ProjectSummary[];
  notes: string[];
}

/** The indexed projects by name, at most {@linkcode MAX_PROJECTS}, saying so when there are more. */
export async function listProjects(code: Pick<CodeIndex, "status">): Promise<ProjectList> {
  const all = await code.status();
  const projects = all.slice(0, MAX_PROJECTS).map(({ lastRun: _run, ...project }) => project);
  const notes = all.length > MAX_PROJECTS
    ? [`capped at ${MAX_PROJECTS} of ${all.length} projects`]
    : [];
  return { projects, notes };
}

/** The list as compact markdown: one line a project, then the notes. */
export function formatProjects(list: ProjectList): string {
  const lines = list.projects.map((p) =>
    `- ${p.project} (${p.root}): ${p.files} files, ${p.chunks} chunks, ` +
    (p.history ? `${plural(p.history.pairs, "pair")} of files changed together in git, ` : "") +
    `last indexed ${p.lastIndexed ?? "never"}`
  );
  if (lines.length === 0) lines.push("No project is indexed.");
  return [...lines, ...list.notes.map((note) => `> ${note}`)].join("\n");
}
