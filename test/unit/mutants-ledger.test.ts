import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLedger, lastLedgerLine, ledgerLine } from '../../lib/trace/ledger.js';
import type { TraceRecord } from '../../lib/trace/record.js';
import { METADATA_KEY } from '../../lib/core/version.js';

// The ledger's hash chain (issue 42, mutation testing): each line carries the SHA-256 of the line
// before it, a torn last line is closed off and chained to, and the last line is read backwards.

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const dir = () => mkdtempSync(join(tmpdir(), 'ledger-'));

describe('lastLedgerLine', () => {
  it('has no line for a missing or empty ledger', () => {
    const d = dir();
    expect(lastLedgerLine(join(d, 'none.jsonl'))).toEqual({ line: null, complete: true });
    writeFileSync(join(d, 'empty.jsonl'), '');
    expect(lastLedgerLine(join(d, 'empty.jsonl'))).toEqual({ line: null, complete: true });
  });

  it('returns the last line and whether the file ends with a newline', () => {
    const d = dir();
    const p = join(d, 'l.jsonl');
    writeFileSync(p, 'one\ntwo\n');
    expect(lastLedgerLine(p)).toEqual({ line: 'two', complete: true });
    writeFileSync(p, 'one\ntwo');
    expect(lastLedgerLine(p)).toEqual({ line: 'two', complete: false });
    writeFileSync(p, 'only\n');
    expect(lastLedgerLine(p)).toEqual({ line: 'only', complete: true });
    writeFileSync(p, 'only');
    expect(lastLedgerLine(p)).toEqual({ line: 'only', complete: false });
  });

  it('finds a last line that spans more than one 64 KiB chunk', () => {
    const d = dir();
    const p = join(d, 'big.jsonl');
    const long = 'x'.repeat(65536 * 2 + 17);
    writeFileSync(p, `first\n${long}\n`);
    expect(lastLedgerLine(p)).toEqual({ line: long, complete: true });
    writeFileSync(p, long);
    expect(lastLedgerLine(p)).toEqual({ line: long, complete: false });
    // The newline that ends the previous line falls exactly on a chunk boundary.
    const tail = 'y'.repeat(65536);
    writeFileSync(p, `a\n${tail}\n`);
    expect(lastLedgerLine(p).line).toBe(tail);
  });
});

describe('appendLedger', () => {
  it('chains every line to the hash of the previous line, null for the first', () => {
    const d = dir();
    const p = join(d, 'sub', 'ledger.jsonl');
    const seen: (string | null)[] = [];
    const build = (n: number) => (prev: string | null) => {
      seen.push(prev);
      return JSON.stringify({ n, prev });
    };
    const l1 = appendLedger(p, build(1));
    const l2 = appendLedger(p, build(2));
    appendLedger(p, build(3));
    expect(seen).toEqual([null, sha(l1), sha(l2)]);
    expect(readFileSync(p, 'utf8')).toBe([l1, l2, JSON.stringify({ n: 3, prev: sha(l2) })].join('\n') + '\n');
  });

  it('closes off a torn last line and chains to it', () => {
    const d = dir();
    const p = join(d, 'ledger.jsonl');
    writeFileSync(p, 'good\n{"torn":');
    let prev: string | null = 'unset';
    const text = appendLedger(p, (h) => {
      prev = h;
      return 'next';
    });
    expect(text).toBe('next');
    expect(prev).toBe(sha('{"torn":'));
    expect(readFileSync(p, 'utf8')).toBe('good\n{"torn":\nnext\n');
  });

  it('refuses a line with a newline in it and writes nothing', () => {
    const d = dir();
    const p = join(d, 'ledger.jsonl');
    writeFileSync(p, 'a\n');
    expect(() => appendLedger(p, () => 'b\nc')).toThrow(/newline/);
    expect(readFileSync(p, 'utf8')).toBe('a\n');
  });
});

describe('ledgerLine', () => {
  it('adds prev_line_sha256 to the record\'s own metadata without changing the record', () => {
    const record = {
      version: '0.1.0', id: 'x', timestamp: 't', files: [],
      metadata: { other: { k: 1 }, [METADATA_KEY]: { intent_id: 'INT-001' } },
    } as unknown as TraceRecord;
    const before = JSON.stringify(record);
    const line = JSON.parse(ledgerLine(record, 'abc'));
    expect(line.metadata[METADATA_KEY]).toEqual({ intent_id: 'INT-001', prev_line_sha256: 'abc' });
    expect(line.metadata.other).toEqual({ k: 1 });
    expect(line.id).toBe('x');
    expect(JSON.parse(ledgerLine(record, null)).metadata[METADATA_KEY].prev_line_sha256).toBeNull();
    expect(JSON.stringify(record)).toBe(before);
  });
});

// Each read and append closes the file it opened (a long-running server appends for every commit).
describe.runIf(existsSync('/proc/self/fd'))('file descriptors', () => {
  it('are all closed after lastLedgerLine and appendLedger', () => {
    const d = dir();
    const p = join(d, 'ledger.jsonl');
    writeFileSync(p, 'a\n');
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 20; i++) {
      lastLedgerLine(p);
      appendLedger(p, () => `line ${i}`);
    }
    expect(open()).toBe(before);
  });
});
