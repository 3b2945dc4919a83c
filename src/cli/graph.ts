/**
 * `cairn graph`: the knowledge-graph operations of the official MCP memory
 * server from the command line, one subcommand each; the write subcommands
 * also take the JSON array the matching MCP tool takes, for scripts.
 * @module
 */
import { UserError } from "../service/errors.ts";
import { entityLine, pageLines, relationLine } from "../service/graph_format.ts";
import {
  EntitiesInput,
  type EntityRecord,
  type GraphPage,
  ObservationsInput,
  type RelationRecord,
  RelationsInput,
} from "../service/graph_ops.ts";
import type { Cairn } from "../service/cairn.ts";
import { parseCommandArgs, parseDateOption, parseLimit } from "./args.ts";
import { type Command, type CommandContext, UsageError } from "./command.ts";
import { Deletions, input, Names, NOTHING_CHANGED } from "./graph_input.ts";
import { withCairn } from "./with_cairn.ts";

const MAX_PAGE = 100;
const BATCH_OPTIONS = { file: { type: "string" }, json: { type: "boolean" } } as const;
const READ_OPTIONS = { "as-of": { type: "string" }, json: { type: "boolean" } } as const;
const PAGE_OPTIONS = {
  ...READ_OPTIONS,
  limit: { type: "string" },
  cursor: { type: "string" },
} as const;

type Subcommand = (context: CommandContext, args: string[]) => Promise<number>;

const SUBCOMMANDS = new Map<string, Subcommand>([
  ["add-entity", addEntity],
  ["relate", relate],
  ["observe", observe],
  ["delete-entity", deleteEntity],
  ["delete-observation", deleteObservation],
  ["unrelate", unrelate],
  ["open", open],
  ["search", search],
  ["read", read],
]);

/** `cairn graph SUBCOMMAND`: entities, relations and observations, as the MCP memory server has them. */
export const graph: Command = {
  name: "graph",
  summary: "the knowledge graph: entities, their observations and relations (MCP memory server)",
  usage: `cairn graph SUBCOMMAND ... [--json]

  add-entity NAME --type TYPE [--observation TEXT]...  (a name the graph has is skipped)
  relate FROM RELATION TO               in active voice: Ada maintains billing
  observe NAME TEXT...                  one observation per TEXT
  delete-entity NAME...                 with the entity's relations
  delete-observation NAME TEXT...
  unrelate FROM RELATION TO
  open NAME... [--as-of D]              with their observations and relations
  search QUERY [--limit N] [--cursor C] [--as-of D]  name, type or observations contain QUERY
  read [--limit N] [--cursor C] [--as-of D]  the whole graph, a page of entities at a time

  --as-of D   open, search and read show the graph as it was at the ISO 8601 date D
  --limit N   entities a page, 1 to ${MAX_PAGE} (default 50)
  --cursor C  where a page starts: the cursor the previous one printed
  --file F    instead of the arguments of a subcommand that changes the graph: the JSON array
              its MCP tool takes (e.g. create_entities' entities); - reads standard input`,
  run(context) {
    const [name, ...args] = context.args;
    const valid = [...SUBCOMMANDS.keys()].join(", ");
    if (!name) throw new UsageError(`give a subcommand: ${valid}`);
    const subcommand = SUBCOMMANDS.get(name);
    if (!subcommand) throw new UsageError(`unknown subcommand "${name}"; use one of ${valid}`);
    return subcommand(context, args);
  },
};

async function addEntity(context: CommandContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, {
    type: { type: "string" },
    observation: { type: "string", multiple: true },
    ...BATCH_OPTIONS,
  }, true);
  const { values, positionals } = parsed;
  const entities = await input(context, parsed, EntitiesInput, () => {
    const [name, ...extra] = positionals;
    if (!name) throw new UsageError("give the entity's name");
    if (extra.length) throw new UsageError("give one NAME; quote a name with spaces");
    if (values.type === undefined) throw new UsageError("give the entity's type with --type TYPE");
    return [{ name, entityType: values.type, observations: values.observation ?? [] }];
  });
  const created = await write(context, (cairn) => cairn.entities.createEntities(entities));
  if (values.json) return print(context, created);
  for (const entity of created) context.out(`created ${entityLine(entity)}`);
  const known = entities.filter((e) => !created.some((c) => c.name === e.name));
  for (const entity of known) {
    context.out(`already exists: ${entity.name} (add to it with \`cairn graph observe\`)`);
  }
  return 0;
}

