import { join } from "node:path";
import { shippedModelDir } from "../../src/embed/load.ts";
import { parseManifest } from "../../src/embed/manifest.ts";
import { localServer } from "./local_server.ts";

/** The shipped model's manifest, as config.json would give it for a hub model. */
export async function shippedManifest() {
  const where = join(shippedModelDir(), "manifest.json");
  return parseManifest(await Deno.readTextFile(where), where);
}

/**
 * A model hub on 127.0.0.1 serving the shipped model's files as the model
 * `name`, at `/<name>/resolve/main/<file>`; anything else is a 404.
 */
export function modelHub(name: string) {
  const prefix = `/${name}/resolve/main/`;
  return localServer(async (request) => {
    const path = new URL(request.url).pathname;
    const file = path.startsWith(prefix) ? path.slice(prefix.length) : "";
    if (!/^[\w.-]+$/.test(file) || file === "manifest.json") {
      return new Response("not found", { status: 404 });
    }
    const bytes = await Deno.readFile(join(shippedModelDir(), file)).catch(() => undefined);
    return bytes ? new Response(bytes) : new Response("not found", { status: 404 });
  });
}
