/**
 * When the store's owner last did something, for its idle timeout: a request
 * arriving, a command still running, vectors still being computed or a folder
 * being watched keep it alive; an owner with nothing to do for its idle time
 * exits.
 * @module
 */

/** Tracks what keeps an owner busy. */
export class OwnerActivity {
  #last = Date.now();
  #running = 0;
  #progress: number | undefined;

  /**
   * `progress` is a number that moves while background work goes on (the
   * vectors' checkpoint); `watching` is true while a folder is watched.
   */
  constructor(
    private readonly progress: () => number,
    private readonly watching: () => boolean = () => false,
  ) {}

  /** A request arrived. */
  touch(): void {
    this.#last = Date.now();
  }

  /** Runs `work`, counting the owner busy until it ends. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.#running++;
    try {
      return await work();
    } finally {
      this.#running--;
      this.touch();
    }
  }

  /** When the owner was last busy: now while a command runs or background work moved since the last look. */
  last(): number {
    const progress = this.progress();
    const moved = this.#progress !== undefined && progress !== this.#progress;
    if (this.#running > 0 || moved || this.watching()) {
      this.touch();
    }
    this.#progress = progress;
    return this.#last;
  }
}
