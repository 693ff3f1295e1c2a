/**
 * The last lines of an agent's transcript (JSONL), read from its end: the newest entries are what
 * the hooks look for (the model of the current turn, the arguments of the current call).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** The lines of the last `maxBytes` of `path`, newest first (the first of them may be cut); [] when it cannot be read. */
export function tailLines(path: string | undefined, maxBytes: number): string[] {
  if (!path) return [];
  try {
    const size = statSync(path).size;
    const len = Math.min(size, maxBytes);
    const fd = openSync(path, 'r');
    const buf = Buffer.alloc(len);
    try {
      readSync(fd, buf, 0, len, size - len);
    } finally {
      closeSync(fd);
    }
    return buf.toString('utf8').split('\n').reverse();
  } catch {
    return [];
  }
}

/** The `model` of the newest entry of type `type` in a transcript whose entries carry it at the top level (Gemini CLI's, Qwen Code's), read from its last megabyte. */
export function modelOfNewest(path: string | undefined, type: string): string | undefined {
  for (const line of tailLines(path, 1 << 20)) {
    if (!line.includes('"model"')) continue;
    try {
      const e = JSON.parse(line) as { type?: string; model?: unknown };
      if (e.type === type && typeof e.model === 'string' && e.model) return e.model;
    } catch { /* a partial first line */ }
  }
  return undefined;
}
