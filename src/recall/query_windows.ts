/**
 * A question longer than the embedding model reads (a pasted issue with its
 * traceback) is searched by meaning through a few of its windows: the first
 * (the title and what is asked) and those whose words best tell the indexed
 * documents apart, instead of its first 512 tokens alone.
 * @module
 */
import { turnWindows } from "../../text/turn_windows.ts";

/** Windows of a long question searched by meaning, at most. */
export const QUERY_WINDOWS = 4;

/**
 * The windows of a long `query` to embed, in the question's order: its first
 * window and the {@linkcode QUERY_WINDOWS}` - 1` others that `weight` rates
 * highest (each later window starts with the question's first line, so it
 * still says what is asked). A query of one window is itself.
 */
export function queryWindows(query: string, weight: (text: string) => number): string[] {
  const windows = turnWindows(query);
  const [first, ...rest] = windows;
  const best = new Set(
    rest.map((text, i) => ({ i, weight: weight(text) }))
      .sort((a, b) => b.weight - a.weight || a.i - b.i)
      .slice(0, QUERY_WINDOWS - 1)
      .map(({ i }) => i),
  );
  return [first!, ...rest.filter((_, i) => best.has(i))];
}
