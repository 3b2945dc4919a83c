import assert from "node:assert/strict";
import { OwnerActivity } from "../../src/cli/owner_activity.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("an owner is busy while a command runs, its vectors move or a folder is watched, idle otherwise", async () => {
  let checkpoint = 0;
  let watching = false;
  const activity = new OwnerActivity(() => checkpoint, () => watching);
  const started = activity.last();
  await pause(20);
  assert.equal(activity.last(), started, "nothing happened: the last activity stays put");

  let finish = () => {};
  const command = activity.during(() => new Promise<void>((resolve) => (finish = resolve)));
  await pause(20);
  assert.ok(activity.last() > started, "a command running counts as activity");
  finish();
  await command;
  const ended = activity.last();
  await pause(20);
  assert.equal(activity.last(), ended, "idle again once it ended");

  checkpoint = 5;
  assert.ok(activity.last() > ended, "vectors being computed count as activity");
  const moved = activity.last();
  await pause(20);
  assert.equal(activity.last(), moved, "vectors that stopped moving do not");

  watching = true;
  await pause(20);
  assert.ok(activity.last() > moved, "a watched folder keeps it busy");
  watching = false;
  const unwatched = activity.last();
  await pause(20);
  assert.equal(activity.last(), unwatched, "idle once no folder is watched");
});
