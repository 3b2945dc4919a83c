/**
 * An answer reads current first: a memory that one stored later may replace
 * (its `newer`, see `Memories.newerContradictions`) goes right after that
 * later memory when the answer holds both, so "purged every 21 days" comes
 * before the "7 days" it replaced however the two ranked.
 * @module
 */

/** What {@linkcode currentFirst} reads of an item: a memory's id and the later one that may replace it. */
export interface Replaceable {
  type: string;
  memory?: { id: string };
  newer?: { memory: { id: string } };
}

/**
 * `items` with every memory whose replacement is among them moved to just
 * after it (several in their own order); every other item keeps its place.
 */
export function currentFirst<Item extends Replaceable>(items: readonly Item[]): Item[] {
  const held = new Set(items.flatMap((item) => item.memory ? [item.memory.id] : []));
  const after = new Map<string, Item[]>();
  const placed: Item[] = [];
  for (const item of items) {
    const replacement = item.newer?.memory.id;
    if (replacement !== undefined && held.has(replacement) && replacement !== item.memory?.id) {
      after.set(replacement, [...after.get(replacement) ?? [], item]);
    } else placed.push(item);
  }
  const out: Item[] = [];
  const put = (item: Item) => {
    out.push(item);
    const followers = item.memory ? after.get(item.memory.id) : undefined;
    if (!followers) return;
    after.delete(item.memory!.id);
    followers.forEach(put);
  };
  placed.forEach(put);
  // Replacements that name each other in a ring are left where they were found.
  for (const followers of after.values()) out.push(...followers);
  return out;
}
