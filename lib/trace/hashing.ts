import { createHash } from 'node:crypto';

/** A range of added lines with the hash of its exact committed bytes. */
export interface HashedRange {
  start_line: number;
  end_line: number;
  content_hash: string;
}

/** Byte offsets where each line starts; a final line without `\n` still counts. */
export function lineStarts(content: Buffer): number[] {
  const starts = [0];
  for (let i = content.indexOf(0x0a); i !== -1; i = content.indexOf(0x0a, i + 1)) {
    if (i + 1 < content.length) starts.push(i + 1);
  }
  if (content.length === 0) return [];
  return starts;
}

/**
 * `"sha256:"` + hex SHA-256 of lines `start..end` (1-based, inclusive) of `content`, each line
 * with its trailing `\n` where it has one: position-independent, so a moved block keeps its hash.
 */
export function hashLines(content: Buffer, starts: number[], start: number, end: number): string {
  if (start < 1 || end < start || end > starts.length) {
    throw new RangeError(`lines ${start}..${end} are outside a file of ${starts.length} lines`);
  }
  const from = starts[start - 1];
  const to = end < starts.length ? starts[end] : content.length;
  return 'sha256:' + createHash('sha256').update(content.subarray(from, to)).digest('hex');
}

/** Hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
