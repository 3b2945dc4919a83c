import { basename, resolve } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../../events/blobs.ts";
import type { NewEvent } from "../../events/schema.ts";
import {
  detailsKey,
  type Known,
  type KnownTurn,
  SessionState,
} from "../../projections/session_state.ts";
import { claudeFormat } from "../ingest/transcripts/claude.ts";
import { codexFormat } from "../ingest/transcripts/codex.ts";
import type { Entry, TranscriptFormat, TranscriptParser } from "../ingest/transcripts/entry.ts";
import { isSubAgentFile, parentSessionOf } from "../ingest/transcripts/files.ts";
import { readFirstLine, readLinesFrom } from "../ingest/transcripts/jsonl.ts";
import { type IndexedProject, ProjectResolver } from "../ingest/transcripts/project.ts";
import { redact } from "../ingest/redact.ts";
import { groupTurns, type Turn, turnMentions, turnText } from "../ingest/transcripts/turns.ts";
import { UserError } from "../errors.ts";
import { followed } from "./followed.ts";
import type { Store } from "./store.ts";

/** What `ingest` accepts. */
export const IngestInput = z.object({
  /** A transcript file. */
  path: z.string().min(1),
  agent: z.enum(["claude", "codex"]),
  /** The session has ended: its last turn is final, not provisional. */
  final: z.boolean().default(false),
});

/** What one ingest of a transcript did. */
export interface IngestReport {
  path: string;
  session: string | null;
  /** Turns read this time (the earlier last turn included). */
  turns: number;
  /** Turns stored for the first time. */
  added: number;
  /** Turns retracted and stored again because they changed (a provisional turn went on). */
  replaced: number;
  /** Turns read again and found unchanged (nothing appended for them). */
  unchanged: number;
  /** Turns not stored because their project opted out. */
  optedOut: number;
  /** Stored turns no longer in the transcript, retracted. */
  removed: number;
  /** Secrets redacted and `<private>` spans dropped. */
  redactions: number;
  /** Records of types this parser does not know, by type: skipped. */
  unknown: Record<string, number>;
  /** Lines that are not JSON (skipped). */
  invalidLines: number;
  /** Lines over {@linkcode MAX_LINE_CHARS} (skipped: a record that size is a tool's runaway output). */
  oversizedLines: number;
  /** The last line was still being written (left for the next ingest). */
  partialLine: boolean;
  /** Lines where the agent's context was compacted, among those read. */
  compactions: number[];
  bytesRead: number;
}

/** Entries read from a transcript, from byte `from` (line `firstLine`) on. */
interface Read {
  entries: Entry[];
  from: number;
  firstLine: number;
  session: string | null;
  /** The working directory stated before `from` (in a Codex header). */
  cwd: string | null;
}

const FORMATS: Record<"claude" | "codex", TranscriptFormat> = {
  claude: claudeFormat,
  codex: codexFormat,
};

/**
 * Agent sessions: reads Claude Code and Codex transcripts into
 * `turn.ingested` events, incrementally. A transcript's next read starts at
 * its last turn (`transcript.advanced` holds that byte offset), so a re-ingest
 * reads the new bytes plus that one turn; the last turn is provisional until
 * the session goes on (or ends), and is then retracted and stored again with
 * its mentions. A Claude Code sub-agent's own file (`agent-<id>.jsonl`) is
 * read the same way, into the session `<parent session>/agent-<id>`, so its
 * turns name their parent and never share a key with the parent's. Secrets
 * are redacted before anything is stored; a project with an
 * `.cairn-no-sessions` file in its root is skipped.
 */
export class Sessions {
  #state: () => Promise<SessionState>;
  #projects = new ProjectResolver();

  constructor(
    private readonly store: Store,
    /** The indexed projects, so a session is filed under the project its code is indexed as. */
    private readonly indexedProjects: () => Promise<IndexedProject[]> = () => Promise.resolve([]),
    /** The store's session state; a store opened without one has one built in memory. */
    state?: SessionState,
  ) {
    this.#state = followed(store.log, state, SessionState.inMemory);
  }

