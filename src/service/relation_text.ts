/**
 * A relation written as one line, `FROM|RELATION|TO` (`Ada|maintains|billing`):
 * how the CLI's `remember --relation` and MCP's remember take them.
 * @module
 */

/** The relation `text` writes, or undefined when it is not three non-empty parts. */
export function relationFromText(
  text: string,
): { from: string; relation_type: string; to: string } | undefined {
  const parts = text.split("|").map((part) => part.trim());
  if (parts.length !== 3 || parts.some((part) => part === "")) return undefined;
  const [from, relation_type, to] = parts as [string, string, string];
  return { from, relation_type, to };
}
