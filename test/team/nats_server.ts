/**
 * A real nats-server with JetStream for tests: on 127.0.0.1, a free port, its
 * store in a temporary folder; stopped and started again on the same port and
 * folder, so a test can take the team offline and back.
 * @module
 */

/** The nats-server on PATH, or undefined (the team tests are then skipped, and say so). */
export const NATS_SERVER: string | undefined = (() => {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    const path = `${dir}/nats-server`;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not in this folder
    }
  }
  return undefined;
})();

/** Why the team tests are skipped, or undefined when they run. */
export const SKIP_REASON = NATS_SERVER
  ? undefined
  : "nats-server is not installed (apt-get install nats-server); the team sync tests are skipped";
if (SKIP_REASON) console.error(`test/team: ${SKIP_REASON}`);

/** Runs `work` until it resolves, for up to 30 s (a cluster elects its JetStream leader first). */
export async function eventually<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A nats-server this test started. */
export class NatsServer implements AsyncDisposable {
  #child: Deno.ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: string[] = [],
  ) {}

  /** The URL members connect to. */
  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Creates a server (not started unless `start`) on a free port with a fresh store folder. */
  static async create(start = true, args: string[] = []): Promise<NatsServer> {
    const dir = await Deno.makeTempDir({ prefix: "cairn-nats-" });
    const server = new NatsServer(freePort(), dir, args);
    if (start) await server.start();
    return server;
  }

  /**
   * A cluster of `size` servers routed to each other on 127.0.0.1, each with
   * JetStream (a stream of 3 replicas survives one of them going down).
   */
  static async cluster(size = 3): Promise<NatsServer[]> {
    const routes = Array.from({ length: size }, () => freePort());
    const urls = routes.map((port) => `nats://127.0.0.1:${port}`).join(",");
    const servers: NatsServer[] = [];
    for (const [i, route] of routes.entries()) {
      servers.push(
        await NatsServer.create(false, [
          "--name",
          `n${i + 1}`,
          "--cluster_name",
          "cairn-test",
          "--cluster",
          `nats://127.0.0.1:${route}`,
          "--routes",
          urls,
        ]),
      );
    }
    await Promise.all(servers.map((server) => server.start()));
    return servers;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    if (!NATS_SERVER) throw new Error(SKIP_REASON);
    this.#child = new Deno.Command(NATS_SERVER, {
      args: ["-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", this.dir, ...this.args],
      stdout: "null",
      stderr: "null",
    }).spawn();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        const connection = await Deno.connect({ hostname: "127.0.0.1", port: this.port });
        connection.close();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    throw new Error(`nats-server did not listen on ${this.port} within 10 s`);
  }

  /** Stops the server (SIGKILL: as a crash would), keeping its folder. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    child.kill("SIGKILL");
    await child.status;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
    await Deno.remove(this.dir, { recursive: true });
  }
}
