import { type Piece, piecesToChunks, splitLines, type TextChunk } from "./pieces.ts";

/**
 * Cuts a markdown file at its headings: each section is named by its
 * heading, and carries the headings above it as its scope
 * (`in section Install > Linux`). Headings inside fenced code do not count.
 */
export function chunkMarkdown(source: string, path: string): TextChunk[] {
  const lines = splitLines(source);
  const pieces: Piece[] = [];
  const trail: Array<{ level: number; title: string }> = [];
  let fence: string | undefined;
  let start = 0;
  const close = (end: number) => {
    if (end < start) return;
    const current = trail.at(-1);
    const above = trail.slice(0, -1).map((heading) => heading.title);
    pieces.push({
      start,
      end,
      kind: current ? "section" : "document",
      name: current?.title ?? fileName(path),
      ...(above.length > 0 ? { scope: `section ${above.join(" > ")}` } : {}),
      group: "",
      definition: true,
    });
  };
  lines.forEach((line, row) => {
    const marker = line.match(/^\s{0,3}(`{3,}|~{3,})/)?.[1];
    if (marker) {
      if (!fence) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
      return;
    }
    const heading = fence ? undefined : line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (!heading) return;
    close(row - 1);
    start = row;
    const level = heading[1]!.length;
    while (trail.length > 0 && trail.at(-1)!.level >= level) trail.pop();
    trail.push({ level, title: heading[2]! });
  });
  close(lines.length - 1);
  return piecesToChunks(lines, pieces);
}

/** Cuts any other text file in line windows within the budget, overlapping a few lines. */
export function chunkText(source: string, path: string): TextChunk[] {
  const lines = splitLines(source);
  return piecesToChunks(lines, [{
    start: 0,
    end: lines.length - 1,
    kind: "text",
    name: fileName(path),
    group: "",
    definition: true,
  }]);
}

function fileName(path: string): string {
  return path.split("/").at(-1) ?? path;
}
