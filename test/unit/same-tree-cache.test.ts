// The parses the same-tree shortcut keeps for the next commit (lib/mutation/syntax/same-tree.ts):
// the same answers cold (cache emptied before each call) and warm (the previous change's new side
// is this one's old side, as in the hook server), a text that did not parse kept as such, the
// kind part of the key, the bounds after many distinct texts, least recently used out first.
// Real TypeScript parser.
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { toEntry } from '../../lib/mutation/syntax/entries.js';
import { clearParseCache, parseCacheStats, sameTrees, unchangedTrees } from '../../lib/mutation/syntax/same-tree.js';
import { loadTypeScript } from '../../lib/mutation/syntax/sides.js';

const ts = loadTypeScript()!;
const same = (a: string, b: string, path = 'src/a.ts') => sameTrees(ts, [toEntry({ path, oldText: a, newText: b }, 0)]);

/** Chains of versions of one file: each step is a change (previous → next), as consecutive commits. */
const CHAINS: [string, string[]][] = [
  ['src/a.ts', ['export const a = 1;\n', '// why\nexport const a = 1; /* note */\n', '// why\nexport const a = 2;\n', '// why\nexport const a = 2\n', 'export const a = ;\n', 'export const a = ; // x\n', 'export const a = 2;\n']],
  ['src/f.ts', ['export function f(x: number) { return x + 1; }\n', 'export function f(x: number) {\n\n    return x + 1;\n}\n', 'export function f(x: number) {\n  return x - 1;\n}\n', 'export function f(x: number) {\n  return x - 1; // down\n}\n']],
  ['src/q.ts', ["import { a } from './a';\n", 'import { a } from "./a";\n', 'import type { a } from "./a";\n', "import type { a } from './a';\n"]],
  ['src/s.ts', ['"use strict";\nx++;\n', '"use\\x20strict";\nx++;\n', '"use strict";\nx++; // y\n', '"use strict";\nx--;\n']],
  ['src/v.tsx', ['export const v = <div className="x" id={a}>{a}</div>;\n', 'export const v = <div\n  className="x"\n  id={a}>{a}</div>;\n', 'export const v = <div className="y" id={a}>{a}</div>;\n']],
  ['src/p.tsx', ['/** @jsx h */\nexport const v = <i />;\n', '/** @jsx h */\n// x\nexport const v = <i />;\n', '/** @jsx React.createElement */\nexport const v = <i />;\n']],
  ['src/j.js', ['const fs = require("fs");\nexports.a = 1;\n', "const fs = require('fs');\n\nexports.a = 1;\n", "const fs = require('fs');\nexports.a = 2;\n"]],
];

/** Own sources with a comment added, then a token changed, then the comment moved. */
function ownChains(): [string, string[]][] {
  return ['lib/mutation/syntax/same-tree.ts', 'lib/mutation/syntax/entries.ts', 'lib/mutation/syntax/ast.ts'].map((p) => {
    const t = readFileSync(p, 'utf8');
    const v1 = `// edited\n${t}`;
    const v2 = v1.replace('return', 'return void 0,');
    return [p, [t, v1, v2, `${v2}\n// edited\n`, t]];
  });
}

const steps = (chains: [string, string[]][]) => chains.flatMap(([path, vs]) => vs.slice(1).map((v, i) => ({ path, a: vs[i], b: v })));

beforeEach(() => clearParseCache());

