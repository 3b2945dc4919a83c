import { formatJson, formatMarkdown } from "../recall/format.ts";
import { searchCode } from "../service/code_search.ts";
import { parseCommandArgs, parseLimit } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn search-code`: indexed code only, ranked as recall ranks it, filtered by language and path. */
export const searchCodeCommand: Command = {
  name: "search-code",
  owner: "start",
  summary: "search indexed code only (hybrid); --language and --path narrow it",
  usage: "cairn search-code QUERY [--project NAME] [--language L] [--path PREFIX] [--limit N] " +
    "[--format markdown|json]\n\n" +
    "  --language  only code in this language (python, typescript, markdown, ...)\n" +
    "  --path      only code under this folder or file of the project, like src/auth\n" +
    "  --limit     results wanted (default 10, at most 50)",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      project: { type: "string" },
      language: { type: "string" },
      path: { type: "string" },
      limit: { type: "string" },
      format: { type: "string" },
    }, true);
    const query = positionals.join(" ");
    if (!query.trim()) throw new UsageError('give the code to look for, like "retry with backoff"');
    const format = values.format ?? "markdown";
    if (format !== "markdown" && format !== "json") {
      throw new UsageError(`--format is markdown or json, not "${format}"`);
    }
    const limit = parseLimit(values.limit);
    const answer = await withCairn(
      context,
      (cairn) =>
        searchCode(cairn, {
          query,
          limit,
          ...(values.project ? { project: values.project } : {}),
          ...(values.language ? { language: values.language } : {}),
          ...(values.path ? { path: values.path } : {}),
        }),
      { warn: context.err, warmModel: true },
    );
    context.out(format === "json" ? formatJson(answer) : formatMarkdown(answer));
    return 0;
  },
};
