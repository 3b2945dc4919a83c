/**
 * A team's memories in the order of its stream, not of one member's log:
 * whether a memory a member remembered duplicates another is decided, by
 * that member when the stream brings its memory back, on what came before it
 * in the stream (judged on its own log, with its unpublished changes, members
 * folded differently).
 * @module
 */
import { sha256HexSync } from "../../events/blobs.ts";
import type { NewEvent, StoredEvent } from "../../events/schema.ts";

/** A memory event at its place in the stream. */
export interface Placed {
  pos: number;
  event: StoredEvent;
}

/** A memory as the stream has it so far. */
interface StreamMemory {
  pos: number;
  live: boolean;
  key: string;
}

/** The memories of one subject. */
interface View {
  /** Sorted by place. */
  items: Placed[];
  /** Items applied to `memories`. */
  applied: number;
  memories: Map<string, StreamMemory>;
  /** Folded key → the live memories with it. */
  byKey: Map<string, Set<string>>;
}

/** Memory events placed in stream order per subject, applied as far as a question needs. */
export class StreamOrder {
  #views = new Map<string, View>();

  /** Places an event; one placed before what was applied already makes the view start over. */
  place(subject: string, item: Placed): void {
    const view = this.#view(subject);
    let at = view.items.length;
    while (at > 0 && compare(view.items[at - 1]!, item) > 0) at--;
    if (at < view.applied) {
      view.applied = 0;
      view.memories.clear();
      view.byKey.clear();
    }
    view.items.splice(at, 0, item);
  }

  /**
   * The memory that `event` (a `memory.remembered` at `pos` of `subject`)
   * duplicates: the earliest before it in the stream, live there, with the
   * same folded text. Undefined when none does.
   */
  duplicateOf(
    subject: string,
    event: NewEvent & { type: "memory.remembered" },
    pos: number,
  ): string | undefined {
    const view = this.#view(subject);
    while (view.applied < view.items.length && view.items[view.applied]!.pos < pos) {
      apply(view, view.items[view.applied++]!);
    }
    let earliest: { id: string; pos: number } | undefined;
    for (const id of view.byKey.get(foldedKey(event.data.content)) ?? []) {
      const memory = view.memories.get(id)!;
      if (id !== event.data.id && (!earliest || memory.pos < earliest.pos)) {
        earliest = { id, pos: memory.pos };
      }
    }
    return earliest?.id;
  }

  #view(subject: string): View {
    let view = this.#views.get(subject);
    if (!view) {
      view = { items: [], applied: 0, memories: new Map(), byKey: new Map() };
      this.#views.set(subject, view);
    }
    return view;
  }
}

function compare(a: Placed, b: Placed): number {
  return a.pos - b.pos;
}

/**
 * The key two memories count as the same text by: case, spaces and Unicode
 * forms folded, as `contentKey` of the graph folds them for local duplicates
 * (a test holds the two together); synchronous, for catching up fast.
 */
export function foldedKey(content: string): string {
  return sha256HexSync(content.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim());
}

/** Applies one memory event, in stream order, to a subject's view. */
function apply(view: View, { pos, event }: Placed): void {
  const memory = "id" in event.data ? view.memories.get(event.data.id) : undefined;
  const unlist = () => {
    if (memory?.live) view.byKey.get(memory.key)?.delete((event.data as { id: string }).id);
  };
  switch (event.type) {
    case "memory.remembered": {
      const key = foldedKey(event.data.content);
      view.memories.set(event.data.id, { pos, live: true, key });
      const ids = view.byKey.get(key) ?? new Set();
      ids.add(event.data.id);
      view.byKey.set(key, ids);
      return;
    }
    case "memory.revised":
      if (memory && event.data.content !== undefined) {
        unlist();
        memory.key = foldedKey(event.data.content);
        if (memory.live) {
          const ids = view.byKey.get(memory.key) ?? new Set();
          ids.add(event.data.id);
          view.byKey.set(memory.key, ids);
        }
      }
      return;
    case "memory.forgotten":
      unlist();
      if (memory) memory.live = false;
      return;
    case "memory.purged":
      unlist();
      view.memories.delete(event.data.id);
      return;
  }
}
