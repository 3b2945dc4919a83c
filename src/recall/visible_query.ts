/**
 * The part of a query its author's readers see. An issue pasted from GitHub
 * or GitLab keeps its template's HTML comments (`<!-- Thanks for reporting!
 * Please run diagnostics/info.sh … -->`), which the rendered issue hides:
 * words the author neither wrote nor meant, which match the template's own
 * files and the scripts it names.
 * @module
 */

const HTML_COMMENT = /<!--[\s\S]*?-->/g;

/**
 * `query` without its HTML comments, blank lines they leave collapsed, when
 * it is pasted text of several lines; a one-line question is read whole
 * (which files use `<!-- prettier-ignore -->`?), and so is a query with
 * nothing left.
 */
export function visibleQuery(query: string): string {
  if (!query.includes("<!--") || !query.trim().includes("\n")) return query;
  const visible = query.replace(HTML_COMMENT, "").replace(/\n[ \t]*(\n[ \t]*)+\n/g, "\n\n").trim();
  return visible === "" ? query : visible;
}
