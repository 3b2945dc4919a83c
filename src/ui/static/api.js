/**
 * Calls the owner's JSON routes (`POST /ui/api/NAME`) with the session cookie.
 * @module
 */

/** Resolves to the route's answer, or rejects with the error it gave. */
export async function call(name, input = {}) {
  const response = await fetch(`/ui/api/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(input),
    credentials: "same-origin",
  });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error ?? `${response.status}`);
  return body;
}
