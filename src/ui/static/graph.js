/**
 * The graph: entities, relations, memories, files, symbols, chunks and turns
 * drawn with Cytoscape.js. Nothing is drawn until asked: a page of entities,
 * a search, or the neighbourhood recall walked for a question (its seeds and
 * walked edges highlighted); a click on a node expands it.
 * @module
 */
/** Cytoscape.js, served from its npm package; named here so type checks leave the file alone. */
const CYTOSCAPE = "./cytoscape.mjs";
import { call } from "./api.js";
import { fill, h, problem } from "./dom.js";

/** Most nodes drawn at once: past it, expanding asks to clear first. */
const MAX_DRAWN = 2000;

const COLOURS = {
  entity: "#2f6fb3",
  memory: "#c2571a",
  file: "#3a8a3a",
  symbol: "#7a4fb3",
  code: "#6b8e23",
  turn: "#a0527a",
};

const STYLE = [
  {
    selector: "node",
    style: {
      label: "data(label)",
      "font-size": 9,
      "text-valign": "bottom",
      "text-margin-y": 3,
      width: 14,
      height: 14,
      "background-color": (node) => COLOURS[node.data("kind")] ?? "#888",
      color: "#222",
    },
  },
  { selector: "node.expanded", style: { "border-width": 2, "border-color": "#222" } },
  {
    selector: "node.seed",
    style: { width: 24, height: 24, "border-width": 3, "border-color": "#e0b000" },
  },
  {
    selector: "node.walked",
    style: {
      "background-opacity": 1,
      "underlay-color": "#ffd84d",
      "underlay-opacity": 0.5,
      "underlay-padding": 4,
    },
  },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#000" } },
  { selector: "node.match", style: { "border-width": 3, "border-color": "#d00" } },
  {
    selector: "edge",
    style: {
      width: 1,
      "line-color": "#bbb",
      "curve-style": "bezier",
      "target-arrow-shape": "triangle",
      "target-arrow-color": "#bbb",
      "arrow-scale": 0.6,
      label: "data(label)",
      "font-size": 7,
      color: "#777",
    },
  },
  {
    selector: "edge.walked",
    style: { width: 2.5, "line-color": "#e0b000", "target-arrow-color": "#e0b000" },
  },
];

