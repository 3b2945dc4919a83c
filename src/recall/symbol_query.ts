/**
 * Queries that name a symbol. Asked `Session.request` or `resolve_redirects`,
 * a user wants the definition first, even when another chunk repeats the
 * name's words more often (a `session()` helper that returns a Session).
 * @module
 */

const SEPARATOR = /\s*(?:\.|::|#|->)\s*/g;
const IDENTIFIER = String.raw`[\p{L}_$][\p{L}\p{N}_$]*`;
const SYMBOL = new RegExp(String.raw`^${IDENTIFIER}(?:\.${IDENTIFIER})*$`, "u");

/**
 * The symbol a query names, dot-qualified (`Session.request` for
 * `Session::request`, `Session#request` or `Session.request()`), or
 * undefined when the query is anything else (words, a sentence).
 */
export function symbolOf(query: string): string | undefined {
  const symbol = query.trim().replace(/\(\s*\)$/, "").replace(SEPARATOR, ".");
  return SYMBOL.test(symbol) ? symbol : undefined;
}

/** Whether a chunk's qualified name is `symbol` or ends with it (`Session.request` names `request`). */
export function namesSymbol(name: string, symbol: string): boolean {
  return name === symbol || name.endsWith(`.${symbol}`);
}
