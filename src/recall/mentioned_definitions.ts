/**
 * The definitions a query's code mentions name (read by `codeMentions`
 * of `text/code_mentions.ts`), looked up by name in the code index.
 * @module
 */
import type { CodeMention } from "../../text/code_mentions.ts";
import type { Definition } from "../../projections/text.ts";
import { namesSymbol } from "./symbol_query.ts";

/** Whether a frame's printed file is the indexed file at `path` (relative to its project's root). */
export function framePathIs(printed: string, path: string): boolean {
  const normalised = printed.replaceAll("\\", "/").replace(/^file:\/\//, "");
  return normalised === path || normalised.endsWith(`/${path}`);
}

/** The code chunks whose qualified name's last part is `name` (`register_hook`). */
export type DefinitionLookup = (name: string) => Definition[];

/**
 * More definitions than this under one name that the query gives without a
 * file, and the name says too little (`__init__`, `get`, `run`).
 */
const MAX_NAMESAKES = 5;

/**
 * The definitions the mentions name, as a ranked list: each mention's
 * definitions share its rank. A qualified name that names nothing is tried
 * without its leading parts (`so.PolyFit` as `PolyFit`); a frame keeps the
 * definitions in its file only.
 */
export function mentionedDefinitions(
  mentions: readonly CodeMention[],
  lookup: DefinitionLookup,
): string[][] {
  const list: string[][] = [];
  for (const mention of mentions) {
    const parts = mention.name.split(".");
    const namesakes = lookup(parts.at(-1)!).filter((definition) =>
      mention.path === undefined || framePathIs(mention.path, definition.path)
    );
    for (let from = 0; from < parts.length; from++) {
      const symbol = parts.slice(from).join(".");
      const named = namesakes.filter((definition) => namesSymbol(definition.name, symbol));
      if (named.length === 0) continue;
      if (mention.path !== undefined || named.length <= MAX_NAMESAKES) {
        list.push(named.map((definition) => definition.id));
      }
      break;
    }
  }
  return list;
}
