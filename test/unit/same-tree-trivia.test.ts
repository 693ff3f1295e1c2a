// The trivia proof of the same-tree shortcut (lib/mutation/syntax/trivia.ts): a change of comments
// and whitespace found to leave the tree as it was from the old side's tokens alone, without
// parsing the new side. It may prove less than parsing both sides and walking the trees does, never
// more: fuzzed against that walk (random trivia, comment, deletion and token edits over real
// TS/TSX/JS/JSX sources built to be nasty: regular expressions holding `//`, templates with `${}`
// and comments inside, JSX text that looks like comments, a shebang, pragmas, JSDoc casts in
// JavaScript, ASI), then the attacks one by one, then chains of changes through the kept parses.
// Real TypeScript parser. Seeded (SAME_TREE_SEED=<n> replays another seed); every failure names
// the seed, the file and the edit.
import { beforeEach, describe, expect, it } from 'vitest';
import { toEntry } from '../../lib/mutation/syntax/entries.js';
import { clearParseCache, parseCacheStats, sameTreeParts, sameTrees } from '../../lib/mutation/syntax/same-tree.js';
import { loadTypeScript } from '../../lib/mutation/syntax/sides.js';
import { tokensOf, type Tokens } from '../../lib/mutation/syntax/trivia.js';
import { libSources, prng } from '../helpers.js';

const ts = loadTypeScript()!;
const SEED = Number(process.env.SAME_TREE_SEED ?? 0x7e1_2026);

const SNIPPETS: [string, string][] = [
  ['src/regex.ts', `// header
import { a } from './a';
const r = /https?:\\/\\/[^/]*\\/*x/g; run(1);
const s = a / 2 / 3; const t = /=/.test('x') ? 1 : 2;
if (a) /re\\//.exec('//'); else s /= 2;
const u = \`a\${ a /* in */ + \`n\${ 1 }\` }b // not a comment \${s}\`;
type T<A> = A extends Array<Array<infer U>> ? U : never;
let v = a >>= 1, w = a?.5:1, x = 1..toString(), y = a >>> 2 >= 1;
export default class K<T,> { #p = 1; @dec() m(): void {} get q() { return this.#p; } }
`],
  ['src/asi.ts', `let a = b
(c)
let d = e
[f]
function g() { return
  h }
const i = j
++k
const n = (o)
=> o
label: for (;;) { break
  label }
`],
  ['src/view.tsx', `/** @jsx h */
import { h } from 'x';
export const V = ({ a }: { a: string }) => (
  <div className="c // d" data-x={a /* c */}>
    text // not a comment /* nor this */
    {/* a JSX comment */}
    { a }<b>{a}</b>  <i/>
    <>
      <span>{\`t\${a}\`}</span>
    </>
  </div>
);
const w = a < b ? <p></p> : null;
`],
  ['src/plain.jsx', `export function View({ a, b }) {
  return <section id="v">
    <h1>{a}</h1>{b && <p>yes</p>}
  </section>;
}
`],
  ['src/cli.js', `#!/usr/bin/env node
'use strict';
/** @type {import('x').Y} */
const y = /** @type {any} */ (require('y'));
/** @param {number} a @deprecated */
function add(a, b = 2) { return a + b * 3 - (a % 2) ** 2 }
module.exports = { add, y };
`],
  ['src/ref.ts', `/// <reference types="node" />
// @ts-nocheck
export const v = 1; // trailing
`],
  ['src/nolead.ts', `export const a = 1;
export function f(x: number): number {
  // inside
  return x /* mid */ + a;
}
`],
  ['src/strings.ts', `export const s = '<<<<<<< not a marker';
export const t = "/* not */ // a comment";
export const e = \`
=======
\`;
`],
];

/** The repository's own smaller modules, a quarter of them (seeded). */
function ownSources(rnd: () => number): [string, string][] {
  return libSources(8000).filter(() => rnd() < 0.25);
}

