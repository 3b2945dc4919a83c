import { dirname } from "node:path";
import {
  Connection,
  Database,
  type KuzuValue,
  type PreparedStatement,
  type QueryResult,
} from "kuzu";
import { exists, syncDir } from "../../events/durable_fs.ts";

/** A row returned by a Cypher query. */
export type Row = Record<string, KuzuValue>;

/** The files Kùzu keeps beside a database file, named by suffix. */
const KUZU_SIDE_FILES = [".wal", ".shadow", ".tmp"] as const;

/**
 * A Kùzu database on disk with prepared, parameterised statements (cached by
 * text) and results always closed, which Kùzu needs before the database closes.
 */
export class KuzuDb {
  #statements = new Map<string, PreparedStatement>();
  #running = 0;
  #idle: PromiseWithResolvers<void> | undefined;
  #swapping: Promise<void> | undefined;

  private constructor(
    /** The database file. */
    readonly path: string,
    private db: Database,
    private conn: Connection,
  ) {}

  /** Opens (creating) the database file at `path`; its directory must exist. */
  static async open(path: string): Promise<KuzuDb> {
    const { db, conn } = await connect(path);
    return new KuzuDb(path, db, conn);
  }

  /**
   * Runs one statement with parameters and returns every row. An empty list
   * after `IN $name` is given its type: left untyped, it crashes the process
   * inside Kùzu (0.11.3).
   */
  run(cypher: string, params: Record<string, KuzuValue> = {}): Promise<Row[]> {
    for (const [name, value] of Object.entries(params)) {
      if (Array.isArray(value) && value.length === 0) {
        cypher = cypher.replaceAll(
          new RegExp(`\\bIN \\$${name}\\b`, "g"),
          `IN CAST($${name} AS STRING[])`,
        );
      }
    }
    return this.#use(async () => {
      let statement = this.#statements.get(cypher);
      if (!statement) {
        statement = await this.conn.prepare(cypher);
        if (!statement.isSuccess()) throw new Error(`${statement.getErrorMessage()} in: ${cypher}`);
        this.#statements.set(cypher, statement);
      }
      return await drain(await this.conn.execute(statement, params));
    });
  }

  /** Runs a statement that takes no parameters (DDL, transactions). */
  async exec(cypher: string): Promise<void> {
    await this.#use(async () => drain(await this.conn.query(cypher)));
  }

  /** Runs `work` in one write transaction, rolled back if it throws. */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.exec("BEGIN TRANSACTION");
    try {
      const result = await work();
      await this.exec("COMMIT");
      return result;
    } catch (error) {
      await this.exec("ROLLBACK").catch(() => {});
      throw error;
    }
  }

  /**
   * Puts the closed database at `source` in place of this one (its files are
   * moved, and this one's deleted) and opens it: whoever holds this object goes
   * on using it. Statements running finish first; those that come meanwhile wait
   * for the swap. Must not be called inside a transaction.
   */
  async replaceWith(source: string): Promise<void> {
    const swap = this.#swap(source);
    this.#swapping = swap;
    try {
      await swap;
    } finally {
      this.#swapping = undefined;
    }
  }

  /** Closes the connection and the database. */
  async close(): Promise<void> {
    this.#statements.clear();
    await this.conn.close();
    await this.db.close();
    await ownerOnly(this.path);
  }

  async #swap(source: string): Promise<void> {
    if (this.#running > 0) {
      this.#idle = Promise.withResolvers();
      await this.#idle.promise;
      this.#idle = undefined;
    }
    await this.close();
    await moveDatabase(source, this.path);
    ({ db: this.db, conn: this.conn } = await connect(this.path));
  }

  /** Runs `work` once no swap is under way, counting it as running until it settles. */
  async #use<T>(work: () => Promise<T>): Promise<T> {
    while (this.#swapping) await this.#swapping.catch(() => {});
    this.#running++;
    try {
      return await work();
    } finally {
      this.#running--;
      if (this.#running === 0) this.#idle?.resolve();
    }
  }
}

/**
 * The most a graph may grow to. Kùzu reserves this much address space for
 * each open database (8 TiB unless told): a process holding several stores
 * (an owner's graph and its rebuild, three team members in a test) ran out
 * of the 128 TiB a process has. 1 TiB is far beyond any graph cairn keeps.
 */
const MAX_DB_BYTES = 2 ** 40;

async function connect(path: string): Promise<{ db: Database; conn: Connection }> {
  const db = new Database(path, 0, true, false, MAX_DB_BYTES);
  await db.init();
  const conn = new Connection(db);
  await conn.init();
  await ownerOnly(path);
  return { db, conn };
}

/**
 * Makes the database's files readable by their owner alone: Kùzu creates them
 * readable by everyone (and again when it checkpoints), and they hold every
 * memory's text.
 */
async function ownerOnly(path: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  for (const file of [path, ...KUZU_SIDE_FILES.map((suffix) => path + suffix)]) {
    await Deno.chmod(file, 0o600).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
}

/** Moves the database file `source` and its side files to `target`, replacing target's. */
async function moveDatabase(source: string, target: string): Promise<void> {
  for (const suffix of KUZU_SIDE_FILES) {
    await Deno.remove(target + suffix).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  await Deno.rename(source, target);
  for (const suffix of KUZU_SIDE_FILES) {
    if (await exists(source + suffix)) await Deno.rename(source + suffix, target + suffix);
  }
  await syncDir(dirname(target));
}

async function drain(results: QueryResult | QueryResult[]): Promise<Row[]> {
  const list = Array.isArray(results) ? results : [results];
  const rows: Row[] = [];
  for (const result of list) {
    try {
      // One row at a time: spreading a result of some 150k rows overflows the call stack.
      for (const row of await result.getAll()) rows.push(row);
    } finally {
      result.close();
    }
  }
  return rows;
}
