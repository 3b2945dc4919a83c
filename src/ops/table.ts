/**
 * The operation table: every operation the CLI and MCP both offer, defined
 * once (see `operation.ts`), in the order `tools/list` and `cairn --help` give
 * them. Every MCP tool is one of these.
 * @module
 */
import type { AnyOperation } from "./operation.ts";
import { forget, get, list, remember, revise } from "./memory_ops.ts";
import { history, recall, search, searchCode, searchText } from "./search_ops.ts";
import { open } from "./open_ops.ts";
import { status } from "./status_ops.ts";
import { ingest } from "./session_ops.ts";
import { reembed } from "./reembed_ops.ts";
import { importFile } from "./import_ops.ts";
import { sync } from "./team_ops.ts";
import { deleteProject, index, indexStatus, projects } from "./code_ops.ts";
import {
  addObservations,
  createEntities,
  createRelations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  openNodes,
  readGraph,
  searchNodes,
} from "./knowledge_graph_ops.ts";

/** Every operation, in order. */
export const OPERATIONS: readonly AnyOperation[] = [
  recall,
  search,
  searchText,
  searchCode,
  open,
  history,
  remember,
  revise,
  forget,
  list,
  get,
  index,
  indexStatus,
  projects,
  deleteProject,
  ingest,
  status,
  reembed,
  importFile,
  sync,
  createEntities,
  createRelations,
  addObservations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  openNodes,
  searchNodes,
  readGraph,
];
