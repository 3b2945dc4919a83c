/**
 * What `tools/list` says about each tool. The SDK would list every zod schema
 * as complete JSON Schema; an agent carries that list in its context on every
 * turn, so cairn lists the shape a model needs to call a tool and read its
 * answer (types, properties, required, enums, defaults, one-clause hints) and
 * leaves limits and strictness to the zod schemas, which the server checks on
 * every call and whose errors say what to fix.
 * @module
 */
import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition } from "./tools.ts";

type JsonSchema = Record<string, unknown>;

/**
 * Keywords left out of listed schemas: `$schema`, because they are generated in
 * MCP's default dialect (2020-12), and the bounds zod enforces on every call.
 */
const UNLISTED = new Set([
  "$schema",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
]);

/** Keywords whose values are data, not schemas: copied as they are. */
const DATA = new Set(["enum", "const", "default", "examples", "required"]);

/** Keywords whose values map names to schemas: the names are kept whatever they are. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{}` (no constraint), or `additionalProperties: false`, which only closes an object zod checks. */
function saysNothing(key: string, value: unknown): boolean {
  if (key === "additionalProperties" && value === false) return true;
  return (key === "properties" || key === "additionalProperties") && isObject(value) &&
    Object.keys(value).length === 0;
}

function lean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lean);
  if (!isObject(schema)) return schema;
  const kept: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (UNLISTED.has(key) || saysNothing(key, value)) continue;
    if (DATA.has(key)) kept[key] = value;
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      kept[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, lean(sub)]));
    } else kept[key] = lean(value);
  }
  return kept;
}

/** A zod shape as a listed object schema (`properties` kept even when empty, as MCP expects). */
function listedSchema(shape: z.ZodRawShape, io: "input" | "output") {
  const schema = z.toJSONSchema(z.object(shape), { io, target: "draft-2020-12" });
  return { type: "object" as const, properties: {}, ...(lean(schema) as JsonSchema) };
}

/**
 * The tools as `tools/list` answers: name, description, and lean input and
 * output schemas generated from the same zod schemas the server validates with.
 */
export function listedTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: listedSchema(tool.inputSchema, "input"),
    outputSchema: listedSchema(tool.outputSchema, "output"),
  }));
}
