/**
 * Waiting for the user (or a supervisor) to stop a long-running command.
 * @module
 */

/** The waits of {@linkcode untilStopped} under way, each with its stop. */
const waiting = new Set<() => void>();

/**
 * Resolves on SIGINT or SIGTERM, once nothing happened for `idleSeconds`
 * (0: never), or once `or` settles; `lastActivity` says when something last
 * happened. Either way, it stops listening for the signals.
 */
export function untilStopped(
  idleSeconds: number,
  lastActivity: () => number,
  or?: Promise<unknown>,
): Promise<void> {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  return new Promise((done) => {
    const stop = () => {
      for (const signal of signals) Deno.removeSignalListener(signal, stop);
      clearInterval(timer);
      waiting.delete(stop);
      done();
    };
    for (const signal of signals) Deno.addSignalListener(signal, stop);
    waiting.add(stop);
    const timer = idleSeconds > 0
      ? setInterval(() => {
        if (Date.now() - lastActivity() > idleSeconds * 1000) stop();
      }, Math.min(idleSeconds * 1000, 10_000))
      : undefined;
    or?.then(stop, stop);
  });
}

/**
 * Ends every {@linkcode untilStopped} wait of this process as SIGTERM would,
 * without a signal: for tests that run a long-running command (`--watch`)
 * in their own process. cairn itself never calls it.
 */
export function stopWaitsHere(): void {
  for (const stop of [...waiting]) stop();
}
