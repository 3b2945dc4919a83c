import { join } from "node:path";
import { CodeCatalog } from "../../projections/code_catalog.ts";
import { GraphProjection } from "../../projections/graph/graph_projection.ts";
import { MemoryHistory } from "../../projections/memory_history.ts";
import { SessionState } from "../../projections/session_state.ts";
import { TextProjection } from "../../projections/text.ts";
import { VectorsProjection } from "../../projections/vectors/vectors_projection.ts";
import { CachedEmbedder } from "../../src/embed/cache.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { projectionContract } from "./projection_contract.ts";

// One entry per projection: how to open it on the files in a folder (see projection_contract.ts).

projectionContract({ name: "GraphProjection", open: (dir) => GraphProjection.open(dir) });

projectionContract({
  name: "TextProjection",
  open: (dir, { blobs }) => TextProjection.open(dir, blobs),
});

projectionContract({
  name: "VectorsProjection",
  // As a store has it: the fake model behind the embedding cache, reading ahead in the log.
  open: async (dir, { blobs, log }) =>
    VectorsProjection.open(
      join(dir, "vectors"),
      await CachedEmbedder.open(new FakeEmbedder(), dir),
      blobs,
      log,
    ),
});

projectionContract({ name: "CodeCatalog", open: (dir) => CodeCatalog.open(dir) });

projectionContract({ name: "SessionState", open: (dir) => SessionState.open(dir) });

projectionContract({ name: "MemoryHistory", open: (dir) => MemoryHistory.open(dir) });