const INSERTS = ['/* c */', ' /* c */ ', '// c\n', ' // c', '// c', ' ', '\n', '\n\n  ', '\t', '/** @deprecated */', '/** @type {number} */ ', '/*', '*/', '//', '/', '\u00a0', '\u2028', '\ufeff',
  '<<<<<<< HEAD\n', '\n=======\n', '#!/bin/sh\n', '/** @jsx x */\n', '/// <reference types="y" />\n', '// @ts-nocheck\n', '`', '${', '}', "'", ';', ',', '*/ x /*', '/* */ /', '/*/', '/**/', ' /* a\n b */ ', '\r\n'];
const GAPS = ['', ' ', '\n', '  ', '/* x */', ' // y\n', '\n// z\n', '/* a\n */', ' /* b */ '];

function gapsOf(t: Tokens): [number, number][] {
  return Array.from(t.start, (s, i) => [i ? t.end[i - 1] : 0, s] as [number, number]);
}

interface Edit {
  /** comment: what a comment-only commit does (a comment line added, a comment's words changed). */
  family: 'trivia' | 'comment' | 'token';
  what: string;
  text: string;
}

function edit(rnd: () => number, text: string, t: Tokens): Edit {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const gaps = gapsOf(t);
  const put = (s: string, from: number, to = from) => text.slice(0, from) + s + text.slice(to);
  const boundary = () => (rnd() < 0.5 ? pick(Array.from(t.start)) : pick(Array.from(t.end)));
  const anywhere = () => Math.floor(rnd() * (text.length + 1));
  const inGap = () => {
    const [s, e] = pick(gaps);
    return s + Math.floor(rnd() * (e - s + 1));
  };
  const r = rnd();
  if (r < 0.15) {
    // A line start inside a gap (after a line break), or a letter inside a comment.
    const starts = gaps.flatMap(([s, e]) => Array.from({ length: e - s }, (_, k) => s + k).filter((k) => text[k - 1] === '\n'));
    const words = gaps.flatMap(([s, e]) => Array.from(text.slice(s, e).matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g), (m) => s + m.index! + 2 + Math.floor(rnd() * (m[0].length - 4))));
    if (starts.length && (rnd() < 0.5 || !words.length)) {
      const at = pick(starts);
      const line = pick(['// note\n', '  // a longer note, with words\n', '/** Doc. @param x */\n', '/* block */\n']);
      return { family: 'comment', what: `line ${JSON.stringify(line)} at ${at}`, text: put(line, at) };
    }
    if (words.length) {
      const at = pick(words);
      if (/[a-z ]/.test(text[at])) return { family: 'comment', what: `comment letter at ${at}`, text: put(pick(['q', 'word ', '']), at, at + 1) };
    }
  }
  if (r < 0.45) {
    const at = pick([boundary, anywhere, inGap])();
    const ins = pick(INSERTS);
    return { family: 'trivia', what: `insert ${JSON.stringify(ins)} at ${at}`, text: put(ins, at) };
  }
  if (r < 0.65) {
    const [s, e] = pick(gaps);
    const to = pick(GAPS);
    return { family: 'trivia', what: `gap ${JSON.stringify(text.slice(s, e))} at ${s} -> ${JSON.stringify(to)}`, text: put(to, s, e) };
  }
  if (r < 0.8) {
    const at = anywhere();
    const n = 1 + Math.floor(rnd() * 6);
    return { family: 'trivia', what: `delete ${JSON.stringify(text.slice(at, at + n))} at ${at}`, text: put('', at, at + n) };
  }
  // A token's character changed, or one inserted strictly inside it (never whitespace): its text
  // changes, which no proof may accept.
  const i = Math.floor(rnd() * (t.start.length - 1));
  const len = t.end[i] - t.start[i];
  const c = pick(['x', '1', '+', '-', '/', '*', '<', '>', '=', '.', '?', '"', '`', '#', '@']);
  const what = (at: number) => `token ${JSON.stringify(text.slice(t.start[i], t.end[i]))}: ${JSON.stringify(c)} at ${at}`;
  if (len > 1 && rnd() < 0.5) {
    const at = t.start[i] + 1 + Math.floor(rnd() * (len - 1));
    return { family: 'token', what: `${what(at)} inserted`, text: put(c, at) };
  }
  const at = t.start[i] + Math.floor(rnd() * len);
  return { family: 'token', what: `${what(at)} replacing`, text: put(c, at, at + 1) };
}

