/**
 * Credit for part of a recorded range. A range is recorded with the boundaries of the hunk that
 * added it; a later commit may move only part of it (one function of two written together), or
 * move it without the blank line or brace the range ended with. Its bytes then match no recorded
 * range whole, yet its lines are still, in order, lines of that range: this finds those runs.
 * A run counts when it has at least two lines with substance (not blank, not a lone brace), so
 * lines every file has do not carry credit from one block to another.
 */
import { splitLines } from './line-credit.js';

/** The lines of some bytes (latin1, as the hashing rule reads them), without their line ends. */
export function bareLines(content: Buffer): string[] {
  return splitLines(content).map((l) => (l.endsWith('\n') ? l.slice(0, l.endsWith('\r\n') ? -2 : -1) : l));
}

/** A recorded range's lines (without line ends), with what crediting them gives. */
export interface RangeLines<T> {
  lines: string[];
  cand: T;
}

/** A run of the file's lines (1-based `start`, `length` lines) that are, in order, lines of `cand`'s range. */
export interface BlockMatch<T> {
  start: number;
  length: number;
  cand: T;
}

const MIN_SUBSTANTIVE = 2;
/** A line that many ranges (or one range many times) have says nothing about which wrote it: not an anchor. */
const MAX_ANCHORS = 32;

/** A line that says something: at least three characters besides spaces, two of them letters or digits. */
function substantive(line: string): boolean {
  const t = line.trim();
  return t.length >= 3 && (t.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= 2;
}

/** Recorded ranges indexed by their substantive lines (where a run can be anchored); build once, match many files. */
export interface BlockIndex<T> {
  ranges: RangeLines<T>[];
  at: Map<string, { r: number; o: number }[]>;
}

export function blockIndex<T>(ranges: RangeLines<T>[]): BlockIndex<T> {
  const at = new Map<string, { r: number; o: number }[]>();
  ranges.forEach((range, r) => {
    if (range.lines.filter(substantive).length < MIN_SUBSTANTIVE) return;
    range.lines.forEach((line, o) => {
      if (!substantive(line)) return;
      const list = at.get(line);
      if (list) list.push({ r, o });
      else at.set(line, [{ r, o }]);
    });
  });
  return { ranges, at };
}

/**
 * Every maximal run of `file`'s lines that are consecutive lines of one indexed range, with at
 * least two substantive lines, shorter than the range (a whole range is matched by its hash).
 */
export function partialBlocks<T>(index: BlockIndex<T>, file: string[]): BlockMatch<T>[] {
  const { ranges, at } = index;
  const out: BlockMatch<T>[] = [];
  for (let i = 0; i < file.length; i++) {
    const anchors = at.get(file[i]);
    if (!anchors || anchors.length > MAX_ANCHORS) continue;
    anchors: for (const { r, o } of anchors) {
      const lines = ranges[r].lines;
      // Back to the run's first line; a run is taken from its first anchor only.
      let s = i;
      let so = o;
      while (s > 0 && so > 0 && file[s - 1] === lines[so - 1]) {
        s--;
        so--;
        if (substantive(file[s]) && (at.get(file[s])?.length ?? 0) <= MAX_ANCHORS) continue anchors;
      }
      let n = 0;
      let count = 0;
      while (s + n < file.length && so + n < lines.length && file[s + n] === lines[so + n]) {
        if (substantive(file[s + n])) count++;
        n++;
      }
      if (count >= MIN_SUBSTANTIVE && n < lines.length) out.push({ start: s + 1, length: n, cand: ranges[r].cand });
    }
  }
  return out;
}
