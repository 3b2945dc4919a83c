import assert from "node:assert/strict";
import { z } from "zod";
import { listedTools } from "../../src/mcp/tool_list.ts";
import { toolsFor } from "../../src/mcp/tools.ts";

/** Keywords a listed schema may leave out: the dialect, bounds, and what says nothing. */
const DROPPABLE = [
  "$schema",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
];

/** Every keyword of `full` is in `lean`, the same all the way down, unless it may be left out. */
function assertLeaner(lean: unknown, full: unknown, at: string): void {
  if (typeof full !== "object" || full === null) return assert.deepEqual(lean, full, at);
  assert.equal(typeof lean, "object", at);
  for (const [key, value] of Object.entries(full)) {
    const kept = (lean as Record<string, unknown>)[key];
    if (kept !== undefined) assertLeaner(kept, value, `${at}.${key}`);
    else {
      const empty = value === false || JSON.stringify(value) === "{}";
      const says = DROPPABLE.includes(key) ||
        (empty && (key === "properties" || key === "additionalProperties"));
      assert.ok(says, `${at}.${key} is missing`);
    }
  }
}

Deno.test("listedTools() keeps every parameter, field, type, enum, default and hint of the zod schemas", () => {
  const tools = toolsFor("all");
  const listed = listedTools(tools);
  assert.deepEqual(listed.map((tool) => tool.name), tools.map((tool) => tool.name));
  for (const [i, tool] of tools.entries()) {
    const { inputSchema, outputSchema, description } = listed[i]!;
    assert.equal(description, tool.description);
    const full = (shape: z.ZodRawShape, io: "input" | "output") =>
      z.toJSONSchema(z.object(shape), { io, target: "draft-2020-12" });
    assertLeaner(inputSchema, full(tool.inputSchema, "input"), `${tool.name} input`);
    assertLeaner(outputSchema, full(tool.outputSchema, "output"), `${tool.name} output`);
  }
});

Deno.test("listedTools() leaves out bounds and $schema but keeps a property named like one", () => {
  const [tool] = listedTools([{
    name: "t",
    description: "a tool",
    inputSchema: { maximum: z.string().min(1).max(9), items: z.array(z.number().int()).max(3) },
    outputSchema: {},
    core: false,
  }]);
  assert.deepEqual(tool!.inputSchema, {
    type: "object",
    properties: {
      maximum: { type: "string" },
      items: { type: "array", items: { type: "integer" } },
    },
    required: ["maximum", "items"],
  });
  assert.deepEqual(tool!.outputSchema, { type: "object", properties: {} });
});

Deno.test("tools/list stays small: every agent reads it on every turn", () => {
  // Budgets a little above today's sizes, so a new tool or a long description is a choice
  // (recall took a path filter in session 14: +70 characters; open, a core tool, and remember's
  // contradictions came in session 15: +570; store_status, not core, in session 17: +390;
  // recall and search_code saying which kinds of file rank below code in session 20: +230;
  // forget saying when a memory was forgotten already, a core tool, and revise whether it
  // changed anything, in session 36: +15 and +40; the searches including the graph's entities,
  // and open opening them, recall and open being core, in session 37: +40 and +45;
  // create_entities taking the project a team shares them with, in session 37: +70).
  const size = (profile: "all" | "core") => JSON.stringify(listedTools(toolsFor(profile))).length;
  assert.ok(size("all") <= 15_290, `all tools: ${size("all")} characters`);
  assert.ok(size("core") <= 4_910, `core tools: ${size("core")} characters`);
});
