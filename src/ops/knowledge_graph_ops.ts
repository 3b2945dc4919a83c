/**
 * The knowledge-graph operations, with the official MCP memory server's tool
 * names and argument shapes (its users move over without changing prompts),
 * and `cairn graph SUBCOMMAND` forms for people. A person at the CLI is told
 * when a deletion names nothing the graph has; an agent, as with the memory
 * server, is not.
 * @module
 */
import { z } from "zod";
import { ArgumentsError, UserError } from "../errors.ts";
import { entityLine, pageLines } from "../service/graph_format.ts";
import {
  type Deleted,
  EntitiesInput,
  type EntityRecord,
  type GraphPage,
  ObservationDeletionsInput,
  ObservationsInput,
  relationLine,
  type RelationRecord,
  RelationsInput,
  sameRelation,
} from "../service/graph_ops.ts";
import { type CliForm, type Operation, operation, type Rendered } from "./operation.ts";
import { asOfInput } from "./time_input.ts";

/** What every refusal of a graph change adds. */
const NOTHING_CHANGED = "nothing was changed";
/** How a deletion names what it skipped (an agent's call deletes what is there, as the MCP memory server does). */
const NOT_IN_GRAPH = "not in the graph, so not deleted";
/** Entities a page lists at most. */
const MAX_PAGE = 100;

const names = z.array(z.string().trim().min(1).max(200)).min(1).max(100);
const page = {
  offset: z.number().int().min(0).optional().describe("where the page starts"),
  limit: z.number().int().min(1).max(MAX_PAGE).optional().describe("default 50"),
};
const graphPage = {
  entities: z.array(z.looseObject({})),
  relations: z.array(z.looseObject({})),
  /** Entities beyond this page. */
  more: z.number(),
};
const done = { count: z.number() };

/** `--file F`: the JSON array the MCP tool takes, instead of the arguments (`-`: standard input). */
const FILE = { file: { type: "string" } } as const;
const READ = { "as-of": { type: "string" } } as const;
const PAGE = {
  ...READ,
  limit: { type: "string" },
  offset: { type: "string" },
  cursor: { type: "string" },
} as const;

/**
 * The `--file` form of a change: its array, as the tool takes it under `key`,
 * parsed as JSON; undefined when the arguments are used instead.
 */
async function fromFile(
  key: string,
  values: Record<string, unknown>,
  words: string[],
  read: (file: string) => Promise<string>,
): Promise<Record<string, unknown> | undefined> {
  const file = values.file as string | undefined;
  if (file === undefined) return undefined;
  const others = Object.keys(values).filter((name) => name !== "file" && name !== "json");
  if (words.length || others.length) {
    throw new ArgumentsError("give either --file or the arguments, not both");
  }
  const source = file === "-" ? "standard input" : file;
  try {
    return { [key]: JSON.parse(await read(file)) };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new UserError(`${source} is not JSON (${error.message}); ${NOTHING_CHANGED}`);
  }
}

/**
 * A change's CLI form: its arguments, or `--file`; the options named in
 * `beside` go to the input as they are, with either.
 */
function changeForm(
  key: string,
  words: string,
  options: NonNullable<CliForm["custom"]>["options"],
  fromWords: (values: Record<string, unknown>, words: string[]) => unknown,
  beside: readonly string[] = [],
): CliForm {
  return {
    custom: {
      words: `${words} | --file F`,
      options: { ...options, ...FILE },
      build: async (values, words, read) => {
        const own = Object.fromEntries(Object.entries(values).filter(([n]) => !beside.includes(n)));
        const passed = Object.fromEntries(
          Object.entries(values).filter(([n]) => beside.includes(n)),
        );
        return {
          ...(await fromFile(key, own, words, read) ?? { [key]: fromWords(own, words) }),
          ...passed,
        };
      },
    },
  };
}

/** A change to the graph: no core tool, a write, answering how many things it changed. */
function change<Shape extends z.ZodRawShape, Result>(
  definition: Omit<Operation<Shape, Result>, "core" | "writes" | "output">,
): Operation<Shape, Result> {
  return operation({ ...definition, core: false, writes: true, output: done });
}

