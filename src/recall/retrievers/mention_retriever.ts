/**
 * The mention signal: the code definitions a question names (a stack
 * frame's function, `Request.send`), best first. A question that asks for
 * tests ("which test covers Command.Find?") gets, before each definition,
 * the tests that call or import it.
 * @module
 */
import type { Definition } from "../../../projections/text.ts";
import { codeMentions } from "../../../text/code_mentions.ts";
import { mentionedDefinitions } from "../mentioned_definitions.ts";
import type { Ask, Retriever } from "../retriever.ts";
import type { Source } from "../types.ts";

/** The code chunks whose qualified name ends in the part `name`, in `project` (all if null). */
export type DefinitionsNamed = (name: string, project: string | null) => Definition[];

/** The chunks that call, import or extend what the chunks `ids` define, in their project; at most `limit`. */
export type ReferringChunks = (ids: readonly string[], limit: number) => Promise<string[]>;

/** Most chunks read that refer to one mention's definitions, tests or not. */
const REFERRERS = 1000;

/** The mention signal over `definitionsNamed` (and `referring`, for tests); code only, in hybrid mode. */
export function mentionRetriever(
  definitionsNamed: DefinitionsNamed,
  referring?: ReferringChunks,
): Retriever {
  return {
    signal: "mention",
    reads: [],
    async retrieve(ask) {
      const { request } = ask;
      if (!request.sources.includes("code") || request.mode !== "hybrid") return new Map();
      const named = (name: string) => definitionsNamed(name, request.project ?? null);
      const groups: string[][] = [];
      for (const definitions of mentionedDefinitions(codeMentions(request.query), named)) {
        if (referring && ask.asked.has("test")) {
          groups.push((await referring(definitions, REFERRERS)).filter((id) => isTest(ask, id)));
        }
        groups.push(definitions);
      }
      const kept = groups.map((ids) => ids.filter((id) => ask.keep("code", id)))
        .filter((ids) => ids.length > 0);
      return new Map<Source, { ids: string[]; evidence: number; score: number }[]>([
        ["code", kept.map((ids) => ({ ids, evidence: 0, score: 0 }))],
      ]);
    },
  };
}

function isTest(ask: Ask, id: string): boolean {
  return ask.kindsOf("code", id).some((kind) => kind.name === "test");
}
