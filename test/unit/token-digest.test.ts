// The token digests (lib/mutation/tokens.ts) and the cheap filter built on them
// (lib/mutation/classify.ts cheapClasses, lib/mutation/token-cache.ts) against the sorted token
// lists they replaced (test/token-reference.mjs, the code as it was). The corpus: the repository's
// own lib/**/*.ts files, random texts of every kind of token, and seeded mutations of both
// (renamed names, changed numbers and strings, reordered lines, comments and layout added or
// removed, two tokens swapped, a token duplicated, declarations moved between files). The
// properties: texts the old signature calls the same get the same digest, and no two texts it
// tells apart get the same digest (no collision seen); cheapClasses settles the same classes and
// leaves the same survivors as the old filter, cold cache or warm, but where the old one tokenised
// the files joined by line breaks and a construct the tokeniser sees (a quote in a regular
// expression, a comment opener in a string) was open at a file's end: there the new one takes the
// union of the files' tokens: on the corpus mostly the coarser (more survivors), and where not,
// the file it settles has tokens of its own that differ (an evolution).
// TOKEN_DIGEST_SEED=<n> replays another seed.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileChange } from '../../lib/git/hunks.js';
import { sameWords } from '../../lib/mutation/classes.js';
import { cheapClasses } from '../../lib/mutation/classify.js';
import { blobTokenDigest, clearTokenCache, TOKEN_CACHE_ENTRIES, tokenCacheSize } from '../../lib/mutation/token-cache.js';
import { addDigests, digestKey, EMPTY_DIGEST, sameDigest, tokenDigest, tokenSignature } from '../../lib/mutation/tokens.js';
import { prng } from '../helpers.js';
import { oldCheapClasses, oldTokens, oldTokenSignature } from '../token-reference.mjs';

const SEED = Number(process.env.TOKEN_DIGEST_SEED ?? 0x70c_2026);
type OldSig = (text: string) => string;
const oldSig = oldTokenSignature as OldSig;
const oldToks = oldTokens as (text: string) => string[];

function libFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) libFiles(p, out);
    else if (name.endsWith('.ts')) out.push(readFileSync(p, 'utf8'));
  }
  return out;
}
const LIB = libFiles('lib');

/** Random texts of every kind of token the tokeniser knows, and of the odd ones (a lone quote, a non-ASCII character). */
function randomText(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const kinds = [
    () => pick(['if', 'return', 'const', 'None', 'self', 'go', 'typeof', 'satisfies']),
    () => pick(['x', 'y1', '$', '_a', 'Ω', 'é', 'constructor', 'toString', '__proto__']),
    () => pick(['0', '16', '0x10', '1_6', '.5', '0.50', '1e3', '12n', '0XFFn', '1_000n', '9abc', '0b', '1.2.3']),
    () => pick(["'a b'", '"a b"', "'it\\'s'", '"tab\\there"', "'tab\\u0009here'", "'\\x41'", "'A'", "'10'", "''", '""', "'\\u{1F600}'", '"x\\\ny"']),
    () => pick(['`a ${b} c`', '`a ${z} c`', '``', '`x`', '`${a + 1}`']),
    () => pick(['+', '-', '=>', '{', '}', '[', ']', '.', '?.', '!', '@', '#', '\\', '"', "'", '`', '€', '\ud83d', ';', ',', '(', ')']),
    () => pick(['/* c */', '// line\n', 'http://x', '\n', '  ', '\t']),
    // Where a scan of the characters could part from the regular expression: escapes before line
    // ends, quotes left open, numbers and names at their edges, layout beyond ASCII.
    () => pick(['"a\\\rb"', "'a\\\u2028b'", "'a\\", '"', "'open", '`open ${', '\\', '..5', '.5e3', '1.2e+3', 'a$b', '$1', 'aé', '_', '\u00a0', '\u2028', '\ufeff', '\u3000', '\u200b', '\u0085']),
  ];
  const parts: string[] = [];
  const n = 1 + Math.floor(rnd() * 30);
  for (let i = 0; i < n; i++) parts.push(pick(kinds)());
  return parts.join(rnd() < 0.5 ? ' ' : '');
}

const NAME = /[A-Za-z_$][\w$]*/g;
const TOKEN = /[A-Za-z_$][\w$]*|\d[\w.]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^\s\w]/g;

