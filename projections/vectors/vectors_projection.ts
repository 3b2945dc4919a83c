import { join } from "node:path";
import { BlobError, type BlobStore, sha256Hex } from "../../events/blobs.ts";
import { exists, removeAtomicLeftovers, writeFileAtomic } from "../../events/durable_fs.ts";
import { boundedFileName } from "../../events/file_names.ts";
import { embeddedChunksOf } from "../../events/kinds/code.ts";
import type { StoredEvent } from "../../events/schema.ts";
import type { Embedder } from "../../text/embedder.ts";
import { turnWindows } from "../../text/turn_windows.ts";
import type { Projection } from "../projection.ts";
import {
  documentsOf,
  type LogView,
  type PendingDocuments,
  VectorBacklog,
  type VectorSource,
} from "./backlog.ts";
import { ENTITY_PARTITION, entityOfVector, entityVectorChanges } from "./entity_vectors.ts";
import { type VectorEntry, type VectorHit, VectorPartition } from "./vector_partition.ts";

export type { VectorSource };

/** A code file near a query by its pooled vector, with its chunks' ids. */
export interface FileHit {
  path: string;
  distance: number;
  chunks: string[];
}

/** Raised when a store's vectors were built by another embedding model. */
export class ModelMismatchError extends Error {
  override name = "ModelMismatchError";
}

/**
 * Memory events a batch applies past its own, ahead of the code and turns
 * logged before them, so a memory waits for one batch, not for the backlog;
 * few enough that a large import still goes in batches of seconds.
 */
const MEMORIES_AHEAD = 32;

/** The events that end documents' vectors (see {@linkcode VectorsProjection.dropEnded}). */
const ENDING: ReadonlySet<string> = new Set([
  "memory.forgotten",
  "memory.purged",
  "file.removed",
  "turn.retracted",
  "project.deleted",
  "entity.deleted",
  "observations.deleted",
  "relation.deleted",
]);

/** How the ids of a turn's later windows end: `turn:<session>:<line>#2`. */
const WINDOW_SUFFIX = /#\d+$/;

/** A code file whose chunks changed in a batch: its pooled vector is made again. */
interface ChangedFile {
  /** The code partition its chunks are in. */
  partition: string;
  path: string;
  /** The texts of all its chunks (none: the file is gone). */
  texts: string[];
}

type Change =
  | { id: string; partition: string; text: string; group?: string }
  | { id: string; remove: true }
  | { group: string; partition: string; keep: ReadonlySet<string> };

/**
 * Embeddings of every searchable text, one USearch index per source and
 * project; and beside each project's code, one vector per file: its chunks'
 * vectors pooled (averaged), which finds a file whose meaning is spread over
 * its chunks. It runs in the background lane: writes never wait for
 * embeddings, and its checkpoint says how far the vectors have got.
 */
export class VectorsProjection implements Projection {
  readonly name = "vectors";
  /** The version of what the files hold: a checkpoint of another is rebuilt at the next open. */
  static readonly VERSION = 4;
  readonly version = VectorsProjection.VERSION;
  readonly background = true;
  #partitions = new Map<string, VectorPartition>();
  #partitionOf = new Map<string, string>();
  #blobWarned = false;
  #stop: (reason: Error) => void = () => {};
  /** Rejects once `stop` is called: a batch waiting on the model gives up then. */
  #stopped = new Promise<never>((_, reject) => (this.#stop = reject));
  readonly #backlog: VectorBacklog;
  /** Whether {@linkcode VectorsProjection.#recognizeAhead} ran since the backlog was last read afresh. */
  #recognized = false;
  /** The batch or drop being applied: the next waits for it. */
  #applying: Promise<unknown> = Promise.resolve();
  /** Documents embedded and seconds spent, over the last few batches. */
  #pace: Array<{ documents: number; seconds: number }> = [];

  private constructor(
    private readonly dir: string,
    private readonly embedder: Embedder,
    private readonly blobs: BlobStore,
    private readonly dims: number,
    log: LogView,
  ) {
    this.#stopped.catch(() => {});
    this.#backlog = new VectorBacklog(log);
  }

