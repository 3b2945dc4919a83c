/**
 * The code index operations: index a folder, its status, the projects, and
 * deleting one.
 * @module
 */
import { resolve } from "node:path";
import { z } from "zod";
import { checkAllowedPath } from "../service/allowed_roots.ts";
import { lagText, lagWithin, type VectorLag, waitingCount } from "../recall/vector_lag.ts";
import type { IndexReport, ProjectStatus } from "../service/code_index.ts";
import { historyLine, skippedLines, statusLines } from "../service/index_status.ts";
import { formatProjects, listProjects, MAX_PROJECTS } from "../service/project_list.ts";
import { operation } from "./operation.ts";
import { indexProgressText } from "./progress_text.ts";

const project = z.string().min(1).max(200);

/** What an index run did, and whether the folder is now watched. */
export interface IndexResult {
  report: IndexReport;
  /** The vectors still to compute after it. */
  lag: VectorLag;
  /** Computed while the command waited for them (`--wait`), and how long that took. */
  vectors?: { computed: number; seconds: number };
  watching?: "started" | "already";
  /** No owner computes the vectors after this command: the next one to open the store does. */
  leftForNextOpen?: boolean;
}

/** `index`: indexes (or re-indexes, incrementally) a folder's code as a project. */
export const index = operation({
  command: "index",
  tool: "index_project",
  summary: "index a repository's code (again: only what changed)",
  description:
    "Index (or re-index, incrementally) a code folder so recall finds its code. Use once per " +
    "repository, and again after large changes.",
  core: true,
  writes: true,
  input: {
    path: z.string().min(1).max(4096).describe("absolute folder path"),
    project: project.optional().describe("default: the repository's name"),
    watch: z.boolean().optional().describe("keep re-indexing as files change"),
  },
  output: {
    project: z.string(),
    indexed: z.number(),
    chunks: z.number(),
    watching: z.boolean(),
  },
  async run(cairn, input, caller): Promise<IndexResult> {
    const given = resolve(caller.cwd, input.path);
    // A person names any folder of theirs; an agent only what its allowed roots hold.
    const path = caller.agent
      ? checkAllowedPath(given, caller.roots, "in the environment of the MCP client's `cairn mcp`")
      : given;
    const started = performance.now();
    const report = await cairn.code.index(
      { path, ...(input.project ? { project: input.project } : {}) },
      (progress) =>
        caller.progress?.(
          indexProgressText(progress, (performance.now() - started) / 1000),
          progress.total ? progress.checked / progress.total : undefined,
        ),
    );
    await cairn.text.saveIndexes();
    let watching: IndexResult["watching"];
    if (input.watch === true) {
      const started = cairn.watches.start(path, report.project, {
        onReport: () => {},
        onError: (error) => console.error(`cairn: watching ${report.project}: ${error.message}`),
      });
      watching = started ? "started" : "already";
    }
    return { report, lag: await cairn.vectorLag(), ...(watching ? { watching } : {}) };
  },
  render: (result: IndexResult) => ({
    text: indexLines(result).join("\n"),
    data: {
      project: result.report.project,
      indexed: result.report.indexed,
      chunks: result.report.chunks,
      watching: result.watching !== undefined,
    },
    json: result.report,
  }),
});

/** What an index run did and skipped, in lines (a watched folder's batches print these). */
export function reportLines(report: IndexReport): string[] {
  const rate = report.indexed >= 100
    ? `, ${Math.round(report.indexed / report.seconds)} files/s`
    : "";
  return [
    `indexed project ${report.project} (${report.root}): ${report.indexed} files indexed, ` +
    `${report.unchanged} unchanged, ${report.removed} removed, ${report.skipped} skipped; ` +
    `${report.chunks} chunks in ${report.seconds.toFixed(2)} s${rate}`,
    ...(report.history ? [historyLine(report.history)] : []),
    ...skippedLines(report),
  ];
}

