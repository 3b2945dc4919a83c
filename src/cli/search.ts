import type { Command } from "./command.ts";
import { recallCommand } from "./recall.ts";

/** `cairn search`: meaning only (vector search), for when the words differ. */
export const search: Command = {
  name: "search",
  owner: "start",
  summary: "search by meaning only (vectors); takes recall's options",
  usage: "cairn search QUERY [recall options]",
  run: (context) => recallCommand.run({ ...context, args: [...context.args, "--mode", "vector"] }),
};

/** `cairn search-text`: words only (BM25); works without an embedding model. */
export const searchText: Command = {
  name: "search-text",
  owner: "start",
  summary: "search by words only (BM25); works without the embedding model",
  usage: "cairn search-text QUERY [recall options]",
  run: (context) => recallCommand.run({ ...context, args: [...context.args, "--mode", "lexical"] }),
};
