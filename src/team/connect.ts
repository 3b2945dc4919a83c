/**
 * A connection to a team's NATS servers, with the store's login: a
 * credentials file (`team.credentials` or NATS_CREDS) or a user whose password
 * an environment variable holds; never anything from the log.
 * @module
 */
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  type NatsConnection,
} from "@nats-io/transport-node";
import { UserError } from "../errors.ts";
import type { TeamConfig } from "./config.ts";
import { TeamUnreachable } from "./unreachable.ts";

/**
 * Connects to the first of the team's servers that answers within
 * `timeoutMs`; `reconnect` keeps a long-lived connection going through a
 * server's restart. Offline: {@linkcode TeamUnreachable}; a refused login: a
 * {@linkcode UserError} saying what to check.
 */
export async function connectToTeam(
  team: TeamConfig,
  timeoutMs: number,
  reconnect = false,
): Promise<NatsConnection> {
  const credentials = team.credentials ?? Deno.env.get("NATS_CREDS");
  let authenticator: Authenticator | undefined;
  if (credentials) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(credentials);
    } catch (error) {
      throw new UserError(
        `cannot read the NATS credentials file ${credentials}: ${(error as Error).message}`,
      );
    }
    authenticator = credsAuthenticator(bytes);
  }
  let login = {};
  if (team.user && team.password_env) {
    const pass = Deno.env.get(team.password_env);
    if (!pass) {
      throw new UserError(
        `the variable ${team.password_env} named by team.password_env in config.json is not set`,
      );
    }
    login = { user: team.user, pass };
  }
  let connection: NatsConnection;
  try {
    connection = await withoutStrayResets(() =>
      connect({
        servers: team.servers,
        timeout: timeoutMs,
        reconnect,
        ...login,
        ...(authenticator ? { authenticator } : {}),
      })
    );
  } catch (error) {
    if (/authori[sz]ation|authentication/i.test((error as Error).message)) {
      throw new UserError(
        `the team's NATS server refused this store's login (${(error as Error).message}); ` +
          "check team.user/password_env or team.credentials in config.json",
      );
    }
    throw new TeamUnreachable(
      `no NATS server of the team answers (${team.servers.join(", ")}): ` +
        `${(error as Error).message}; the store works alone meanwhile, sync again later`,
    );
  }
  return connection;
}

/** How long after a refused connection a reset of its socket is still expected. */
const RESET_GRACE_MS = 2_000;

/**
 * Runs `connect`; when it fails, the socket of a connection the server
 * refused (a wrong password) can still report ECONNRESET after the NATS
 * client dropped its listeners, which would end the process. Such resets are
 * ignored for a moment after the failure; nothing else is.
 */
async function withoutStrayResets<T>(connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (error) {
    const ignore = (event: ErrorEvent) => {
      if ((event.error as { code?: string } | undefined)?.code === "ECONNRESET") {
        event.preventDefault();
      }
    };
    globalThis.addEventListener("error", ignore);
    Deno.unrefTimer(
      setTimeout(() => globalThis.removeEventListener("error", ignore), RESET_GRACE_MS),
    );
    throw error;
  }
}