  /**
   * Opens the vectors in `dir`. Refuses vectors built by another model: mixing
   * two models' vectors would make distances meaningless. With the `log`, the
   * projection reads ahead in it: it never embeds what a later event undoes,
   * and tells how much is left to embed.
   */
  static async open(
    dir: string,
    embedder: Embedder,
    blobs: BlobStore,
    log: LogView = NO_LOG,
  ): Promise<VectorsProjection> {
    await Deno.mkdir(dir, { recursive: true });
    // Without a model nothing is embedded or compared: the vectors stay as they
    // are (searchable by the width they were built with), and events wait in
    // the background lane until the model is back.
    const dims = embedder.unavailable !== undefined
      ? (await builtWith(dir))?.dims ?? 0
      : await checkModel(dir, embedder);
    const projection = new VectorsProjection(dir, embedder, blobs, dims, log);
    await removeAtomicLeftovers(dir);
    for await (const entry of Deno.readDir(dir)) {
      const match = /^(.+)\.keys$/.exec(entry.name);
      if (match) await projection.#partition(match[1]!);
    }
    return projection;
  }

  /** The model that built these vectors. */
  get model(): string {
    return this.embedder.id;
  }

  apply(batch: readonly StoredEvent[]): Promise<void> {
    return this.#oneAtATime(() => this.#applyBatch(batch));
  }

