/**
 * The mention signal: the code definitions a question names (a stack
 * frame's function, `Request.send`), best first.
 * @module
 */
import type { Definition } from "../../../projections/text.ts";
import { codeMentions } from "../../../text/code_mentions.ts";
import { mentionedDefinitions } from "../mentioned_definitions.ts";
import type { Retriever } from "../retriever.ts";
import type { Source } from "../types.ts";

/** The code chunks whose qualified name ends in the part `name`, in `project` (all if null). */
export type DefinitionsNamed = (name: string, project: string | null) => Definition[];

/** The mention signal over `definitionsNamed`; code only, in hybrid mode. */
export function mentionRetriever(definitionsNamed: DefinitionsNamed): Retriever {
  return {
    signal: "mention",
    reads: [],
    retrieve(ask) {
      const { request } = ask;
      if (!request.sources.includes("code") || request.mode !== "hybrid") {
        return Promise.resolve(new Map());
      }
      const named = (name: string) => definitionsNamed(name, request.project ?? null);
      const groups = mentionedDefinitions(codeMentions(request.query), named)
        .map((ids) => ids.filter((id) => ask.keep("code", id)))
        .filter((ids) => ids.length > 0);
      return Promise.resolve(
        new Map<Source, { ids: string[]; evidence: number; score: number }[]>([
          ["code", groups.map((ids) => ({ ids, evidence: 0, score: 0 }))],
        ]),
      );
    },
  };
}
