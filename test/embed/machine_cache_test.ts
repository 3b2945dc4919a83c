import assert from "node:assert/strict";
import { join } from "node:path";
import { machineCacheDir } from "../../src/embed/machine_cache.ts";

function envOf(values: Record<string, string>): (name: string) => string | undefined {
  return (name) => values[name];
}

Deno.test("machineCacheDir() takes CAIRN_CACHE_DIR, and off turns the shared cache off", () => {
  assert.equal(machineCacheDir(envOf({ CAIRN_CACHE_DIR: "/x/cache", HOME: "/h" })), "/x/cache");
  assert.equal(machineCacheDir(envOf({ CAIRN_CACHE_DIR: "off", HOME: "/h" })), undefined);
});

Deno.test("machineCacheDir() is the platform's cache folder by default", () => {
  const expected = {
    darwin: join("/h", "Library", "Caches", "cairn"),
    windows: join("/l", "cairn", "cache"),
  }[Deno.build.os as string] ?? join("/xdg", "cairn");
  const env = envOf({ HOME: "/h", XDG_CACHE_HOME: "/xdg", LOCALAPPDATA: "/l" });
  assert.equal(machineCacheDir(env), expected);
  if (Deno.build.os === "linux") {
    assert.equal(machineCacheDir(envOf({ HOME: "/h" })), join("/h", ".cache", "cairn"));
  }
});
