import { resolve } from "node:path";
import { format } from "node:util";
import { buildMcpServer } from "../mcp/server.ts";
import { localTools } from "../mcp/handlers.ts";
import { MCP_PATH, serveHttp } from "../mcp/http.ts";
import { newToken, ownerFiles, removeOwnerRecord, writeOwnerRecord } from "../mcp/owner_file.ts";
import { type Cairn, openCairn } from "../service/cairn.ts";
import { parseCommandArgs } from "./args.ts";
import { describeIssues } from "../errors.ts";
import { type Command, type InOwner, type Io, UsageError } from "./command.ts";
import { CLI_PATH, type CliLine } from "./owner_cli.ts";
import { CliRequest } from "./cli_request.ts";
import { untilStopped } from "./signals.ts";
import { syncInBackground } from "../team/background.ts";
import { OwnerActivity } from "./owner_activity.ts";
import { STEP_ASIDE_PATH, STORE_IN_USE_EXIT } from "../mcp/owner_start.ts";
import { buildStamp } from "../mcp/build_stamp.ts";
import { StoreLockedError } from "../../events/lock.ts";
import { reportRecovery } from "./with_cairn.ts";
import { uiPages } from "../ui/pages.ts";

/** How the owner runs a relayed CLI command: `runCli` with the owner's open store. */
export type RunInOwner = (
  argv: string[],
  io: Io,
  options: { inOwner: InOwner },
) => Promise<number>;

/**
 * `cairn serve`: owns the store and serves MCP over Streamable HTTP on
 * 127.0.0.1, and the CLI commands other processes relay to it (`runCommand`).
 */
export const serveCommand = (runCommand: RunInOwner): Command => ({
  name: "serve",
  summary: "own the store and serve MCP over HTTP on 127.0.0.1 (what `cairn mcp` talks to)",
  usage: "cairn serve [--port N] [--idle-timeout SECONDS] [--log FILE]\n\n" +
    "  --idle-timeout  exit after this long with no request, no command running, no\n" +
    "                  vectors being computed and no folder watched (0, the default, never)\n\n" +
    "  Exits with code 75 when another process holds the store.",
  async run(context) {
    const { values } = parseCommandArgs(context.args, {
      port: { type: "string" },
      "idle-timeout": { type: "string" },
      log: { type: "string" },
    });
    const port = Number(values.port ?? 0);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError("--port takes a port number (0, the default, picks a free one)");
    }
    const idleSeconds = Number(values["idle-timeout"] ?? 0);
    if (!Number.isFinite(idleSeconds) || idleSeconds < 0) {
      throw new UsageError("--idle-timeout takes seconds (0, the default, never stops)");
    }
    const storeDir = resolve(context.storeDir);
    await Deno.mkdir(storeDir, { recursive: true, mode: 0o700 });
    const logFile = values.log;
    const log = logFile
      ? (line: string) =>
        Deno.writeTextFileSync(logFile, `${new Date().toISOString()} ${line}\n`, {
          append: true,
          mode: 0o600,
        })
      : context.err;
    // What the store's parts say as they open, heal or warn goes to the owner's log, not to a
    // standard error no one reads (an owner the CLI starts has none).
    const restore = logFile ? errorsTo(log) : () => {};
    try {
      return await serveStore({ storeDir, port, idleSeconds, log, runCommand });
    } finally {
      restore();
    }
  },
});

/** Sends `console.error` to `log` until the function it returns is called. */
function errorsTo(log: (line: string) => void): () => void {
  const original = console.error;
  console.error = (...data: unknown[]) => log(format(...data));
  return () => void (console.error = original);
}

