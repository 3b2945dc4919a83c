import { join } from "node:path";
import { FileLog } from "../../events/file_log.ts";
import { MemoryLog } from "../../events/memory_log.ts";
import { logContract } from "./log_contract.ts";

logContract({
  name: "MemoryLog",
  create: () => Promise.resolve({ log: new MemoryLog(), dispose: () => Promise.resolve() }),
});

logContract({
  name: "FileLog",
  async create() {
    const dir = await Deno.makeTempDir({ prefix: "cairn-log-" });
    const path = join(dir, "log");
    // Small segments so the contract also exercises rolling over.
    const options = { segmentBytes: 400 };
    return {
      log: await FileLog.open(path, options),
      reopen: () => FileLog.open(path, options),
      dispose: () => Deno.remove(dir, { recursive: true }),
    };
  },
});
