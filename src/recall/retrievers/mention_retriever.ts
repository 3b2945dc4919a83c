/**
 * The mention signal: the code definitions a question names (a stack
 * frame's function, `Request.send`), best first. A question that asks for
 * tests and names a definition in its first line ("which test covers
 * Command.Find?") gets, just before that definition, the tests that call,
 * import or extend it.
 * @module
 */
import type { Reference } from "../../../projections/graph/queries/code.ts";
import type { Definition } from "../../../projections/text.ts";
import { codeMentions } from "../../../text/code_mentions.ts";
import { mentionedDefinitions } from "../mentioned_definitions.ts";
import { subjectOf } from "../path_priors.ts";
import { type Ask, CANDIDATES, type Retriever } from "../retriever.ts";
import type { Source } from "../types.ts";

/** The code chunks whose qualified name ends in the part `name`, in `project` (all if null). */
export type DefinitionsNamed = (name: string, project: string | null) => Definition[];

/**
 * The chunks that call, import or extend what one of the chunks
 * `definitions` defines, in its project; at most `limit` pairs.
 */
export type ReferencesTo = (definitions: readonly string[], limit: number) => Promise<Reference[]>;

/** Most references read for one question, tests or not. */
const REFERENCES = 2000;

/** The mention signal over `definitionsNamed`, and `referencesTo` for tests; code only, in hybrid mode. */
export function mentionRetriever(
  definitionsNamed: DefinitionsNamed,
  referencesTo: ReferencesTo,
): Retriever {
  return {
    signal: "mention",
    reads: [],
    async retrieve(ask) {
      const { request } = ask;
      if (!request.sources.includes("code") || request.mode !== "hybrid") return new Map();
      const named = (name: string) => definitionsNamed(name, request.project ?? null);
      const definitions = mentionedDefinitions(codeMentions(request.query), named);
      const tests = ask.asked.has("test")
        ? await testsOf(ask, subjectDefinitions(request.query, named), referencesTo)
        : new Map<string, string[]>();
      const groups = definitions.flatMap((ids) => [
        [...new Set(ids.flatMap((id) => tests.get(id) ?? []))].slice(0, CANDIDATES),
        ids,
      ]);
      const kept = groups.map((ids) => ids.filter((id) => ask.keep("code", id)))
        .filter((ids) => ids.length > 0).slice(0, CANDIDATES);
      return new Map<Source, { ids: string[]; evidence: number; score: number }[]>([
        ["code", kept.map((ids) => ({ ids, evidence: 0, score: 0 }))],
      ]);
    },
  };
}

/** The definitions the query's first line names: its subject, as for the kinds of file it asks for. */
function subjectDefinitions(query: string, named: (name: string) => Definition[]): string[] {
  return mentionedDefinitions(codeMentions(subjectOf(query)), named).flat();
}

/** The test chunks that refer to each of `definitions`, by definition. */
async function testsOf(
  ask: Ask,
  definitions: readonly string[],
  referencesTo: ReferencesTo,
): Promise<Map<string, string[]>> {
  const tests = new Map<string, string[]>();
  for (const { definition, id } of await referencesTo(definitions, REFERENCES)) {
    if (!ask.kindsOf("code", id).some((kind) => kind.name === "test")) continue;
    tests.set(definition, [...tests.get(definition) ?? [], id]);
  }
  return tests;
}
