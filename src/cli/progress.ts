/**
 * Progress of a long command on standard error: one line redrawn in place on
 * a terminal, plain lines otherwise (logs, pipes, tests).
 * @module
 */
import type { IndexProgress } from "../service/code_index.ts";

const encoder = new TextEncoder();

/** A progress line: redrawn on a terminal, printed as lines elsewhere. */
export class ProgressLine {
  #drawn = false;

  constructor(
    private readonly lines: (line: string) => void,
    private readonly live = Deno.stderr.isTerminal(),
  ) {}

  /** Shows the current state. */
  show(text: string): void {
    if (!this.live) return this.lines(text);
    Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${text}`));
    this.#drawn = true;
  }

  /** Ends the line on a terminal, so what follows starts on its own. */
  end(): void {
    if (this.#drawn) Deno.stderr.writeSync(encoder.encode("\n"));
    this.#drawn = false;
  }
}

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

/** `embeddings: 40 files left, 3 files/s, about 13 s left`. */
export function embeddingProgressText(done: number, left: number, seconds: number): string {
  return `embeddings: ${left} files left` + rateAndEta(done, left, seconds, "files");
}

function rateAndEta(done: number, left: number, seconds: number, unit: string): string {
  if (done === 0 || seconds < 0.5) return "";
  const rate = done / seconds;
  return `, ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} ${unit}/s, about ${
    Math.ceil(left / rate)
  } s left`;
}
