/** An undirected edge between two node ids. */
export type Edge = readonly [string, string];

/** Options for {@linkcode personalizedPageRank}. */
export interface PprOptions {
  /** Probability of following an edge rather than jumping back to a seed. Default 0.85. */
  damping?: number;
  /** Power iterations. Default 30. */
  iterations?: number;
}

/**
 * Personalized PageRank over an undirected graph: a random walk that restarts
 * at the seeds (in proportion to their weights) and, to keep hubs from
 * swallowing the walk, enters a node with probability inversely proportional
 * to the log of its degree. Returns each node's score (they sum to 1).
 */
export function personalizedPageRank(
  edges: readonly Edge[],
  seeds: ReadonlyMap<string, number>,
  options: PprOptions = {},
): Map<string, number> {
  const damping = options.damping ?? 0.85;
  const iterations = options.iterations ?? 30;
  const neighbours = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    const list = neighbours.get(a);
    if (list) list.push(b);
    else neighbours.set(a, [b]);
  };
  for (const [a, b] of edges) {
    if (a === b) continue;
    link(a, b);
    link(b, a);
  }
  for (const seed of seeds.keys()) if (!neighbours.has(seed)) neighbours.set(seed, []);

  const seedTotal = [...seeds.values()].reduce((sum, w) => sum + Math.max(0, w), 0);
  const restart = new Map<string, number>();
  for (const [seed, weight] of seeds) {
    if (weight > 0 && seedTotal > 0) restart.set(seed, weight / seedTotal);
  }
  if (restart.size === 0) return new Map();

  // Hub dampening: the walk moves from u to v with weight 1 / log(2 + degree(v)).
  const entry = (node: string) => 1 / Math.log(2 + (neighbours.get(node)?.length ?? 0));
  const outWeight = new Map<string, number>();
  for (const [node, list] of neighbours) {
    outWeight.set(
      node,
      list.reduce((s, n) => s + entry(n), 0),
    );
  }

  let rank = new Map(restart);
  for (let step = 0; step < iterations; step++) {
    const next = new Map<string, number>();
    let dangling = 0;
    for (const [node, score] of rank) {
      const list = neighbours.get(node) ?? [];
      const total = outWeight.get(node) ?? 0;
      if (list.length === 0 || total === 0) {
        dangling += score;
        continue;
      }
      for (const neighbour of list) {
        next.set(
          neighbour,
          (next.get(neighbour) ?? 0) + damping * score * entry(neighbour) / total,
        );
      }
      dangling += (1 - damping) * score;
    }
    for (const [seed, share] of restart) next.set(seed, (next.get(seed) ?? 0) + dangling * share);
    rank = next;
  }
  return rank;
}