const treeTokens = (path: string, text: string): Tokens | null => {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : path.endsWith('.jsx') ? ts.ScriptKind.JSX : path.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return tokensOf(ts, ts.createSourceFile('/x', text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, kind));
};

describe('the trivia proof, fuzzed against parsing both sides and walking the trees', () => {
  it('never proves a change the walk rejects nor a changed token, finds the new side\'s tokens where they are, and proves most trivia changes', () => {
    const rnd = prng(SEED);
    const sources = [...SNIPPETS, ...ownSources(rnd)];
    const failures: string[] = [];
    let walkedTrivia = 0;
    let provenTrivia = 0;
    let walkedComment = 0;
    let provenComment = 0;
    let tokenEdits = 0;
    let proven = 0;
    for (const [path, text] of sources) {
      const t = treeTokens(path, text);
      expect(t, `${path}: tokens placed`).not.toBeNull();
      expect(sameTreeParts(ts, path, text, text).walked, `${path} parses`).toBe(true);
      for (let k = 0; k < 40; k++) {
        const ed = edit(rnd, text, t!);
        if (ed.text === text) continue;
        const where = `seed ${SEED}, ${path}: ${ed.family} edit ${ed.what}`;
        const parts = sameTreeParts(ts, path, text, ed.text);
        if (parts.proven) {
          proven++;
          if (!parts.walked) failures.push(`${where}: proven, but the walk finds another tree`);
          if (ed.family === 'token') failures.push(`${where}: a changed token proven`);
          const real = treeTokens(path, ed.text);
          if (real && (String(real.start) !== String(parts.proven.start) || String(real.end) !== String(parts.proven.end))) failures.push(`${where}: the new side's tokens are not where the proof put them`);
        }
        if (ed.family === 'token') tokenEdits++;
        else if (ed.family === 'comment' && parts.walked) {
          walkedComment++;
          if (parts.proven) provenComment++;
        } else if (parts.walked) {
          walkedTrivia++;
          if (parts.proven) provenTrivia++;
        }
      }
    }
    expect(failures).toEqual([]);
    // Not vacuous: many edits proven, nearly every comment edit and half the random trivia edits the
    // walk accepts proven too (the rest add a line break to a gap without one: left to the walk), and
    // token edits tried.
    expect(proven).toBeGreaterThan(300);
    expect(walkedComment).toBeGreaterThan(100);
    expect(provenComment).toBeGreaterThan(walkedComment * 0.95);
    expect(provenTrivia).toBeGreaterThan(walkedTrivia * 0.45);
    expect(tokenEdits).toBeGreaterThan(150);
  }, 120_000);
});

