import { startStandInEmbedder } from "./bench/stand_in_embedder.ts";
const D = Deno.args[0];
const embedder = startStandInEmbedder();
const config = JSON.parse(await Deno.readTextFile(`${D}/store/config.json`));
config.embedder.base_url = embedder.baseUrl;
await Deno.writeTextFile(`${D}/store/config.json`, JSON.stringify(config));
console.log("ready", embedder.baseUrl);
await new Promise(() => {});
