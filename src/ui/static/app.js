/**
 * The web view's shell: one page, a view per tab, chosen by the URL's hash
 * (`#search`, `#memories?id=mem_…`, `#graph?walk=QUESTION`, …). A view is a
 * module whose `mount(root, params)` draws it and returns (or resolves to) a
 * function that stops it (the health page's polling).
 * @module
 */
const VIEWS = ["search", "memories", "graph", "sessions", "health"];
let stop = () => {};
/** Counts routes, so a view that finishes drawing after the next was asked for stops at once. */
let shown = 0;

async function route() {
  const turn = ++shown;
  const [name, query] = location.hash.slice(1).split("?");
  const view = VIEWS.includes(name) ? name : "search";
  for (const tab of document.querySelectorAll("#tabs a")) {
    tab.classList.toggle("active", tab.dataset.view === view);
  }
  stop();
  stop = () => {};
  const module = await import(`./${view}.js`);
  if (turn !== shown) return;
  const root = document.getElementById("view");
  root.replaceChildren();
  root.dataset.view = view;
  const stopper = await module.mount(root, new URLSearchParams(query ?? "")) ?? (() => {});
  if (turn === shown) stop = stopper;
  else stopper();
}

addEventListener("hashchange", route);
route();
