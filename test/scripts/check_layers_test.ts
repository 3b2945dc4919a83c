import assert from "node:assert/strict";
import { checkLayers, layerOf, relativeImports } from "../../scripts/check_layers.ts";

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

Deno.test("checkLayers() passes a graph whose imports all go down or stay in their layer", () => {
  const report = checkLayers(graph({
    "main.ts": ["src/cli/main.ts"],
    "src/cli/main.ts": ["src/mcp/server.ts", "src/cli/args.ts"],
    "src/cli/args.ts": [],
    "src/mcp/server.ts": ["src/service/cairn.ts", "src/errors.ts"],
    "src/service/cairn.ts": ["projections/text.ts", "events/log.ts"],
    "src/errors.ts": [],
    "projections/text.ts": ["text/tokens.ts", "events/log.ts"],
    "text/tokens.ts": [],
    "events/log.ts": [],
  }));
  assert.deepEqual(report, { badImports: [], cycles: [] });
});

Deno.test("checkLayers() finds an import from a lower layer into a higher one, and across events and text", () => {
  const { badImports } = checkLayers(graph({
    "projections/text.ts": ["src/recall/tokens.ts"],
    "src/recall/tokens.ts": [],
    "src/mcp/owner_start.ts": ["src/cli/self_command.ts"],
    "src/cli/self_command.ts": [],
    "events/log.ts": ["text/tokens.ts"],
    "text/tokens.ts": [],
  }));
  assert.deepEqual(badImports.map(({ from, to }) => `${from} → ${to}`), [
    "projections/text.ts → src/recall/tokens.ts",
    "src/mcp/owner_start.ts → src/cli/self_command.ts",
    "events/log.ts → text/tokens.ts",
  ]);
});

Deno.test("checkLayers() finds an import into a file of no layer", () => {
  const { badImports } = checkLayers(graph({ "src/recall/a.ts": ["test/helpers.ts"] }));
  assert.deepEqual(badImports.map(({ to }) => to), ["test/helpers.ts"]);
});

Deno.test("checkLayers() finds each import cycle once, as a path back to its start", () => {
  const { badImports, cycles } = checkLayers(graph({
    "src/cli/main.ts": ["src/cli/serve.ts"],
    "src/cli/serve.ts": ["src/cli/main.ts"],
    "src/mcp/a.ts": ["src/mcp/b.ts"],
    "src/mcp/b.ts": ["src/mcp/c.ts"],
    "src/mcp/c.ts": ["src/mcp/a.ts", "src/mcp/d.ts"],
    "src/mcp/d.ts": [],
  }));
  assert.deepEqual(badImports, []);
  assert.deepEqual(cycles, [
    ["src/cli/main.ts", "src/cli/serve.ts", "src/cli/main.ts"],
    ["src/mcp/a.ts", "src/mcp/b.ts", "src/mcp/c.ts", "src/mcp/a.ts"],
  ]);
});

Deno.test("relativeImports() reads import, import type, export from and import(), not comments or packages", () => {
  const source = `/**
 * @example
 * import { x } from "./in_a_comment.ts";
 */
import { z } from "zod";
import type { A } from "./a.ts";
import {
  b,
  type C,
} from "../b.ts";
import * as d from "./d.ts";
import e, { f } from './e.ts';
import "./side_effect.ts";
export type { G } from "./g.ts";
export * from "./h.ts";
export { i as j } from "./i.ts";
export const k = 1;
const l = await import("./l.ts");
import config from "../../deno.json" with { type: "json" };
`;
  assert.deepEqual(relativeImports(source), [
    "./a.ts",
    "../b.ts",
    "./d.ts",
    "./e.ts",
    "./side_effect.ts",
    "./g.ts",
    "./h.ts",
    "./i.ts",
    "../../deno.json",
    "./l.ts",
  ]);
});

Deno.test("layerOf() places a file by its folder, and main.ts on top", () => {
  assert.equal(layerOf("src/recall/recall.ts")?.prefix, "src/recall/");
  assert.equal(layerOf("main.ts")?.prefix, "main.ts");
  assert.equal(layerOf("src/errors.ts")?.prefix, "src/errors.ts");
  assert.equal(layerOf("bench/main.ts"), undefined);
});
