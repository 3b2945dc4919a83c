import { BlobError, type BlobStore, sha256Hex } from "../events/blobs.ts";
import { isDiskFull } from "../events/disk_full.ts";
import type { StoredEvent } from "../events/schema.ts";
import { codeTokens, STOP_WORDS } from "../text/tokens.ts";
import type { Projection } from "./projection.ts";
import { type Bm25Image, Bm25Index, type Bm25Options } from "./text_bm25.ts";
import { type Bm25Images, decodeImages, encodeImages } from "./text_image.ts";
import {
  entityKey,
  entityOps,
  foldEntities,
  hasFacts,
  type IndexedEntity,
  indexedEntity,
  relationText,
} from "./text_entities.ts";
import { type TextDoc, type TextOp, type TextSource, TextStore } from "./text_store.ts";

export type { TextSource } from "./text_store.ts";
export type { IndexedEntity } from "./text_entities.ts";

/** One lexical hit: the document's source, its id within the source, and its BM25 score. */
export interface TextHit {
  source: TextSource;
  id: string;
  score: number;
  /** The score as a share of the best reachable in its index (0 to 1): comparable across sources. */
  share: number;
}

/**
 * One hit of the context index: documents found together by the words around
 * them (a memory with its neighbouring turns; the chunks of one file), all at
 * the hit's rank.
 */
export interface ContextHit {
  ids: string[];
  score: number;
  /** The score as a share of the best reachable in its index (0 to 1): comparable across sources. */
  share: number;
}

/** A definition found by name: a code chunk with its qualified name and its file. */
export interface Definition {
  id: string;
  name: string;
  path: string;
}

/** What to search and where. */
export interface TextSearchOptions {
  sources: TextSource[];
  /** Only this project's documents and the global ones; every project when null or absent. */
  project?: string | null;
  limit: number;
}

type Meta = { id: string; project: string | null };
type FileMeta = { file: string; project: string | null };

const tokenize = (text: string) => codeTokens(text);
/**
 * A text with every kind of word the tokenizer treats apart (identifiers,
 * paths, each stemming rule, stop words): what the tokenizer makes of it, with
 * its stop words, is kept with a saved index image, which is dropped when they
 * changed.
 */
const TOKENIZER_PROBE =
  "getUserName parse_HTTPRequest src/app/main.ts Request.register_hook std::vec::Vec " +
  "$store->get running cities hooks called stopped class status analysis saved " +
  "the hook is what they were déjà-vu v2.0.1 x86_64 __init__ 東京 ID " + "long".repeat(50);
let tokenizerStamp: string | undefined;
const tokenizerOf = () =>
  tokenizerStamp ??= JSON.stringify([tokenize(TOKENIZER_PROBE), [...STOP_WORDS]]);
/**
 * How memories and turns are ranked: BM25+ with coordination ranked best on
 * locomo-dev (docs/lexical.md): nDCG@10 0.512 vs 0.488 plain.
 */
export const RANKING: Bm25Options = { k1: 1.2, b: 0.75, delta: 0.5, coord: true };
// Code is asked with long texts (an issue, a stack trace): coordination then favours the longest
// chunks and files, and plain BM25 ranked better on swebench-lite-dev (docs/decisions.md).
const CODE_RANKING: Bm25Options = { k1: 1.2, b: 0.75 };

/** Each search index's ranking, by the name its image is saved under. */
const RANKINGS = {
  memory: RANKING,
  code: CODE_RANKING,
  turn: RANKING,
  entity: RANKING,
  context: RANKING,
  wholeFiles: CODE_RANKING,
} satisfies Record<string, Bm25Options>;
type IndexName = keyof typeof RANKINGS;

/** Whether saved images hold every search index. */
function usableImages(images: Bm25Images | undefined): images is Bm25Images {
  return images !== undefined && Object.keys(RANKINGS).every((name) => name in images);
}

/**
 * The lexical (BM25) index of memories, code chunks, session turns and the
 * knowledge graph's entities (see `text_entities.ts`), one index per source,
 * with the code-aware tokenizer of `text/tokens.ts`.
 * Durable through a journal of document upserts and removals (see
 * {@linkcode TextStore}); the search indexes are in memory, the chunk and
 * turn texts they were built from stay in the blob store.
 */
