import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { creditByHash, type RecordedRange } from '../../lib/report/hash-credit.js';

// creditByHash must credit exactly the lines intent blame credits by hash: the bytes of a recorded
// range, wherever they are now, belong to the oldest commit that recorded them (a run of two or
// more lines with substance of a range, too: part of it moved); a range whose committed bytes do
// not hash to its recorded hash credits nothing.

const hash = (s: string) => 'sha256:' + createHash('sha256').update(s).digest('hex');
const range = (commit: string, time: number, path: string, start: number, text: string, extra: Partial<RecordedRange> = {}): RecordedRange => ({
  commit, time, intent: 'INT-1', path, start, end: start + text.split('\n').length - 2, hash: hash(text), contributor: 'ai', model_id: 'm/one', ...extra,
});

describe('creditByHash', () => {
  const block = 'function a() {\n  return 1;\n}\n';
  const c1 = 'header\n' + block;

  it('credits a block moved into another file to the commit that wrote it, not one line of it', () => {
    const r = range('c1', 10, 'a.ts', 2, block);
    const blobs = new Map([['c1:a.ts', Buffer.from(c1)]]);
    const files = new Map([
      ['b.ts', Buffer.from('// moved\n' + block + 'tail\n')],
      ['c.ts', Buffer.from('function a() {\n  return 2;\n}\n')],
    ]);
    const out = creditByHash([r], blobs, files);
    expect(out.get('b.ts')!.map((l) => l?.commit ?? null)).toEqual([null, 'c1', 'c1', 'c1', null]);
    expect(out.get('c.ts')!.every((l) => l === null)).toBe(true);
  });

  it('the oldest commit with the bytes wins; single lines and a last line without a newline match exactly', () => {
    const old = range('old', 5, 'x.ts', 1, 'x = 1\n', { contributor: 'human', model_id: undefined });
    const young = range('young', 9, 'y.ts', 1, 'x = 1\n', { model_id: 'm/two' });
    const blobs = new Map([['old:x.ts', Buffer.from('x = 1\n')], ['young:y.ts', Buffer.from('x = 1\n')]]);
    const out = creditByHash([young, old], blobs, new Map([['z.ts', Buffer.from('x = 1\nx = 1')]]));
    const lines = out.get('z.ts')!;
    expect(lines[0]).toMatchObject({ commit: 'old', contributor: 'human' });
    expect(lines[1]).toBeNull(); // "x = 1" without its newline is other bytes
  });

  it('a range whose committed bytes do not hash to its recorded hash credits nothing', () => {
    const lying = { ...range('c1', 1, 'a.ts', 2, block), hash: hash('something else\n') };
    const out = creditByHash([lying], new Map([['c1:a.ts', Buffer.from(c1)]]), new Map([['a.ts', Buffer.from(c1)]]));
    expect(out.get('a.ts')!.every((l) => l === null)).toBe(true);
  });

  it('overlapping matches: the older block claims its lines first, the younger gets the lines left (as intent blame does)', () => {
    const first = range('first', 1, 'f.ts', 1, 'a\nb\n');
    const second = range('second', 2, 'g.ts', 1, 'b\nc\nd\n');
    const blobs = new Map([['first:f.ts', Buffer.from('a\nb\n')], ['second:g.ts', Buffer.from('b\nc\nd\n')]]);
    const out = creditByHash([first, second], blobs, new Map([['h.ts', Buffer.from('a\nb\nc\nd\n')]]));
    expect(out.get('h.ts')!.map((l) => l?.commit ?? null)).toEqual(['first', 'first', 'second', 'second']);
    const out2 = creditByHash([first, second], blobs, new Map([['h.ts', Buffer.from('b\nc\nd\na\nb\n')]]));
    expect(out2.get('h.ts')!.map((l) => l?.commit ?? null)).toEqual(['second', 'second', 'second', 'first', 'first']);
  });

  it('part of a range moved without the range\'s boundaries is credited to it; a lone brace or one line is not', () => {
    const two = 'function a() {\n  return 1;\n}\n\nfunction b(x) {\n  return x * 2;\n}\n\n';
    const r = range('c1', 10, 'a.ts', 1, two);
    const blobs = new Map([['c1:a.ts', Buffer.from(two)]]);
    const younger = range('c2', 20, 'b.ts', 1, '// b\nfunction b(x) {\n  return x * 2;\n}\nexport { b };\n');
    blobs.set('c2:b.ts', Buffer.from('// b\nfunction b(x) {\n  return x * 2;\n}\nexport { b };\n'));
    const out = creditByHash([r, younger], blobs, new Map([
      ['b.ts', Buffer.from('// b\nfunction b(x) {\n  return x * 2;\n}\nexport { b };\n')],
      ['c.ts', Buffer.from('}\n\nfunction c() {\n')],
    ]));
    expect(out.get('b.ts')!.map((l) => l?.commit ?? null)).toEqual(['c2', 'c1', 'c1', 'c1', 'c2']);
    expect(out.get('c.ts')!.every((l) => l === null)).toBe(true);
  });
});