async function relate(context: CommandContext, args: string[]): Promise<number> {
  const { values, relations } = await relationArgs(context, args);
  const created = await write(context, (cairn) => cairn.entities.createRelations(relations));
  if (values.json) return print(context, created);
  for (const relation of relations) {
    const fresh = created.some((c) => sameRelation(c, relation));
    context.out(`${fresh ? "related" : "already related"}: ${relationLine(relation)}`);
  }
  return 0;
}

async function observe(context: CommandContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, BATCH_OPTIONS, true);
  const { values, positionals } = parsed;
  const observations = await input(context, parsed, ObservationsInput, () => {
    const [entityName, ...contents] = positionals;
    if (!entityName) throw new UsageError("give the entity's name and the observations to add");
    if (!contents.length) throw new UsageError(`give the observations to add to ${entityName}`);
    return [{ entityName, contents }];
  });
  const added = await write(context, (cairn) => cairn.entities.addObservations(observations));
  if (values.json) return print(context, added);
  for (const { entityName, addedObservations } of added) {
    context.out(
      addedObservations.length
        ? `added to ${entityName}: ${addedObservations.join("; ")}`
        : `${entityName} already has those observations`,
    );
  }
  return 0;
}

async function deleteEntity(context: CommandContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, BATCH_OPTIONS, true);
  const { values, positionals } = parsed;
  const names = await input(context, parsed, Names, () => {
    if (!positionals.length) throw new UsageError("give the names of the entities to delete");
    return positionals;
  });
  await write(context, async (cairn) => {
    await requireEntities(cairn, names);
    await cairn.entities.deleteEntities(names);
  });
  if (values.json) return print(context, { deleted: names });
  context.out(`deleted ${names.join(", ")} and their relations`);
  return 0;
}

async function deleteObservation(context: CommandContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, BATCH_OPTIONS, true);
  const { values, positionals } = parsed;
  const deletions = await input(context, parsed, Deletions, () => {
    const [entityName, ...observations] = positionals;
    if (!entityName) throw new UsageError("give the entity's name and the observations to delete");
    if (!observations.length) {
      throw new UsageError(`give the observations to delete from ${entityName}`);
    }
    return [{ entityName, observations }];
  });
  await write(context, async (cairn) => {
    const found = await requireEntities(cairn, deletions.map((d) => d.entityName));
    for (const { entityName, contents } of deletions) {
      const absent = contents.filter((c) => !found.get(entityName)?.observations.includes(c));
      if (absent.length) {
        const quoted = absent.map((a) => JSON.stringify(a)).join(", ");
        throw new UserError(`${entityName} has no observation ${quoted}; ${NOTHING_CHANGED}`);
      }
    }
    await cairn.entities.deleteObservations(deletions);
  });
  if (values.json) return print(context, { deleted: deletions });
  for (const { entityName, contents } of deletions) {
    context.out(`deleted from ${entityName}: ${contents.join("; ")}`);
  }
  return 0;
}

async function unrelate(context: CommandContext, args: string[]): Promise<number> {
  const { values, relations } = await relationArgs(context, args);
  await write(context, async (cairn) => {
    for (const relation of relations) {
      const { relations: known } = await cairn.entities.openNodes([relation.from, relation.to]);
      if (!known.some((k) => sameRelation(k, relation))) {
        throw new UserError(`no relation ${relationLine(relation)}; ${NOTHING_CHANGED}`);
      }
    }
    await cairn.entities.deleteRelations(relations);
  });
  if (values.json) return print(context, { deleted: relations });
  for (const relation of relations) context.out(`unrelated: ${relationLine(relation)}`);
  return 0;
}

