/**
 * Who wrote each line of many files, by content hash, in one pass: a window of lines whose exact
 * bytes some note recorded as a range is credited to the commit, intent and contributor of that
 * range (the oldest commit with those bytes wins; longer blocks before shorter ones), like
 * `intent blame`. Instead of hashing every window of every length, the recorded ranges are read
 * once from their commits' blobs and indexed by their first line (or first two lines), so each
 * line of a file costs one or two map lookups and a byte comparison per candidate. Part of a
 * range moved without its boundaries is credited too (lib/trace/block-credit.ts).
 */
import { lineStarts } from '../trace/hashing.js';
import { sha256Hex } from '../trace/hashing.js';
import { bareLines, blockIndex, partialBlocks, type RangeLines } from '../trace/block-credit.js';

/** One range a note recorded. */
export interface RecordedRange {
  commit: string;
  /** Committer time (unix seconds): the oldest commit with the bytes wrote them. */
  time: number;
  intent: string;
  path: string;
  start: number;
  end: number;
  /** `sha256:<hex>` of the lines' bytes. */
  hash: string;
  contributor: 'ai' | 'human' | 'mixed' | 'unknown';
  model_id?: string;
}

/** The range that wrote a line (null: no recorded range has its bytes). */
export type LineCredit = RecordedRange | null;

interface Candidate {
  range: RecordedRange;
  bytes: Buffer;
  length: number;
}

/** How many committed files the ranges' bytes are cut from at once when they are read on demand. */
const BLOB_BATCH = 32;

/**
 * Credits every line of `files` (path → bytes) to the recorded range whose bytes it carries.
 * `blobs` holds each range's committed file, keyed `<commit>:<path>`, or reads them for given keys:
 * then BLOB_BATCH files at a time, each range's bytes copied out and the file let go, so the
 * memory follows the ranges, not the history (10,000 versions of a 320 KB file). A range whose
 * bytes there do not hash to its recorded hash (a lying note, which verify reports) credits nothing.
 */
export function creditByHash(ranges: RecordedRange[], blobs: Map<string, Buffer> | ((keys: string[]) => Map<string, Buffer>), files: Map<string, Buffer>): Map<string, LineCredit[]> {
  // One candidate per distinct hash: the oldest commit (first seen on a tie, like intent blame).
  const byHash = new Map<string, RecordedRange>();
  for (const r of ranges) {
    const prev = byHash.get(r.hash);
    if (!prev || r.time < prev.time) byHash.set(r.hash, r);
  }
  const startsOf = new Map<string, number[]>();
  const one = new Map<string, Candidate[]>();
  const two = new Map<string, Candidate[]>();
  const parts: RangeLines<RecordedRange>[] = [];
  const wanted = [...byHash.values()];
  const byKey = new Map<string, RecordedRange[]>();
  for (const r of wanted) {
    const key = `${r.commit}:${r.path}`;
    const list = byKey.get(key);
    if (list) list.push(r);
    else byKey.set(key, [r]);
  }
  const keys = [...byKey.keys()];
  const onDemand = typeof blobs === 'function';
  for (let i = 0; i < keys.length; i += onDemand ? BLOB_BATCH : keys.length) {
    const batch = keys.slice(i, onDemand ? i + BLOB_BATCH : keys.length);
    const read = onDemand ? blobs(batch) : blobs;
    for (const key of batch) {
      const blob = read.get(key);
      if (!blob) continue;
      let starts = startsOf.get(key);
      if (!starts) starts = lineStarts(blob);
      if (!onDemand) startsOf.set(key, starts);
      for (const r of byKey.get(key)!) {
        if (r.start < 1 || r.end < r.start || r.end > starts.length) continue;
        // Copied when read on demand: the committed file is let go after its batch.
        const own = (b: Buffer) => (onDemand ? Buffer.from(b) : b);
        const bytes = own(slice(blob, starts, r.start, r.end));
        if ('sha256:' + sha256Hex(bytes) !== r.hash) continue;
        const length = r.end - r.start + 1;
        const index = length === 1 ? one : two;
        const head = length === 1 ? bytes : own(slice(blob, starts, r.start, r.start + 1));
        const k = head.toString('latin1');
        const list = index.get(k);
        const cand = { range: r, bytes, length };
        if (list) list.push(cand);
        else index.set(k, [cand]);
        if (length > 1) parts.push({ lines: bareLines(bytes), cand: r });
      }
    }
  }
  const blocks = blockIndex(parts);

  const out = new Map<string, LineCredit[]>();
  for (const [path, content] of files) {
    const starts = lineStarts(content);
    const n = starts.length;
    const matches: { start: number; length: number; range: RecordedRange }[] = [];
    for (let s = 1; s <= n; s++) {
      const c1 = one.get(slice(content, starts, s, s).toString('latin1'));
      if (c1) for (const cand of c1) if (cand.bytes.equals(slice(content, starts, s, s))) matches.push({ start: s, length: 1, range: cand.range });
      if (s === n) continue;
      const c2 = two.get(slice(content, starts, s, s + 1).toString('latin1'));
      if (!c2) continue;
      for (const cand of c2) {
        if (s + cand.length - 1 > n) continue;
        if (slice(content, starts, s, s + cand.length - 1).equals(cand.bytes)) matches.push({ start: s, length: cand.length, range: cand.range });
      }
    }
    for (const m of partialBlocks(blocks, bareLines(content))) matches.push({ start: m.start, length: m.length, range: m.cand });
    matches.sort((a, b) => a.range.time - b.range.time || b.length - a.length || a.start - b.start);
    const lines: LineCredit[] = new Array(n).fill(null);
    for (const { start, length, range } of matches) {
      for (let l = start; l < start + length; l++) if (!lines[l - 1]) lines[l - 1] = range;
    }
    out.set(path, lines);
  }
  return out;
}

/** Lines start..end (1-based, inclusive) of `content`, each with its `\n` where it has one. */
function slice(content: Buffer, starts: number[], start: number, end: number): Buffer {
  return content.subarray(starts[start - 1], end < starts.length ? starts[end] : content.length);
}
