import assert from "node:assert/strict";
import { requestIdOf, RequestIdScanner } from "../../src/mcp/request_id.ts";

Deno.test("requestIdOf() reads the outermost id, wherever it is, never one inside the parameters", () => {
  assert.equal(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"x"}'), 7);
  assert.equal(requestIdOf('{"params":{"arguments":{"id":"mem_abc"}},"id":"r-1"}'), "r-1");
  assert.equal(requestIdOf('{"params":{"id":3,"s":"\\"id\\": 9"}, "id" : -12 }'), -12);
  assert.equal(requestIdOf('{"method":"notifications/initialized"}'), null);
  assert.equal(requestIdOf('{"id":{"nested":1}}'), null);
  assert.equal(requestIdOf("this is not json"), null);
});

Deno.test("RequestIdScanner finds the id across the pieces a message arrives in", () => {
  const text = `{"params":{"content":"${"é".repeat(1000)}"},"jsonrpc":"2.0","id":"abc-42"}`;
  const bytes = new TextEncoder().encode(text);
  for (const size of [1, 7, 4096]) {
    const scanner = new RequestIdScanner();
    for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size));
    assert.equal(scanner.id, "abc-42", `pieces of ${size}`);
  }
});
