/**
 * `deno task compile`: builds the single `cairn` binary for this platform with
 * what it loads at run time (the model, the inference worker, each grammar's
 * `.wasm` and queries, web-tree-sitter's runtime) and without what it never
 * loads (Kùzu's C++ sources and other platforms' builds, onnxruntime's other
 * platforms, the grammars' C sources and native builds, the tests' browser driver). `deno compile`
 * downloads Deno's runtime, so this needs a machine with internet.
 * @module
 */
import { join } from "node:path";

const root = new URL("../", import.meta.url).pathname;
const packages = join(root, "node_modules", ".deno");
const includes = ["models/", "src/embed/onnx_worker.ts", "src/cli/run_here.ts"];
for (const entry of Deno.readDirSync(packages)) {
  if (!/^(web-)?tree-sitter/.test(entry.name)) continue;
  const name = entry.name.slice(0, entry.name.lastIndexOf("@"));
  const dir = join(packages, entry.name, "node_modules", name);
  for (const file of Deno.readDirSync(dir)) {
    if (file.name.endsWith(".wasm") || file.name === "queries") includes.push(join(dir, file.name));
  }
}
const current = Deno.build.os === "windows" ? "win32" : Deno.build.os;
const platforms = ["darwin", "linux", "win32"].filter((os) => os !== current);
const onnx = join(
  packages,
  "onnxruntime-node@1.30.0",
  "node_modules",
  "onnxruntime-node",
  "bin",
  "napi-v6",
);
const kuzu = join(packages, "kuzu@0.11.3", "node_modules", "kuzu");
// Kùzu loads the `kuzujs.node` its install copied for this platform, never `prebuilt/`; a
// grammar loads from its `.wasm`, never its C sources or native builds; the tests' browser
// driver is no part of cairn.
const NEVER_LOADED = new Set(["src", "prebuilds", "bindings"]);
const grammarParts = [...Deno.readDirSync(packages)]
  .filter((entry) => /^tree-sitter-/.test(entry.name))
  .flatMap((entry) => {
    const name = entry.name.slice(0, entry.name.lastIndexOf("@"));
    const dir = join(packages, entry.name, "node_modules", name);
    // A package of several grammars (typescript and tsx) keeps each one's sources in a folder.
    return [...Deno.readDirSync(dir)].filter((part) => part.isDirectory).flatMap((part) =>
      NEVER_LOADED.has(part.name)
        ? [join(dir, part.name)]
        : [...Deno.readDirSync(join(dir, part.name))]
          .filter((inner) => inner.isDirectory && NEVER_LOADED.has(inner.name))
          .map((inner) => join(dir, part.name, inner.name))
    );
  });
const excludes = [
  join(kuzu, "kuzu-source"),
  join(kuzu, "prebuilt"),
  ...platforms.map((os) => join(onnx, os)),
  ...grammarParts,
  ...[...Deno.readDirSync(packages)]
    .filter((entry) => entry.name.startsWith("playwright-core@"))
    .map((entry) => join(packages, entry.name, "node_modules", "playwright-core")),
];
const args = [
  "compile",
  "--allow-all",
  "--v8-flags=--max-old-space-size=16384",
  "--output",
  join(root, "dist", "cairn"),
  ...includes.flatMap((path) => ["--include", path]),
  ...excludes.flatMap((path) => ["--exclude", path]),
  join(root, "main.ts"),
];
const { code } = await new Deno.Command(Deno.execPath(), {
  args,
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(code);
