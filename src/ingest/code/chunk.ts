import type { Node, QueryCapture } from "web-tree-sitter";
import type { LoadedLanguage } from "./languages.ts";
import { CHUNK_BUDGET, type Piece, piecesToChunks, splitLines, type TextChunk } from "./pieces.ts";

/** Longest a file may take to parse and query before it is skipped. */
export const PARSE_TIMEOUT_MS = 2000;

/** A reference by name from a file: a call, an import, or a base class. */
export interface CodeReference {
  name: string;
  kind: "call" | "import" | "extends";
  line: number;
}

/** A source file cut into definition chunks, with the names it refers to. */
export interface ChunkedCode {
  chunks: TextChunk[];
  references: CodeReference[];
}

/** Raised when a file takes longer than {@linkcode PARSE_TIMEOUT_MS} to parse. */
export class ParseTimeoutError extends Error {
  override name = "ParseTimeoutError";
}

interface Definition {
  key: string;
  node: Node;
  kind: string;
  name: string;
  qualified: string;
  start: number;
  end: number;
  parent?: Definition;
  children: Definition[];
}

const KINDS: Record<string, string> = {
  function: "function",
  method: "method",
  class: "class",
  interface: "interface",
  module: "module",
  impl: "impl",
  struct: "struct",
  enum: "enum",
  type: "type",
  macro: "macro",
};
// When one node is captured twice (Rust functions in an impl, Ruby), the first of these wins.
const PRIORITY = ["method", "impl", "struct", "interface", "enum", "class", "function", "module"];
const CONTAINERS = new Set(["class", "struct", "interface", "impl", "enum"]);

/**
 * Cuts a source file into chunks: one per definition (function, method,
 * class, impl, …) named by its nesting (`Request.register_hook`), the lines
 * between definitions as chunks of their enclosing scope, all within the
 * budget of `pieces.ts`. A function that fits the budget is one chunk with
 * the closures and helpers defined inside it. Each chunk's text starts with
 * its enclosing scope (`in class Request`). Files with syntax errors still
 * give chunks.
 *
 * @throws {ParseTimeoutError} when parsing takes over {@linkcode PARSE_TIMEOUT_MS}
 */
export function chunkCode(
  source: string,
  language: LoadedLanguage,
  path: string,
  timeoutMs = PARSE_TIMEOUT_MS,
): ChunkedCode {
  const deadline = performance.now() + timeoutMs;
  // The progress callback cancels the parse by returning true, which its type does not say.
  const cancel = (() => performance.now() > deadline) as () => void;
  // Some grammars (Go) only parse the last line cleanly when it ends.
  const text = source.endsWith("\n") ? source : `${source}\n`;
  language.parser.reset();
  const tree = language.parser.parse(text, null, { progressCallback: cancel });
  if (!tree) throw new ParseTimeoutError(`parsing took over ${timeoutMs} ms`);
  try {
    const matches = language.query.matches(tree.rootNode, { progressCallback: cancel });
    if (performance.now() > deadline) {
      throw new ParseTimeoutError(`parsing took over ${timeoutMs} ms`);
    }
    const definitions = new Map<string, Definition>();
    const references = new Map<string, CodeReference>();
    for (const match of matches) {
      const name = match.captures.find((capture) => capture.name === "name");
      const definition = match.captures.find((capture) => capture.name.startsWith("definition."));
      const reference = match.captures.find((capture) => capture.name.startsWith("reference."));
      if (definition && name) addDefinition(definitions, definition, name, match.captures);
      else if (reference && name) addReference(references, reference, name);
    }
    const lines = splitLines(source);
    const roots = nest([...definitions.values()]);
    keepSmallFunctionsWhole(roots, lines);
    const pieces: Piece[] = [];
    cover(0, Math.max(0, lines.length - 1), roots, undefined, moduleName(path), pieces);
    return { chunks: piecesToChunks(lines, pieces), references: [...references.values()] };
  } finally {
    tree.delete();
  }
}

function addDefinition(
  definitions: Map<string, Definition>,
  capture: QueryCapture,
  nameCapture: QueryCapture,
  captures: readonly QueryCapture[],
): void {
  let kind = KINDS[capture.name.slice("definition.".length)];
  if (!kind) return;
  const node = widen(capture.node);
  kind = refineKind(kind, node);
  let name = cleanName(nameCapture.node.text);
  if (!name) return;
  const scope = captures.find((c) => c.name === "local.scope")?.node.text ?? receiverOf(node);
  if (scope) name = `${cleanName(scope)}.${name}`;
  const key = `${node.startIndex}:${node.endIndex}`;
  const existing = definitions.get(key);
  if (existing && PRIORITY.indexOf(existing.kind) <= PRIORITY.indexOf(kind)) return;
  definitions.set(key, {
    key,
    node,
    kind,
    name,
    qualified: name,
    start: node.startPosition.row,
    end: node.endPosition.column === 0 && node.endPosition.row > node.startPosition.row
      ? node.endPosition.row - 1
      : node.endPosition.row,
    children: [],
  });
}

