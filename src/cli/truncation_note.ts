import type { Truncation } from "../../text/embedder.ts";

/**
 * The warning for the texts a command embedded that the model cut to its input
 * limit, from the counts before and after the command; undefined when none was cut.
 */
export function truncationNote(
  before: Truncation | undefined,
  after: Truncation | undefined,
): string | undefined {
  if (!after) return undefined;
  const cut = after.truncated - (before?.truncated ?? 0);
  if (cut === 0) return undefined;
  const texts = after.texts - (before?.texts ?? 0);
  return `cairn: ${cut} of ${texts} texts embedded were longer than the embedding model's ` +
    `${after.maxTokens}-token limit; only their start was embedded (search by words reads all of them)`;
}