/** Opens the store and serves it until stopped, idle or asked to step aside; the exit code. */
async function serveStore({ storeDir, port, idleSeconds, log, runCommand }: {
  storeDir: string;
  port: number;
  idleSeconds: number;
  log: (line: string) => void;
  runCommand: RunInOwner;
}): Promise<number> {
  let cairn: Cairn;
  try {
    // Another owner holds the store: this one is not needed, and says so at once.
    cairn = await openCairn(storeDir, { awaitModel: false, lockWaitMs: 0 });
  } catch (error) {
    log(`cairn serve: ${(error as Error).message}`);
    if (error instanceof StoreLockedError) return STORE_IN_USE_EXIT;
    throw error;
  }
  try {
    reportRecovery(cairn.store.log.recovery, log);
    const token = await newToken(storeDir);
    const activity = new OwnerActivity(
      () => cairn.store.runner.status().find((p) => p.name === "vectors")?.checkpoint ?? 0,
      () => cairn.watches.projects.length > 0,
    );
    // A command that needs the store to itself asks for it (see step_aside.ts).
    const stepAside = Promise.withResolvers<void>();
    const http = serveHttp({
      port,
      token,
      newServer: () => buildMcpServer(localTools(cairn, log)),
      onRequest: () => activity.touch(),
      // The web view (`cairn ui`): same port and checks, a session cookie instead of the token.
      pages: uiPages({ cairn, token, log }),
      routes: {
        [CLI_PATH]: (request) => relayedCommand(request, storeDir, cairn, runCommand, activity),
        [STEP_ASIDE_PATH]: () => {
          stepAside.resolve();
          return Promise.resolve(Response.json({ stopping: true }, { status: 202 }));
        },
      },
    });
    const startedAt = new Date().toISOString();
    await writeOwnerRecord(storeDir, {
      pid: Deno.pid,
      port: http.port,
      started_at: startedAt,
      build: buildStamp(),
    });
    cairn.servedBy = { pid: Deno.pid, port: http.port, startedAt };
    log(
      `cairn serve: MCP on http://127.0.0.1:${http.port}${MCP_PATH} for ${storeDir} ` +
        `(pid ${Deno.pid}; bearer token in ${ownerFiles(storeDir).token})`,
    );
    // Load the model now, in the background, so the first recall does not wait for it.
    let stopping = false;
    cairn.embedder.embedQuery("warm up").catch((error) => {
      if (!stopping) {
        log(`cairn serve: the embedding model did not load: ${(error as Error).message}`);
      }
    });
    // And the lexical index, a few documents at a time between requests, for the first search.
    cairn.text.warm().catch((error) => {
      log(`cairn serve: the lexical index could not be built: ${(error as Error).message}`);
    });
    // A store of a team (config.json's `team`) syncs with it while its owner runs.
    const teamSync = syncInBackground(cairn.store, log);
    cairn.servedBy = { ...cairn.servedBy, team: () => teamSync.state() };
    await untilStopped(idleSeconds, () => activity.last(), stepAside.promise);
    stopping = true;
    log("cairn serve: stopping");
    // An index run or a wait for vectors under way ends at its next step, and its caller is told.
    cairn.store.interruptWork();
    await teamSync.stop();
    await http.shutdown();
  } finally {
    await removeOwnerRecord(storeDir, Deno.pid);
    await cairn.close();
  }
  return 0;
}

/**
 * Runs one relayed command on the owner's store; what it writes goes back as
 * it is written, one JSON object a line, and its exit code last.
 */
async function relayedCommand(
  request: Request,
  storeDir: string,
  owner: Cairn,
  runCommand: RunInOwner,
  activity: OwnerActivity,
): Promise<Response> {
  const parsed = CliRequest.safeParse(await request.json().catch(() => undefined));
  if (!parsed.success) {
    return Response.json({ error: `bad command request: ${describeIssues(parsed.error)}` }, {
      status: 400,
    });
  }
  const { args, cwd, roots, stdin } = parsed.data;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (line: CliLine) => {
        // A caller that went away (Ctrl-C) no longer reads: the command runs to its end anyway.
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(JSON.stringify(line) + "\n"));
        } catch {
          open = false;
        }
      };
      const code = await activity.during(() =>
        runCommand(
          ["--store", storeDir, ...args],
          {
            out: (out) => send({ out }),
            err: (err) => send({ err }),
            progress: (progress, done) =>
              send({ progress, ...(done === undefined ? {} : { done }) }),
          },
          { inOwner: { owner, cwd, roots, ...(stdin === undefined ? {} : { stdin }) } },
        )
      );
      send({ code });
      if (open) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
}
