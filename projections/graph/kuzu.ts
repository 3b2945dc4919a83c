import {
  Connection,
  Database,
  type KuzuValue,
  type PreparedStatement,
  type QueryResult,
} from "kuzu";

/** A row returned by a Cypher query. */
export type Row = Record<string, KuzuValue>;

/**
 * A Kùzu database on disk with prepared, parameterised statements (cached by
 * text) and results always closed, which Kùzu needs before the database closes.
 */
export class KuzuDb {
  #statements = new Map<string, PreparedStatement>();

  private constructor(private readonly db: Database, private readonly conn: Connection) {}

  /** Opens (creating) the database file at `path`; its directory must exist. */
  static async open(path: string): Promise<KuzuDb> {
    const db = new Database(path);
    await db.init();
    const conn = new Connection(db);
    await conn.init();
    return new KuzuDb(db, conn);
  }

  /** Runs one statement with parameters and returns every row. */
  async run(cypher: string, params: Record<string, KuzuValue> = {}): Promise<Row[]> {
    let statement = this.#statements.get(cypher);
    if (!statement) {
      statement = await this.conn.prepare(cypher);
      if (!statement.isSuccess()) throw new Error(`${statement.getErrorMessage()} in: ${cypher}`);
      this.#statements.set(cypher, statement);
    }
    const results = await this.conn.execute(statement, params);
    return await drain(results);
  }

  /** Runs a statement that takes no parameters (DDL, transactions). */
  async exec(cypher: string): Promise<void> {
    await drain(await this.conn.query(cypher));
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

  /** Closes the connection and the database. */
  async close(): Promise<void> {
    this.#statements.clear();
    await this.conn.close();
    await this.db.close();
  }
}

async function drain(results: QueryResult | QueryResult[]): Promise<Row[]> {
  const list = Array.isArray(results) ? results : [results];
  const rows: Row[] = [];
  for (const result of list) {
    try {
      rows.push(...await result.getAll());
    } finally {
      result.close();
    }
  }
  return rows;
}
