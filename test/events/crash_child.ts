// Child process for the crash tests: appends (or compacts) until it is killed.
import { FileLog } from "../../events/file_log.ts";
import { remembered } from "../helpers.ts";

const [mode, dir, start] = Deno.args;
const encoder = new TextEncoder();
if (mode === "append") {
  const log = await FileLog.open(dir!, { segmentBytes: 4096 });
  for (let n = Number(start);;) {
    const size = 1 + (n % 7);
    const batch = Array.from(
      { length: size },
      (_, i) => remembered(`m${n + i}`, "x".repeat((n + i) % 300)),
    );
    await log.append(batch);
    n += size;
    // Report only after the append resolved: these are acknowledged.
    await Deno.stdout.write(encoder.encode(`${n - 1}\n`));
  }
} else if (mode === "compact") {
  const log = await FileLog.open(dir!, { segmentBytes: 4096 });
  await Deno.stdout.write(encoder.encode("ready\n"));
  await log.rewrite((event) => event.seq % 2 === 1);
  await Deno.stdout.write(encoder.encode("done\n"));
  await log.close();
}
