/**
 * The `team` section of a store's `config.json`: the NATS servers a team's
 * stores replicate through, and which projects are shared.
 * @module
 */
import { z } from "zod";
import { describeIssues, UserError } from "../errors.ts";
import { configPath, readConfigJson } from "../service/config.ts";

/** NATS subject tokens cannot hold these; a stream name cannot hold the first five either. */
const NAME = /^[A-Za-z0-9_-]+$/;

/** The `team` section of config.json. */
export const TeamConfig = z.object({
  /** NATS server URLs: `nats://host:4222`, several for a cluster. */
  servers: z.array(
    z.string().regex(
      /^((nats|tls|wss?):\/\/)?[^\s/:]+(:\d+)?$/,
      "a NATS server looks like nats://host:4222 (or tls://, ws://, wss://, or host:port)",
    ),
  ).min(1),
  /** A NATS credentials file (`.creds`); the environment variable NATS_CREDS names one too. */
  credentials: z.string().min(1).optional(),
  /** A NATS user, with `password_env`: the environment variable holding its password. */
  user: z.string().min(1).optional(),
  password_env: z.string().min(1).optional(),
  /** The projects whose memories and knowledge graph are shared; `"*"` shares every project. */
  projects: z.array(z.string().min(1)).default([]),
  /** Share memories and entities that belong to no project. */
  global: z.boolean().default(false),
  /** The shared projects whose agent sessions are shared too (opt-in; redacted at ingest). */
  sessions: z.array(z.string().min(1)).default([]),
  /** This store's name in the team; default: one drawn once and kept in `<store>/team/member`. */
  member: z.string().regex(NAME, "letters, digits, - and _ only").optional(),
  /** The JetStream stream (created when missing). */
  stream: z.string().regex(NAME, "letters, digits, - and _ only").default("CAIRN"),
  /** Subjects are `<subject_prefix>.<project>`. */
  subject_prefix: z.string().regex(NAME, "letters, digits, - and _ only").default("cairn"),
  /**
   * Share computed embeddings through the key-value bucket `<stream>_VECTORS`, keyed by
   * (model, sha256 of the text): what one member or a CI box embedded, the others do not.
   */
  vectors: z.boolean().default(true),
  /** Copies of the stream a cluster keeps (3 on a 3-node cluster). */
  replicas: z.number().int().min(1).max(5).default(1),
}).strict().refine((team) => (team.user === undefined) === (team.password_env === undefined), {
  message: "give user and password_env together (the password itself never goes in config.json)",
});

/** The `team` section of config.json, defaults filled in. */
export type TeamConfig = z.infer<typeof TeamConfig>;

/** The store's `team` settings, or undefined when config.json has none. */
export async function loadTeamConfig(storeDir: string): Promise<TeamConfig | undefined> {
  const json = await readConfigJson(storeDir);
  const team = (json as { team?: unknown } | null)?.team;
  if (team === undefined) return undefined;
  const parsed = TeamConfig.safeParse(team);
  if (!parsed.success) {
    throw new UserError(`${configPath(storeDir)}: team: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}

/** The team settings, or a {@linkcode UserError} saying how to write them. */
export async function requireTeamConfig(storeDir: string): Promise<TeamConfig> {
  const team = await loadTeamConfig(storeDir);
  if (team) return team;
  throw new UserError(
    `${configPath(storeDir)} has no "team" section; add one like ` +
      `{"team": {"servers": ["nats://127.0.0.1:4222"], "projects": ["api"]}} to sync`,
  );
}