/** A read of the graph: no core tool, answering a page of it. */
function graphRead<Shape extends z.ZodRawShape, Result>(
  definition: Omit<Operation<Shape, Result>, "core" | "writes" | "output">,
): Operation<Shape, Result> {
  return operation({ ...definition, core: false, writes: false, output: graphPage });
}

function one(words: string[], what: string, example: string): [string, string, string] {
  const [from, relationType, to, ...extra] = words;
  if (!from || !relationType || !to) throw new ArgumentsError(`give ${what}, e.g. ${example}`);
  if (extra.length) throw new ArgumentsError(`give one ${what}; quote names with spaces`);
  return [from, relationType, to];
}

/** A page's parameters from `--limit` and `--offset` (or `--cursor`, its earlier name). */
function pageOf(values: Record<string, unknown>): Record<string, unknown> {
  const flag = values.offset === undefined ? "--cursor" : "--offset";
  const cursor = (values.offset ?? values.cursor ?? "0") as string;
  if (!/^\d+$/.test(cursor)) throw new ArgumentsError(`${flag} takes the offset a page printed`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw new ArgumentsError("--limit takes a whole number from 1");
  }
  if (limit !== undefined && limit > MAX_PAGE) {
    throw new ArgumentsError(`--limit takes at most ${MAX_PAGE}; use --offset for the next page`);
  }
  return {
    offset: Number(cursor),
    ...(limit === undefined ? {} : { limit }),
    ...(values["as-of"] === undefined ? {} : { as_of: values["as-of"] }),
  };
}

/** A page of the graph, rendered; `offset` is the page's start. */
function pageAnswer(found: GraphPage, offset: number | undefined): Rendered {
  return {
    text: pageLines(found, offset ?? 0, (next) => `offset ${next}`).join("\n"),
    data: { ...found },
    json: found,
  };
}

/** `graph add-entity` (`create_entities`). */
export const createEntities = change({
  command: "graph add-entity",
  tool: "create_entities",
  summary: "add an entity (a name the graph has is skipped)",
  description:
    "Add people, services, concepts… to the knowledge graph (existing names are skipped).",
  input: {
    entities: EntitiesInput,
    project: z.string().min(1).max(200).optional().describe("shared with its team; default none"),
  },
  cli: changeForm(
    "entities",
    "NAME --type TYPE [--observation TEXT]... [--project P]",
    {
      type: { type: "string" },
      observation: { type: "string", multiple: true },
      project: { type: "string" },
    },
    (values, [name, ...extra]) => {
      if (!name) throw new ArgumentsError("give the entity's name");
      if (extra.length) throw new ArgumentsError("give one NAME; quote a name with spaces");
      if (values.type === undefined) {
        throw new ArgumentsError("give the entity's type with --type TYPE");
      }
      return [{ name, entityType: values.type, observations: values.observation ?? [] }];
    },
    ["project"],
  ),
  run: (cairn, { entities, project }) => cairn.entities.createEntities(entities, project ?? null),
  render: (created: EntityRecord[], { entities }) => ({
    text: [
      ...created.map((entity) => `created ${entityLine(entity)}`),
      ...entities.filter((e) => !created.some((c) => c.name === e.name)).map((entity) =>
        `already exists: ${entity.name} (add to it with add_observations or \`cairn graph observe\`)`
      ),
    ].join("\n"),
    data: { count: created.length },
    json: created,
  }),
});