describe('the trivia proof, attacked', () => {
  const proven = (path: string, a: string, b: string) => sameTreeParts(ts, path, a, b);
  // Each would read as a comment or whitespace change to a line-based eye; each changes the tokens,
  // a line break the parser reads, a pragma, or the JSX text: never proven (and, as the walk agrees,
  // not the same tree).
  // The last column: what the walk says (a change that only looks harmful may leave the tree as it
  // was: the proof may leave those to the walk too).
  it.each([
    ['a comment opened in a comment swallowing code', 'src/a.ts', 'f(); /* a */ g(); /* b */\n', 'f(); /* a  g(); /* b */\n', false],
    ['an unterminated comment', 'src/a.ts', 'f(); g();\n', 'f(); /* g();\n', false],
    ['a line comment taking the rest of the line', 'src/a.ts', 'f(); g();\n', 'f(); // g();\n', false],
    ['a comment after a division (read as //)', 'src/a.ts', 'const a = b / c;\n', 'const a = b //* x */ c;\n', false],
    ['a comment inside a regular expression', 'src/a.ts', 'const r = /a b/;\n', 'const r = /a /* x */ b/;\n', false],
    ['a comment inside a template', 'src/a.ts', 'const s = `a b`;\n', 'const s = `a /* x */ b`;\n', false],
    ['a comment inside a template\'s literal part after ${}', 'src/a.ts', 'const s = `${a} b`;\n', 'const s = `${a} // b`;\n', false],
    ['a comment inside a string', 'src/a.ts', "const s = 'a b';\n", "const s = 'a /* */ b';\n", false],
    ['JSX text that looks like a comment', 'src/a.tsx', 'const v = <p>a b</p>;\n', 'const v = <p>a /* x */ b</p>;\n', false],
    ['whitespace added to JSX text', 'src/a.tsx', 'const v = <p><b/></p>;\n', 'const v = <p> <b/></p>;\n', false],
    ['a line break before ++ (ASI)', 'src/a.ts', 'a\n++b;\n', 'a++\nb;\n', false],
    ['a line break after return', 'src/a.ts', 'function f() { return x; }\n', 'function f() { return /*\n*/ x; }\n', false],
    ['a line comment after return', 'src/a.ts', 'function f() { return x; }\n', 'function f() { return // why\n x; }\n', false],
    ['a line break before an arrow', 'src/a.ts', 'const f = (a) => a;\n', 'const f = (a) // x\n=> a;\n', true],
    ['a line break removed before a semicolon', 'src/a.ts', 'let a = b\n;(c)\n', 'let a = b /* */ ;(c)\n', true],
    ['two tokens joined', 'src/a.ts', 'const a = b + +c;\n', 'const a = b ++c;\n', false],
    ['a JSX pragma', 'src/a.tsx', '// x\nexport const v = <i/>;\n', '/** @jsx h */\nexport const v = <i/>;\n', false],
    ['a JSX pragma changed', 'src/a.tsx', '/** @jsx h */\nexport const v = <i/>;\n', '/** @jsx React.createElement */\nexport const v = <i/>;\n', false],
    ['an upper-case JSX pragma in a block comment', 'src/a.tsx', '// x\nexport const v = <i/>;\n', '/* @JSX h */\nexport const v = <i/>;\n', false],
    ['a @ts-check pragma', 'src/a.js', '// x\nconst a = 1;\n', '// @ts-check\nconst a = 1;\n', false],
    ['a reference directive', 'src/a.ts', '// x\nexport const v = 1;\n', '/// <reference types="node" />\nexport const v = 1;\n', false],
    ['a merge conflict marker', 'src/a.ts', 'const a = 1;\nconst b = 2;\n', 'const a = 1;\n<<<<<<< HEAD\nconst b = 2;\n', false],
    ['a shebang made from a comment', 'src/a.js', '//!x\nconst a = 1;\n', '#!x\nconst a = 1;\n', true],
    ['a comment closed early by */ typed inside it', 'src/a.ts', 'f(); /* a */ g();\n', 'f(); /* a */ g(); */\n', false],
    ['</ made from < and a comment (TSX)', 'src/a.tsx', 'const a = b < c;\n', 'const a = b <// x\n c;\n', false],
  ])('%s', (_name, path, a, b, walked) => {
    const p = proven(path, a, b);
    expect(p.proven).toBeNull();
    expect(p.walked).toBe(walked);
  });

  it.each([
    ['a comment edited', 'src/a.ts', '// one\nexport const a = 1; // two\n', '// one, more\nexport const a = 1; // two, more\n'],
    ['a doc comment added above a function', 'src/a.ts', '// h\nexport function f() {\n  return 1;\n}\n', '// h\n/** Says 1. @deprecated */\nexport function f() {\n  return 1;\n}\n'],
    ['a comment at the end of a block', 'src/a.ts', 'function f() {\n  g();\n}\n', 'function f() {\n  g();\n  // done\n}\n'],
    ['a comment inside a JSX expression and a tag', 'src/a.tsx', 'const v = <p a={1}>{x}</p>;\n', 'const v = <p /* t */ a={1 /* one */}>{x /* x */}</p>;\n'],
    ['a comment between template spans', 'src/a.ts', 'const s = `a${b}c`;\n', 'const s = `a${ /* b */ b }c`;\n'],
    ['a comment after a regular expression', 'src/a.ts', 'const r = /a\\/\\//g;\nrun();\n', 'const r = /a\\/\\//g; // two slashes\nrun();\n'],
    ['whitespace between >>', 'src/a.ts', 'let a: A<B<C>>;\n', 'let a: A<B<C> >;\n'],
    ['a JSDoc cast\'s comment in JS', 'src/a.js', '// h\nconst y = /** @type {A} */ (x);\n', '// h\nconst y = /** @type {B} */ (x);\n'],
    ['a header comment mentioning @param edited', 'src/a.ts', '/** Takes @param x. */\nexport const a = 1;\n', '/** Takes @param x, y. */\nexport const a = 1;\n'],
    ['a comment edited next to a pragma, which stays', 'src/a.tsx', '/** @jsx h */\n// old\nexport const v = <i/>;\n', '/** @jsx h */\n// new words\nexport const v = <i/>;\n'],
    ['a shebang file, comment below it', 'src/a.js', '#!/usr/bin/env node\nconst a = 1;\n', '#!/usr/bin/env node\nconst a = 1; // one\n'],
    ['a comment line appended at the end of the file', 'src/a.ts', 'export const a = 1;\n', 'export const a = 1;\n// the end\n'],
    ['another comment line appended after comments at the end', 'src/a.ts', 'export const a = 1;\n// one\n', 'export const a = 1;\n// one\n// two\n'],
    ['a comment at the end of a file without a final line break', 'src/a.ts', 'export const a = 1; // one', 'export const a = 1; // one, two'],
  ])('proves %s', (_name, path, a, b) => {
    const p = proven(path, a, b);
    expect(p.walked).toBe(true);
    expect(p.proven).not.toBeNull();
  });
});

