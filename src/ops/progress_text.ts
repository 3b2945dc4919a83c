/**
 * How a long operation's progress reads: files indexed, vectors computed,
 * with the rate and the time left once they can be told.
 * @module
 */
import type { IndexProgress } from "../service/code_index.ts";

/** `files 600/1400 (43%), 5230 chunks, 120 files/s, about 7 s left`. */
export function indexProgressText(progress: IndexProgress, seconds: number): string {
  const { checked, total, chunks } = progress;
  const percent = total ? Math.floor((checked / total) * 100) : 100;
  return `files ${checked}/${total} (${percent}%), ${chunks} chunks` + rateAndEta(
    checked,
    total - checked,
    seconds,
    "files",
  );
}

/** `vectors: 1200 done, 472 left, 12 texts/s, about 40 s left`. */
export function vectorProgressText(done: number, left: number, seconds: number): string {
  return `vectors: ${done} done, ${left} left` + rateAndEta(done, left, seconds, "texts");
}

function rateAndEta(done: number, left: number, seconds: number, unit: string): string {
  if (done === 0 || left === 0 || seconds < 0.5) return "";
  const rate = done / seconds;
  return `, ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} ${unit}/s, about ${
    Math.ceil(left / rate)
  } s left`;
}
