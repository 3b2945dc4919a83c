/**
 * File names made from names users choose (a project's): a file system takes
 * at most 255 bytes a name, so an encoded name that could pass that is
 * replaced by a hash of the name.
 * @module
 */
import { sha256HexSync } from "./blobs.ts";

/** Encoded names longer than this are hashed instead. */
const MAX_ENCODED = 120;

/** `encoded` (a file-name-safe encoding of `name`) if it is short, else a hash of `name`. */
export function boundedFileName(name: string, encoded: string): string {
  return encoded.length <= MAX_ENCODED ? encoded : `h-${sha256HexSync(name).slice(0, 40)}`;
}
