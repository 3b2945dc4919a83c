/**
 * Making sure the process on an owner's port is the owner before it is sent
 * the store's token: a dead owner's port may be taken by anyone. The client
 * sends a random challenge; only a process that holds the token can answer
 * with its HMAC, and the token itself never leaves the client until then.
 * @module
 */

import { ownerFetch } from "./owner_death.ts";

/** The path an owner answers challenges on, without a token. */
export const OWNER_PROOF_PATH = "/owner";

const CHALLENGE = /^[0-9a-f]{32,128}$/;
/** How long a client waits for the proof. */
const PROOF_TIMEOUT_MS = 5_000;

/** The owner's answer to `challenge`: HMAC-SHA256 under the token, hex. */
async function proofOf(token: string, challenge: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(token),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(challenge));
  return hex(new Uint8Array(mac));
}

/** The owner's answer to a request for {@linkcode OWNER_PROOF_PATH}. */
export async function answerChallenge(url: URL, token: string): Promise<Response> {
  const challenge = url.searchParams.get("challenge") ?? "";
  if (!CHALLENGE.test(challenge)) {
    return Response.json({ error: "challenge: 32 to 128 lowercase hex digits" }, { status: 400 });
  }
  return Response.json({ proof: await proofOf(token, challenge) });
}

/** True when the process listening on `port` proves it holds `token`. */
export async function provesOwner(port: number, token: string): Promise<boolean> {
  const challenge = hex(crypto.getRandomValues(new Uint8Array(16)));
  try {
    const response = await ownerFetch(
      `http://127.0.0.1:${port}${OWNER_PROOF_PATH}?challenge=${challenge}`,
      { signal: AbortSignal.timeout(PROOF_TIMEOUT_MS) },
    );
    const body = await response.json() as { proof?: unknown };
    return body.proof === await proofOf(token, challenge);
  } catch {
    return false;
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
