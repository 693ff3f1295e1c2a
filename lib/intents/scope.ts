import { braceExpand, GLOBSTAR, Minimatch } from 'minimatch';
import { matchName } from '../git/paths.js';

/**
 * `noext`: no extglobs (`+(a|b)`): minimatch compiles them to nested quantifiers, whose matching
 * takes exponential time in the length of a file name (`src/**\/+(*.ts|*.js)` against a 100-character
 * name: seconds, then minutes). The registry refuses them (globProblem); a glob that reaches a
 * matcher some other way (a note's recorded scope) is matched with its parentheses as literal text.
 * Braces (`*.{ts,js}`) expand to plain globs, matched in linear time.
 */
const MM_OPTIONS = { dot: true, nocomment: true, nonegate: true, noext: true, optimizationLevel: 2 } as const;

/** A compiled `owned_scope`: positive globs grant, `!` globs take back (negations always win). */
export interface Scope {
  readonly globs: readonly string[];
  matches(path: string): boolean;
  /**
   * Strings that every path the scope matches starts with, one per granting pattern (after brace
   * expansion): its leading literal path segments. "" when a pattern can match any path. A path
   * without empty, `.` or `..` segments (every name git tracks) that starts with none of them is
   * not matched, so callers can skip the matcher for it.
   */
  readonly starts: readonly string[];
}

/** The longest glob accepted, in characters (minimatch itself refuses patterns past 65,536). */
export const MAX_GLOB_CHARS = 1024;

/**
 * Why a scope glob is unusable, or null when it is fine. Globs are repository-relative
 * POSIX paths: no absolute paths, no `..`, no backslashes.
 */