/** The lines an index run is told in: what it did, what it skipped, where the vectors are. */
function indexLines({ report, lag, vectors, watching, leftForNextOpen }: IndexResult): string[] {
  const lines = reportLines(report);
  if (vectors && vectors.computed > 0) {
    lines.push(`vectors: ${vectors.computed} computed in ${vectors.seconds.toFixed(1)} s`);
  }
  const left = lagWithin(lag, ["code"], report.project);
  if (waitingCount(left) > 0 && leftForNextOpen) {
    lines.push(`vectors: ${lagText(left)} left for the next command to compute`);
  } else if (waitingCount(left) > 0) {
    lines.push(
      `vectors: ${lagText(left)} still to compute, in the background; words and the graph ` +
        "find them already (`cairn status` or the store_status tool shows how far, " +
        "`cairn index --wait` waits)",
    );
  }
  if (watching) {
    lines.push(watching === "started" ? "watching for changes" : "already watching for changes");
  }
  return lines;
}

/** An index result told in lines, for the CLI's own `index` command. */
export function indexText(result: IndexResult): string {
  return index.render(result, { path: result.report.root }).text;
}

/** `index --status` (the `get_index_status` tool): each project's index and last run. */
export const indexStatus = operation({
  via: "index --status",
  tool: "get_index_status",
  summary: "show what is indexed: files, chunks, last run and what it skipped",
  description:
    "A project's index: files, chunks, when last indexed, what the last run skipped and why.",
  core: true,
  writes: false,
  input: { project: project.optional().describe("default every project") },
  output: { projects: z.array(z.looseObject({})) },
  run: (cairn, { project }) => cairn.code.status(project),
  render(all: ProjectStatus[]) {
    const projects = all.slice(0, MAX_PROJECTS);
    const lines = projects.flatMap((project) => statusLines(project));
    if (all.length > MAX_PROJECTS) {
      lines.push(`> capped at ${MAX_PROJECTS} of ${all.length} projects`);
    }
    return {
      text: lines.join("\n") ||
        "No project is indexed; index one with `cairn index PATH` or the index_project tool.",
      data: { projects },
      json: projects,
    };
  },
});

/** `projects`: one line per indexed project. */
export const projects = operation({
  command: "projects",
  tool: "list_projects",
  summary: "list the indexed projects (up to 100): files, chunks, last indexed",
  description: "The indexed projects (up to 100): files, chunks, when last indexed.",
  core: false,
  writes: false,
  input: {},
  output: { projects: z.array(z.looseObject({})), notes: z.array(z.string()) },
  cli: { help: "  `cairn index --status` shows each project's last run and what it skipped" },
  run: (cairn) => listProjects(cairn.code),
  render: (list) => ({ text: formatProjects(list), data: { ...list } }),
});

/** `delete-project`: takes a project's code out of the index; memories and sessions stay. */
export const deleteProject = operation({
  command: "delete-project",
  tool: "delete_project",
  summary: "take a project's code out of the index (memories and sessions stay)",
  description: "Take a project's code out of the index; its memories and sessions stay.",
  core: false,
  writes: true,
  input: { project },
  output: { project: z.string() },
  cli: {
    positionals: [{
      key: "project",
      name: "NAME",
      missing: "give the project's name (`cairn projects` lists them)",
    }],
  },
  async run(cairn, { project }, caller) {
    // A watch left running would index the folder again at its next save.
    const watched = await cairn.watches.stop(project);
    await cairn.code.deleteProject(
      project,
      (removed, total) =>
        caller.progress?.(
          `removing ${project}'s chunk texts: ${removed} of ${total}`,
          removed / total,
        ),
    );
    return { project, watched };
  },
  render: ({ project, watched }: { project: string; watched: boolean }) => ({
    text: `deleted the code index of ${project}` +
      (watched ? " and stopped watching its folder" : ""),
    data: { project },
  }),
});
