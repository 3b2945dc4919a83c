/**
 * Building the page without HTML strings: every text a store holds goes in as
 * text, never as markup.
 * @module
 */

/**
 * An element with properties (`class`, `on*` handlers, dataset `data-*`,
 * others as attributes) and children (nodes or text; null skipped).
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key === "value") element.value = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Empties `element` and puts `children` in it. */
export function fill(element, ...children) {
  element.replaceChildren();
  for (const child of children.flat()) if (child) element.append(child);
  return element;
}

/** Asks a yes-or-no question in the page's dialog; resolves true for yes. */
export function confirmAction(question, yes = "Yes") {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = question;
  document.getElementById("confirm-yes").textContent = yes;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.showModal();
  });
}

/** A number with thousands separated. */
export function count(value) {
  return Number(value ?? 0).toLocaleString("en");
}

/** A short error line for `error`. */
export function problem(error) {
  return h("p", { class: "error" }, String(error.message ?? error));
}
