/**
 * An answer reads current first: a memory that one stored later may replace
 * (its `newer`, see `Memories.newerContradictions`) brings that later memory
 * up to its own place when the answer holds both, and follows it, so "purged
 * every 21 days" comes before the "7 days" it replaced however the two ranked.
 * @module
 */

/** What {@linkcode currentFirst} reads of an item: a memory's id and the later one that may replace it. */
export interface Replaceable {
  type: string;
  memory?: { id: string };
  newer?: { memory: { id: string } };
}

/**
 * `items` with the memory that replaces others (when it is among them) moved
 * up to the place of the first of them, each replaced one right after it (in
 * their own order); every other item keeps its order.
 */
export function currentFirst<Item extends Replaceable>(items: readonly Item[]): Item[] {
  const byId = new Map(items.flatMap((item) => item.memory ? [[item.memory.id, item]] : []));
  const replacementOf = (item: Item) => {
    const id = item.newer?.memory.id;
    return id !== undefined && id !== item.memory?.id ? byId.get(id) : undefined;
  };
  const followers = new Map<Item, Item[]>();
  for (const item of items) {
    const replacement = replacementOf(item);
    if (replacement) followers.set(replacement, [...followers.get(replacement) ?? [], item]);
  }
  const out: Item[] = [];
  const placed = new Set<Item>();
  const put = (item: Item) => {
    if (placed.has(item)) return;
    placed.add(item);
    out.push(item);
    followers.get(item)?.forEach(put);
  };
  for (const item of items) {
    // The newest of the replacements this item leads to (replacements in a ring stop where they meet).
    let current = item;
    const seen = new Set([item]);
    for (let next = replacementOf(current); next && !seen.has(next); next = replacementOf(next)) {
      seen.add(next);
      current = next;
    }
    put(current);
    put(item);
  }
  return out;
}