/** Seeded edits of one text; each keeps the text's shape but may or may not keep its tokens. */
function mutations(text: string, rnd: () => number): string[] {
  const at = (n: number) => Math.floor(rnd() * n);
  const lines = text.split('\n');
  const tokens = [...text.matchAll(TOKEN)];
  const names = [...new Set(text.match(NAME) ?? [])];
  const out: string[] = [];
  // Renamed: every occurrence of one name.
  if (names.length) {
    const name = names[at(names.length)]!;
    out.push(text.replace(new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'), `${name}Renamed`));
  }
  // A number and a string changed.
  out.push(text.replace(/\b\d+\b/, (d) => String(Number(d) + 1)));
  out.push(text.replace(/'([^'\n\\]*)'/, "'$1!'"));
  // Two lines swapped; a comment and layout added; a comment removed; indentation changed.
  const i = at(Math.max(1, lines.length - 1));
  out.push([...lines.slice(0, i), lines[i + 1] ?? '', lines[i]!, ...lines.slice(i + 2)].join('\n'));
  out.push(lines.map((l, k) => (k % 7 === 3 ? `${l} // note ${k}` : k % 11 === 5 ? `/* block */\n\n${l}` : l)).join('\n'));
  out.push(text.replace(/^\s*\/\/[^\n]*\n/m, '').replace(/\/\*\*[\s\S]*?\*\//, ''));
  out.push(lines.map((l) => l.replace(/^ {2}/, '    ')).join('\n'));
  if (tokens.length > 2) {
    // Two tokens swapped; one duplicated.
    const [p, q] = [at(tokens.length), at(tokens.length)].sort((x, y) => x - y);
    const a = tokens[p!]!;
    const b = tokens[q!]!;
    if (p !== q) out.push(text.slice(0, a.index) + b[0] + text.slice(a.index + a[0].length, b.index) + a[0] + text.slice(b.index + b[0].length));
    const d = tokens[at(tokens.length)]!;
    out.push(`${text.slice(0, d.index + d[0].length)} ${d[0]}${text.slice(d.index + d[0].length)}`);
  }
  return out;
}

/** A top-level declaration of a text (a line at column 0 to the next `}` at column 0), or null. */
function declaration(text: string): { start: number; end: number } | null {
  const m = /^(?:export )?(?:async )?(?:function|class|interface) [^\n]*\{\n[\s\S]*?\n\}\n/m.exec(text);
  return m ? { start: m.index, end: m.index + m[0].length } : null;
}

const blobId = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0`).update(text).digest('hex');
const ZERO = '0'.repeat(40);

/** A commit's changes from `[path, old text or null, new text or null]`, with real blob ids. */
function commit(files: [string, string | null, string | null][]): { changes: FileChange[]; blobs: Map<string, Buffer> } {
  const blobs = new Map<string, Buffer>();
  const changes = files.map(([path, a, b]): FileChange => {
    const oldOid = a === null ? ZERO : blobId(a);
    const newOid = b === null ? ZERO : blobId(b);
    if (a !== null) blobs.set(oldOid, Buffer.from(a));
    if (b !== null) blobs.set(newOid, Buffer.from(b));
    return {
      status: a === null ? 'A' : b === null ? 'D' : 'M', path, oldPath: null, oldMode: a === null ? '000000' : '100644',
      newMode: b === null ? '000000' : '100644', oldOid, newOid, similarity: null, hunks: [],
    };
  });
  return { changes, blobs };
}

/** cheapClasses' answer, comparable: the classes by path and the survivors' paths. */
function answer(r: { out: Map<string, unknown>; survivors: { c: FileChange }[] }) {
  return { out: Object.fromEntries([...r.out].sort(([p], [q]) => p.localeCompare(q))), survivors: r.survivors.map((x) => x.c.path) };
}

type Candidate = { oldText: string | null; newText: string | null; c: FileChange };
const byUnion = (texts: (string | null)[]) => texts.flatMap((t) => (t === null ? [] : oldToks(t))).sort().join('\u0000');

type Old = { out: Map<string, { cls: string }>; survivors: Candidate[]; candidates: Candidate[]; inOrder?: boolean; asSet?: boolean; joined?: boolean };

/**
 * The old cheapClasses' answer for a commit, and the answer expected of the new one: the same but
 * where tokenising the texts joined by line breaks differs from the union of the files' tokens (a
 * construct the tokeniser sees open at a file's end); there the new one follows the union.
 */
function reference(changes: FileChange[], blobs: Map<string, Buffer>) {
  const old = (oldCheapClasses as (c: FileChange[], b: Map<string, Buffer>) => Old)(changes, blobs);
  if (old.joined === undefined) return { expected: answer(old), old: answer(old), joinedDiffers: false };
  const { candidates } = old;
  const union = old.inOrder || old.asSet || byUnion(candidates.map((x) => x.oldText)) === byUnion(candidates.map((x) => x.newText));
  const survivors = union ? candidates : candidates.filter((x) => x.oldText !== null && x.newText !== null && oldSig(x.oldText) === oldSig(x.newText));
  const out = new Map(old.out);
  for (const x of candidates) if (survivors.includes(x)) out.delete(x.c.path);
  else out.set(x.c.path, { cls: 'INTENT_EVOLUTION' });
  return { expected: answer({ out, survivors }), old: answer(old), joinedDiffers: !old.inOrder && !old.asSet && old.joined !== union };
}

describe('token digests against the sorted token lists they replace', () => {
  const rnd = prng(SEED);
  const randoms = Array.from({ length: 3000 }, () => randomText(rnd));
  const texts = [...LIB, ...LIB.flatMap((t) => mutations(t, rnd)), ...randoms, ...randoms.flatMap((t) => mutations(t, rnd))];

  it('gives texts the old signature calls the same one digest, and no collision on the corpus', () => {
    expect(LIB.length).toBeGreaterThan(100);
    const oldToNew = new Map<string, string>();
    const newToOld = new Map<string, string>();
    for (const t of texts) {
      const o = oldSig(t);
      const k = tokenSignature(t);
      expect(digestKey(tokenDigest(t))).toBe(k);
      if (oldToNew.has(o)) expect(oldToNew.get(o), `seed ${SEED}: ${JSON.stringify(t.slice(0, 200))}`).toBe(k);
      else oldToNew.set(o, k);
      if (newToOld.has(k)) expect(newToOld.get(k) === o, `collision, seed ${SEED}: ${JSON.stringify(t.slice(0, 200))}`).toBe(true);
      else newToOld.set(k, o);
    }
    // The corpus has texts the old signature calls the same (else the first property is empty).
    expect(texts.length - oldToNew.size).toBeGreaterThan(500);
    expect(oldToNew.size).toBe(newToOld.size);
    console.log(`token-digest: ${texts.length} texts, ${oldToNew.size} distinct token multisets, no collision`);
  });

  it('adds up: the digest of a union is the sum of the digests', () => {
    for (let i = 0; i + 1 < LIB.length; i += 2) {
      const [a, b] = [LIB[i]!, LIB[i + 1]!];
      const sum = addDigests(tokenDigest(a), tokenDigest(b));
      // The union of the two multisets, as one text: each file's tokens as a string of names.
      const moved = oldToks(a).concat(oldToks(b)).sort().join('\u0000');
      expect(sameDigest(sum, addDigests(tokenDigest(b), tokenDigest(a)))).toBe(true);
      expect(sameDigest(sum, tokenDigest(`${a}\n${b}`))).toBe(oldSig(`${a}\n${b}`) === moved);
      expect(sameDigest(addDigests(sum, EMPTY_DIGEST), sum)).toBe(true);
    }
    expect(tokenSignature('')).toBe(digestKey(EMPTY_DIGEST));
    expect(tokenSignature('; , ( ) // nothing but what is not counted')).toBe(digestKey(EMPTY_DIGEST));
  });
});

describe('the layout-only rule without building the squashed texts', () => {
  it('agrees with comparing t.replace(/\\s+/g, " ").trim() of each text', () => {
    const rnd = prng(SEED ^ 0x1a70);
    const squash = (t: string) => t.replace(/\s+/g, ' ').trim();
    // Layout, and (now and then) what is not: a zero-width space, U+180E (layout before Unicode 6.3), nothing.
    const layout = [' ', '  ', '\t', '\n', '\r\n', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff', ' \n '];
    const odd = ['\u200b', '\u180e', ''];
    const relayout = (t: string) => t.replace(/\s+/g, () => (rnd() < 0.002 ? odd[Math.floor(rnd() * odd.length)]! : layout[Math.floor(rnd() * layout.length)]!));
    let same = 0;
    const pairs: [string, string][] = [['', ''], ['', ' \n'], ['a', 'a '], [' a', 'a'], ['ab', 'a b'], ['a b', 'a  b'], ['a', 'ab'], ['ab cd', 'ab'], ['x\u200by', 'x y']];
    for (const t of LIB.slice(0, 60)) for (let k = 0; k < 4; k++) pairs.push([t, relayout(t)], [relayout(t), relayout(t.replace(/;/, ''))]);
    for (let k = 0; k < 3000; k++) {
      const t = randomText(rnd);
      pairs.push([t, relayout(t)], [t, relayout(randomText(rnd))]);
    }
    for (const [x, y] of pairs) {
      expect(sameWords(x, y), JSON.stringify([x.slice(0, 80), y.slice(0, 80)])).toBe(squash(x) === squash(y));
      if (squash(x) === squash(y)) same++;
    }
    expect(same).toBeGreaterThan(pairs.length / 4);
    expect(same).toBeLessThan(pairs.length);
  });
});

describe('cheapClasses on token digests decides as the old filter did', () => {
  const rnd = prng(SEED ^ 0x5eed);
  const at = (n: number) => Math.floor(rnd() * n);
  const commits: [string, string | null, string | null][][] = [];
  const sources = LIB.filter((t) => t.length < 16_000);
  for (let i = 0; i < sources.length; i++) {
    const a = sources[i]!;
    const b = sources[(i + 1) % sources.length]!;
    const c = sources[(i + 7) % sources.length]!;
    const [ma, mb, mc] = [mutations(a, rnd), mutations(b, rnd), mutations(c, rnd)];
    // One file, each edit.
    for (const m of ma) if (rnd() < 0.5) commits.push([['src/a.ts', a, m]]);
    // An ordinary three-file change; one of layout only in three files.
    commits.push([['src/a.ts', a, ma[at(ma.length)]!], ['src/b.ts', b, mb[at(mb.length)]!], ['src/c.ts', c, mc[at(mc.length)]!]]);
    commits.push([['src/a.ts', a, ma[4]!], ['src/b.ts', b, mb[4]!], ['src/c.ts', c, mc[6]!]]);
    // A declaration moved from a to b (the end of b, or the start), alone or with a rename; and
    // a file added or deleted next to an edit.
    const d = declaration(a);
    if (d) {
      const decl = a.slice(d.start, d.end);
      const rest = a.slice(0, d.start) + a.slice(d.end);
      commits.push([['src/a.ts', a, rest], ['src/b.ts', b, `${b}\n${decl}`]]);
      commits.push([['src/a.ts', a, rest], ['src/b.ts', b, `${decl}\n${b}`]]);
      commits.push([['src/a.ts', a, rest], ['src/b.ts', b, `${b}\n${decl.replace(/\bfunction (\w+)/, 'function $1Moved')}`]]);
      commits.push([['src/a.ts', a, rest], ['src/b.ts', b, `${b}\n${decl}`], ['src/c.ts', c, mc[at(mc.length)]!]]);
      commits.push([['src/a.ts', a, rest], ['src/new.ts', null, decl]]);
      commits.push([['src/a.ts', a, null], ['src/b.ts', b, `${b}\n${a}`]]);
    }
  }

  it(`settles the same classes and leaves the same survivors (${commits.length} commits)`, () => {
    clearTokenCache();
    let joinedDiffers = 0;
    let differs = 0;
    let same = 0;
    let refactorLike = 0;
    let layoutOnly = 0;
    const cold: unknown[] = [];
    for (const files of commits) {
      const { changes, blobs } = commit(files);
      const got = answer(cheapClasses(changes, blobs));
      cold.push(got);
      const ref = reference(changes, blobs);
      expect(got, `seed ${SEED}: ${files.map((f) => f[0]).join(', ')}`).toEqual(ref.expected);
      if (ref.joinedDiffers) {
        joinedDiffers++;
        // Where the two differ, the union is mostly the coarser (it sends the change to syntax).
        // Where it settles a file the joined text left to syntax, that file's own tokens differ
        // between its two sides (the old filter kept it only because a construct open at another
        // file's end ran into it): an evolution, rightly settled.
        if (JSON.stringify(ref.old) !== JSON.stringify(got)) {
          differs++;
          for (const p of ref.old.survivors.filter((x) => !got.survivors.includes(x))) {
            const f = files.find((x) => x[0] === p)!;
            expect((got.out as Record<string, { cls: string }>)[p]?.cls, `seed ${SEED}: ${p}`).toBe('INTENT_EVOLUTION');
            expect(oldSig(f[1] ?? ''), `seed ${SEED}: ${p}'s own tokens are the same on both sides`).not.toBe(oldSig(f[2] ?? ''));
          }
        }
      } else {
        expect(got).toEqual(ref.old);
        same++;
      }
      if (got.survivors.length) refactorLike++;
      if (Object.values(got.out).some((v) => (v as { cls: string }).cls === 'AST_REFACTOR')) layoutOnly++;
    }
    // Most commits have no construct open at a file's end; both outcomes are exercised.
    expect(same).toBeGreaterThan(commits.length * 0.9);
    expect(refactorLike).toBeGreaterThan(commits.length * 0.2);
    expect(refactorLike).toBeLessThan(commits.length * 0.9);
    expect(layoutOnly).toBeGreaterThan(100);
    console.log(`token-digest: ${commits.length} commits, ${joinedDiffers} where the joined texts tokenise differently from the files' union, ${differs} decided differently`);
    // Warm: the same answers with every blob's digest cached.
    expect(commits.map((files) => {
      const { changes, blobs } = commit(files);
      return answer(cheapClasses(changes, blobs));
    })).toEqual(cold);
  });

  it('a claimed refactor skips the filter: every change the byte rules leave survives', () => {
    for (const files of commits.slice(0, 300)) {
      const { changes, blobs } = commit(files);
      const claimed = answer(cheapClasses(changes, blobs, true));
      const filtered = answer(cheapClasses(changes, blobs));
      expect(Object.values(claimed.out).every((v) => v.cls === 'AST_REFACTOR')).toBe(true);
      expect([...Object.keys(claimed.out), ...claimed.survivors].sort()).toEqual(files.map(([p]) => p).sort());
      expect(filtered.survivors.every((p) => claimed.survivors.includes(p))).toBe(true);
    }
  });
});

