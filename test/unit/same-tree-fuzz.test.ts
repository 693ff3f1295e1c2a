// Fuzzing the syntax comparison's shortcut (lib/mutation/syntax/same-tree.ts) against the full
// comparison (lib/mutation/syntax/match.ts compareSyntax, called directly, without the shortcut).
// Real sources (TS, TSX, JS, JSX snippets below and some of the repository's own lib/**/*.ts) get
// random edits at real token boundaries (tokens from the parser, so templates, regexes and JSX text
// are cut where TypeScript cuts them):
//   (a) trivia: a comment, a line comment, a line break, spaces, a semicolon added or removed;
//   (b) tokens: an operator, a keyword or modifier, a number, a string, a template's or a regex's
//       text, a JSX text or attribute, a bigint suffix replaced, removed or inserted;
//   (c) respellings of the same value: hex or separated numbers, escapes in strings and names.
// The property: whenever sameTrees says "the same tree", the full comparison says AST_REFACTOR;
// a token edit of (b) that parses is never "the same tree"; trivia edits mostly are (the test
// would otherwise prove nothing). Seeded (SAME_TREE_SEED=<n> replays another seed); every failure
// names the seed, the file and the edit.
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import { toEntry, type Entry } from '../../lib/mutation/syntax/entries.js';
import { compareSyntax } from '../../lib/mutation/syntax/match.js';
import { sameTrees } from '../../lib/mutation/syntax/same-tree.js';
import { loadTypeScript } from '../../lib/mutation/syntax/sides.js';
import { classifyChange } from '../../lib/mutation/syntax/classify.js';
import { libSources, prng } from '../helpers.js';

const ts = loadTypeScript()!;
const SEED = Number(process.env.SAME_TREE_SEED ?? 0x7ee_2026);
const EDITS_PER_SOURCE = 12;
/** Full comparisons are a program and a checker per side: a bounded number per run. */
const MAX_FULL = 140;

const entry = (path: string, oldText: string, newText: string): Entry => toEntry({ path, oldText, newText }, 0);
const same = (path: string, a: string, b: string) => sameTrees(ts, [entry(path, a, b)]);
/** The full comparison alone: the first problem it records, or AST_REFACTOR. */
function full(path: string, a: string, b: string): string {
  const e = entry(path, a, b);
  compareSyntax(ts, [e], [e], []);
  return e.problems.length ? e.problems[0].reason : 'AST_REFACTOR';
}

const SNIPPETS: [string, string][] = [
  [
    'src/a.ts',
    `import { a, type B } from './a';
import type { C } from './c';
export abstract class K<T> extends Base implements I {
  static readonly n = 1_000;
  private x?: number;
  declare y: string;
  #p = 0x10;
  @dec() m(this: K<T>, v?: T): void {}
  protected abstract q(): void;
  async *gen() { yield await this.x!; }
  get v() { return this.#p ?? 10n; }
}
export enum E { A = 1, B = 'b' }
declare module 'm' { export const z: number; }
let u = a?.b?.[c]?.(d) ?? e!;
const t = \`x\${u}y\${B}z\`;
var r = /ab+c/gi.test(t) && !u || -u >= +t;
export default function f<T extends keyof C>(x: T, ...rest: number[]): x is T { for (const k in x) if (k === 'a') break; return typeof x === 'string'; }
export const arrow = async (p = 1e3, { q, ...o } = {}) => void (p += q as number, delete o.w);
`,
  ],
  [
    'src/b.tsx',
    `import * as React from 'react';
export const App = ({ items, on }: { items: string[]; on?: () => void }) => (
  <div className="app" data-n={1} hidden aria-label='x'>
    {items.map((i, n) => <Item key={i} {...{ i, n }} />)}
    text &amp; more {on?.()}
    <>
      <span>{\`t\${items.length}\`}</span>
    </>
  </div>
);
function Item(p: { i: string; n: number }) { return <li>{p.i}:{p.n}</li>; }
`,
  ],
  [
    'src/c.js',
    `'use strict';
const fs = require('fs');
/** @param {number} a */
function add(a, b = 2) { return a + b * 3 - (a % 2) ** 2; }
class P { static s = 0o17; #h = 0b101; get h() { return this.#h; } }
label: for (let i = 0; i < 10; i++) { if (i === 3) continue label; else if (i > 8) break; }
exports.add = add;
module.exports.x = typeof fs === 'object' ? [1, , 3] : { a: 1, 'b': 2, [\`c\`]: 3 };
try { throw new Error('x'); } catch ({ message }) { console.log(message, void 0, null, undefined); } finally {}
switch (add(1)) { case 1: case 2: break; default: do { add(2) } while (false) }
`,
  ],
  [
    'src/d.jsx',
    `export function View({ a, b }) {
  const c = a ?? 'none';
  return <section id="v" title={\`\${a}\`}>
    <h1>{c}</h1>
    {b && <p className={b ? 'on' : 'off'}>yes</p>}
  </section>;
}
`,
  ],
];

/** Some of the repository's own modules (small ones: each full comparison checks both sides). */
function ownSources(): [string, string][] {
  return libSources(4000);
}