/** `graph relate` (`create_relations`). */
export const createRelations = change({
  command: "graph relate",
  tool: "create_relations",
  summary: "relate two entities, in active voice: Ada maintains billing",
  description: "Link entities, in active voice (from `Ada` relationType `maintains` to `billing`).",
  input: { relations: RelationsInput },
  cli: changeForm("relations", "FROM RELATION TO", {}, (_, words) => {
    const [from, relationType, to] = one(words, "FROM RELATION TO", "Ada maintains billing");
    return [{ from, relationType, to }];
  }),
  run: (cairn, { relations }) => cairn.entities.createRelations(relations),
  render: (created: RelationRecord[], { relations }) => ({
    text: relations.map((relation) =>
      `${created.some((c) => sameRelation(c, relation)) ? "related" : "already related"}: ${
        relationLine(relation)
      }`
    ).join("\n"),
    data: { count: created.length },
    json: created,
  }),
});

/** `graph observe` (`add_observations`). */
export const addObservations = change({
  command: "graph observe",
  tool: "add_observations",
  summary: "add observations to an entity, one per TEXT",
  description: "Add facts to existing entities.",
  input: { observations: ObservationsInput },
  cli: changeForm("observations", "NAME TEXT...", {}, (_, [entityName, ...contents]) => {
    if (!entityName) throw new ArgumentsError("give the entity's name and the observations to add");
    if (!contents.length) throw new ArgumentsError(`give the observations to add to ${entityName}`);
    return [{ entityName, contents }];
  }),
  run: (cairn, { observations }) => cairn.entities.addObservations(observations),
  render: (added: Array<{ entityName: string; addedObservations: string[] }>) => ({
    text: added.map(({ entityName, addedObservations }) =>
      addedObservations.length
        ? `added to ${entityName}: ${addedObservations.join("; ")}`
        : `${entityName} already has those observations`
    ).join("\n"),
    data: { count: added.reduce((sum, a) => sum + a.addedObservations.length, 0) },
    json: added,
  }),
});

/** `graph delete-entity` (`delete_entities`). */
export const deleteEntities = change({
  command: "graph delete-entity",
  tool: "delete_entities",
  summary: "delete entities, with their relations",
  description: "Remove entities and their relations.",
  input: { entityNames: names },
  cli: changeForm("entityNames", "NAME...", {}, (_, words) => {
    if (!words.length) throw new ArgumentsError("give the names of the entities to delete");
    return words;
  }),
  run: (cairn, { entityNames }, caller) =>
    cairn.entities.deleteEntities(entityNames, { strict: !caller.agent }),
  render: ({ deleted, absent }: Deleted<string>) => ({
    text: [
      ...(deleted.length ? [`deleted ${deleted.join(", ")} and their relations`] : []),
      ...(absent.length ? [`${NOT_IN_GRAPH}: ${absent.join(", ")}`] : []),
    ].join("\n"),
    data: { count: deleted.length },
    json: { deleted, absent },
  }),
});

/** `graph delete-observation` (`delete_observations`). */
export const deleteObservations = change({
  command: "graph delete-observation",
  tool: "delete_observations",
  summary: "delete observations of an entity",
  description: "Remove facts from entities.",
  input: { deletions: ObservationDeletionsInput },
  cli: changeForm("deletions", "NAME TEXT...", {}, (_, [entityName, ...observations]) => {
    if (!entityName) {
      throw new ArgumentsError("give the entity's name and the observations to delete");
    }
    if (!observations.length) {
      throw new ArgumentsError(`give the observations to delete from ${entityName}`);
    }
    return [{ entityName, observations }];
  }),
  run(cairn, { deletions }, caller) {
    const asked = deletions.map((d) => ({ entityName: d.entityName, contents: d.observations }));
    return cairn.entities.deleteObservations(asked, { strict: !caller.agent });
  },
  render: (outcome: Array<{ entityName: string } & Deleted<string>>) => ({
    text: outcome.flatMap(({ entityName, deleted, absent }) => [
      ...(deleted.length ? [`deleted from ${entityName}: ${deleted.join("; ")}`] : []),
      ...(absent.length ? [`${NOT_IN_GRAPH} (of ${entityName}): ${absent.join("; ")}`] : []),
    ]).join("\n"),
    data: { count: outcome.filter((o) => o.deleted.length).length },
    json: {
      deleted: outcome.flatMap(({ entityName, deleted }) =>
        deleted.length ? [{ entityName, contents: deleted }] : []
      ),
      absent: outcome.flatMap(({ entityName, absent }) =>
        absent.length ? [{ entityName, contents: absent }] : []
      ),
    },
  }),
});

