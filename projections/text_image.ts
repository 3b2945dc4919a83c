import type { Bm25Image } from "./text_bm25.ts";

/** Named BM25 images, saved and loaded together. */
export type Bm25Images = Record<string, Bm25Image<unknown>>;

const FORMAT = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type SectionKind = "json" | "u32";
const SECTIONS: ReadonlyArray<[keyof Bm25Image<unknown>, SectionKind]> = [
  ["keys", "json"],
  ["metas", "json"],
  ["lengths", "u32"],
  ["docTermEnds", "u32"],
  ["docTerms", "u32"],
  ["terms", "json"],
  ["pairEnds", "u32"],
  ["pairs", "u32"],
];

/**
 * `images` as the bytes of one file: a JSON header line naming the sections
 * and their sizes (and `tokenizer`, what the tokenizer made of a fixed text),
 * then each section, JSON or 32-bit integers in this machine's byte order (the
 * file is a cache, never shared), padded to 4 bytes so that integers are read
 * in place.
 */
export function* encodeImages(images: Bm25Images, tokenizer: string): Iterable<Uint8Array> {
  const parts: Array<[string, Uint8Array]> = [];
  for (const [name, image] of Object.entries(images)) {
    for (const [field, kind] of SECTIONS) {
      const value = image[field];
      const bytes = kind === "json"
        ? encoder.encode(JSON.stringify(value))
        : bytesOf(value as Uint32Array);
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
 * Integer sections are views of `bytes`, not copies.
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
      images[name] ??= {};
      images[name][field] = kind === "json"
        ? JSON.parse(decoder.decode(aligned.subarray(at, at + length)))
        : new Uint32Array(aligned.buffer, aligned.byteOffset + at, length / 4);
      at = alignUp(at + length);
    }
    if (at !== aligned.length) return undefined;
    const decoded = images as unknown as Bm25Images;
    return Object.values(decoded).every(consistent) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an image's parts agree in size, so that reading them never leaves their bounds. */
function consistent(image: Bm25Image<unknown>): boolean {
  const documents = image.keys.length;
  return SECTIONS.every(([field]) => image[field] !== undefined) &&
    image.metas.length === documents && image.lengths.length === documents &&
    image.docTermEnds.length === documents &&
    (image.docTermEnds.at(-1) ?? 0) === image.docTerms.length &&
    image.pairEnds.length === image.terms.length &&
    (image.pairEnds.at(-1) ?? 0) === image.pairs.length &&
    allBelow(image.docTerms, image.terms.length, 1) && allBelow(image.pairs, documents, 2);
}

/** Whether every `step`-th number of `numbers` (from the first) is below `limit`. */
function allBelow(numbers: Uint32Array, limit: number, step: number): boolean {
  for (let i = 0; i < numbers.length; i += step) if (numbers[i]! >= limit) return false;
  return true;
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