export class TextProjection implements Projection {
  readonly name = "text";
  readonly version = 4;
  #docs = new Map<string, TextDoc>();
  #counts: Record<TextSource, number> = { memory: 0, code: 0, turn: 0, entity: 0 };
  #files = new Map<string, Set<string>>();
  #threads = new Threads();
  /**
   * The BM25 indexes, built from the documents on the first search and kept
   * up to date from then on: opening a store, or indexing a repository in a
   * process that never searches, does not tokenize anything.
   */
  #built: Indexes | undefined;
  /** Until the search indexes are made: what changed since the saved image, when there is one. */
  #sinceImage: Changes | undefined;
  /** Whether the saved image could not be used (so it is replaced at close whatever its age). */
  #imageRefused = false;
  /** The texts read while applying a batch, by blob: the search indexes need them at once. */
  #pending = new Map<string, string>();
  #blobWarned = false;
  /** Each code chunk's document by chunk id: its fields are name and path. */
  #codeDocs = new Map<string, TextDoc>();
  /** Each code chunk's file (`project\0path`, the graph's File key). */
  #chunkFiles = new Map<string, string>();
  /** Code chunk keys by the last part of their qualified name (`register_hook`). */
  #definitions = new Map<string, Set<string>>();

  private constructor(private readonly store: TextStore, private readonly blobs: BlobStore) {}

  /**
   * Opens the index kept in `dir`; chunk and turn texts are read from `blobs`.
   * The search indexes are made on the first search: loaded from the saved
   * image when there is a usable one (then what changed since is indexed
   * again), else built from every document.
   */
  static async open(dir: string, blobs: BlobStore): Promise<TextProjection> {
    const { store, docs, tail } = await TextStore.open(dir);
    const projection = new TextProjection(store, blobs);
    for (const doc of docs.values()) projection.#put(doc);
    if (store.hasImage) projection.#sinceImage = new Changes();
    for (const op of tail) {
      if ("removed" in op) projection.#remove(op.key);
      else projection.#put(op);
    }
    return projection;
  }

