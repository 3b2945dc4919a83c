/**
 * A model download's progress on standard error: one line per file, redrawn
 * in place while it arrives. Shown on a terminal only; a pipe or a log gets nothing.
 * @module
 */
import type { DownloadProgress } from "./hub_download.ts";

const encoder = new TextEncoder();

/** `downloading BAAI/bge-small-en-v1.5: model.onnx 12.5 MB of 133.1 MB (9%)`. */
export function downloadProgressText(model: string, progress: DownloadProgress): string {
  const { file, received, total } = progress;
  const done = total === undefined
    ? size(received)
    : `${size(received)} of ${size(total)} (${
      total ? Math.floor((received / total) * 100) : 100
    }%)`;
  return `downloading ${model}: ${file} ${done}`;
}

function size(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.ceil(bytes / 1e3)} kB`;
}

/**
 * A progress callback drawing on standard error at most ten times a second,
 * ending each file's line when the file is complete; undefined when standard
 * error is not a terminal.
 */
export function terminalDownloadProgress(
  model: string,
): ((progress: DownloadProgress) => void) | undefined {
  if (!Deno.stderr.isTerminal()) return undefined;
  let drawn = 0;
  return (progress) => {
    const done = progress.received === progress.total;
    if (!done && performance.now() - drawn < 100) return;
    drawn = performance.now();
    const text = `\r\x1b[K${downloadProgressText(model, progress)}${done ? "\n" : ""}`;
    Deno.stderr.writeSync(encoder.encode(text));
  };
}