/** Draws the graph page; `params` may carry `walk` (a question) and `project`, or `node` to expand. */
export async function mount(root, params) {
  const container = h("div", { id: "cy" });
  const info = h(
    "aside",
    { id: "graph-info" },
    h("p", { class: "muted" }, "Click a node to expand it."),
  );
  const status = h("p", { id: "graph-status", class: "muted" });
  const search = h("input", {
    id: "graph-search",
    type: "search",
    placeholder: "entity, file or symbol name, or mem_…",
  });
  const walk = h("input", {
    id: "graph-walk",
    type: "search",
    placeholder: "a question: the graph recall walks",
    value: params.get("walk") ?? "",
  });
  let offset = 0;
  let omitted = 0;

  const report = (text) => {
    status.textContent = `${cy.nodes().length} nodes, ${cy.edges().length} edges drawn` +
      (omitted ? `; ${omitted} links left out (expand a node to see its own)` : "") +
      (text ? `. ${text}` : "");
  };
  const add = (piece, around) => {
    const fresh = piece.nodes.filter((node) => cy.getElementById(node.id).empty());
    if (cy.nodes().length + fresh.length > MAX_DRAWN) {
      report(`Not drawn: more than ${MAX_DRAWN} nodes; clear the drawing first`);
      return cy.collection();
    }
    const centre = around?.position() ?? { x: 0, y: 0 };
    const added = cy.add(fresh.map((node, i) => ({
      group: "nodes",
      data: { id: node.id, label: node.label, kind: node.kind, project: node.project ?? "" },
      ...(around ? { position: ring(centre, i, fresh.length) } : {}),
    })));
    // An edge to a node that is not drawn (past a cap) is left out, never an error.
    const edges = piece.edges.filter((edge) =>
      cy.getElementById(edgeId(edge)).empty() && cy.getElementById(edge.source).nonempty() &&
      cy.getElementById(edge.target).nonempty()
    );
    cy.add(edges.map((edge) => ({
      group: "edges",
      data: { id: edgeId(edge), source: edge.source, target: edge.target, label: edge.label ?? "" },
    })));
    omitted += piece.omitted ?? 0;
    if (!around) {
      cy.layout({ name: cy.nodes().length > 150 ? "grid" : "cose", animate: false }).run();
    }
    report();
    return added;
  };
  const entities = (page) => ({
    // A relation's other end is drawn too, though it belongs to another page.
    nodes: [
      ...page.entities.map((e) => e.name),
      ...page.relations.flatMap((r) => [r.from, r.to]),
    ].map((name) => ({ id: `entity:${name}`, label: name, kind: "entity" })),
    edges: page.relations.map((r) => ({
      source: `entity:${r.from}`,
      target: `entity:${r.to}`,
      label: r.relationType,
    })),
    omitted: page.relationsOmitted ?? 0,
  });
  const guard = async (work) => {
    try {
      await work();
    } catch (error) {
      fill(info, problem(error));
    }
  };
  const more = () =>
    guard(async () => {
      const page = await call("graph-page", { offset, limit: 50 });
      offset += page.entities.length;
      add(entities(page));
      report(
        page.more
          ? `${page.more} more entities: "more entities" draws the next 50`
          : "every entity drawn",
      );
    });
  const find = () =>
    guard(async () => {
      cy.nodes().removeClass("match");
      const piece = await call("graph-find", { query: search.value });
      add(piece);
      const found = new Set(piece.nodes.map((node) => node.id));
      const matches = cy.nodes().filter((node) => found.has(node.id()));
      matches.addClass("match");
      if (matches.nonempty()) {
        cy.animate({ fit: { eles: matches, padding: 60 } }, { duration: 200 });
      }
      report(`${piece.nodes.length} nodes match${piece.omitted ? `, ${piece.omitted} more` : ""}`);
    });
  const walked = () =>
    guard(async () => {
      const piece = await call("graph-walk", {
        query: walk.value,
        ...(params.get("project") ? { project: params.get("project") } : {}),
      });
      cy.elements().removeClass("walked seed");
      add(piece);
      for (const node of piece.nodes) cy.getElementById(node.id).addClass("walked");
      for (const edge of piece.edges) cy.getElementById(edgeId(edge)).addClass("walked");
      for (const seed of piece.seeds) cy.getElementById(seed).addClass("seed");
      cy.fit(cy.elements(".walked"), 40);
      // A few nodes fitted fill the screen: keep their labels at reading size.
      if (cy.zoom() > 1.5) {
        cy.zoom({
          level: 1.5,
          position: cy.elements(".walked").boundingBox() && centreOf(cy.elements(".walked")),
        });
      }
      report(`recall walked ${piece.edges.length} edges from ${piece.seeds.length} results`);
    });

  fill(
    root,
    h(
      "div",
      { class: "bar" },
      h(
        "form",
        { onsubmit: (event) => (event.preventDefault(), find()) },
        search,
        h("button", {}, "Find"),
      ),
      h(
        "form",
        { onsubmit: (event) => (event.preventDefault(), walked()) },
        walk,
        h("button", {}, "Walk"),
      ),
      h("button", { id: "more-entities", onclick: more }, "more entities"),
      h(
        "button",
        {
          id: "graph-clear",
          onclick: () => (cy.elements().remove(), offset = 0, omitted = 0, report()),
        },
        "clear",
      ),
      h("button", { onclick: () => cy.fit(undefined, 30) }, "fit"),
    ),
    status,
    h(
      "p",
      { class: "legend" },
      Object.keys(COLOURS).map((kind) => h("span", { class: `badge ${kind}` }, kind)),
      " · yellow: what recall walked, ringed: its results",
    ),
    h("div", { class: "split" }, container, info),
  );
  // Made once its container is in the page: Cytoscape measures it.
  const { default: cytoscape } = await import(CYTOSCAPE);
  const cy = cytoscape({
    container,
    style: STYLE,
    wheelSensitivity: 0.3,
    minZoom: 0.05,
    maxZoom: 4,
  });
  cy.on("tap", "node", (event) =>
    guard(async () => {
      const node = event.target;
      showNode(info, node);
      if (node.hasClass("expanded")) return;
      const piece = await call("graph-expand", { node: node.id() });
      node.addClass("expanded");
      const added = add(piece, node);
      showNode(info, node);
      report(`${node.data("label")}: ${added.length} new neighbours`);
    }));
  if (walk.value) walked();
  else if (params.get("node")) {
    guard(async () => {
      const piece = await call("graph-expand", { node: params.get("node") });
      add(piece);
      cy.getElementById(params.get("node")).addClass("expanded");
    });
  } else more();
  globalThis.cairnGraph = cy;
  return () => {
    cy.destroy();
    delete globalThis.cairnGraph;
  };
}

function centreOf(elements) {
  const box = elements.boundingBox();
  return { x: (box.x1 + box.x2) / 2, y: (box.y1 + box.y2) / 2 };
}

function edgeId(edge) {
  return `${edge.source}\u2192${edge.target}`;
}

function ring(centre, i, n) {
  const radius = 60 + n * 3;
  const angle = (2 * Math.PI * i) / Math.max(n, 1);
  return { x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) };
}

function showNode(info, node) {
  const { id, kind, label, project } = node.data();
  const key = id.slice(id.indexOf(":") + 1);
  fill(
    info,
    h("h3", {}, label),
    h("p", {}, h("span", { class: `badge ${kind}` }, kind), project ? ` ${project}` : ""),
    h("p", {}, h("code", {}, key.replaceAll("\0", ":"))),
    kind === "memory"
      ? h("p", {}, h("a", { href: `#memories?id=${encodeURIComponent(key)}` }, "open this memory"))
      : null,
    h("p", { class: "muted" }, `${node.degree()} edges drawn`),
  );
}