  /** Documents held per source. */
  counts(): Record<TextSource, number> {
    return { ...this.#counts };
  }

  count(): Promise<number> {
    return Promise.resolve(this.#docs.size);
  }

  async apply(batch: readonly StoredEvent[]): Promise<void> {
    const ops: TextOp[] = [];
    try {
      for (const event of batch) {
        for (const op of await this.#opsOf(event)) {
          if ("removed" in op) this.#remove(op.key);
          else this.#put(op);
          ops.push(op);
        }
      }
      this.#built?.refreshWholeFiles();
    } finally {
      this.#pending.clear();
    }
    await this.store.append(ops, () => this.#docs.values(), () => this.#image());
    if (!this.store.hasImage) this.#sinceImage = undefined;
  }

  /**
   * The best documents for `query` among `sources`, within `project` (global
   * documents included) when given. Scores are BM25 within their source; the
   * sources are interleaved by rank so that none crowds the others out.
   */
  search(query: string, options: TextSearchOptions): TextHit[] {
    const project = options.project;
    const accept = project == null
      ? undefined
      : (meta: Meta) => meta.project === project || meta.project === null;
    const indexes = this.#indexes();
    const lists = options.sources.map((source) => {
      const hits = source === "entity"
        ? onePerEntity(indexes.bySource.entity.search(query, options.limit * FACTS_AHEAD, accept))
          .slice(0, options.limit)
        : indexes.bySource[source].search(query, options.limit, accept);
      return hits.map((hit, rank) => ({
        source,
        id: hit.meta.id,
        score: hit.score,
        share: hit.share,
        rank,
      }));
    });
    return lists.flat()
      .sort((a, b) => a.rank - b.rank || b.score - a.score)
      .slice(0, options.limit)
      .map(({ source, id, score, share }) => ({ source, id, score, share }));
  }

  /** How much `text` could tell the documents of `sources` apart (see {@linkcode Bm25Index.weight}). */
  termWeight(text: string, sources: readonly TextSource[]): number {
    const indexes = this.#indexes();
    return sources.reduce((sum, source) => sum + indexes.bySource[source].weight(text), 0);
  }

  /**
   * Documents found through what surrounds them: a memory through its thread
   * (indexed together with the memories before and after it in the same
   * conversation, so a question whose words are spread over neighbouring
   * turns still finds them); code chunks through their whole file (every
   * chunk of a matching file, at the file's rank). Sessions have none.
   */
  searchContext(
    query: string,
    options: Omit<TextSearchOptions, "sources"> & { source: TextSource },
  ): ContextHit[] {
    const project = options.project;
    const accept = project == null
      ? undefined
      : (meta: { project: string | null }) => meta.project === project || meta.project === null;
    const indexes = this.#indexes();
    if (options.source === "memory") {
      return indexes.context.search(query, options.limit, accept)
        .map((hit) => ({ ids: [hit.meta.id], score: hit.score, share: hit.share }));
    }
    if (options.source !== "code") return [];
    return indexes.wholeFiles.search(query, options.limit, accept).map((hit) => ({
      ids: [...this.#files.get(hit.meta.file) ?? []].map((key) => this.#docs.get(key)!.id),
      score: hit.score,
      share: hit.share,
    }));
  }

  /** The path of an indexed code chunk, relative to its project's root. */
  codePath(id: string): string | undefined {
    return this.#codeDocs.get(id)?.fields[1];
  }

  /** The qualified name of an indexed code chunk (`Request.register_hook`). */
  codeName(id: string): string | undefined {
    return this.#codeDocs.get(id)?.fields[0];
  }

  /**
   * The code chunks whose qualified name's last part is `name`, within
   * `project` when given: id, qualified name and path.
   */
  definitionsNamed(name: string, project?: string | null): Definition[] {
    return [...this.#definitions.get(name) ?? []].flatMap((key) => {
      const doc = this.#docs.get(key)!;
      if (project != null && doc.project !== project) return [];
      return [{ id: doc.id, name: doc.fields[0]!, path: doc.fields[1]! }];
    });
  }

  /** The file of an indexed code chunk, as the graph keys it (`project\0path`). */
  fileOf(id: string): string | undefined {
    return this.#chunkFiles.get(id);
  }

  /** The ids of the chunks indexed for a file (`project\0path`). */
  chunksOf(file: string): string[] {
    return [...this.#files.get(file) ?? []].map((key) => this.#docs.get(key)!.id);
  }

  /** An entity as its document holds it: type, observations and relations. */
  entity(name: string): IndexedEntity | undefined {
    const doc = this.#docs.get(entityKey(name));
    return doc && indexedEntity(doc);
  }

  /** Whether an entity has observations or relations. */
  hasFacts(name: string): boolean {
    const entity = this.entity(name);
    return entity !== undefined && hasFacts(entity);
  }

  /** The text of an indexed code chunk or session turn, by its key. */
  text(key: string): string | undefined {
    const blob = this.#docs.get(key)?.blob;
    return blob === undefined ? undefined : this.#blobText(blob);
  }

  async reset(): Promise<void> {
    this.#docs.clear();
    this.#counts = { memory: 0, code: 0, turn: 0, entity: 0 };
    this.#files.clear();
    this.#threads.clear();
    this.#built = undefined;
    this.#sinceImage = undefined;
    this.#codeDocs.clear();
    this.#chunkFiles.clear();
    this.#definitions.clear();
    await this.store.reset();
  }

  digest(): Promise<string> {
    const keys = [...this.#docs.keys()].sort();
    return sha256Hex(keys.map((key) => JSON.stringify(canonical(this.#docs.get(key)!))).join("\n"));
  }

  /** Writes a fresh snapshot and empties the journal (also done on its own as the journal grows). */
  compact(): Promise<void> {
    return this.store.snapshot(this.#docs.values(), () => this.#image());
  }

  /**
   * Folds the entities' documents again from `events` (the log, as far as
   * this index has read it), then writes a fresh snapshot: after a purge, an
   * entity or a relation that only the purged memory named is gone from the
   * log, and goes from here too.
   */
  async rewriteEntities(events: AsyncIterable<StoredEvent>): Promise<void> {
    const folded = await foldEntities(events);
    const same = (a: TextDoc, b: TextDoc | undefined) =>
      b !== undefined && JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
    const ops: TextOp[] = [
      ...[...this.#docs.values()]
        .filter((doc) => doc.source === "entity" && !folded.has(doc.key))
        .map((doc) => ({ key: doc.key, removed: true as const })),
      ...[...folded.values()].filter((doc) => !same(doc, this.#docs.get(doc.key))),
    ];
    for (const op of ops) {
      if ("removed" in op) this.#remove(op.key);
      else this.#put(op);
    }
    await this.store.append(ops, () => this.#docs.values(), () => this.#image());
    await this.compact();
  }

  /**
   * Makes the search indexes and saves their image, when the saved one is
   * missing or well behind the documents: after a bulk write, so that the
   * next process to search loads them instead of building them.
   */
  async saveIndexes(): Promise<void> {
    if (!this.#imageWanted()) return;
    this.#indexes();
    await this.store.writeImage(this.#image()!);
  }

  /**
   * Saves the search indexes' image when they are built and the saved one is
   * well behind; on a full disk it is not saved (the next process builds the indexes).
   */
  async close(): Promise<void> {
    try {
      const image = this.#imageWanted() ? this.#image() : undefined;
      if (image) await this.store.writeImage(image);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
    } finally {
      this.#built = undefined;
      this.store.close();
    }
  }

  #imageWanted(): boolean {
    return this.store.imageBehind || this.#imageRefused;
  }

  /** The image of the search indexes, when they are wholly built. */
  #image(): Iterable<Uint8Array> | undefined {
    const built = this.#built;
    return built?.complete ? encodeImages(built.toImages(), tokenizerOf()) : undefined;
  }

  async #opsOf(event: StoredEvent): Promise<TextOp[]> {
    switch (event.type) {
      case "memory.remembered": {
        const { id, project, kind, content, tags, source } = event.data;
        return [{
          key: `memory:${id}`,
          source: "memory",
          id,
          project,
          kind,
          fields: [content, tags.join(" ")],
          ...(source ? { thread: `${project ?? ""}\0${source}`, order: event.seq } : {}),
        }, ...entityOps(event, (key) => this.#docs.get(key))];
      }
      case "memory.revised": {
        const old = this.#docs.get(`memory:${event.data.id}`);
        if (!old) return [];
        const { content, tags, kind } = event.data;
        return [{
          ...old,
          kind: kind ?? old.kind!,
          fields: [content ?? old.fields[0]!, tags ? tags.join(" ") : old.fields[1]!],
        }];
      }
      case "memory.forgotten":
      case "memory.purged":
        return [{ key: `memory:${event.data.id}`, removed: true }];
      case "file.indexed": {
        const { project, path, chunks } = event.data;
        const file = `${project}\0${path}`;
        await this.#readAhead(chunks.map((chunk) => chunk.text));
        const upserts: TextDoc[] = chunks.map((chunk) => ({
          key: `chunk:${project}:${chunk.id}`,
          source: "code",
          id: chunk.id,
          project,
          file,
          fields: [chunk.name, path],
          blob: chunk.text,
        }));
        const kept = new Set(upserts.map((doc) => doc.key));
        const stale = [...this.#files.get(file) ?? []].filter((key) => !kept.has(key));
        return [...stale.map((key) => ({ key, removed: true as const })), ...upserts];
      }
      case "file.removed": {
        const keys = this.#files.get(`${event.data.project}\0${event.data.path}`) ?? [];
        return [...keys].map((key) => ({ key, removed: true as const }));
      }
      case "project.deleted":
        return this.#removeFiles((file) => file.startsWith(`${event.data.project}\0`));
      case "turn.ingested": {
        const { session, line, project, text } = event.data;
        const id = `${session}:${line}`;
        await this.#readAhead([text]);
        return [{ key: `turn:${id}`, source: "turn", id, project, fields: [], blob: text }];
      }
      case "turn.retracted":
        return [{ key: `turn:${event.data.session}:${event.data.line}`, removed: true }];
      default:
        return entityOps(event, (key) => this.#docs.get(key));
    }
  }

  /**
   * Reads the texts of blobs about to be indexed, when the search indexes are
   * there to index them; one that cannot be read is left to {@linkcode #blobText}.
   */
  async #readAhead(blobs: readonly string[]): Promise<void> {
    if (!this.#built) return;
    const texts = await Promise.allSettled(blobs.map((blob) => this.blobs.get(blob)));
    texts.forEach((text, i) => {
      if (text.status === "fulfilled") this.#pending.set(blobs[i]!, text.value);
      else if (!(text.reason instanceof BlobError)) throw text.reason;
    });
  }

  /**
   * A document's texts in the order they are indexed: its fields, then its
   * relations or its blob's text.
   */
  #textsOf(doc: TextDoc): readonly string[] {
    if (doc.relations) return [...doc.fields, ...doc.relations.map(relationText)];
    return doc.blob === undefined ? doc.fields : [...doc.fields, this.#blobText(doc.blob)];
  }

  /**
   * A blob's text, read from disk unless this batch read it. One missing or
   * damaged leaves its document indexed without it (said once on stderr):
   * a search must answer.
   */
  #blobText(blob: string): string {
    const pending = this.#pending.get(blob);
    if (pending !== undefined) return pending;
    try {
      return this.blobs.getSync(blob);
    } catch (error) {
      if (!(error instanceof BlobError)) throw error;
      if (!this.#blobWarned) {
        console.error(
          `cairn: ${error.message}: the lexical index holds its document without its text ` +
            "(`cairn verify` checks every blob)",
        );
        this.#blobWarned = true;
      }
      return "";
    }
  }

  #removeFiles(match: (file: string) => boolean): TextOp[] {
    return [...this.#files].filter(([file]) => match(file))
      .flatMap(([, keys]) => [...keys].map((key) => ({ key, removed: true as const })));
  }

  /**
   * Builds the search indexes ahead of the first search (`cairn serve` does
   * at start), some documents at a time with a turn of the event loop between,
   * so that the process goes on answering; a search meanwhile finishes the
   * build at once. Documents applied meanwhile are indexed as usual.
   */
  async warm(docsPerTurn = 256): Promise<void> {
    const indexes = this.#startBuild();
    while (this.#built === indexes && indexes.build(docsPerTurn)) {
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /** The search indexes, built from every document on first use. */
  #indexes(): Indexes {
    const indexes = this.#startBuild();
    indexes.build(Infinity);
    return indexes;
  }

  /**
   * The indexes, begun if need be: loaded from the saved image and brought
   * up to date when it is usable, else with every document queued, none
   * indexed yet.
   */
  #startBuild(): Indexes {
    if (this.#built) return this.#built;
    const changes = this.#sinceImage;
    this.#sinceImage = undefined;
    const image = changes && this.store.readImage();
    const images = image && decodeImages(image, tokenizerOf());
    if (usableImages(images)) {
      const loaded = new Indexes(this.#documents(), this.#threads, this.#files, images);
      loaded.catchUp(changes!);
      return this.#built = loaded;
    }
    this.#imageRefused = changes !== undefined;
    const built = new Indexes(this.#documents(), this.#threads, this.#files);
    built.queue(this.#docs.values());
    return this.#built = built;
  }

  /** How the search indexes read the documents. */
  #documents(): Documents {
    return { get: (key) => this.#docs.get(key), texts: (doc) => this.#textsOf(doc) };
  }

  #put(doc: TextDoc): void {
    this.#remove(doc.key);
    this.#sinceImage?.note(doc);
    this.#docs.set(doc.key, doc);
    this.#counts[doc.source]++;
    const around = doc.thread === undefined
      ? []
      : this.#threads.insert(doc.thread, doc.key, doc.order ?? 0);
    if (doc.file !== undefined) {
      this.#codeDocs.set(doc.id, doc);
      this.#chunkFiles.set(doc.id, doc.file);
      let keys = this.#files.get(doc.file);
      if (!keys) this.#files.set(doc.file, keys = new Set());
      keys.add(doc.key);
      const name = lastPart(doc.fields[0]!);
      let namesakes = this.#definitions.get(name);
      if (!namesakes) this.#definitions.set(name, namesakes = new Set());
      namesakes.add(doc.key);
    }
    this.#built?.put(doc, around);
  }

  #remove(key: string): void {
    const doc = this.#docs.get(key);
    if (!doc) return;
    this.#sinceImage?.note(doc);
    this.#docs.delete(key);
    this.#counts[doc.source]--;
    const neighbours = doc.thread === undefined ? [] : this.#threads.remove(doc.thread, key);
    this.#built?.remove(doc, neighbours);
    if (doc.file === undefined) return;
    this.#codeDocs.delete(doc.id);
    this.#chunkFiles.delete(doc.id);
    const keys = this.#files.get(doc.file)!;
    keys.delete(key);
    if (keys.size === 0) this.#files.delete(doc.file);
    const name = lastPart(doc.fields[0]!);
    const namesakes = this.#definitions.get(name)!;
    namesakes.delete(key);
    if (namesakes.size === 0) this.#definitions.delete(name);
  }
}

/** How many times more facts a search of entities fetches, since an entity may match by several. */
const FACTS_AHEAD = 4;

/** The key of an entity's `i`th fact in the search index. */
function factKey(key: string, i: number): string {
  return `${key}\0${i}`;
}

/** An entity's best fact alone, in the order found. */
function onePerEntity<H extends { meta: Meta }>(hits: readonly H[]): H[] {
  const seen = new Set<string>();
  return hits.filter((hit) => !seen.has(hit.meta.id) && seen.add(hit.meta.id));
}

/** The documents as the search indexes read them: by key, and each one's texts in order. */
interface Documents {
  get(key: string): TextDoc | undefined;
  texts(doc: TextDoc): readonly string[];
}

/**
 * The BM25 indexes over the documents: one per source, the threaded memories
 * in context, and each code file whole. It reads the documents, threads and
 * files the projection keeps; the projection tells it of every change.
 */
class Indexes {
  readonly bySource: Record<TextSource, Bm25Index<Meta>>;
  /** Each threaded memory with its neighbours' text: a turn is found by what surrounds it. */
  readonly context: Bm25Index<Meta>;
  /** Each code file as one document: a chunk is found by what the rest of its file says. */
  readonly wholeFiles: Bm25Index<FileMeta>;
  #staleFiles = new Set<string>();
  /** What the first build has yet to index: memories and turns by key, then code files. */
  #queuedDocs: string[] = [];
  #queuedFiles: string[] = [];
  #docsDone = 0;
  #filesDone = 0;

  /** Empty indexes, or those saved as `images` (see {@linkcode usableImages}). */
  constructor(
    private readonly docs: Documents,
    private readonly threads: Threads,
    private readonly files: ReadonlyMap<string, ReadonlySet<string>>,
    images?: Bm25Images,
  ) {
    const index = <M>(name: IndexName) =>
      images
        ? Bm25Index.fromImage(images[name] as Bm25Image<M>, tokenize, RANKINGS[name])
        : new Bm25Index<M>(tokenize, RANKINGS[name]);
    this.bySource = {
      memory: index("memory"),
      code: index("code"),
      turn: index("turn"),
      entity: index("entity"),
    };
    this.context = index("context");
    this.wholeFiles = index("wholeFiles");
  }

  /** Indexes a document; `around` are the thread members (itself included) whose context changed. */
  put(doc: TextDoc, around: readonly string[]): void {
    const meta = { id: doc.id, project: doc.project };
    if (doc.source === "entity") {
      this.#dropFacts(doc.key);
      const [name, type, ...facts] = this.docs.texts(doc);
      // Each fact its own document, so that one fact of many is not drowned by the others.
      (facts.length ? facts : [""]).forEach((fact, i) =>
        this.bySource.entity.set(factKey(doc.key, i), `${name}\n${type}\n${fact}`, meta)
      );
      return;
    }
    this.bySource[doc.source].set(doc.key, this.docs.texts(doc).join("\n"), meta);
    for (const key of around) this.#refreshContext(key);
    if (doc.file !== undefined) this.#staleFiles.add(doc.file);
  }

  /** Unindexes a document; `neighbours` are the thread members whose context it changed. */
  remove(doc: TextDoc, neighbours: readonly string[]): void {
    this.bySource[doc.source].delete(doc.key);
    if (doc.source === "entity") this.#dropFacts(doc.key);
    if (doc.thread !== undefined) {
      this.context.delete(doc.key);
      for (const key of neighbours) this.#refreshContext(key);
    }
    if (doc.file !== undefined) this.#staleFiles.add(doc.file);
  }

  /**
   * Indexes again what `changes` name (loaded from an image, these indexes
   * hold the documents as they were then): each changed document, the
   * context of every memory in a changed thread, each changed file whole.
   */
  catchUp(changes: Changes): void {
    for (const key of changes.keys) {
      for (const index of Object.values(this.bySource)) index.delete(key);
      this.#dropFacts(key);
      this.context.delete(key);
      const doc = this.docs.get(key);
      if (doc) this.put(doc, []);
    }
    for (const thread of changes.threads) {
      for (const key of this.threads.members(thread)) this.#refreshContext(key);
    }
    for (const file of changes.files) this.#staleFiles.add(file);
    this.refreshWholeFiles();
  }

  /** The indexes as images, for {@linkcode Indexes}' constructor to load again. */
  toImages(): Bm25Images {
    return {
      memory: this.bySource.memory.toImage(),
      code: this.bySource.code.toImage(),
      turn: this.bySource.turn.toImage(),
      entity: this.bySource.entity.toImage(),
      context: this.context.toImage(),
      wholeFiles: this.wholeFiles.toImage(),
    };
  }

  /** Whether every document is indexed: nothing is left of the first build. */
  get complete(): boolean {
    return this.#docsDone === this.#queuedDocs.length &&
      this.#filesDone === this.#queuedFiles.length;
  }

  /** Queues every document for the first build: those outside code files, then each file. */
  queue(docs: Iterable<TextDoc>): void {
    for (const doc of docs) if (doc.file === undefined) this.#queuedDocs.push(doc.key);
    this.#queuedFiles = [...this.files.keys()];
  }

  /**
   * Indexes about `count` queued documents (a file's chunks all at once) as
   * they are now (one removed since it was queued is skipped); whether any are left.
   */
  build(count: number): boolean {
    for (let done = 0; done < count;) {
      if (this.#docsDone < this.#queuedDocs.length) {
        const doc = this.docs.get(this.#queuedDocs[this.#docsDone++]!);
        if (doc) this.put(doc, doc.thread === undefined ? [] : [doc.key]);
        done++;
      } else if (this.#filesDone < this.#queuedFiles.length) {
        done += Math.max(1, this.#putFile(this.#queuedFiles[this.#filesDone++]!));
      } else break;
    }
    return this.#docsDone < this.#queuedDocs.length || this.#filesDone < this.#queuedFiles.length;
  }

  /**
   * Indexes a code file's chunks and the file whole, tokenizing each chunk
   * once for both (a text's terms are its fields' terms one after the other:
   * no term spans a line break); how many chunks it had.
   */
  #putFile(file: string): number {
    const chunks = [...this.files.get(file) ?? []].map((key) => this.docs.get(key)!);
    if (chunks.length === 0) return 0;
    const fieldTerms = chunks.map((chunk) => this.docs.texts(chunk).map(tokenize));
    for (const [i, chunk] of chunks.entries()) {
      this.bySource.code.setTokens(chunk.key, fieldTerms[i]!.flat(), {
        id: chunk.id,
        project: chunk.project,
      });
    }
    this.#putWholeFile(file, chunks, fieldTerms.map((terms) => terms[2] ?? []));
    return chunks.length;
  }

  /** Rebuilds the whole-file documents of the files whose chunks changed. */
  refreshWholeFiles(): void {
    for (const file of this.#staleFiles) {
      const chunks = [...this.files.get(file) ?? []].map((key) => this.docs.get(key)!);
      if (chunks.length === 0) this.wholeFiles.delete(file);
      else {
        this.#putWholeFile(
          file,
          chunks,
          chunks.map((chunk) => tokenize(this.docs.texts(chunk)[2] ?? "")),
        );
      }
    }
    this.#staleFiles.clear();
  }

  /** Indexes a file whole: its path, then the terms of each chunk's text (`textTerms`). */
  #putWholeFile(file: string, chunks: readonly TextDoc[], textTerms: readonly string[][]): void {
    const [, path = ""] = chunks[0]!.fields;
    this.wholeFiles.setTokens(file, [...tokenize(path), ...textTerms.flat()], {
      file,
      project: chunks[0]!.project,
    });
  }

  /** Unindexes the facts of the entity whose document is `key`, if any. */
  #dropFacts(key: string): void {
    for (let i = 0; this.bySource.entity.delete(factKey(key, i)); i++);
  }

  #refreshContext(key: string): void {
    const doc = this.docs.get(key);
    if (!doc || doc.thread === undefined) return;
    const around = this.threads.neighbours(doc.thread, key).map((k) =>
      this.docs.get(k)?.fields[0] ?? ""
    );
    this.context.set(key, [doc.fields[0], ...around].join("\n"), {
      id: doc.id,
      project: doc.project,
    });
  }
}

/** The documents, threads and files that changed: what loaded indexes must index again. */
class Changes {
  readonly keys = new Set<string>();
  readonly threads = new Set<string>();
  readonly files = new Set<string>();

  /** Notes a document put or removed (a replaced one is noted as removed, then put). */
  note(doc: TextDoc): void {
    this.keys.add(doc.key);
    if (doc.thread !== undefined) this.threads.add(doc.thread);
    if (doc.file !== undefined) this.files.add(doc.file);
  }
}

/** Ordered memory keys per thread (a conversation or session). */
class Threads {
  #members = new Map<string, Array<{ key: string; order: number }>>();

  /** Inserts `key` at its place; returns it and its neighbours, whose context changed. */
  insert(thread: string, key: string, order: number): string[] {
    let list = this.#members.get(thread);
    if (!list) this.#members.set(thread, list = []);
    let at = list.length;
    while (at > 0 && list[at - 1]!.order > order) at--;
    list.splice(at, 0, { key, order });
    return [list[at - 1]?.key, key, list[at + 1]?.key].filter((k): k is string => k !== undefined);
  }

  /** Removes `key`; returns its former neighbours, whose context changed. */
  remove(thread: string, key: string): string[] {
    const list = this.#members.get(thread);
    const at = list?.findIndex((member) => member.key === key) ?? -1;
    if (!list || at < 0) return [];
    list.splice(at, 1);
    if (list.length === 0) this.#members.delete(thread);
    return [list[at - 1]?.key, list[at]?.key].filter((k): k is string => k !== undefined);
  }

  /** The keys of a thread, in order. */
  members(thread: string): string[] {
    return (this.#members.get(thread) ?? []).map((member) => member.key);
  }

  /** The keys just before and after `key` in its thread. */
  neighbours(thread: string, key: string): string[] {
    const list = this.#members.get(thread) ?? [];
    const at = list.findIndex((member) => member.key === key);
    return [list[at - 1]?.key, list[at + 1]?.key].filter((k): k is string => k !== undefined);
  }

  clear(): void {
    this.#members.clear();
  }
}

/** The last part of a qualified name (`register_hook` of `Request.register_hook`). */
function lastPart(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/** A document with its fields in a fixed order, so equal content digests equally. */
function canonical(doc: TextDoc): unknown[] {
  return [
    doc.key,
    doc.source,
    doc.id,
    doc.project,
    doc.kind ?? null,
    doc.file ?? null,
    doc.fields,
    doc.blob ?? null,
    doc.thread ?? null,
    doc.order ?? null,
    doc.relations ?? null,
  ];
}
