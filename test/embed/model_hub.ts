import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { modelId, type ModelManifest, parseManifest } from "../../src/embed/manifest.ts";
import { localServer } from "./local_server.ts";

/** The shipped model's manifest, as config.json would give it for a hub model. */
export async function shippedManifest() {
  const where = join(shippedModelDir(), "manifest.json");
  return parseManifest(await Deno.readTextFile(where), where);
}

/** The default shipped model's id, escaped for a regular expression. */
export async function shippedIdPattern(): Promise<string> {
  return modelId(await shippedManifest()).replaceAll(".", "\\.");
}

/**
 * The shipped model laid out as most hub repositories are: the ONNX graph in
 * `onnx/model.onnx`, the tokenizer and licence at the root. `serves` maps each
 * path on the hub to the shipped file it holds, for {@linkcode modelHub}.
 */
export async function nestedLayout(): Promise<
  { manifest: ModelManifest; serves: Record<string, string> }
> {
  const shipped = await shippedManifest();
  const { "model.onnx": model, ...rest } = shipped.files;
  return {
    manifest: {
      ...shipped,
      model_file: "onnx/model.onnx",
      files: { "onnx/model.onnx": model!, ...rest },
    },
    serves: {
      "onnx/model.onnx": "model.onnx",
      "tokenizer.json": "tokenizer.json",
      LICENSE: "LICENSE",
    },
  };
}

/**
 * A model hub on 127.0.0.1 serving the shipped model's files as the model
 * `name`, at `/<name>/resolve/main/<path>`; `serves` maps each path to the
 * shipped file it holds (default: every file at its own name). Anything else is a 404.
 */
export function modelHub(name: string, serves?: Record<string, string>) {
  const prefix = `/${name}/resolve/main/`;
  return localServer(async (request) => {
    const path = new URL(request.url).pathname;
    const wanted = path.startsWith(prefix) ? path.slice(prefix.length) : "";
    const file = serves
      ? (Object.hasOwn(serves, wanted) ? serves[wanted] : undefined)
      : (/^[\w.-]+$/.test(wanted) ? wanted : undefined);
    if (file === undefined || file === "manifest.json") {
      return new Response("not found", { status: 404 });
    }
    const bytes = await Deno.readFile(join(shippedModelDir(), file)).catch(() => undefined);
    return bytes ? new Response(bytes) : new Response("not found", { status: 404 });
  });
}
