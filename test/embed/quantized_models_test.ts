import assert from "node:assert/strict";
import { shippedModelDir } from "../../src/embed/load.ts";
import { OnnxEmbedder } from "../../src/embed/onnx_embedder.ts";
import { dot } from "./dot.ts";
import { SHIPPED_MODELS } from "./shipped_models.ts";

const REFERENCE = "bge-small-en-v1.5";

/**
 * Real code as cairn embeds a chunk (path, newline, text), short enough for
 * every model to read whole (the int8 ones read a passage up to 256 tokens).
 */
async function codePassages(): Promise<string[]> {
  const files = [
    "src/embed/load.ts",
    "events/file_log.ts",
    "src/recall/ask.ts",
    "scripts/quantize_model.py",
  ];
  return await Promise.all(files.map(async (path) => {
    const text = await Deno.readTextFile(new URL(`../../${path}`, import.meta.url));
    return `${path}\n${text.slice(0, 600)}`;
  }));
}

const QUESTIONS = [
  "where is the default embedding model chosen?",
  "how does the log know a write was acknowledged?",
  "why did recall rank the wrong file first",
];

async function vectorsOf(name: string, passages: string[]): Promise<Float32Array[]> {
  const embedder = await OnnxEmbedder.open(shippedModelDir(name), { verify: false });
  try {
    const documents = await embedder.embedDocuments(passages);
    const queries = await Promise.all(QUESTIONS.map((question) => embedder.embedQuery(question)));
    return [...documents, ...queries];
  } finally {
    await embedder.close();
  }
}

for (const name of SHIPPED_MODELS.filter((model) => model !== REFERENCE)) {
  Deno.test(`${name} gives every passage and question nearly the fp32 model's vector`, async () => {
    const passages = await codePassages();
    const [reference, variant] = [
      await vectorsOf(REFERENCE, passages),
      await vectorsOf(name, passages),
    ];
    for (const [i, vector] of variant.entries()) {
      const cosine = dot(vector, reference[i]!);
      assert.ok(cosine > 0.98, `text ${i}: cosine ${cosine} to ${REFERENCE}'s vector`);
    }
  });
}