/** Token boundaries as the parser cuts them: each leaf's start and end (no trivia). */
function tokens(path: string, text: string): { kind: TS.SyntaxKind; start: number; end: number }[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const out: { kind: TS.SyntaxKind; start: number; end: number }[] = [];
  const visit = (n: TS.Node) => {
    // A JSDoc comment is a child in a JS file: its words are comments, not tokens.
    if (n.kind >= ts.SyntaxKind.FirstJSDocNode && n.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const kids = n.getChildren(sf);
    if (!kids.length && n.kind !== ts.SyntaxKind.EndOfFileToken) out.push({ kind: n.kind, start: n.getStart(sf), end: n.end });
    kids.forEach(visit);
  };
  visit(sf);
  return out;
}

function scriptKind(path: string): TS.ScriptKind {
  return path.endsWith('.tsx') ? ts.ScriptKind.TSX : path.endsWith('.jsx') ? ts.ScriptKind.JSX : path.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

type Family = 'trivia' | 'token' | 'respell';
interface Edit {
  family: Family;
  what: string;
  text: string;
}

const SWAP: Record<string, string[]> = {
  '+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'], '%': ['*'], '**': ['*'], '===': ['!==', '=='], '!==': ['==='], '==': ['==='],
  '<': ['<='], '>': ['>='], '>=': ['>'], '&&': ['||'], '||': ['??'], '??': ['||'], '.': ['?.'], '?.': ['.'], '+=': ['-='],
  '++': ['--'], let: ['const', 'var'], const: ['let', 'var'], var: ['let'], async: [''], static: [''], readonly: [''],
  declare: [''], abstract: [''], private: ['public'], protected: ['public'], export: [''], type: [''], '!': [''], '?': [''],
  true: ['false'], false: ['true'], null: ['undefined'], typeof: ['void'], in: ['instanceof'], extends: ['implements'],
  break: ['continue'], yield: ['await'], await: [''], new: [''], '@': [''], '=>': [' =>'], get: ['set'], this: ['super'],
};
const INSERTS = ['async ', 'static ', 'readonly ', 'declare ', 'abstract ', '!', '?', '@d ', 'export ', 'type ', '-', 'await ', 'void '];

function edit(rnd: () => number, path: string, text: string, toks: ReturnType<typeof tokens>): Edit {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const t = pick(toks);
  const src = text.slice(t.start, t.end);
  const put = (s: string, from = t.start, to = t.end) => text.slice(0, from) + s + text.slice(to);
  const r = rnd();
  if (r < 0.4) {
    const at = rnd() < 0.5 ? t.start : t.end;
    const trivia = pick(['/* c */', ' /** @x y */ ', '// c\n', '\n', '  ', '\n\n  ', ';', '\t']);
    if (trivia === ';' && t.kind === ts.SyntaxKind.SemicolonToken) return { family: 'trivia', what: `remove ; at ${t.start}`, text: put('') };
    return { family: 'trivia', what: `insert ${JSON.stringify(trivia)} at ${at}`, text: put(trivia, at, at) };
  }
  if (r < 0.75) {
    const K = ts.SyntaxKind;
    switch (t.kind) {
      case K.NumericLiteral:
        return { family: 'token', what: `number ${src}+1`, text: put(String(Number(src.replace(/_/g, '')) + 1)) };
      case K.BigIntLiteral:
        return { family: 'token', what: `bigint ${src} suffix`, text: put(src.slice(0, -1)) };
      case K.StringLiteral:
      case K.NoSubstitutionTemplateLiteral:
      case K.TemplateHead:
      case K.TemplateMiddle:
      case K.TemplateTail:
      case K.JsxText:
        if (src.length > 1) return { family: 'token', what: `text of ${src}`, text: put(src.slice(0, 1) + 'Q' + src.slice(1)) };
        break;
      case K.RegularExpressionLiteral:
        return { family: 'token', what: `regex ${src} flags`, text: put(src.endsWith('i') ? src.slice(0, -1) : src + 'y') };
      case K.Identifier:
        if (rnd() < 0.5) return { family: 'token', what: `rename ${src}`, text: put(src + '2') };
        break;
    }
    const alt = Object.hasOwn(SWAP, src) ? SWAP[src] : undefined;
    if (alt) {
      const to = pick(alt);
      // `=>` and ` =>` only differ in layout; the rest are different tokens.
      return { family: to.trim() === src ? 'trivia' : 'token', what: `${src} -> ${JSON.stringify(to)} at ${t.start}`, text: put(to) };
    }
    const ins = pick(INSERTS);
    return { family: 'token', what: `insert ${JSON.stringify(ins)} at ${t.start}`, text: put(ins, t.start, t.start) };
  }
  const K = ts.SyntaxKind;
  if (t.kind === K.NumericLiteral && /^\d+$/.test(src)) {
    const n = Number(src);
    const to = pick([`0x${n.toString(16)}`, `${src}.0`, src.length > 1 ? `${src[0]}_${src.slice(1)}` : `0${src}`, `${n}e0`]);
    return { family: 'respell', what: `number ${src} as ${to}`, text: put(to) };
  }
  if (t.kind === K.StringLiteral && src.length > 2) {
    const c = src[1];
    const esc = pick([`\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`, `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`, `\\u{${c.charCodeAt(0).toString(16)}}`, `\\\n${c}`]);
    return { family: 'respell', what: `string ${src} with ${JSON.stringify(esc)}`, text: put(src[0] + esc + src.slice(2)) };
  }
  if (t.kind === K.Identifier && /^[a-zA-Z]/.test(src)) {
    const esc = pick([`\\u${src.charCodeAt(0).toString(16).padStart(4, '0')}`, `\\u{${src.charCodeAt(0).toString(16)}}`]);
    return { family: 'respell', what: `identifier ${src} with ${esc}`, text: put(esc + src.slice(1)) };
  }
  return { family: 'trivia', what: `insert comment at ${t.end}`, text: put('/**/', t.end, t.end) };
}

describe('the same-tree shortcut, fuzzed against the full comparison', () => {
  it('never says "the same tree" where the full comparison finds a difference, nor for a changed token', () => {
    const rnd = prng(SEED);
    const sources = [...SNIPPETS, ...ownSources().filter(() => rnd() < 0.25)];
    let fulls = 0;
    const counts: Record<Family, { edits: number; same: number }> = { trivia: { edits: 0, same: 0 }, token: { edits: 0, same: 0 }, respell: { edits: 0, same: 0 } };
    const failures: string[] = [];
    for (const [path, text] of sources) {
      const toks = tokens(path, text);
      expect(same(path, text, text), `${path} parses`).toBe(true);
      for (let i = 0; i < EDITS_PER_SOURCE; i++) {
        const ed = edit(rnd, path, text, toks);
        if (ed.text === text) continue;
        const c = counts[ed.family];
        c.edits++;
        const s = same(path, text, ed.text);
        if (s) c.same++;
        const where = `seed ${SEED}, ${path}: ${ed.family} edit ${ed.what}`;
        if (s && ed.family === 'token') failures.push(`${where}: the same tree`);
        if (s && fulls < MAX_FULL) {
          fulls++;
          const f = full(path, text, ed.text);
          if (f !== 'AST_REFACTOR') failures.push(`${where}: the same tree, but the full comparison says ${f}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Not vacuous: most trivia edits keep the tree, and the shortcut's verdicts were checked.
    expect(counts.trivia.same).toBeGreaterThan(counts.trivia.edits / 2);
    expect(counts.token.edits).toBeGreaterThan(20);
    expect(fulls).toBeGreaterThan(20);
  }, 60_000);
});

describe('what a tree does not hold', () => {
  // A directive is the exact source text: "use\x20strict" is the string "use strict" but no directive
  // (ECMA-262 14.1.1), so the function below returns the global object instead of undefined.
  it.each([
    ['an escape', 'src/a.js', 'function f() { "use strict"; return this; }\n', 'function f() { "use\\x20strict"; return this; }\n'],
    ['a unicode escape', 'src/a.js', '"use strict";\nexports.f = function () { return this; };\n', '"use\\u0020strict";\nexports.f = function () { return this; };\n'],
    ['a line continuation', 'src/a.js', 'function f() { "use strict"; return this; }\n', 'function f() { "use \\\nstrict"; return this; }\n'],
  ])('"use strict" spelt with %s is no directive: not the same tree, and INTENT_EVOLUTION', (_name, path, a, b) => {
    expect(same(path, a, b)).toBe(false);
    expect(classifyChange([{ path, oldText: a, newText: b }]).class).toBe('INTENT_EVOLUTION');
  });

  it('keeps a directive that is only quoted differently the same', () => {
    const a = 'function f() { "use strict"; return this; }\n';
    const b = "function f() { 'use strict'; return this; }\n";
    expect(same('src/a.js', a, b)).toBe(true);
  });

  // Pragmas live in comments and in the source file's own properties, which the walk skips.
  it.each([
    ['@jsx', '/** @jsx h */\n'],
    ['@jsxFrag', '/** @jsx h */\n/** @jsxFrag F */\n'],
    ['@jsxImportSource', '/** @jsxImportSource preact */\n'],
    ['@jsxRuntime', '/** @jsxRuntime classic */\n'],
  ])('a %s pragma changes what JSX compiles to: not the same tree, and INTENT_EVOLUTION', (_name, pragma) => {
    const a = 'export const v = <><div /></>;\n';
    expect(same('src/a.tsx', a, pragma + a)).toBe(false);
    expect(classifyChange([{ path: 'src/a.tsx', oldText: a, newText: pragma + a }]).class).toBe('INTENT_EVOLUTION');
  });

  it.each([
    ['// @ts-nocheck', '// @ts-nocheck\n'],
    ['a reference directive', '/// <reference types="node" />\n'],
  ])('%s is left to the full comparison, which finds no change to the program', (_name, pragma) => {
    const a = 'export const v = 1;\n';
    expect(same('src/a.ts', a, pragma + a)).toBe(false);
    expect(classifyChange([{ path: 'src/a.ts', oldText: a, newText: pragma + a }]).class).toBe('AST_REFACTOR');
  });
});
