/**
 * Progress of a long command on standard error: one line redrawn in place on
 * a terminal; elsewhere (logs, pipes) a plain line now and then, never a
 * flood of them.
 * @module
 */
const encoder = new TextEncoder();

/** Off a terminal, a progress line is printed at most this often. */
export const PLAIN_PROGRESS_EVERY_MS = 10_000;

/** A progress line: redrawn on a terminal, printed as an occasional line elsewhere. */
export class ProgressLine {
  #drawn = false;
  #printedAt = -Infinity;
  #printedTenth = -1;

  constructor(
    private readonly lines: (line: string) => void,
    private readonly live = Deno.stderr.isTerminal(),
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Shows the current state, `done` of the way when known (0 to 1). Off a
   * terminal: the first state, then one every 10 s or every tenth of the way.
   */
  show(text: string, done?: number): void {
    if (!this.live) {
      const tenth = done === undefined ? -1 : Math.floor(done * 10);
      if (this.now() - this.#printedAt < PLAIN_PROGRESS_EVERY_MS && tenth <= this.#printedTenth) {
        return;
      }
      this.#printedAt = this.now();
      this.#printedTenth = Math.max(this.#printedTenth, tenth);
      return this.lines(text);
    }
    Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${text}`));
    this.#drawn = true;
  }

  /** Ends the line on a terminal, so what follows starts on its own. */
  end(): void {
    if (this.#drawn) Deno.stderr.writeSync(encoder.encode("\n"));
    this.#drawn = false;
  }
}
