/**
 * MCP answers in a stream: a tool call that asks for progress (a
 * `progressToken`) is answered as server-sent events, its progress first,
 * and its server is closed once that stream has been read, not before.
 * @module
 */

/** `body`, calling `done` once when it ends or its reader cancels it. */
export function whenRead(
  body: ReadableStream<Uint8Array>,
  done: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await done();
  };
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read();
        if (!finished) return controller.enqueue(value);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
      await end();
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
      await end();
    },
  });
}

/** Whether an MCP request (its body read into memory) is a POST with a call that asks for progress. */
export async function asksForProgress(request: Request): Promise<boolean> {
  if (request.method !== "POST") return false;
  const body: unknown = await request.clone().json().catch(() => undefined);
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) =>
    (message as { params?: { _meta?: { progressToken?: unknown } } } | undefined)?.params?._meta
      ?.progressToken !== undefined
  );
}