export function globProblem(raw: unknown): string | null {
  if (typeof raw !== 'string') return `must be a string, got ${describe(raw)}`;
  const glob = raw.startsWith('!') ? raw.slice(1) : raw;
  if (glob.trim() === '') return raw.startsWith('!') ? 'negation "!" has no pattern after it' : 'is empty';
  if (glob !== glob.trim()) return 'has leading or trailing whitespace';
  if (glob.startsWith('/') || /^[A-Za-z]:[\\/]/.test(glob)) return 'is an absolute path; use a path relative to the repository root';
  if (glob.includes('\\')) return 'contains a backslash; use "/" as the separator';
  if (glob.split('/').includes('..')) return 'contains ".." and would leave the repository';
  if (glob.startsWith('!')) return 'has a double negation';
  if (glob.length > MAX_GLOB_CHARS) return `is ${glob.length} characters long; at most ${MAX_GLOB_CHARS} are allowed`;
  if (/[\0\n\r]/.test(glob)) return 'contains a control character';
  if (/[?*+@!]\(/.test(glob)) {
    return 'uses an extglob pattern (+(…), *(…), ?(…), @(…) or !(…)), whose matching can take exponential time on a long file name; write the alternatives with braces instead, e.g. "src/**/*.{ts,js}"';
  }
  let mm: Minimatch;
  try {
    mm = new Minimatch(normalise(glob), MM_OPTIONS);
  } catch (e) {
    // minimatch throws on patterns it refuses to compile (too long, too many braces).
    return `is not a valid glob (${(e as Error).message})`;
  }
  if (mm.makeRe() === false) return 'is not a valid glob';
  if (!balanced(glob)) return 'has unbalanced brackets or braces';
  return null;
}

function balanced(glob: string): boolean {
  const pairs: Record<string, string> = { ']': '[', '}': '{', ')': '(' };
  const stack: string[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') { i++; continue; }
    if (c === '[' || c === '{' || c === '(') stack.push(c);
    else if (c in pairs) { if (stack.pop() !== pairs[c]) return false; }
  }
  return stack.length === 0;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a mapping' : `${typeof v} ${JSON.stringify(v)}`;
}

/** `src/auth/` means everything under it; `./x` means `x`. */
function normalise(glob: string): string {
  let g = glob.replace(/^(\.\/)+/, '');
  if (g.endsWith('/')) g += '**';
  return g;
}

/** Compiles globs once; callers must have validated them with `globProblem`. */
export function compileScope(globs: readonly string[]): Scope {
  const pos: Matcher[] = [];
  const neg: Matcher[] = [];
  // The negations again, case- and Unicode-folded: on a checkout that folds names (macOS, Windows),
  // src/a/SECRET/ or an NFD spelling is the excluded src/a/secret/, so those twins are excluded too.
  const foldedNeg: Matcher[] = [];
  for (const g of globs) {
    if (g.startsWith('!')) {
      neg.push(compiled(normalise(g.slice(1))));
      foldedNeg.push(compiled(fold(normalise(g.slice(1)))));
    } else pos.push(compiled(normalise(g)));
  }
  return {
    globs,
    starts: pos.flatMap((m) => m.starts),
    matches(path: string): boolean {
      const clean = isCleanPath(path);
      if (!pos.some((m) => m.match(path, clean)) || neg.some((m) => m.match(path, clean))) return false;
      if (!foldedNeg.length || !FOLDABLE.test(path)) return true;
      const folded = fold(path);
      return !foldedNeg.some((m) => m.match(folded, isCleanPath(folded)));
    },
  };
}

/** A name a case- or Unicode-folding file system may take for another: upper case, or anything not ASCII. */
const FOLDABLE = /[A-Z\u0080-\uffff]/;

/** A name as a folding file system compares it: NFC, lower case. */
export function fold(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * A path with a component git itself refuses to check out (fsck's hasDotgit): `.git` in any case,
 * with trailing dots or spaces (Windows drops them), or its NTFS short name `git~1`.
 */
const DOT_GIT = /(?:^|\/)(?:\.git[. ]*|git~\d+)(?:\/|$)/i;

interface Matcher {
  /** The leading literal segments of each of the glob's patterns (see literalStarts). */
  starts: string[];
  match(path: string, clean: boolean): boolean;
}

/**
 * Compiled globs, shared by every scope that names the same glob (a registry of 10,000 intents
 * repeats its folders): a matcher never changes once made. Bounded for long-running processes.
 */
const MATCHERS = new Map<string, Matcher>();
const MAX_MATCHERS = 50_000;

function compiled(glob: string): Matcher {
  let m = MATCHERS.get(glob);
  if (!m) {
    if (MATCHERS.size >= MAX_MATCHERS) MATCHERS.clear();
    MATCHERS.set(glob, (m = PLAIN.test(glob) && isCleanPath(glob) ? plainMatcher(glob) : glob.includes('{') ? braceMatcher(glob) : matcher(new Minimatch(glob, MM_OPTIONS))));
  }
  return m;
}

/**
 * A glob with braces matches what any of its expansions matches (minimatch expands them first,
 * too): each expansion is compiled on its own, so `src/{a,b}/**` gets two folder shortcuts.
 */
function braceMatcher(glob: string): Matcher {
  const alternatives = braceExpand(glob, MM_OPTIONS);
  if (alternatives.length < 2 || alternatives.includes(glob)) return matcher(new Minimatch(glob, MM_OPTIONS));
  const each = alternatives.map(compiled);
  return { starts: each.flatMap((m) => m.starts), match: (path, clean) => each.some((m) => m.match(path, clean)) };
}

/** No glob syntax at all (no metacharacter, extglob, brace or escape): the glob is one path. */
const PLAIN = /^[^*?[\]{}()!+@\\]+$/;

/**
 * A glob that is one clean path: equality for clean paths; minimatch (made on first need) only
 * for a path with an empty, `.` or `..` segment, which it normalises.
 */
function plainMatcher(glob: string): Matcher {
  let mm: Minimatch | null = null;
  return { starts: [glob], match: (path, clean) => (clean ? path === glob : (mm ??= new Minimatch(glob, MM_OPTIONS)).match(path)) };
}

/** A path with an empty, `.` or `..` segment (git never names a file so; minimatch normalises them). */
const UNCLEAN = /(^|\/)\.{0,2}(\/|$)/;

/** Whether `path` has no empty, `.` or `..` segment: then `Scope.starts` and the matcher's shortcuts apply. */
export function isCleanPath(path: string): boolean {
  return !UNCLEAN.test(path);
}

/**
 * Matches like `mm.match`, with two shortcuts for clean paths that give the same answer without
 * minimatch's per-call splitting: a glob that is one plain path (equality) and one that is a plain
 * folder followed by `**` (a prefix test). test/unit/overlap.test.ts checks them against minimatch.
 */
function matcher(mm: Minimatch): Matcher {
  const starts = literalStarts(mm);
  const slow: Matcher = { starts, match: (path) => mm.match(path) };
  if (mm.set.length !== 1) return slow;
  const parts = mm.set[0];
  const lit = starts[0];
  const n = lit === '' ? 0 : lit.split('/').length;
  if (n === parts.length) return { starts, match: (path, clean) => (clean ? path === lit : mm.match(path)) };
  if (n > 0 && n === parts.length - 1 && parts[n] === GLOBSTAR) {
    const dir = `${lit}/`;
    return { starts, match: (path, clean) => (clean ? path.length > dir.length && path.startsWith(dir) : mm.match(path)) };
  }
  return slow;
}

/** The leading literal segments of each of a compiled glob's patterns, joined with "/". */
function literalStarts(mm: Minimatch): string[] {
  return mm.set.map((parts) => {
    const lit: string[] = [];
    for (const p of parts) {
      if (typeof p !== 'string') break;
      lit.push(p);
    }
    return lit.join('/');
  });
}

/** Parses `.intentignore`: one glob per line, `#` comments and blank lines skipped. */
export function parseIgnoreFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * The paths of `paths` that the intent may not touch, in input order. With `protectOrchestration`
 * (commits from an intent worktree) nothing under `.orchestration/` (in any case) is allowed,
 * whatever the scope says: an agent must not widen its own scope. A path with a `.git` component
 * is never allowed.
 */
export function outOfScope(
  paths: readonly string[],
  scope: Scope,
  ignore: Scope | null,
  protectOrchestration: boolean,
): string[] {
  const bad: string[] = [];
  for (const p of paths) {
    const name = matchName(p);
    // A `.git` in the path is refused whatever the scope (git refuses to check it out; it would be a repository's config).
    if (DOT_GIT.test(name)) { bad.push(p); continue; }
    const top = FOLDABLE.test(name) ? fold(name) : name;
    if (protectOrchestration && (top === '.orchestration' || top.startsWith('.orchestration/'))) { bad.push(p); continue; }
    if (ignore && ignore.matches(name)) continue;
    if (!scope.matches(name)) bad.push(p);
  }
  return bad;
}

/**
 * The `!` globs of `scope` that take `glob` back: a path (or glob) they exclude stays outside the
 * scope however it is added, since a negation wins over every positive glob.
 */
export function takenBack(scope: readonly string[], glob: string): string[] {
  const target = normalise(glob);
  const bare = target.replace(/\/\*\*$/, '');
  return scope.filter((g) => {
    if (!g.startsWith('!')) return false;
    const neg = normalise(g.slice(1));
    const mm = new Minimatch(neg, MM_OPTIONS);
    return neg === target || mm.match(target) || mm.match(bare);
  });
}