describe('the same-tree parse cache', () => {
  it('gives the same answers cold and warm, across consecutive changes of the same files', () => {
    const all = steps([...CHAINS, ...ownChains()]);
    const cold = all.map(({ path, a, b }) => {
      clearParseCache();
      return same(a, b, path);
    });
    // The corpus says both things, or it proves little.
    expect(cold).toContain(true);
    expect(cold).toContain(false);
    clearParseCache();
    const warm = all.map(({ path, a, b }) => same(a, b, path));
    expect(warm).toEqual(cold);
    // And again, everything kept (every side answered from the cache at least once before).
    const again = all.map(({ path, a, b }) => same(a, b, path));
    expect(again).toEqual(cold);
    expect(parseCacheStats().hits).toBeGreaterThan(all.length);
  });

  it('answers the next commit\'s old side from the cache: only the new side is parsed', () => {
    const [path, [v0, v1, v2]] = CHAINS[0];
    expect(same(v0, v1, path)).toBe(true);
    expect(parseCacheStats()).toMatchObject({ hits: 0, misses: 2, entries: 2 });
    expect(same(v1, v2, path)).toBe(false);
    expect(parseCacheStats()).toMatchObject({ hits: 1, misses: 3, entries: 3 });
  });

  it('keeps a text that did not parse as such, with the same answer', () => {
    const bad = 'export const a = ;\n';
    expect(same(bad, 'export const a = 1;\n')).toBe(false);
    expect(parseCacheStats()).toMatchObject({ entries: 1, misses: 1, hits: 0 });
    expect(same(bad, 'export const a = 1;\n')).toBe(false);
    expect(same(bad, bad)).toBe(false);
    expect(parseCacheStats()).toMatchObject({ entries: 1, misses: 1, hits: 2 });
    // Unchanged cold: a text that does not parse is never the same tree, even as itself.
    clearParseCache();
    expect(same(bad, bad)).toBe(false);
  });

  it('keys by the syntax kind too: the same text parses in TS and not in TSX', () => {
    const generic = 'export const id = <T>(x: T) => x;\n';
    const commented = `// id\n${generic}`;
    expect(same(generic, commented, 'src/id.ts')).toBe(true);
    expect(same(generic, commented, 'src/id.tsx')).toBe(false);
    expect(same(generic, commented, 'src/id.ts')).toBe(true);
    clearParseCache();
    expect(same(generic, commented, 'src/id.tsx')).toBe(false);
    expect(same(generic, commented, 'src/id.ts')).toBe(true);
  });

  it('stays within its bounds after many distinct texts, and keeps no text over the size limit', () => {
    const { limits } = parseCacheStats();
    for (let i = 0; i < limits.entries * 4; i++) same(`export const a${i} = ${i};\n`, `// c\nexport const a${i} = ${i};\n`);
    expect(parseCacheStats().entries).toBe(limits.entries);
    // Big texts: the character bound holds before the entry bound does.
    const big = (i: number) => `// ${i}\n${'export const x = [1, 2, 3];\n'.repeat(Math.floor(limits.textChars / 2 / 28))}`;
    for (let i = 0; i < 12; i++) expect(same(big(i), `${big(i)}// end\n`)).toBe(true);
    const s = parseCacheStats();
    expect(s.chars).toBeLessThanOrEqual(limits.chars);
    expect(s.entries).toBeLessThan(limits.entries);
    expect(s.chars).toBe(s.texts.reduce((n, t) => n + t.length, 0));
    // The most recent change's two sides are the ones kept last.
    expect(s.texts.slice(-2)).toEqual([big(11), `${big(11)}// end\n`]);
    clearParseCache();
    const huge = `const a = 1;\n${' '.repeat(limits.textChars)}`;
    expect(same(huge, `${huge}// x\n`)).toBe(true);
    expect(parseCacheStats()).toMatchObject({ entries: 0, chars: 0 });
  });

  it('lets the least recently used text go first', () => {
    const { limits } = parseCacheStats();
    const text = (i: number) => `export const a${i} = ${i};\n`;
    // Old and new the same text: each call parses one text (and finds it kept for the other side).
    for (let i = 0; i < limits.entries; i++) same(text(i), text(i));
    expect(parseCacheStats().texts).toEqual(Array.from({ length: limits.entries }, (_, i) => text(i)));
    // Used again, text 0 is the most recent; the next new text pushes out text 1, the oldest now.
    same(text(0), text(0));
    same(text(limits.entries), text(limits.entries));
    const kept = parseCacheStats().texts;
    expect(kept).toHaveLength(limits.entries);
    expect(kept).not.toContain(text(1));
    expect(kept).toContain(text(0));
    expect(kept.slice(-2)).toEqual([text(0), text(limits.entries)]);
  });

  it('unchangedTrees gives the same answers through the cache', () => {
    const files = ownChains().map(([path, [t, v1]]) => ({ path, oldText: t, newText: v1 }));
    const next = ownChains().map(([path, [, v1, v2]]) => ({ path, oldText: v1, newText: v2 }));
    expect(unchangedTrees(files)).toBe(true);
    expect(unchangedTrees(next)).toBe(false);
    expect(unchangedTrees(files)).toBe(true);
    clearParseCache();
    expect(unchangedTrees(next)).toBe(false);
  });
});