describe('the cache of blob digests', () => {
  it('tokenises a text under an id it has not seen, and keeps a seen id', () => {
    clearTokenCache();
    const a = 'const x = 1;\n';
    const b = 'const x = 2;\n';
    expect(blobTokenDigest(blobId(a), a)).toEqual(tokenDigest(a));
    expect(blobTokenDigest(blobId(b), b)).toEqual(tokenDigest(b));
    expect(sameDigest(blobTokenDigest(blobId(a), a), blobTokenDigest(blobId(b), b))).toBe(false);
    expect(tokenCacheSize()).toBe(2);
    // The id names the content: a seen id is not tokenised again (the text is not even read).
    expect(blobTokenDigest(blobId(a), 'anything else')).toEqual(tokenDigest(a));
  });

  it('a commit whose new blob is new is classified from its text, cache warm or cold', () => {
    clearTokenCache();
    const base = 'export function f(a: number) {\n  return a + 1;\n}\n';
    const renamed = base.replace(/\ba\b/g, 'b');
    const changed = base.replace('+ 1', '+ 2');
    const first = commit([['src/f.ts', base, renamed]]);
    expect(answer(cheapClasses(first.changes, first.blobs)).survivors).toEqual(['src/f.ts']);
    // The next commit's old side is this one's new side (cached); its new blob is unseen.
    const next = commit([['src/f.ts', renamed, changed]]);
    expect(answer(cheapClasses(next.changes, next.blobs))).toEqual({ out: { 'src/f.ts': { cls: 'INTENT_EVOLUTION' } }, survivors: [] });
    clearTokenCache();
    expect(answer(cheapClasses(next.changes, next.blobs))).toEqual({ out: { 'src/f.ts': { cls: 'INTENT_EVOLUTION' } }, survivors: [] });
  });

  it('a side whose blob is missing counts as no text, and nothing is cached for it', () => {
    clearTokenCache();
    const { changes, blobs } = commit([['src/a.ts', 'let a = 1;\n', 'let b = 1;\n']]);
    blobs.delete(changes[0]!.newOid);
    expect(answer(cheapClasses(changes, blobs))).toEqual({ out: { 'src/a.ts': { cls: 'INTENT_EVOLUTION' } }, survivors: [] });
    expect(tokenCacheSize()).toBe(1);
  });

  it('stays within its bound, the least recently used leaving first', () => {
    clearTokenCache();
    const text = (i: number) => `const v${i} = ${i};\n`;
    blobTokenDigest('first', text(0));
    for (let i = 1; i < TOKEN_CACHE_ENTRIES * 3; i++) {
      blobTokenDigest(`oid-${i}`, text(i));
      // The first entry, used again and again, stays.
      if (i % 100 === 0) blobTokenDigest('first', text(0));
      expect(tokenCacheSize()).toBeLessThanOrEqual(TOKEN_CACHE_ENTRIES);
    }
    expect(tokenCacheSize()).toBe(TOKEN_CACHE_ENTRIES);
    // A seen id answers from the cache whatever text comes with it; an evicted one is tokenised again.
    expect(blobTokenDigest('first', 'x + y')).toEqual(tokenDigest(text(0)));
    expect(blobTokenDigest('oid-1', 'x + y')).toEqual(tokenDigest('x + y'));
    expect(blobTokenDigest(`oid-${TOKEN_CACHE_ENTRIES * 3 - 1}`, 'x + y')).toEqual(tokenDigest(text(TOKEN_CACHE_ENTRIES * 3 - 1)));
  });
});
