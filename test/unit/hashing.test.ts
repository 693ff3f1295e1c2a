import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashLines, lineStarts, sha256Hex } from '../../lib/trace/hashing.js';

/** Independent reference: sha256 of the given bytes. */
function ref(bytes: Buffer | string): string {
  return 'sha256:' + createHash('sha256').update(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).digest('hex');
}

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('lineStarts', () => {
  it.each([
    ['', []],
    ['a', [0]],
    ['a\n', [0]],
    ['\n', [0]],
    ['\n\n', [0, 1]],
    ['a\nb\n', [0, 2]],
    ['a\nb', [0, 2]],
    ['ab\n\ncd', [0, 3, 4]],
    ['a\r\nb\r\n', [0, 3]],
    ['a\r\nb', [0, 3]],
    ['ü\nx\n', [0, 3]], // offsets are bytes, not characters
    ['one\ntwo\nthree\n', [0, 4, 8]],
  ])('%j → %j', (text, want) => {
    expect(lineStarts(b(text))).toEqual(want);
  });

  it('treats a lone CR as part of a line, not a line break', () => {
    expect(lineStarts(b('a\rb\nc'))).toEqual([0, 4]);
  });
});

describe('hashLines', () => {
  /** [file, start, end, the exact bytes that must be hashed] */
  const CASES: [string, string, number, number, string][] = [
    ['trailing newline, first line', 'one\ntwo\nthree\n', 1, 1, 'one\n'],
    ['trailing newline, middle line', 'one\ntwo\nthree\n', 2, 2, 'two\n'],
    ['trailing newline, last line', 'one\ntwo\nthree\n', 3, 3, 'three\n'],
    ['trailing newline, whole file', 'one\ntwo\nthree\n', 1, 3, 'one\ntwo\nthree\n'],
    ['no trailing newline, last line', 'one\ntwo\nthree', 3, 3, 'three'],
    ['no trailing newline, last two', 'one\ntwo\nthree', 2, 3, 'two\nthree'],
    ['no trailing newline, whole file', 'one\ntwo\nthree', 1, 3, 'one\ntwo\nthree'],
    ['single line with newline', 'only\n', 1, 1, 'only\n'],
    ['single line without newline', 'only', 1, 1, 'only'],
    ['single empty line', '\n', 1, 1, '\n'],
    ['empty lines in the middle', 'a\n\n\nb\n', 2, 3, '\n\n'],
    ['CRLF, one line', 'a\r\nb\r\nc\r\n', 2, 2, 'b\r\n'],
    ['CRLF, last without newline', 'a\r\nb\r\nc', 2, 3, 'b\r\nc'],
    ['CRLF kept byte for byte', 'x\r\n', 1, 1, 'x\r\n'],
    ['multi-byte UTF-8', 'ü\n日本\n😀', 2, 3, '日本\n😀'],
  ];

  it.each(CASES)('%s', (_name, file, start, end, bytes) => {
    const content = b(file);
    const h = hashLines(content, lineStarts(content), start, end);
    expect(h).toBe(ref(bytes));
    expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('hashes raw bytes, including invalid UTF-8 and NUL', () => {
    const content = Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x00, 0x0a, 0x62]);
    const starts = lineStarts(content);
    expect(starts).toEqual([0, 2, 6]);
    expect(hashLines(content, starts, 2, 2)).toBe(ref(Buffer.from([0xff, 0xfe, 0x00, 0x0a])));
    expect(hashLines(content, starts, 3, 3)).toBe(ref(Buffer.from([0x62])));
  });

  it('matches a known constant (sha256 of "b\\n")', () => {
    const content = b('a\nb\n');
    expect(hashLines(content, lineStarts(content), 2, 2)).toBe('sha256:0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f');
  });

  it('gives a moved block the same hash', () => {
    const block = 'function f() {\n  return 42;\n}\n';
    const before = b(`header\n${block}middle\nfooter\n`);
    const after = b(`header\nmiddle\nfooter\nmore\nlines\n${block}`);
    const h1 = hashLines(before, lineStarts(before), 2, 4);
    const h2 = hashLines(after, lineStarts(after), 6, 8);
    expect(h1).toBe(h2);
    expect(h1).toBe(ref(block));
    // ... but not when the block is the last line without its newline.
    const noNl = b(`x\n${block.slice(0, -1)}`);
    expect(hashLines(noNl, lineStarts(noNl), 2, 4)).not.toBe(h1);
  });

  it('differs when a single byte of the range differs, and ignores bytes outside it', () => {
    const a = b('a\nsame\nz\n');
    const c = b('A\nsame\nZ\n');
    expect(hashLines(a, lineStarts(a), 2, 2)).toBe(hashLines(c, lineStarts(c), 2, 2));
    expect(hashLines(a, lineStarts(a), 1, 2)).not.toBe(hashLines(c, lineStarts(c), 1, 2));
  });

  it.each([
    ['start 0', 'a\nb\n', 0, 1],
    ['negative start', 'a\nb\n', -1, 1],
    ['end before start', 'a\nb\n', 2, 1],
    ['end past the last line', 'a\nb\n', 1, 3],
    ['start past the last line', 'a\nb\n', 3, 3],
    ['no trailing newline, end past the last line', 'a\nb', 2, 3],
    ['empty file', '', 1, 1],
  ])('throws RangeError for %s', (_name, file, start, end) => {
    const content = b(file);
    expect(() => hashLines(content, lineStarts(content), start, end)).toThrow(RangeError);
  });

  it('names the range and the file length in the RangeError', () => {
    const content = b('a\nb\n');
    expect(() => hashLines(content, lineStarts(content), 2, 5)).toThrowError('lines 2..5 are outside a file of 2 lines');
  });
});

describe('sha256Hex', () => {
  it('hashes strings as UTF-8 and buffers as bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('ü')).toBe(createHash('sha256').update(Buffer.from([0xc3, 0xbc])).digest('hex'));
    expect(sha256Hex(Buffer.from([0, 1, 2]))).toBe(createHash('sha256').update(Buffer.from([0, 1, 2])).digest('hex'));
  });
});
