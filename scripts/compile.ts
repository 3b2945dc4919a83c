/**
 * `deno task compile`: builds the single `cairn` binary for this platform with
 * what it loads at run time (the model, the inference worker, each grammar's
 * `.wasm` and queries, web-tree-sitter's runtime) and without what it never
 * loads (Kùzu's C++ sources, onnxruntime's other platforms). `deno compile`
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
const excludes = [
  join(packages, "kuzu@0.11.3", "node_modules", "kuzu", "kuzu-source"),
  ...platforms.map((os) => join(onnx, os)),
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