  /** Reads what is new in one transcript and appends its turns' events. */
  async ingest(input: z.input<typeof IngestInput>): Promise<IngestReport> {
    const { agent, final, ...rest } = IngestInput.parse(input);
    const path = resolve(rest.path);
    const stat = await Deno.stat(path).catch(() => undefined);
    if (!stat?.isFile) throw new UserError(`no transcript file at ${path}`);
    const known = (await this.#state()).known;
    const subAgent = agent === "claude" && isSubAgentFile(path);
    const newParser = () => FORMATS[agent].newParser({ subAgent });
    const report: IngestReport = {
      path,
      session: null,
      turns: 0,
      added: 0,
      replaced: 0,
      unchanged: 0,
      optedOut: 0,
      removed: 0,
      redactions: 0,
      unknown: {},
      invalidLines: 0,
      oversizedLines: 0,
      partialLine: false,
      compactions: [],
      bytesRead: 0,
    };

    const previous = known.transcripts.get(path);
    const resumed = previous && previous.offset > 0 && previous.offset <= stat.size
      ? await this.#readFrom(path, newParser, previous.offset, previous.session, known, report)
      : undefined;
    if (!resumed) Object.assign(report, { unknown: {}, invalidLines: 0, oversizedLines: 0 });
    const read = resumed ?? (await this.#readFrom(path, newParser, 0, null, known, report))!;
    const session = previous?.session && read.from > 0
      ? previous.session
      : sessionOf(path, read.session, subAgent);
    report.session = session;

    const grouped = groupTurns(read.entries, read.cwd);
    const indexed = grouped.turns.length > 0 ? await this.indexedProjects() : [];
    report.compactions = grouped.compactions;
    report.turns = grouped.turns.length;
    const live = known.turns.get(session) ?? new Map<number, KnownTurn>();
    const events: NewEvent[] = [];
    const texts: string[] = [];
    const seen = new Set<number>();
    let resume = read.from;
    for (const [i, turn] of grouped.turns.entries()) {
      seen.add(turn.line);
      const project = this.#projects.of(turn.cwd, indexed);
      if (project.optedOut) {
        report.optedOut++;
        continue;
      }
      const provisional = !final && i === grouped.turns.length - 1;
      const built = await buildTurn(turn, { cwd: turn.cwd, root: project.root });
      report.redactions += built.redactions;
      resume = turn.offset;
      const existing = live.get(turn.line);
      if (
        existing && existing.text === built.hash && existing.provisional === provisional &&
        existing.details === detailsKey(built.mentions, turn.compactions)
      ) {
        report.unchanged++;
        continue;
      }
      if (existing) {
        events.push({ type: "turn.retracted", v: 1, data: { session, line: turn.line } });
        report.replaced++;
      } else report.added++;
      texts.push(built.text);
      events.push({
        type: "turn.ingested",
        v: 1,
        data: {
          agent,
          session,
          line: turn.line,
          project: project.name,
          started_at: turn.startedAt,
          provisional,
          text: built.hash,
          mentions: built.mentions,
          ...(turn.compactions.length > 0 ? { compactions: turn.compactions } : {}),
        },
      });
    }
    const firstLine = read.firstLine;
    // Only a transcript that owns its session may withdraw the session's turns.
    for (const line of previous?.session === session ? live.keys() : []) {
      if (line >= firstLine && !seen.has(line)) {
        events.push({ type: "turn.retracted", v: 1, data: { session, line } });
        report.removed++;
      }
    }
    if (!previous || previous.offset !== resume || previous.session !== session) {
      if (resume > 0 || previous) {
        events.push({ type: "transcript.advanced", v: 1, data: { path, offset: resume, session } });
      }
    }
    if (events.length === 0) return report;
    using _held = await this.store.blobs.hold(texts);
    await this.store.append(events);
    return report;
  }

  /**
   * Reads entries from `offset` on. A read from a remembered offset must
   * start at the remembered last turn (same line, same start time); if the
   * file was rewritten instead of appended to, returns undefined and the
   * caller reads it whole.
   */
  async #readFrom(
    path: string,
    newParser: () => TranscriptParser,
    offset: number,
    session: string | null,
    known: Known,
    report: IngestReport,
  ): Promise<Read | undefined> {
    const live = session ? known.turns.get(session) : undefined;
    const lastLine = live && live.size > 0 ? Math.max(...live.keys()) : undefined;
    if (offset > 0 && lastLine === undefined) return undefined;
    const firstLine = offset > 0 ? lastLine! : 0;
    const parser = newParser();
    let cwd: string | null = null;
    if (offset > 0) {
      // Formats that state the working directory once (Codex) keep it in the first line.
      const header = await readFirstLine(path);
      const parsed = header ? parseLine(parser, header, report) : undefined;
      for (const entry of parsed?.entries ?? []) if (entry.kind === "context") cwd = entry.cwd;
    }
    const { lines, partial, bytesRead } = await readLinesFrom(path, offset, firstLine);
    const entries: Entry[] = [];
    let found: string | null = null;
    for (const line of lines) {
      const parsed = parseLine(parser, line, report);
      if (!parsed) continue;
      found ??= parsed.session ?? null;
      entries.push(...parsed.entries);
    }
    if (offset > 0) {
      const first = entries[0];
      const expected = live!.get(firstLine)!;
      if (
        first?.kind !== "prompt" || first.line !== firstLine ||
        first.timestamp !== expected.startedAt
      ) {
        return undefined;
      }
    }
    report.partialLine = partial !== null;
    report.bytesRead += bytesRead;
    return { entries, from: offset, firstLine, session: found, cwd };
  }
}

/**
 * A transcript's session id: the one its records carry, else its file name.
 * A sub-agent's own file (`agent-*.jsonl`) carries its parent's id (or lies in
 * the parent's folder), so it gets `<parent>/<file>` to keep its lines apart
 * from the parent's.
 */
function sessionOf(path: string, recorded: string | null, subAgent: boolean): string {
  const name = basename(path).replace(/\.jsonl$/, "");
  if (!subAgent) return recorded ?? name;
  const parent = recorded ?? parentSessionOf(path);
  return parent ? `${parent}/${name}` : name;
}

/** Transcript lines longer than this are skipped, not parsed. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

function parseLine(
  parser: ReturnType<TranscriptFormat["newParser"]>,
  line: { index: number; offset: number; text: string },
  report: IngestReport,
) {
  if (!line.text.trim()) return undefined;
  // Parsing takes about ten times a line's size in memory: a line of hundreds of megabytes is not.
  if (line.text.length > MAX_LINE_CHARS) {
    report.oversizedLines++;
    return undefined;
  }
  let record: unknown;
  try {
    record = JSON.parse(line.text);
  } catch {
    report.invalidLines++;
    return undefined;
  }
  const parsed = parser.parse(record, line);
  if (!parsed.known) report.unknown[parsed.type] = (report.unknown[parsed.type] ?? 0) + 1;
  return parsed;
}

async function buildTurn(turn: Turn, place: { cwd: string | null; root: string | null }) {
  const { text, redactions } = redact(turnText(turn, place));
  const mentions = turnMentions(turn, place, (command) => redact(command).text);
  return { text, redactions, mentions, hash: await sha256Hex(text) };
}
