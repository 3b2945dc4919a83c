/**
 * Telling a full disk (or a quota, or a read-only file system) from a bug:
 * the user can act on the first, and a store that cannot write can still be read.
 * @module
 */

const CODES = new Set(["ENOSPC", "EDQUOT", "EROFS"]);
/** What Kùzu says when its write to a file fell short (it gives no error code). */
const KUZU_SHORT_WRITE = /IO exception: Cannot write to file/;

/** True when `error` (or what caused it) is a failed write for want of space or permission to grow. */
export function isDiskFull(error: unknown): boolean {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && CODES.has(code)) return true;
    if (/No space left on device|Disk quota exceeded|Read-only file system/.test(at.message)) {
      return true;
    }
    if (KUZU_SHORT_WRITE.test(at.message)) return true;
  }
  return false;
}
