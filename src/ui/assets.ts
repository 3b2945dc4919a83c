/**
 * The web view's files, built into cairn: its page, style and scripts (ours,
 * plain ES modules, no build step) and Cytoscape.js from its npm package.
 * They are imported as text, so `deno compile` embeds them in the binary and
 * nothing is read from disk or fetched at run time.
 * @module
 */
import indexHtml from "./static/index.html" with { type: "text" };
import styleCss from "./static/style.css" with { type: "text" };
import appJs from "./static/app.js" with { type: "text" };
import apiJs from "./static/api.js" with { type: "text" };
import domJs from "./static/dom.js" with { type: "text" };
import searchJs from "./static/search.js" with { type: "text" };
import memoriesJs from "./static/memories.js" with { type: "text" };
import graphJs from "./static/graph.js" with { type: "text" };
import sessionsJs from "./static/sessions.js" with { type: "text" };
import healthJs from "./static/health.js" with { type: "text" };
import cytoscapeJs from "cytoscape/dist/cytoscape.esm.min.mjs" with { type: "text" };

/** A file the web view serves: its text and content type. */
export interface Asset {
  body: string;
  type: string;
}

const JS = "text/javascript; charset=utf-8";

/** The page itself, served at `/ui/`. */
export const INDEX: Asset = { body: indexHtml, type: "text/html; charset=utf-8" };

/** The other files, by name under `/ui/assets/`. */
export const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["style.css", { body: styleCss, type: "text/css; charset=utf-8" }],
  ["app.js", { body: appJs, type: JS }],
  ["api.js", { body: apiJs, type: JS }],
  ["dom.js", { body: domJs, type: JS }],
  ["search.js", { body: searchJs, type: JS }],
  ["memories.js", { body: memoriesJs, type: JS }],
  ["graph.js", { body: graphJs, type: JS }],
  ["sessions.js", { body: sessionsJs, type: JS }],
  ["health.js", { body: healthJs, type: JS }],
  ["cytoscape.mjs", { body: cytoscapeJs, type: JS }],
]);
