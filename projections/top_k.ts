/**
 * The `k` best of `candidates`, best first, without sorting them all: a
 * bounded heap whose root is the worst kept, so each candidate costs one
 * comparison with it and, when it gets in, `log k` more.
 *
 * @param better a strict order: true when `a` ranks above `b`
 *
 * @example
 * ```ts
 * topK([5, 1, 9, 3], 2, (a, b) => a > b); // [9, 5]
 * ```
 */
export function topK(
  candidates: Iterable<number>,
  k: number,
  better: (a: number, b: number) => boolean,
): number[] {
  const heap: number[] = [];
  if (k <= 0) return heap;
  for (const candidate of candidates) {
    if (heap.length < k) {
      heap.push(candidate);
      siftUp(heap, heap.length - 1, better);
    } else if (better(candidate, heap[0]!)) {
      heap[0] = candidate;
      siftDown(heap, better);
    }
  }
  return heap.sort((a, b) => better(a, b) ? -1 : better(b, a) ? 1 : 0);
}

/** Moves the entry at `at` up while it is worse than its parent (the root is the worst). */
function siftUp(heap: number[], at: number, better: (a: number, b: number) => boolean): void {
  const entry = heap[at]!;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!better(heap[parent]!, entry)) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = entry;
}

/** Moves the root down while a child is worse than it. */
function siftDown(heap: number[], better: (a: number, b: number) => boolean): void {
  const entry = heap[0]!;
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const worse = right < heap.length && better(heap[left]!, heap[right]!) ? right : left;
    if (!better(entry, heap[worse]!)) break;
    heap[at] = heap[worse]!;
    at = worse;
  }
  heap[at] = entry;
}
