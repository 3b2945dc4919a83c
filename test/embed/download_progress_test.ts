import assert from "node:assert/strict";
import { downloadProgressText } from "../../src/embed/download_progress.ts";

Deno.test("downloadProgressText() names the model and file with sizes and percent", () => {
  assert.equal(
    downloadProgressText("BAAI/bge-small-en-v1.5", {
      file: "model.onnx",
      received: 12_500_000,
      total: 133_100_000,
    }),
    "downloading BAAI/bge-small-en-v1.5: model.onnx 12.5 MB of 133.1 MB (9%)",
  );
  assert.equal(
    downloadProgressText("org/m", { file: "LICENSE", received: 11_000, total: undefined }),
    "downloading org/m: LICENSE 11 kB",
  );
});