async function open(context: CommandContext, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, READ_OPTIONS, true);
  if (!positionals.length) throw new UsageError("give the names of the entities to open");
  const names = Names.parse(positionals);
  const when = asOf(values);
  const page = await withCairn(context, (cairn) => cairn.entities.openNodes(names, when), {
    warn: context.err,
  });
  printPage(context, page, values.json, 0);
  const missing = names.filter((n) => !page.entities.some((e) => e.name === n));
  if (!missing.length) return 0;
  context.err(`cairn graph: no entity named ${missing.join(", ")}`);
  return 1;
}

async function search(context: CommandContext, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, PAGE_OPTIONS, true);
  const query = positionals.join(" ");
  if (!query.trim()) throw new UsageError("give the text to search for");
  const page = { ...parsePage(values), ...asOf(values) };
  const found = await withCairn(context, (cairn) => cairn.entities.searchNodes(query, page), {
    warn: context.err,
  });
  printPage(context, found, values.json, page.offset);
  return 0;
}

async function read(context: CommandContext, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, PAGE_OPTIONS, true);
  if (positionals.length) throw new UsageError("read takes no arguments; to filter, use search");
  const page = { ...parsePage(values), ...asOf(values) };
  const found = await withCairn(context, (cairn) => cairn.entities.readGraph(page), {
    warn: context.err,
  });
  printPage(context, found, values.json, page.offset);
  return 0;
}

/** The arguments of `relate` and `unrelate`, which take the same relations. */
async function relationArgs(context: CommandContext, args: string[]) {
  const parsed = parseCommandArgs(args, BATCH_OPTIONS, true);
  const { values, positionals } = parsed;
  const relations = await input(context, parsed, RelationsInput, () => {
    const [from, relationType, to, ...extra] = positionals;
    if (!from || !relationType || !to) {
      throw new UsageError("give FROM RELATION TO, e.g. Ada maintains billing");
    }
    if (extra.length) throw new UsageError("give one FROM RELATION TO; quote names with spaces");
    return [{ from, relationType, to }];
  });
  return { values, relations };
}

function asOf(values: { "as-of"?: string }): { as_of?: string } {
  const text = values["as-of"];
  return text === undefined ? {} : { as_of: parseDateOption(text, "--as-of") };
}

function parsePage(values: { limit?: string; cursor?: string }) {
  const limit = values.limit === undefined ? undefined : parseLimit(values.limit);
  if (limit !== undefined && limit > MAX_PAGE) {
    throw new UsageError(`--limit takes at most ${MAX_PAGE}; use --cursor for the next page`);
  }
  const cursor = values.cursor ?? "0";
  if (!/^\d+$/.test(cursor)) throw new UsageError("--cursor takes the cursor a page printed");
  return { offset: Number(cursor), ...(limit === undefined ? {} : { limit }) };
}

/** Runs a change on the store and waits for the projections to take it in. */
function write<T>(context: CommandContext, work: (cairn: Cairn) => Promise<T>): Promise<T> {
  return withCairn(context, work, { settle: true, warn: context.err });
}

/** The entities among `names`; a user error naming the missing ones when any is missing. */
async function requireEntities(cairn: Cairn, names: string[]): Promise<Map<string, EntityRecord>> {
  const unique = [...new Set(names)];
  const found = new Map<string, EntityRecord>();
  // openNodes takes at most 100 names; a batch of relations can name 200.
  for (let i = 0; i < unique.length; i += MAX_PAGE) {
    const { entities } = await cairn.entities.openNodes(unique.slice(i, i + MAX_PAGE));
    for (const entity of entities) found.set(entity.name, entity);
  }
  const missing = unique.filter((n) => !found.has(n));
  if (missing.length) {
    throw new UserError(
      `no entity named ${missing.join(", ")}; ${NOTHING_CHANGED} ` +
        "(create it with `cairn graph add-entity NAME --type TYPE`)",
    );
  }
  return found;
}

function printPage(
  context: CommandContext,
  page: GraphPage,
  json: boolean | undefined,
  offset: number,
): void {
  if (json) {
    print(context, page);
    return;
  }
  for (const line of pageLines(page, offset, (next) => `--cursor ${next}`)) context.out(line);
}

function print(context: CommandContext, result: unknown): number {
  context.out(JSON.stringify(result));
  return 0;
}

function sameRelation(a: RelationRecord, b: RelationRecord): boolean {
  return a.from === b.from && a.to === b.to && a.relationType === b.relationType;
}
