import { recall, type RecallDeps } from "../recall/recall.ts";
import type { HitComponents, RecallRequest, Source } from "../recall/types.ts";
import type { Memories } from "./memories.ts";
import type { MemoryRecord } from "./memory_record.ts";

/** A recall result with what it points at, ready to format. */
export type RecallItem = {
  type: "memory";
  score: number;
  components: HitComponents;
  memory: MemoryRecord;
};

/** Recall's answer: the items and the caveats to show with them. */
export interface RecallAnswer {
  items: RecallItem[];
  notes: string[];
}

/** Runs recall and hydrates each hit from the graph. */
export class RecallService {
  constructor(private readonly deps: RecallDeps, private readonly memories: Memories) {}

  /** Answers one recall request. */
  async run(request: RecallRequest): Promise<RecallAnswer> {
    const result = await recall(this.deps, request);
    const ids = (source: Source) =>
      result.hits.filter((hit) => hit.source === source).map((hit) => hit.id);
    const memories = new Map((await this.memories.getMany(ids("memory"))).map((m) => [m.id, m]));
    const items: RecallItem[] = [];
    for (const hit of result.hits) {
      const memory = memories.get(hit.id);
      if (hit.source === "memory" && memory) {
        items.push({ type: "memory", score: hit.score, components: hit.components, memory });
      }
    }
    return { items, notes: result.notes };
  }
}