/** `graph unrelate` (`delete_relations`). */
export const deleteRelations = change({
  command: "graph unrelate",
  tool: "delete_relations",
  summary: "delete a relation",
  description: "Remove relations between entities.",
  input: { relations: RelationsInput },
  cli: changeForm("relations", "FROM RELATION TO", {}, (_, words) => {
    const [from, relationType, to] = one(words, "FROM RELATION TO", "Ada maintains billing");
    return [{ from, relationType, to }];
  }),
  run: (cairn, { relations }, caller) =>
    cairn.entities.deleteRelations(relations, { strict: !caller.agent }),
  render: ({ deleted, absent }: Deleted<RelationRecord>) => ({
    text: [
      ...deleted.map((relation) => `unrelated: ${relationLine(relation)}`),
      ...absent.map((relation) => `${NOT_IN_GRAPH}: ${relationLine(relation)}`),
    ].join("\n"),
    data: { count: deleted.length },
    json: { deleted, absent },
  }),
});

/** `graph open` (`open_nodes`). */
export const openNodes = graphRead({
  command: "graph open",
  tool: "open_nodes",
  summary: "entities by name, with their observations and relations",
  description: "Entities by name, with their observations and relations.",
  input: { names, ...asOfInput },
  cli: {
    custom: {
      words: "NAME... [--as-of D]",
      options: READ,
      build: (values, words) => {
        if (!words.length) throw new ArgumentsError("give the names of the entities to open");
        const asOf = values["as-of"];
        return Promise.resolve({ names: words, ...(asOf === undefined ? {} : { as_of: asOf }) });
      },
    },
  },
  run: (cairn, { names, as_of }) => cairn.entities.openNodes(names, as_of ? { as_of } : {}),
  render(found: GraphPage, { names }) {
    const missing = names.filter((n) => !found.entities.some((e) => e.name === n));
    const page = pageAnswer(found, 0);
    if (missing.length === 0) return page;
    // None found: the problem says it all ("No entities." above it would repeat it).
    const text = found.entities.length === 0 ? "" : page.text;
    return { ...page, text, problem: `no entity named ${missing.join(", ")}` };
  },
});

/** `graph search` (`search_nodes`). */
export const searchNodes = graphRead({
  command: "graph search",
  tool: "search_nodes",
  summary: "entities whose name, type or observations contain QUERY",
  description: "Entities whose name, type or observations contain the query; paginated.",
  input: { query: z.string().min(1).max(4096), ...page, ...asOfInput },
  cli: {
    custom: {
      words: "QUERY [--limit N] [--offset N] [--as-of D]",
      options: PAGE,
      build: (values, words) => {
        const query = words.join(" ");
        if (!query.trim()) throw new ArgumentsError("give the text to search for");
        return Promise.resolve({ query, ...pageOf(values) });
      },
    },
  },
  run: (cairn, { query, ...rest }) =>
    cairn.entities.searchNodes(
      query,
      Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ),
  render: (found: GraphPage, { offset }) => pageAnswer(found, offset),
});

/** `graph read` (`read_graph`). */
export const readGraph = graphRead({
  command: "graph read",
  tool: "read_graph",
  summary: "the whole graph, a page of entities at a time",
  description: "The knowledge graph a page of entities at a time (never all at once).",
  input: { ...page, ...asOfInput },
  cli: {
    custom: {
      words: "[--limit N] [--offset N] [--as-of D]",
      options: PAGE,
      build: (values, words) => {
        if (words.length) {
          throw new ArgumentsError("read takes no arguments; to filter, use search");
        }
        return Promise.resolve(pageOf(values));
      },
    },
  },
  run: (cairn, input) =>
    cairn.entities.readGraph(
      Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
    ),
  render: (found: GraphPage, { offset }) => pageAnswer(found, offset),
});
