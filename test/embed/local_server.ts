/** What a test server received. */
export interface Received {
  url: string;
  headers: Headers;
  body: string;
  json(): unknown;
}

/** A `Deno.serve` on 127.0.0.1 (a free port) that records requests and closes when disposed. */
export function localServer(
  handler: (request: Request) => Response | Promise<Response>,
): AsyncDisposable & { url: string; requests: Received[] } {
  const requests: Received[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.text();
      requests.push({
        url: request.url,
        headers: request.headers,
        body,
        json: () => JSON.parse(body),
      });
      const init: RequestInit = { method: request.method, headers: request.headers };
      if (body) init.body = body;
      return handler(new Request(request.url, init));
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
