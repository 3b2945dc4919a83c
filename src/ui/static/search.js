/**
 * Search: a question run through recall, its results in the fused order with
 * their source, handle, date and every score component.
 * @module
 */
import { call } from "./api.js";
import { fill, h, problem } from "./dom.js";

const SOURCES = [
  ["memories", "memories"],
  ["code", "code"],
  ["sessions", "sessions"],
  ["graph", "graph"],
];

/** Draws the search page; `params` may carry `q` to search at once. */
export function mount(root, params) {
  const results = h("div", { id: "results" });
  const query = h("input", {
    id: "query",
    type: "search",
    placeholder: "what do you want to know?",
    value: params.get("q") ?? "",
    required: true,
  });
  const project = h("input", { id: "project", list: "projects", placeholder: "all projects" });
  const asOf = h("input", { id: "as-of", type: "date", title: "what was known then" });
  const boxes = SOURCES.map(([name, label]) =>
    h("label", {}, h("input", { type: "checkbox", name, checked: true }), label)
  );
  const projects = h("datalist", { id: "projects" });
  call("projects").then(({ projects: list }) =>
    fill(projects, list.map((p) => h("option", { value: p.project ?? p.name })))
  ).catch(() => {});
  const form = h(
    "form",
    { class: "bar", onsubmit: (event) => (event.preventDefault(), run()) },
    query,
    project,
    ...boxes,
    h("label", {}, "as of ", asOf),
    h("button", { type: "submit" }, "Search"),
  );
  async function run() {
    const include = boxes.map((box) => box.firstChild).filter((box) => box.checked)
      .map((box) => box.name);
    const input = {
      query: query.value,
      format: "debug",
      limit: 20,
      ...(project.value ? { project: project.value } : {}),
      ...(include.length ? { include } : {}),
      ...(asOf.value ? { as_of: asOf.value } : {}),
    };
    fill(results, h("p", { class: "muted" }, "searching…"));
    try {
      const answer = await call("recall", input);
      fill(results, table(answer, input));
    } catch (error) {
      fill(results, problem(error));
    }
  }
  fill(root, form, projects, results);
  if (query.value) run();
}

function table(answer, input) {
  const walk = new URLSearchParams({
    walk: answer.query,
    ...(input.project ? { project: input.project } : {}),
  });
  return h(
    "div",
    {},
    h(
      "p",
      { class: "muted" },
      `${answer.rows.length} results in recall's order. `,
      h("a", { href: `#graph?${walk}`, id: "walk-link" }, "Show the graph recall walked"),
    ),
    h(
      "table",
      { class: "results" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["#", "source", "handle", "date", "score", "how it was found", "text"].map((t) =>
            h("th", {}, t)
          ),
        ),
      ),
      h("tbody", {}, answer.rows.map(row)),
    ),
    answer.notes.map((note) => h("p", { class: "note" }, note)),
  );
}

function row(result) {
  const handle = result.source === "memory"
    ? h("a", { href: `#memories?id=${encodeURIComponent(result.handle)}` }, result.handle)
    : h("code", {}, result.handle);
  return h(
    "tr",
    { class: `result ${result.source}` },
    h("td", {}, result.rank),
    h("td", {}, h("span", { class: `badge ${result.source}` }, result.source), " ", result.label),
    h("td", {}, handle),
    h("td", { class: "date" }, result.date ?? ""),
    h("td", { class: "num" }, result.score.toFixed(3)),
    h("td", { class: "components" }, components(result.components)),
    h(
      "td",
      { class: "text" },
      result.text,
      result.newer ? h("div", { class: "note" }, `may be out of date: ${result.newer}`) : null,
    ),
  );
}

/** The debug format's score components, one readable chip each. */
function components(c) {
  const chips = [`fused ${c.fused.toFixed(3)}`];
  if (c.vector) chips.push(`meaning #${c.vector.rank} (distance ${c.vector.distance.toFixed(3)})`);
  if (c.lexical) chips.push(`words #${c.lexical.rank} (bm25 ${c.lexical.score.toFixed(2)})`);
  if (c.context) chips.push(`context #${c.context.rank}`);
  if (c.graph) chips.push(`graph #${c.graph.rank} (ppr ${c.graph.ppr.toFixed(4)})`);
  if (c.mention) chips.push(`named #${c.mention.rank}`);
  if (c.file) chips.push(`file's meaning #${c.file.rank} (distance ${c.file.distance.toFixed(3)})`);
  if (c.prior) chips.push(`${c.prior.kind} ×${c.prior.factor}`);
  if (c.namesSymbol) chips.push("names the symbol");
  if (c.rerank !== undefined) chips.push(`rerank ${c.rerank.toFixed(3)}`);
  return chips.map((chip) => h("span", { class: "chip" }, chip));
}