function addReference(
  references: Map<string, CodeReference>,
  capture: QueryCapture,
  nameCapture: QueryCapture,
): void {
  const tag = capture.name.slice("reference.".length);
  let kind: CodeReference["kind"];
  if (tag === "call" || tag === "send") kind = "call";
  else if (tag === "import") kind = "import";
  else if (tag === "extends") kind = "extends";
  else if (tag === "implementation") {
    // Rust's `impl Type` (no trait) names the type itself, not something it extends.
    if (capture.node.type === "impl_item" && !capture.node.childForFieldName("trait")) return;
    kind = "extends";
  } else if (tag === "class") {
    kind = /superclass|base_list|heritage/.test(nameCapture.node.parent?.type ?? "")
      ? "extends"
      : "call";
  } else return;
  const name = cleanName(nameCapture.node.text.replace(/^["'<]|[">']$/g, ""));
  if (!name) return;
  const line = nameCapture.node.startPosition.row + 1;
  references.set(`${kind}\0${name}\0${line}`, { name, kind, line });
}

/** The node that holds the whole definition: its body, decorators and `export`. */
function widen(node: Node): Node {
  let current = node;
  while (current.parent && /declarator$/.test(current.parent.type)) current = current.parent;
  if (/declarator$/.test(current.type) && current.parent) {
    const holder = current.parent;
    if (/^(function_definition|declaration|field_declaration)$/.test(holder.type)) current = holder;
  }
  for (;;) {
    const parent = current.parent;
    if (!parent) return current;
    if (
      (current.type === "variable_declarator" &&
        /^(lexical_declaration|variable_declaration)$/.test(parent.type)) ||
      (current.type === "assignment_expression" && parent.type === "expression_statement") ||
      /^(decorated_definition|export_statement|template_declaration)$/.test(parent.type)
    ) {
      current = parent;
    } else return current;
  }
}

function refineKind(kind: string, node: Node): string {
  const type = node.type;
  if (/method/.test(type)) return "method";
  if (kind === "type" || kind === "class") {
    const spec = node.childForFieldName("type")?.type ?? type;
    if (/struct/.test(spec)) return "struct";
    if (/interface|trait/.test(spec)) return "interface";
    if (/enum/.test(spec)) return "enum";
  }
  return kind;
}

/** A Go method's receiver type: `func (r *Router) Handle()` → `Router`. */
function receiverOf(node: Node): string | undefined {
  if (node.type !== "method_declaration") return undefined;
  const receiver = node.childForFieldName("receiver")?.text;
  return receiver?.match(/^\(\s*(?:[\p{L}_][\p{L}\p{N}_]*\s+)?\*?\s*([\p{L}_][\p{L}\p{N}_]*)/u)
    ?.[1];
}

function cleanName(text: string): string {
  return text.replace(/<[^]*$/, "").replace(/\s+/g, " ").trim().slice(0, 200);
}

/** Links each definition to the innermost one that encloses it, and qualifies its name. */
function nest(definitions: Definition[]): Definition[] {
  definitions.sort((a, b) =>
    a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex
  );
  const roots: Definition[] = [];
  const stack: Definition[] = [];
  for (const definition of definitions) {
    while (stack.length > 0 && stack.at(-1)!.node.endIndex < definition.node.endIndex) stack.pop();
    const parent = stack.at(-1);
    if (parent) {
      definition.parent = parent;
      parent.children.push(definition);
      definition.qualified = `${parent.qualified}.${definition.name}`;
      if (definition.kind === "function" && CONTAINERS.has(parent.kind)) definition.kind = "method";
    } else roots.push(definition);
    stack.push(definition);
  }
  return roots;
}

/**
 * Drops the nested definitions of every function or method that fits the
 * chunk budget, so it becomes one chunk: a closure is read with the function
 * that holds it. Larger functions are still cut at their nested definitions.
 */
function keepSmallFunctionsWhole(definitions: readonly Definition[], lines: readonly string[]) {
  for (const definition of definitions) {
    if (definition.children.length === 0) continue;
    const whole = (definition.kind === "function" || definition.kind === "method") &&
      lines.slice(definition.start, definition.end + 1).join("\n").length <= CHUNK_BUDGET;
    if (whole) definition.children = [];
    else keepSmallFunctionsWhole(definition.children, lines);
  }
}

/** Pieces for lines `from`..`to` of `owner` (or the file): its definitions, and the lines between them. */
function cover(
  from: number,
  to: number,
  definitions: readonly Definition[],
  owner: Definition | undefined,
  fileName: string,
  out: Piece[],
): void {
  const gap = (start: number, end: number) => {
    out.push({
      start,
      end,
      kind: owner?.kind ?? "module",
      name: owner?.qualified ?? fileName,
      ...scopeOf(owner),
      group: owner?.parent?.key ?? "",
      definition: false,
      ...(owner && start === owner.start ? { header: true } : {}),
    });
  };
  let cursor = from;
  for (const definition of definitions) {
    if (definition.start > cursor) gap(cursor, definition.start - 1);
    if (definition.children.length > 0) {
      cover(definition.start, definition.end, definition.children, definition, fileName, out);
    } else {
      out.push({
        start: definition.start,
        end: definition.end,
        kind: definition.kind,
        name: definition.qualified,
        ...scopeOf(definition),
        group: definition.parent?.key ?? "",
        definition: true,
      });
    }
    cursor = Math.max(cursor, definition.end + 1);
  }
  if (cursor <= to) gap(cursor, to);
}

function scopeOf(definition: Definition | undefined): { scope?: string } {
  const parent = definition?.parent;
  return parent ? { scope: `${parent.kind} ${parent.qualified}` } : {};
}

function moduleName(path: string): string {
  const base = path.split("/").at(-1) ?? path;
  const dot = base.indexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}