  async #applyBatch(batch: readonly StoredEvent[]): Promise<void> {
    if (this.embedder.unavailable !== undefined) throw this.embedder.unavailable;
    const started = performance.now();
    await this.#backlog.advance(batch[0]!.seq - 1);
    await this.#recognizeAhead();
    const ahead = this.#backlog.memoriesAhead(batch.at(-1)!.seq, MEMORIES_AHEAD);
    const embedded = await this.#applyEvents(
      [...batch, ...ahead].filter((event) =>
        !this.#backlog.undone(event) && !this.#backlog.appliedAhead(event)
      ),
    );
    await this.#backlog.advance(batch.at(-1)!.seq);
    this.#backlog.markAhead(ahead);
    if (embedded > 0) {
      this.#pace = [
        ...this.#pace.slice(-(PACE_BATCHES - 1)),
        { documents: embedded, seconds: (performance.now() - started) / 1000 },
      ];
    }
  }

  /**
   * Drops at once what `events` end (forgetting, purging, removing a file or
   * a turn, deleting a project): compaction calls it with the events it is
   * about to take out of the log before the vectors have read them, which
   * would otherwise leave their vectors behind for good. Events of other
   * kinds are passed over; nothing is embedded, so no model is needed.
   */
  async dropEnded(events: readonly StoredEvent[]): Promise<void> {
    // After the batch in flight, which may add what these events end.
    await this.#oneAtATime(() =>
      this.#applyEvents(events.filter((event) => ENDING.has(event.type)))
    );
  }

  /**
   * Once after the backlog is read from the checkpoint: notes as applied ahead
   * the memories whose vectors already are what their latest event past the
   * checkpoint makes them (taken ahead before the process stopped), so they
   * are not counted as waiting, nor embedded again.
   */
  async #recognizeAhead(): Promise<void> {
    if (this.#recognized) return;
    this.#recognized = true;
    const byMemory = new Map<string, StoredEvent[]>();
    for (const event of this.#backlog.memoriesAhead(0, Infinity)) {
      const id = `memory:${(event.data as { id: string }).id}`;
      byMemory.set(id, [...byMemory.get(id) ?? [], event]);
    }
    for (const [id, events] of byMemory) {
      let text: string | undefined;
      for (const event of events) {
        if (event.type === "memory.remembered") text = event.data.content;
        else if (event.type === "memory.revised") text = event.data.content ?? text;
        else text = undefined;
      }
      const partition = this.#partitions.get(this.#partitionOf.get(id) ?? "");
      const done = text === undefined
        ? partition === undefined
        : partition?.holds(id, await sha256Hex(text)) === true;
      if (done) this.#backlog.markAhead(events);
    }
  }

  /** Runs `work` after every earlier batch or drop has finished. */
  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#applying.then(work, work);
    this.#applying = run.catch(() => {});
    return run;
  }

  /** Applies `events` in order: drops, embeds and saves; returns how many texts were embedded. */
  async #applyEvents(events: readonly StoredEvent[]): Promise<number> {
    const changes = new Map<string, Change>();
    const queuedIn = new Map<string, Set<string>>();
    for (const event of events) {
      for (const change of await this.#changesOf(event, changes)) {
        if ("id" in change) {
          changes.set(change.id, change);
          if ("text" in change && change.group !== undefined) {
            setOf(queuedIn, groupKey(change.partition, change.group)).add(change.id);
          }
          continue;
        }
        // A group's newer member list also undoes the queued upserts of members it no longer has.
        const key = groupKey(change.partition, change.group);
        for (const id of queuedIn.get(key) ?? []) {
          if (!change.keep.has(id)) changes.delete(id);
        }
        queuedIn.delete(key);
        changes.set(key, change);
      }
    }
    const upserts: Array<
      { id: string; partition: string; text: string; hash: string; group: string }
    > = [];
    /** Each text's hash, which a file's pooled vector is keyed by too. */
    const hashOf = new Map<string, string>();
    for (const change of changes.values()) {
      if ("keep" in change) {
        const partition = await this.#partition(change.partition);
        for (const id of partition.members(change.group)) {
          if (!change.keep.has(id)) this.#drop(id);
        }
        continue;
      }
      if ("remove" in change) {
        this.#drop(change.id);
        continue;
      }
      const hash = await sha256Hex(change.text);
      hashOf.set(change.text, hash);
      const previous = this.#partitionOf.get(change.id);
      if (previous && previous !== change.partition) this.#drop(change.id);
      if (!(await this.#partition(change.partition)).holds(change.id, hash)) {
        upserts.push({ ...change, hash, group: change.group ?? "" });
      }
    }
    const vectors = await this.#embed(upserts.map((u) => u.text));
    const byPartition = new Map<string, VectorEntry[]>();
    for (const [i, upsert] of upserts.entries()) {
      let entries = byPartition.get(upsert.partition);
      if (!entries) byPartition.set(upsert.partition, entries = []);
      entries.push({
        id: upsert.id,
        textHash: upsert.hash,
        vector: vectors[i]!,
        group: upsert.group,
      });
      this.#partitionOf.set(upsert.id, upsert.partition);
    }
    for (const [name, entries] of byPartition) (await this.#partition(name)).upsertMany(entries);
    const embedded = new Map(upserts.map((upsert, i) => [upsert.text, vectors[i]!]));
    await this.#poolFiles(changedFiles(changes.values()), embedded, hashOf);
    for (const partition of this.#partitions.values()) await partition.save();
    return upserts.length;
  }

  /** Documents `event` gives to embed: what a background batch is measured in. */
  workOf(event: StoredEvent): number {
    return documentsOf(event);
  }

  /** Takes in events just appended, before they are applied (see {@linkcode VectorBacklog}). */
  observe(events: readonly StoredEvent[]): void {
    this.#backlog.observe(events);
  }

  /**
   * Documents past `checkpoint` (the projection's, from its runner) still
   * waiting for a vector, per source and project; memories count under no
   * project, and the code of files `lowered` picks out apart. What a later
   * event undoes is not counted: it is never embedded.
   */
  async pending(
    checkpoint: number,
    lowered?: (path: string) => boolean,
  ): Promise<PendingDocuments[]> {
    await this.#backlog.advance(checkpoint);
    await this.#recognizeAhead();
    return this.#backlog.pending(lowered);
  }

  /**
   * The memories past `checkpoint` whose current text has no vector yet (a
   * memory remembered a moment ago): what a search of memories by meaning
   * cannot find until the vectors take them in.
   */
  async waitingMemories(checkpoint: number): Promise<string[]> {
    await this.#backlog.advance(checkpoint);
    await this.#recognizeAhead();
    return this.#backlog.waitingMemories();
  }

  /**
   * Texts embedded per second over the last few batches; undefined until
   * enough were embedded to tell (a first batch also waits for the model).
   */
  rate(): number | undefined {
    const documents = this.#pace.reduce((sum, batch) => sum + batch.documents, 0);
    const seconds = this.#pace.reduce((sum, batch) => sum + batch.seconds, 0);
    return documents >= PACE_MIN_DOCUMENTS && seconds > 0 ? documents / seconds : undefined;
  }

  /**
   * The nearest documents of `source` to `query`: within `project` (and the
   * global ones) when given, across every project otherwise.
   */
  search(
    source: VectorSource,
    query: Float32Array,
    options: { project?: string | null; limit: number },
  ): VectorHit[] {
    const names = this.#partitionsOf(source, source === "entity" ? null : options.project);
    // A turn has a vector per window, an entity one per fact.
    const perDocument = source === "turn" ? 2 : source === "entity" ? 4 : 1;
    const hits = names.flatMap((name) =>
      this.#partitions.get(name)!.search(query, options.limit * perDocument)
    ).sort((a, b) => a.distance - b.distance);
    if (perDocument === 1) return hits.slice(0, options.limit);
    // A turn's windows are one hit, an entity's facts too: at the nearest one's distance.
    const documents = new Map<string, VectorHit>();
    for (const hit of hits) {
      const id = source === "turn"
        ? hit.id.replace(WINDOW_SUFFIX, "")
        : `entity:${entityOfVector(hit.id)}`;
      if (!documents.has(id)) documents.set(id, { id, distance: hit.distance });
    }
    return [...documents.values()].slice(0, options.limit);
  }

  /**
   * The code files nearest `query` by their pooled vectors (within `project`
   * when given), nearest first, each with its chunks' ids (`project:path:lines`).
   */
  searchFiles(
    query: Float32Array,
    options: { project?: string | null; limit: number },
  ): FileHit[] {
    const hits = this.#partitionsOf("file", options.project).flatMap((name) => {
      const files = this.#partitions.get(name)!;
      const code = this.#partitions.get(codePartitionOf(name));
      return files.search(query, options.limit).map((hit) => {
        const path = files.groupOf(hit.id)!;
        const chunks = (code?.members(path) ?? []).map((id) => id.slice("code:".length)).sort();
        return { path, distance: hit.distance, chunks };
      });
    });
    return hits.sort((a, b) => a.distance - b.distance).slice(0, options.limit);
  }

  /** Vectors held, files' pooled ones too: a lost partition of either shows at the next open. */
  count(): Promise<number> {
    let total = 0;
    for (const partition of this.#partitions.values()) total += partition.size;
    return Promise.resolve(total);
  }

  /** Vectors held of `source` in `project` (and the global partition), or in every project when null. */
  held(source: VectorSource, project: string | null): number {
    return this.#partitionsOf(source, project)
      .reduce((sum, name) => sum + (this.#partitions.get(name)?.size ?? 0), 0);
  }

  /** Vectors held per source (a file's pooled vector is none). */
  counts(): Record<VectorSource, number> {
    const counts = { memory: 0, code: 0, turn: 0, entity: 0 };
    for (const [name, partition] of this.#partitions) {
      const source = name.split(".")[0]!;
      if (source in counts) counts[source as VectorSource] += partition.size;
    }
    return counts;
  }

  /** Vectors held, every source together. */
  total(): number {
    return Object.values(this.counts()).reduce((sum, n) => sum + n, 0);
  }

  async reset(): Promise<void> {
    this.#backlog.restart();
    this.#recognized = false;
    this.#partitions.clear();
    this.#partitionOf.clear();
    for await (const entry of Deno.readDir(this.dir)) {
      if (entry.name !== "model.json") {
        await Deno.remove(join(this.dir, entry.name), { recursive: true });
      }
    }
  }

  async digest(): Promise<string> {
    const entries = [...this.#partitions].flatMap(([name, partition]) =>
      partition.entries().map(([id, hash]) => `${name}\t${id}\t${hash}`)
    );
    return await sha256Hex(entries.sort().join("\n"));
  }

  /**
   * Gives up the batch waiting on the model (which may still be downloading):
   * nothing of it is written, and it is embedded again at the next open.
   */
  stop(): void {
    this.#stop(new Error("the vectors projection stopped"));
  }

  async close(): Promise<void> {
    try {
      for (const partition of this.#partitions.values()) await partition.close();
    } finally {
      await this.embedder.close();
    }
  }

  async #changesOf(event: StoredEvent, pending: ReadonlyMap<string, Change>): Promise<Change[]> {
    switch (event.type) {
      case "memory.remembered":
        return [{
          id: `memory:${event.data.id}`,
          partition: partitionName("memory", event.data.project),
          text: event.data.content,
        }];
      case "memory.revised": {
        const id = `memory:${event.data.id}`;
        const queued = pending.get(id);
        // A revision after the memory was forgotten gives it no vector back.
        if (queued && "remove" in queued) return [];
        const partition = queued && "text" in queued ? queued.partition : this.#partitionOf.get(id);
        return event.data.content !== undefined && partition
          ? [{ id, partition, text: event.data.content }]
          : [];
      }
      case "memory.forgotten":
      case "memory.purged":
        return [{ id: `memory:${event.data.id}`, remove: true }];
      case "file.indexed": {
        const { project, path } = event.data;
        const chunks = embeddedChunksOf(event.data);
        const partition = partitionName("code", project);
        const group = path;
        const texts = await Promise.all(chunks.map((chunk) => this.#blobText(chunk.text)));
        const embedded = chunks.flatMap((chunk, i) => {
          const text = texts[i];
          return text === undefined ? [] : [{ id: `code:${chunk.id}`, text: `${path}\n${text}` }];
        });
        return [
          { group, partition, keep: new Set(embedded.map(({ id }) => id)) },
          ...embedded.map(({ id, text }) => ({ id, partition, group, text })),
        ];
      }
      case "file.removed":
        return [{
          group: event.data.path,
          partition: partitionName("code", event.data.project),
          keep: new Set(),
        }];
      case "project.deleted": {
        const { project } = event.data;
        const code = await this.#partition(partitionName("code", project));
        const files = await this.#partition(partitionName("file", project));
        return [...code.entries(), ...files.entries()]
          .map(([id]) => ({ id, remove: true as const }));
      }
      case "turn.ingested": {
        const { session, line, project, text } = event.data;
        const group = `${session}:${line}`;
        const partition = partitionName("turn", project);
        const turn = await this.#blobText(text);
        const windows = turn === undefined ? [] : turnWindows(turn);
        const ids = windows.map((_, i) => `turn:${group}${i === 0 ? "" : `#${i}`}`);
        return [
          { group, partition, keep: new Set(ids) },
          ...ids.map((id, i) => ({ id, partition, group, text: windows[i]! })),
        ];
      }
      case "turn.retracted": {
        const group = `${event.data.session}:${event.data.line}`;
        const id = `turn:${group}`;
        const queued = pending.get(id);
        const partition = queued && "partition" in queued
          ? queued.partition
          : this.#partitionOf.get(id);
        return partition ? [{ group, partition, keep: new Set() }] : [];
      }
      default: {
        const held = async () => [
          ...(await this.#partition(ENTITY_PARTITION)).entries().map(([id]) => id),
          ...pending.keys(),
        ];
        return (await entityVectorChanges(event, held))
          .map((change) =>
            "remove" in change ? change : { ...change, partition: ENTITY_PARTITION }
          );
      }
    }
  }

  /**
   * A blob's text; undefined when it is missing or damaged, so its document
   * goes without a vector (said once on stderr) and every other goes on.
   */
  async #blobText(hash: string): Promise<string | undefined> {
    try {
      return await this.blobs.get(hash);
    } catch (error) {
      if (!(error instanceof BlobError)) throw error;
      if (!this.#blobWarned) {
        console.error(
          `cairn: ${error.message}: its document has no vector ` +
            "(`cairn verify` checks every blob)",
        );
        this.#blobWarned = true;
      }
      return undefined;
    }
  }

  /** The vectors of `texts`; gives up when the projection stops first. */
  async #embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const embedding = this.embedder.embedDocuments(texts);
    // Awaited by the race below, or abandoned if the projection stops first.
    embedding.catch(() => {});
    return await Promise.race([embedding, this.#stopped]);
  }

  /**
   * Pools the vectors of each changed file's chunks into the file's vector
   * (their mean, normalised), or drops it when the file is gone. Chunks
   * unchanged since the last index were not embedded in this batch: their
   * vectors come from the embedder (its cache holds them). A file's vector is
   * keyed by its chunks' text hashes (`hashOf`), so an unchanged file keeps it.
   */
  async #poolFiles(
    files: readonly ChangedFile[],
    embedded: ReadonlyMap<string, Float32Array>,
    hashOf: ReadonlyMap<string, string>,
  ): Promise<void> {
    const changed: Array<ChangedFile & { id: string; name: string; textHash: string }> = [];
    for (const file of files) {
      const name = filePartitionOf(file.partition);
      const id = `file:${file.partition}:${file.path}`;
      if (file.texts.length === 0) {
        this.#drop(id);
        continue;
      }
      const textHash = await sha256Hex(
        file.texts.map((text) => hashOf.get(text)!).sort().join("\n"),
      );
      if (!(await this.#partition(name)).holds(id, textHash)) {
        changed.push({ ...file, id, name, textHash });
      }
    }
    const missing = [...new Set(changed.flatMap((file) => file.texts))]
      .filter((text) => !embedded.has(text));
    const vectors = await this.#embed(missing);
    const vectorOf = new Map([
      ...embedded,
      ...missing.map((text, i) => [text, vectors[i]!] as const),
    ]);
    const byPartition = new Map<string, VectorEntry[]>();
    for (const { id, name, textHash, texts, path } of changed) {
      const vector = pooled(texts.map((text) => vectorOf.get(text)!));
      let entries = byPartition.get(name);
      if (!entries) byPartition.set(name, entries = []);
      entries.push({ id, textHash, vector, group: path });
      this.#partitionOf.set(id, name);
    }
    for (const [name, entries] of byPartition) (await this.#partition(name)).upsertMany(entries);
  }

  /** The partitions of `kind` within `project` (and the global one) when given, else all. */
  #partitionsOf(kind: VectorSource | "file", project: string | null | undefined): string[] {
    return [...this.#partitions.keys()].filter((name) => {
      if (!name.startsWith(`${kind}.`)) return false;
      if (project == null) return true;
      return name === partitionName(kind, project) || name === partitionName(kind, null);
    });
  }

  #drop(id: string): void {
    const name = this.#partitionOf.get(id);
    if (name) this.#partitions.get(name)?.remove(id);
    this.#partitionOf.delete(id);
  }

  async #partition(name: string): Promise<VectorPartition> {
    let partition = this.#partitions.get(name);
    if (!partition) {
      partition = await VectorPartition.open(this.dir, name, this.dims);
      this.#partitions.set(name, partition);
      for (const [id] of partition.entries()) this.#partitionOf.set(id, name);
    }
    return partition;
  }
}

/** How many recent batches {@linkcode VectorsProjection.rate} averages over. */
const PACE_BATCHES = 20;
/** Fewest texts in those batches for a rate. */
const PACE_MIN_DOCUMENTS = 32;

/** No log to read ahead in (a projection built on its own, in tests). */
const NO_LOG: LogView = { read: async function* () {}, head: 0 };

/**
 * The code files whose chunks `changes` replace or drop, each with the texts
 * of all its chunks now (a file's `keep` change lists them all).
 */
function changedFiles(changes: Iterable<Change>): ChangedFile[] {
  const all = [...changes];
  const files = new Map<string, ChangedFile>();
  for (const change of all) {
    if ("keep" in change && change.partition.startsWith("code.")) {
      files.set(groupKey(change.partition, change.group), {
        partition: change.partition,
        path: change.group,
        texts: [],
      });
    }
  }
  for (const change of all) {
    if (!("text" in change) || change.group === undefined) continue;
    files.get(groupKey(change.partition, change.group))?.texts.push(change.text);
  }
  return [...files.values()];
}

/** The mean of `vectors`, normalised to length 1. */
function pooled(vectors: readonly Float32Array[]): Float32Array {
  const sum = new Float32Array(vectors[0]!.length);
  for (const vector of vectors) {
    for (let i = 0; i < sum.length; i++) sum[i]! += vector[i]!;
  }
  const norm = Math.sqrt(sum.reduce((total, x) => total + x * x, 0)) || 1;
  return sum.map((x) => x / norm);
}

/** The partition of a project's files' pooled vectors, beside its code partition `code`. */
function filePartitionOf(code: string): string {
  return `file${code.slice("code".length)}`;
}

/** The code partition whose files the file partition `files` pools. */
function codePartitionOf(files: string): string {
  return `code${files.slice("file".length)}`;
}

/** The partition of a source's documents in a project (`memory._global` for global memories). */
function partitionName(source: VectorSource | "file", project: string | null): string {
  const safe = project === null ? "_global" : boundedFileName(
    project,
    project.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16)}`),
  );
  return `${source}.${safe}`;
}

function groupKey(partition: string, group: string): string {
  return `group\0${partition}\0${group}`;
}

function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) map.set(key, set = new Set());
  return set;
}

/** The model that built the vectors in the folder `dir`, if any vectors were built there. */
export async function builtWith(dir: string): Promise<{ id: string; dims: number } | undefined> {
  const modelFile = join(dir, "model.json");
  if (!(await exists(modelFile))) return undefined;
  return JSON.parse(await Deno.readTextFile(modelFile));
}

/**
 * Refuses vectors in `dir` built by another model than `embedder`'s; records
 * the model in a new folder. Returns the vectors' width.
 */
async function checkModel(dir: string, embedder: Embedder): Promise<number> {
  const built = await builtWith(dir);
  if (!built) {
    await writeFileAtomic(
      join(dir, "model.json"),
      JSON.stringify({ id: embedder.id, dims: embedder.dims }),
    );
  } else if (built.id !== embedder.id) {
    throw new ModelMismatchError(
      `this store's vectors were built with ${built.id}, not ${embedder.id}; use ${built.id}, ` +
        `or run \`cairn reembed\` to rebuild them with ${embedder.id}`,
    );
  }
  return embedder.dims;
}
