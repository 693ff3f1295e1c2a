import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { sha256Hex } from './hashing.js';
import { assertWritable } from './ledger-heal.js';
import type { TraceRecord } from './record.js';
import { METADATA_KEY } from '../core/version.js';

/**
 * The last line of the ledger (without its newline) and whether the file ends cleanly with a
 * newline. Reads backwards from the end, so cost does not grow with the ledger.
 */
export function lastLedgerLine(path: string): { line: string | null; complete: boolean } {
  if (!existsSync(path)) return { line: null, complete: true };
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return { line: null, complete: true };
    const chunks: Buffer[] = [];
    let pos = size;
    let complete = true;
    let first = true;
    while (pos > 0) {
      const len = Math.min(65536, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, pos);
      let scan = buf;
      if (first) {
        first = false;
        if (buf[len - 1] === 0x0a) scan = buf.subarray(0, len - 1);
        else complete = false;
      }
      const nl = scan.lastIndexOf(0x0a);
      if (nl !== -1) {
        chunks.unshift(scan.subarray(nl + 1));
        return { line: Buffer.concat(chunks).toString('utf8'), complete };
      }
      chunks.unshift(scan);
    }
    return { line: Buffer.concat(chunks).toString('utf8'), complete };
  } finally {
    closeSync(fd);
  }
}

/**
 * A record's ledger line: the record with the hash of the line before it (`prev`, null for the
 * first) in its metadata, as one line of JSON. Shallow copies of the three objects on the way (the
 * record is not changed; a deep copy of a large record cost more than its JSON).
 */
export function ledgerLine(record: TraceRecord, prev: string | null): string {
  const meta = record.metadata[METADATA_KEY];
  return JSON.stringify({ ...record, metadata: { ...record.metadata, [METADATA_KEY]: { ...meta, prev_line_sha256: prev } } });
}

/**
 * Appends one JSON line built by `build(prevHash)` where prevHash is the hex SHA-256 of the
 * previous line's bytes (null for the first line). The caller holds the ledger lock. A torn
 * last line (no newline: a crash mid-append) is closed off first, never rewritten, and chained
 * to like any other line so the break stays visible.
 */
export function appendLedger(path: string, build: (prevHash: string | null) => string): string {
  mkdirSync(dirname(path), { recursive: true });
  assertWritable(path, 'no line can be appended');
  const { line, complete } = lastLedgerLine(path);
  const prev = line === null ? null : sha256Hex(line);
  const text = build(prev);
  if (text.includes('\n')) throw new Error('a ledger line must not contain a newline');
  // Not fsynced: the line is as durable as the commit and the note it records, which git itself
  // writes as loose objects without fsync (core.fsync's default, committed,-loose-object). A line
  // lost to a crash is a commit `intent verify` reports and `intent repair` appends (the note is
  // the record); a torn one is closed off by the next append. (An fsync was 1-5 ms of every commit.)
  const fd = openSync(path, 'a');
  try {
    appendFileSync(fd, (complete ? '' : '\n') + text + '\n');
  } finally {
    closeSync(fd);
  }
  return text;
}
