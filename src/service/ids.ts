/** A new identifier: a time-ordered prefix and randomness, e.g. `mem_lx3k9a1b2c3d4e5f`. */
export function newId(prefix: string): string {
  const random = crypto.getRandomValues(new Uint8Array(6));
  const tail = Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${prefix}_${Date.now().toString(36)}${tail}`;
}
