// The fast overlap checks (prefix indexes, compiled-once scopes, matcher shortcuts) give exactly
// the answers of the plain pair-by-pair test with minimatch, on random registries and trees.
import { Minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { findOverlaps, globsOverlap, literalPrefix, MAX_PATHS, overlapChecker, type Overlap } from '../../lib/intents/overlap.js';
import type { Intent } from '../../lib/intents/registry.js';
import { compileScope, globProblem } from '../../lib/intents/scope.js';
import { prng } from '../helpers.js';

// ---- the reference: the implementation before the indexes, on minimatch alone
const MM = { dot: true, nocomment: true, nonegate: true, optimizationLevel: 2 } as const;
const norm = (g: string) => {
  let x = g.replace(/^(\.\/)+/, '');
  if (x.endsWith('/')) x += '**';
  return x;
};
const firstMeta = (g: string) => g.search(/[*?[{]|[+@!]\(/);
function refScope(globs: readonly string[]): (p: string) => boolean {
  const pos = globs.filter((g) => !g.startsWith('!')).map((g) => new Minimatch(norm(g), MM));
  const neg = globs.filter((g) => g.startsWith('!')).map((g) => new Minimatch(norm(g.slice(1)), MM));
  return (p) => pos.some((m) => m.match(p)) && !neg.some((m) => m.match(p));
}
function refNegated(g: string): string | null {
  const x = norm(g.slice(1));
  if (x === '**') return '';
  const m = /^(.*\/)\*\*$/.exec(x);
  return m && firstMeta(m[1]) < 0 ? m[1] : null;
}
function refGlobsOverlap(a: readonly string[], b: readonly string[]): string | null {
  const negated = [...a, ...b].filter((g) => g.startsWith('!')).map(refNegated).filter((s): s is string => s !== null);
  const sa = refScope(a);
  const sb = refScope(b);
  for (const ga of a.filter((g) => !g.startsWith('!'))) {
    for (const gb of b.filter((g) => !g.startsWith('!'))) {
      const na = norm(ga);
      const nb = norm(gb);
      const litA = firstMeta(na) < 0;
      const litB = firstMeta(nb) < 0;
      if (litA || litB) {
        const path = litA ? na : nb;
        if (sa(path) && sb(path)) return `both scopes match ${path}`;
        continue;
      }
      const pa = literalPrefix(ga);
      const pb = literalPrefix(gb);
      if (!pa.startsWith(pb) && !pb.startsWith(pa)) continue;
      const narrower = pa.length >= pb.length ? pa : pb;
      if (negated.some((n) => narrower.startsWith(n))) continue;
      if (pa === '' || pb === '') return `"${pa === '' ? ga : gb}" can match any path, including those of "${pa === '' ? gb : ga}"`;
      return `"${ga}" and "${gb}" can match the same paths (prefix "${narrower}" lies within "${narrower === pa ? pb : pa}")`;
    }
  }
  return null;
}
function refFindOverlaps(intent: Intent, others: readonly Intent[], files: readonly string[]): Overlap[] {
  const out: Overlap[] = [];
  const mine = refScope(intent.owned_scope);
  const minePaths = files.filter(mine);
  for (const other of others) {
    if (other.id === intent.id || other.status !== 'IN_PROGRESS') continue;
    const theirs = refScope(other.owned_scope);
    const both = minePaths.filter(theirs);
    if (both.length) {
      out.push({ intent: other.id, paths: both.slice(0, MAX_PATHS), reason: `${both.length} tracked file${both.length === 1 ? '' : 's'} match${both.length === 1 ? 'es' : ''} both scopes` });
      continue;
    }
    const why = refGlobsOverlap(intent.owned_scope, other.owned_scope);
    if (why) out.push({ intent: other.id, paths: [], reason: why });
  }
  return out;
}

// ---- random trees and scopes
const DIRS = ['src', 'src/a', 'src/a/b', 'src/ab', 'src/b', 'docs', 'lib', '.github', 'x y', 'src/a/.cache'];
const NAMES = ['index.ts', 'a.ts', 'b.md', 'f1.ts', 'f10.ts', 'README.md', '.env', 'ü.ts'];

function randomTree(rand: () => number): string[] {
  const files = new Set<string>();
  const n = 5 + Math.floor(rand() * 60);
  for (let i = 0; i < n; i++) files.add(`${DIRS[Math.floor(rand() * DIRS.length)]}/${NAMES[Math.floor(rand() * NAMES.length)]}`);
  files.add('README.md');
  return [...files].sort();
}

function randomGlob(rand: () => number, files: string[]): string {
  const d = DIRS[Math.floor(rand() * DIRS.length)];
  const f = files[Math.floor(rand() * files.length)];
  const forms = [
    `${d}/**`, `${d}/`, `./${d}/**`, `${d}/*.ts`, `${d}/f1*`, f, `${d}/nothing-here.ts`, '**', '**/*.md', `${d}/**/*.ts`,
    'src/{a,b}/**', 'src/a*/**', `${d}/f?.ts`, '@(src|lib)/**', 'src//a/**', 'src/./a/**', `${d}/[ab].ts`, 'docs/new/**', 'src/./a/index.ts', 'src//a/f1.ts',
  ];
  return forms[Math.floor(rand() * forms.length)];
}

function randomScope(rand: () => number, files: string[]): string[] {
  const globs = new Set<string>();
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) globs.add(randomGlob(rand, files));
  if (rand() < 0.3) globs.add(`!${randomGlob(rand, files)}`);
  const list = [...globs].filter((g) => globProblem(g) === null);
  return list.some((g) => !g.startsWith('!')) ? list : ['src/**'];
}

function randomRegistry(rand: () => number, files: string[]): Intent[] {
  const n = 2 + Math.floor(rand() * 25);
  const statuses = ['IN_PROGRESS', 'IN_PROGRESS', 'PENDING', 'COMPLETED'] as const;
  const out: Intent[] = [];
  for (let i = 0; i < n; i++) {
    // A third of the intents share an earlier one's scope (teams give the same folder to several
    // intents; overlapChecker works once per distinct scope).
    const owned_scope = i > 0 && rand() < 0.33 ? [...out[Math.floor(rand() * i)].owned_scope] : randomScope(rand, files);
    out.push({ id: `I${i}`, name: `i${i}`, status: statuses[Math.floor(rand() * statuses.length)], owned_scope, constraints: [], acceptance_criteria: [], related_specs: [] });
  }
  return out;
}

describe('overlap checks at scale give the plain answers', () => {
  it('overlapChecker, findOverlaps and globsOverlap equal the pair-by-pair minimatch test on 40 random registries', () => {
    const rand = prng(1717);
    let overlaps = 0;
    for (let round = 0; round < 40; round++) {
      const files = randomTree(rand);
      const intents = randomRegistry(rand, files);
      const checker = overlapChecker(intents, files);
      for (const intent of intents) {
        const want = refFindOverlaps(intent, intents, files);
        overlaps += want.length;
        expect(checker(intent), `round ${round}, ${intent.id} ${JSON.stringify(intent.owned_scope)}`).toEqual(want);
        expect(findOverlaps(intent, intents, files)).toEqual(want);
      }
      const [a, b] = [intents[0].owned_scope, intents[intents.length - 1].owned_scope];
      expect(globsOverlap(a, b)).toBe(refGlobsOverlap(a, b));
    }
    expect(overlaps).toBeGreaterThan(150); // the random registries do overlap, in both ways
  });

  it("compileScope's shortcuts (plain paths, folder/**) and literal starts agree with minimatch, also on unclean paths", () => {
    const rand = prng(4242);
    const odd = ['src/a/', 'src//a/x.ts', './src/a/x.ts', 'src/./a/x.ts', 'src/a/../b/x.ts', '', 'src', 'src/a', '/src/a/x.ts'];
    for (let round = 0; round < 300; round++) {
      const files = randomTree(rand);
      const globs = randomScope(rand, files);
      const scope = compileScope(globs);
      const ref = refScope(globs);
      for (const p of [...files, ...odd]) {
        expect(scope.matches(p), `${JSON.stringify(globs)} on ${JSON.stringify(p)}`).toBe(ref(p));
        if (ref(p) && !/(^|\/)\.{0,2}(\/|$)/.test(p)) expect(scope.starts.some((s) => p.startsWith(s))).toBe(true);
      }
    }
  });
});
