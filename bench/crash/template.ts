/**
 * A prepared store (memories, a graph, indexed code, a session) and the check of a copy of it.
 * @module
 */
import { join } from "node:path";
import { newStore } from "../cli.ts";
import { cairnOk } from "./cairn.ts";
import { graphFacts } from "./checks.ts";
import { CodeTree, missingFunctions } from "./code_tree.ts";
import type { Context } from "./context.ts";
import {
  applyGraphOp,
  graphArgs,
  type GraphState,
  graphStateFacts,
  planGraph,
} from "./graph_model.ts";
import { checkMemories, importSome } from "./memories.ts";
import { claudeTurn, findTurns } from "./sessions.ts";
import type { Check } from "./tally.ts";

/** The prepared store, and what was acknowledged in it. */
export interface Template {
  store: string;
  dir: string;
  memories: Map<string, string>;
  forgotten: Set<string>;
  purged: Map<string, string>;
  graph: Set<string>;
  code: CodeTree;
  turns: Array<{ marker: string; id: string }>;
}

/** A store with memories (revised, forgotten, purged), a graph, indexed code and a session. */
export async function buildTemplate(ctx: Context): Promise<Template> {
  const dir = join(ctx.tmp, "template");
  const store = await newStore(join(dir, "store"));
  const memories = await importSome(ctx, store, 150, "tpl");
  const ids = [...memories.keys()];
  for (const id of ids.slice(0, 8)) {
    const text = `Revised template note: the ${ctx.rng.word()} job runs at ${ctx.rng.int(1, 23)}h`;
    await cairnOk(store, ["revise", id, text]);
    memories.set(id, text);
  }
  const forgotten = new Set(ids.slice(8, 16));
  for (const id of forgotten) await cairnOk(store, ["forget", id]);
  const purged = new Map<string, string>();
  for (const id of ids.slice(16, 19)) {
    await cairnOk(store, ["forget", id, "--purge"]);
    purged.set(id, memories.get(id)!);
    memories.delete(id);
  }
  let graph: GraphState = { entities: new Map(), relations: new Set() };
  for (const op of planGraph(ctx, graph, 12, { n: 0 })) {
    await cairnOk(store, graphArgs(op));
    graph = applyGraphOp(graph, op);
  }
  const code = new CodeTree(join(dir, "tplcode"), ctx);
  for (let i = 0; i < 300; i++) await code.write(`pkg/mod_${i}.py`, i + 1);
  await cairnOk(store, ["index", code.root, "--project", "tplcode", "--json"]);
  const session = ctx.rng.uuid();
  const transcript = join(dir, `${session}.jsonl`);
  const turns: Array<{ marker: string; id: string }> = [];
  let text = "";
  for (let k = 0; k < 10; k++) {
    const marker = ctx.rng.word(10);
    text += claudeTurn(ctx, session, code.root, marker, 3 * k);
    turns.push({ marker, id: `${session}:${3 * k}` });
  }
  await Deno.writeTextFile(transcript, text);
  await cairnOk(store, ["ingest", "claude", transcript, "--json"]);
  const template = {
    store,
    dir,
    memories,
    forgotten,
    purged,
    graph: graphStateFacts(graph),
    code,
    turns,
  };
  const problems = await checkTemplate(template, store, "code");
  if (problems.lost.length) {
    throw new Error(`the template store is not as built: ${problems.lost.join("; ")}`);
  }
  return template;
}

/** Checks a copy of the template; `code`: whether its code must be there, gone, or either. */
export async function checkTemplate(
  tpl: Template,
  store: string,
  code: "code" | "no code" | "either",
): Promise<Check> {
  const found = await checkMemories(store, tpl.memories, {
    project: "tpl",
    forgotten: tpl.forgotten,
    purged: tpl.purged,
  });
  const lost = [...found.lost];
  const graph = await graphFacts(store);
  for (const fact of tpl.graph) if (!graph.has(fact)) lost.push(`graph: ${fact} is missing`);
  for (const fact of graph) if (!tpl.graph.has(fact)) lost.push(`graph: ${fact} appeared`);
  lost.push(...await findTurns(store, tpl.dir, tpl.turns));
  const names = tpl.code.functions();
  if (code === "code") {
    for (const name of await missingFunctions(store, tpl.dir, "tplcode", names)) {
      lost.push(`function ${name} is not found`);
    }
  } else if (code === "no code") {
    const missing = new Set(await missingFunctions(store, tpl.dir, "tplcode", names));
    const still = names.filter((fn) => !missing.has(`${fn.name} (${fn.path})`));
    if (still.length) {
      lost.push(
        `${still.length} functions of the deleted project are still found (${still[0]!.name})`,
      );
    }
  }
  return {
    checked: found.checked + tpl.graph.size + tpl.turns.length +
      (code === "either" ? 0 : names.length),
    lost,
    ...(found.duplicated ? { duplicated: found.duplicated } : {}),
  };
}

/** Copies the store `from` to `to` (`cp -a`). */
export async function copyStore(from: string, to: string): Promise<void> {
  const copy = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  if (!copy.success) throw new Error(`cp -a ${from} ${to} failed`);
}
