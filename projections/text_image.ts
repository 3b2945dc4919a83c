import type { Bm25Image } from "./text_bm25.ts";

/** Named BM25 images, saved and loaded together. */
export type Bm25Images = Record<string, Bm25Image<unknown>>;

const FORMAT = 2;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON, 32-bit integers, or postings' pairs as variable-length integers (see `encodePairs`). */
type SectionKind = "json" | "u32" | "pairs";
const SECTIONS: ReadonlyArray<[keyof Bm25Image<unknown>, SectionKind]> = [
  ["keys", "json"],
  ["metas", "json"],
  ["lengths", "u32"],
  ["terms", "json"],
  ["pairEnds", "u32"],
  ["pairs", "pairs"],
];

/**
 * `images` as the bytes of one file: a JSON header line naming the sections
 * and their sizes (and `tokenizer`, what the tokenizer made of a fixed text),
 * then each section: JSON, 32-bit integers in this machine's byte order (the
 * file is a cache, never shared) or postings, padded to 4 bytes so that
 * integers are read in place.
 */
export function* encodeImages(images: Bm25Images, tokenizer: string): Iterable<Uint8Array> {
  const parts: Array<[string, Uint8Array]> = [];
  for (const [name, image] of Object.entries(images)) {
    for (const [field, kind] of SECTIONS) {
      const value = image[field];
      const bytes = kind === "json"
        ? encoder.encode(JSON.stringify(value))
        : kind === "u32"
        ? bytesOf(value as Uint32Array)
        : encodePairs(image.pairs, image.pairEnds);
      parts.push([`${name}.${field}`, bytes]);
    }
  }
  const sections = parts.map(([name, bytes]) => [name, bytes.length]);
  yield padded(encoder.encode(JSON.stringify({ format: FORMAT, tokenizer, sections }) + "\n"));
  for (const [, bytes] of parts) yield padded(bytes);
}

/**
 * The images in `bytes` (written by {@linkcode encodeImages}); undefined when
 * they were made by another format or tokenizer, or the file is damaged.
 */
export function decodeImages(bytes: Uint8Array, tokenizer: string): Bm25Images | undefined {
  try {
    const newline = bytes.indexOf(10);
    const header = JSON.parse(decoder.decode(bytes.subarray(0, newline))) as {
      format: number;
      tokenizer: string;
      sections: Array<[string, number]>;
    };
    if (header.format !== FORMAT || header.tokenizer !== tokenizer) return undefined;
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    let at = alignUp(newline + 1);
    const images: Record<string, Record<string, unknown>> = {};
    for (const [section, length] of header.sections) {
      if (at + length > aligned.length) return undefined;
      const [name = "", field = ""] = section.split(".");
      const kind = SECTIONS.find(([known]) => known === field)?.[1];
      if (!kind) return undefined;
      const image = images[name] ??= {};
      const part = aligned.subarray(at, at + length);
      image[field] = kind === "json"
        ? JSON.parse(decoder.decode(part))
        : kind === "u32"
        ? new Uint32Array(aligned.buffer, aligned.byteOffset + at, length / 4)
        : decodePairs(part, image.pairEnds as Uint32Array);
      at = alignUp(at + length);
    }
    if (at !== aligned.length) return undefined;
    const decoded = images as unknown as Bm25Images;
    return Object.values(decoded).every(consistent) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an image's parts agree, so that reading them never leaves their bounds. */
function consistent(image: Bm25Image<unknown>): boolean {
  const documents = image.keys.length;
  return SECTIONS.every(([field]) => image[field] !== undefined) &&
    image.keys.every((key) => typeof key === "string") &&
    image.metas.length === documents && image.lengths.length === documents &&
    image.pairEnds.length === image.terms.length && documentsBelow(image.pairs, documents);
}

/** Whether every pair's document number is below `documents`. */
function documentsBelow(pairs: Uint32Array, documents: number): boolean {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i]! >= documents) return false;
  return true;
}

/**
 * Postings' pairs as LEB128 variable-length integers, a posting's document
 * numbers as gaps from the one before (they ascend): about three bytes a
 * pair instead of eight.
 */
function encodePairs(pairs: Uint32Array, pairEnds: Uint32Array): Uint8Array {
  let bytes = new Uint8Array(Math.max(16, pairs.length * 2));
  let at = 0;
  const put = (value: number) => {
    if (at + 5 > bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    for (; value >= 0x80; value >>>= 7) bytes[at++] = (value & 0x7f) | 0x80;
    bytes[at++] = value;
  };
  for (let id = 0, i = 0; id < pairEnds.length; id++) {
    for (let previous = 0; i < pairEnds[id]!; i += 2) {
      put(pairs[i]! - previous);
      put(pairs[i + 1]!);
      previous = pairs[i]!;
    }
  }
  return bytes.subarray(0, at);
}

/** The pairs {@linkcode encodePairs} wrote; throws unless `bytes` hold them exactly. */
function decodePairs(bytes: Uint8Array, pairEnds: Uint32Array): Uint32Array {
  const pairs = new Uint32Array(pairEnds.at(-1) ?? 0);
  let at = 0;
  const take = () => {
    let value = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const byte = bytes[at++];
      if (byte === undefined) break;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new Error("damaged postings");
  };
  for (let id = 0, i = 0; id < pairEnds.length; id++) {
    if (pairEnds[id]! < i || pairEnds[id]! % 2 === 1) throw new Error("damaged postings");
    for (let previous = 0; i < pairEnds[id]!; i += 2) {
      previous = pairs[i] = previous + take();
      pairs[i + 1] = take();
    }
  }
  if (at !== bytes.length) throw new Error("damaged postings");
  return pairs;
}

function bytesOf(numbers: Uint32Array): Uint8Array {
  return new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength);
}

function alignUp(offset: number): number {
  return Math.ceil(offset / 4) * 4;
}

function padded(bytes: Uint8Array): Uint8Array {
  const length = alignUp(bytes.length);
  if (length === bytes.length) return bytes;
  const out = new Uint8Array(length).fill(32);
  out.set(bytes);
  return out;
}
