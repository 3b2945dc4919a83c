import { Language, Parser, Query } from "web-tree-sitter";

/** A language cairn parses: its grammar and the tags queries that find definitions and references. */
export interface LanguageSpec {
  /** cairn's name for it (`typescript`, `python`, …), stored as a file's `language`. */
  id: string;
  /** File name endings, lower case, with the dot. */
  extensions: readonly string[];
  /** Module specifier of the grammar's `.wasm`. */
  wasm: string;
  /** Module specifiers of the `tags.scm` files, concatenated in order. */
  tags: readonly string[];
  /** cairn's own patterns, added to the grammar's tags: imports, extends, impl blocks. */
  extra: string;
}

const js = "tree-sitter-javascript/queries/tags.scm";
const jsExtra = `
(import_statement source: (string (string_fragment) @name)) @reference.import
`;

/** Every language cairn parses with tree-sitter. */
export const LANGUAGES: readonly LanguageSpec[] = [
  {
    id: "typescript",
    extensions: [".ts", ".mts", ".cts"],
    wasm: "tree-sitter-typescript/tree-sitter-typescript.wasm",
    tags: [js, "tree-sitter-typescript/queries/tags.scm"],
    extra: jsExtra + `
(class_declaration name: (_) @name) @definition.class
(extends_clause value: (identifier) @name) @reference.extends
(implements_clause (type_identifier) @name) @reference.extends
(enum_declaration name: (identifier) @name) @definition.enum
`,
  },
  {
    id: "tsx",
    extensions: [".tsx"],
    wasm: "tree-sitter-typescript/tree-sitter-tsx.wasm",
    tags: [js, "tree-sitter-typescript/queries/tags.scm"],
    extra: jsExtra + `
(class_declaration name: (_) @name) @definition.class
(extends_clause value: (identifier) @name) @reference.extends
`,
  },
  {
    id: "javascript",
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    wasm: "tree-sitter-javascript/tree-sitter-javascript.wasm",
    tags: [js],
    extra: jsExtra + `(class_heritage (identifier) @name) @reference.extends\n`,
  },
  {
    id: "python",
    extensions: [".py", ".pyi"],
    wasm: "tree-sitter-python/tree-sitter-python.wasm",
    tags: ["tree-sitter-python/queries/tags.scm"],
    extra: `
(import_statement name: (dotted_name) @name) @reference.import
(import_from_statement module_name: (dotted_name) @name) @reference.import
(class_definition superclasses: (argument_list (identifier) @name)) @reference.extends
`,
  },
  {
    id: "rust",
    extensions: [".rs"],
    wasm: "tree-sitter-rust/tree-sitter-rust.wasm",
    tags: ["tree-sitter-rust/queries/tags.scm"],
    extra: `
(impl_item type: (_) @name) @definition.impl
(use_declaration argument: (_) @name) @reference.import
`,
  },
  {
    id: "go",
    extensions: [".go"],
    wasm: "tree-sitter-go/tree-sitter-go.wasm",
    tags: ["tree-sitter-go/queries/tags.scm"],
    extra: `(import_spec path: (_) @name) @reference.import\n`,
  },
  {
    id: "java",
    extensions: [".java"],
    wasm: "tree-sitter-java/tree-sitter-java.wasm",
    tags: ["tree-sitter-java/queries/tags.scm"],
    extra: `
(import_declaration (scoped_identifier) @name) @reference.import
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(constructor_declaration name: (identifier) @name) @definition.method
`,
  },
  {
    id: "c",
    extensions: [".c", ".h"],
    wasm: "tree-sitter-c/tree-sitter-c.wasm",
    tags: ["tree-sitter-c/queries/tags.scm"],
    extra: `
(preproc_include path: (_) @name) @reference.import
(call_expression function: (identifier) @name) @reference.call
`,
  },
  {
    id: "cpp",
    extensions: [".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"],
    wasm: "tree-sitter-cpp/tree-sitter-cpp.wasm",
    tags: ["tree-sitter-cpp/queries/tags.scm"],
    extra: `
(namespace_definition name: (_) @name) @definition.module
(preproc_include path: (_) @name) @reference.import
(call_expression function: (identifier) @name) @reference.call
(base_class_clause (type_identifier) @name) @reference.extends
`,
  },
  {
    id: "ruby",
    extensions: [".rb", ".rake"],
    wasm: "tree-sitter-ruby/tree-sitter-ruby.wasm",
    tags: ["tree-sitter-ruby/queries/tags.scm"],
    extra: `(class superclass: (superclass (constant) @name)) @reference.extends\n`,
  },
  {
    id: "csharp",
    extensions: [".cs"],
    wasm: "tree-sitter-c-sharp/tree-sitter-c_sharp.wasm",
    tags: ["tree-sitter-c-sharp/queries/tags.scm"],
    extra: `
(struct_declaration name: (identifier) @name) @definition.struct
(constructor_declaration name: (identifier) @name) @definition.method
(invocation_expression function: (identifier) @name) @reference.call
`,
  },
  {
    id: "php",
    extensions: [".php"],
    wasm: "tree-sitter-php/tree-sitter-php.wasm",
    tags: ["tree-sitter-php/queries/tags.scm"],
    extra: "",
  },
];

/** The language of a file, by its name's ending; undefined for files tree-sitter does not parse. */
export function languageOf(path: string): LanguageSpec | undefined {
  const lower = path.toLowerCase();
  const dot = lower.lastIndexOf(".");
  if (dot < 0) return undefined;
  const ext = lower.slice(dot);
  return LANGUAGES.find((language) => language.extensions.includes(ext));
}

/** A grammar ready to use: one parser and the compiled tags query. */
export interface LoadedLanguage {
  spec: LanguageSpec;
  parser: Parser;
  query: Query;
}

let init: Promise<void> | undefined;
const loaded = new Map<string, Promise<LoadedLanguage>>();

/** Loads a language's grammar and query once per process. */
export function loadLanguage(spec: LanguageSpec): Promise<LoadedLanguage> {
  let found = loaded.get(spec.id);
  if (!found) {
    found = load(spec);
    loaded.set(spec.id, found);
    found.catch(() => loaded.delete(spec.id));
  }
  return found;
}

async function load(spec: LanguageSpec): Promise<LoadedLanguage> {
  init ??= Parser.init();
  await init;
  const language = await Language.load(pathOf(spec.wasm));
  const tags = await Promise.all(spec.tags.map((tag) => Deno.readTextFile(pathOf(tag))));
  const query = new Query(language, [...tags, spec.extra].join("\n"));
  const parser = new Parser();
  parser.setLanguage(language);
  return { spec, parser, query };
}

function pathOf(specifier: string): string {
  return decodeURIComponent(new URL(import.meta.resolve(specifier)).pathname);
}