describe('chains of changes through the kept parses', () => {
  beforeEach(() => clearParseCache());

  it('answers as the walk does at every step, parsing only where the proof does not reach', () => {
    const rnd = prng(SEED + 1);
    const failures: string[] = [];
    let steps = 0;
    for (const [path, text] of SNIPPETS) {
      let cur = text;
      for (let k = 0; k < 30; k++) {
        const t = treeTokens(path, cur);
        if (!t) break;
        const ed = edit(rnd, cur, t);
        // Mostly keep a text that parses, so the chain goes on.
        const next = sameTreeParts(ts, path, cur, ed.text).walked || rnd() < 0.2 ? ed.text : cur;
        const want = sameTreeParts(ts, path, cur, next).walked;
        const got = sameTrees(ts, [toEntry({ path, oldText: cur, newText: next }, 0)]);
        steps++;
        if (got !== want) failures.push(`seed ${SEED + 1}, ${path} step ${k} (${ed.what}): kept says ${got}, the walk ${want}`);
        if (!want && treeTokens(path, next) === null) break;
        cur = next;
      }
    }
    expect(failures).toEqual([]);
    expect(steps).toBeGreaterThan(100);
    expect(parseCacheStats().hits).toBeGreaterThan(steps / 2);
  }, 60_000);

  it('keeps a proven new side unparsed, and parses it when a later change needs its tree', () => {
    const v0 = '// a\nexport const a = 1;\n';
    const v1 = '// a, b\nexport const a = 1;\n';
    const v2 = '// a, b\nexport const a = 2;\n';
    expect(sameTrees(ts, [toEntry({ path: 'src/a.ts', oldText: v0, newText: v1 }, 0)])).toBe(true);
    expect(parseCacheStats()).toMatchObject({ entries: 2, hits: 0, misses: 2 });
    expect(sameTrees(ts, [toEntry({ path: 'src/a.ts', oldText: v1, newText: v2 }, 0)])).toBe(false);
    expect(sameTrees(ts, [toEntry({ path: 'src/a.ts', oldText: v1, newText: `${v1}// c\n` }, 0)])).toBe(true);
  });
});
