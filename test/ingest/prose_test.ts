import assert from "node:assert/strict";
import { chunkMarkdown, chunkText } from "../../src/ingest/code/prose.ts";
import { OVERLAP_LINES } from "../../src/ingest/code/pieces.ts";

const para = "This paragraph is long enough that its section stays a chunk of its own here.";

Deno.test("chunkMarkdown() splits at headings, not inside code fences, with the headings above as scope", () => {
  const source = `Intro line of the document, before any heading at all: ${para}

# Install
${para}

## Linux
${para}
\`\`\`sh
# not a heading
\`\`\`

# Usage
${para}
`;
  const chunks = chunkMarkdown(source, "docs/README.md");
  assert.deepEqual(
    chunks.map((c) => `${c.kind} ${c.name} ${c.start_line}-${c.end_line}`),
    ["document README.md 1-2", "section Install 3-5", "section Linux 6-11", "section Usage 12-13"],
  );
  assert.match(chunks[2]!.text, /^in section Install\n## Linux/);
});

Deno.test("chunkText() cuts a text file in overlapping line windows", () => {
  const source = Array.from({ length: 300 }, (_, i) => `line ${i} of a plain text file`).join("\n");
  const chunks = chunkText(source, "notes.txt");
  assert.ok(chunks.length > 3);
  assert.equal(chunks[0]!.start_line, 1);
  assert.equal(chunks.at(-1)!.end_line, 300);
  assert.equal(chunks[1]!.start_line, chunks[0]!.end_line + 1 - OVERLAP_LINES);
  assert.ok(chunks.every((c) => c.name === "notes.txt" && c.kind === "text"));
});
