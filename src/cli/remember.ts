import { relationFromText } from "../service/relation_text.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, UsageError } from "./command.ts";
import { memoryLine } from "../recall/format.ts";
import { withCairn } from "./with_cairn.ts";

/** `cairn remember`: stores a memory (or says it is already known). */
export const remember: Command = {
  name: "remember",
  owner: "start",
  summary: "store a memory: a decision, fact, pattern, preference or note",
  usage: "cairn remember TEXT [--kind KIND] [--tag TAG]... [--project NAME] [--entity NAME]... " +
    "[--relation 'FROM|RELATION|TO']... [--source SOURCE] [--valid-from DATE] [--valid-to DATE] " +
    "[--force] [--json]\n\n" +
    "  --relation  a relation between two entities, in active voice: 'Ada|maintains|billing'",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.args, {
      kind: { type: "string" },
      tag: { type: "string", multiple: true },
      project: { type: "string" },
      entity: { type: "string", multiple: true },
      relation: { type: "string", multiple: true },
      source: { type: "string" },
      "valid-from": { type: "string" },
      "valid-to": { type: "string" },
      force: { type: "boolean" },
      json: { type: "boolean" },
    }, true);
    const content = positionals.join(" ");
    if (!content.trim()) throw new UsageError("give the text to remember");
    const result = await withCairn(context, (cairn) =>
      cairn.memories.remember({
        content,
        ...(values.kind ? { kind: values.kind as never } : {}),
        tags: values.tag ?? [],
        project: values.project ?? null,
        ...(values.entity ? { entities: values.entity } : {}),
        ...(values.relation ? { relations: values.relation.map(parseRelation) } : {}),
        ...(values.source ? { source: values.source } : {}),
        ...(values["valid-from"] ? { valid_from: values["valid-from"] } : {}),
        ...(values["valid-to"] ? { valid_to: values["valid-to"] } : {}),
        force: values.force ?? false,
      }), { settle: true, warn: context.err, warmModel: true });
    if (values.json) context.out(JSON.stringify(result));
    else {
      context.out(
        result.duplicate ? "already known (use --force to store it again):" : "remembered:",
      );
      context.out(memoryLine(result.memory));
    }
    return 0;
  },
};

/** `FROM|RELATION|TO` as a relation, or a {@linkcode UsageError} saying how to write one. */
function parseRelation(text: string): { from: string; relation_type: string; to: string } {
  const relation = relationFromText(text);
  if (!relation) {
    throw new UsageError(
      `--relation takes FROM|RELATION|TO, like 'Ada|maintains|billing', not "${text}"`,
    );
  }
  return relation;
}
