/**
 * A model of the knowledge graph: its states, the operations that change it, and its facts.
 * @module
 */
import type { Context } from "./context.ts";

/** The knowledge graph as the acknowledged operations leave it. */
export interface GraphState {
  entities: Map<string, { type: string; observations: Set<string> }>;
  relations: Set<string>; // "from\0type\0to"
}

/** One `cairn graph` subcommand, as planned. */
export type GraphOp =
  | { op: "add"; name: string; type: string; observation: string }
  | { op: "observe"; name: string; text: string }
  | { op: "relate"; from: string; type: string; to: string }
  | { op: "delete-observation"; name: string; text: string }
  | { op: "unrelate"; from: string; type: string; to: string }
  | { op: "delete-entity"; name: string };

/** The fact that entity `name` of `type` exists. */
export const entityFact = (name: string, type: string) => `entity ${name} (${type})`;
/** The fact that entity `name` holds observation `text`. */
export const observationFact = (name: string, text: string) => `observation of ${name}: ${text}`;
/** The fact that `from` is related to `to` by `type`. */
export const relationFact = (from: string, type: string, to: string) =>
  `relation ${from} ${type} ${to}`;

function cloneGraph(state: GraphState): GraphState {
  return {
    entities: new Map(
      [...state.entities].map((
        [name, e],
      ) => [name, { type: e.type, observations: new Set(e.observations) }]),
    ),
    relations: new Set(state.relations),
  };
}

/** The state `op` leaves `state` in (a new state; `state` is not changed). */
export function applyGraphOp(state: GraphState, op: GraphOp): GraphState {
  const next = cloneGraph(state);
  switch (op.op) {
    case "add":
      next.entities.set(op.name, { type: op.type, observations: new Set([op.observation]) });
      break;
    case "observe":
      next.entities.get(op.name)?.observations.add(op.text);
      break;
    case "delete-observation":
      next.entities.get(op.name)?.observations.delete(op.text);
      break;
    case "relate":
      next.relations.add([op.from, op.type, op.to].join("\0"));
      break;
    case "unrelate":
      next.relations.delete([op.from, op.type, op.to].join("\0"));
      break;
    case "delete-entity":
      next.entities.delete(op.name);
      for (const key of [...next.relations]) {
        const [from, , to] = key.split("\0");
        if (from === op.name || to === op.name) next.relations.delete(key);
      }
      break;
  }
  return next;
}

/** A graph state as a set of facts, to compare with what `graph read --json` lists. */
export function graphStateFacts(state: GraphState): Set<string> {
  const facts = new Set<string>();
  for (const [name, e] of state.entities) {
    facts.add(entityFact(name, e.type));
    for (const text of e.observations) facts.add(observationFact(name, text));
  }
  for (const key of state.relations) {
    const [from, type, to] = key.split("\0") as [string, string, string];
    facts.add(relationFact(from, type, to));
  }
  return facts;
}

/** The `cairn` arguments that run `op`. */
export function graphArgs(op: GraphOp): string[] {
  switch (op.op) {
    case "add":
      return ["graph", "add-entity", op.name, "--type", op.type, "--observation", op.observation];
    case "observe":
      return ["graph", "observe", op.name, op.text];
    case "delete-observation":
      return ["graph", "delete-observation", op.name, op.text];
    case "relate":
      return ["graph", "relate", op.from, op.type, op.to];
    case "unrelate":
      return ["graph", "unrelate", op.from, op.type, op.to];
    case "delete-entity":
      return ["graph", "delete-entity", op.name];
  }
}

/** `count` graph operations, each valid on the state the ones before it leave. */
export function planGraph(ctx: Context, start: GraphState, count: number, serial: { n: number }) {
  const { rng } = ctx;
  const ops: GraphOp[] = [];
  let state = start;
  for (let i = 0; i < count; i++) {
    const names = [...state.entities.keys()];
    const roll = rng.int(0, 99);
    let op: GraphOp | undefined;
    const n = ++serial.n;
    if (names.length >= 2 && roll < 20) {
      op = { op: "observe", name: rng.pick(names), text: `observation ${n} ${rng.word()}` };
    } else if (names.length >= 2 && roll < 45) {
      const from = rng.pick(names);
      const to = rng.pick(names.filter((name) => name !== from));
      const type = rng.pick(["uses", "owns", "calls"]);
      if (!state.relations.has([from, type, to].join("\0"))) op = { op: "relate", from, type, to };
    } else if (names.length >= 2 && roll < 55) {
      const withObservations = names.filter((name) => state.entities.get(name)!.observations.size);
      if (withObservations.length) {
        const name = rng.pick(withObservations);
        op = {
          op: "delete-observation",
          name,
          text: rng.pick([...state.entities.get(name)!.observations]),
        };
      }
    } else if (names.length >= 2 && roll < 65) {
      if (state.relations.size) {
        const [from, type, to] = rng.pick([...state.relations]).split("\0") as [
          string,
          string,
          string,
        ];
        op = { op: "unrelate", from, type, to };
      }
    } else if (names.length >= 4 && roll < 75) {
      op = { op: "delete-entity", name: rng.pick(names) };
    }
    op ??= {
      op: "add",
      name: `Ent${n}${rng.word(5)}`,
      type: rng.pick(["service", "person", "library"]),
      observation: `observation ${n} ${rng.word()}`,
    };
    ops.push(op);
    state = applyGraphOp(state, op);
  }
  return ops;
}

/** A graph state read back from facts (to go on from what the store holds). */
export function graphFromFacts(facts: Set<string>): GraphState {
  const state: GraphState = { entities: new Map(), relations: new Set() };
  for (const fact of facts) {
    const entity = /^entity (\S+) \((.+)\)$/.exec(fact);
    if (entity) {
      const known = state.entities.get(entity[1]!);
      if (known) known.type = entity[2]!;
      else state.entities.set(entity[1]!, { type: entity[2]!, observations: new Set() });
    }
  }
  for (const fact of facts) {
    const observation = /^observation of (\S+): (.+)$/.exec(fact);
    if (observation) state.entities.get(observation[1]!)?.observations.add(observation[2]!);
    const relation = /^relation (\S+) (\S+) (\S+)$/.exec(fact);
    if (relation) state.relations.add([relation[1], relation[2], relation[3]].join("\0"));
  }
  return state;
}
