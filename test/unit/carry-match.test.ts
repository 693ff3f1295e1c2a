import { describe, expect, it } from 'vitest';
import { Matcher, type Piece, type TargetFile } from '../../lib/trace/carry-match.js';
import { hashLines, lineStarts } from '../../lib/trace/hashing.js';

const MODEL = { model_id: 'm' };

function file(path: string, text: string, added: number[], oldPath: string | null = null): TargetFile {
  const content = Buffer.from(text);
  return { path, oldPath, content, starts: lineStarts(content), added };
}

/** A piece with the hash of `text`'s lines. */
function piece(path: string, text: string, author: Piece['author'] = MODEL): Piece {
  const content = Buffer.from(text);
  const starts = lineStarts(content);
  return { path, length: starts.length, hash: hashLines(content, starts, 1, starts.length), author };
}

function credited(m: Matcher, path: string): number[] {
  const a = m.authorship().get(path);
  return a ? [...a.lines.entries()].filter(([, v]) => v >= 0).map(([i]) => i + 1) : [];
}

describe('Matcher: recorded ranges placed on added lines by content', () => {
  it('places a block on consecutive added lines with its bytes, and only there', () => {
    const m = new Matcher([file('a.ts', 'x\ny\nz\ny\nz\n', [2, 3, 5])]);
    // "y\nz\n" is at 2-3 (added) and 4-5 (line 4 not added): only 2-3 can take it.
    expect(m.place([piece('a.ts', 'y\nz\n')])).toEqual([true]);
    expect(credited(m, 'a.ts')).toEqual([2, 3]);
    expect(m.counts()).toEqual({ added: 3, explained: 2, ai: 2, unexplained: 1 });
  });

  it('longer pieces first; a line is taken once; a human piece explains without crediting a model', () => {
    const m = new Matcher([file('a.ts', 'k\nk\nk\n', [1, 2, 3])]);
    expect(m.place([piece('a.ts', 'k\n', null), piece('a.ts', 'k\nk\n'), piece('a.ts', 'k\n', null), piece('a.ts', 'k\n')])).toEqual([true, true, false, false]);
    expect(credited(m, 'a.ts')).toEqual([1, 2]);
    expect(m.counts()).toEqual({ added: 3, explained: 3, ai: 2, unexplained: 0 });
  });

  it('the same path (or a rename\'s old path) before any other path', () => {
    const m = new Matcher([file('b.ts', 'q\n', [1]), file('new.ts', 'q\n', [1], 'a.ts')]);
    expect(m.place([piece('a.ts', 'q\n')])).toEqual([true]);
    expect(credited(m, 'new.ts')).toEqual([1]);
    expect(credited(m, 'b.ts')).toEqual([]);
    expect(m.place([piece('c.ts', 'q\n')])).toEqual([true]); // any path when the same has none left
    expect(credited(m, 'b.ts')).toEqual([1]);
  });
});
