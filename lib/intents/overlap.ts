import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BRANCH_PREFIX } from './active.js';
import { gitRaw, splitNul } from '../git/process.js';
import type { Intent, Registry } from './registry.js';
import type { Repo } from '../git/repo.js';
import { compileScope } from './scope.js';

/** Another IN_PROGRESS intent whose scope can match a path this one owns. */
export interface Overlap {
  intent: string;
  /** Tracked files both scopes match (at most MAX_PATHS). */
  paths: string[];
  reason: string;
}

/** Paths listed per overlap or conflict at most. */
export const MAX_PATHS = 10;

/** The same normalisation the scope matcher applies: `./x` is `x`, `dir/` is `dir/**`. */
function normalise(glob: string): string {
  let g = glob.replace(/^(\.\/)+/, '');
  if (g.endsWith('/')) g += '**';
  return g;
}

/** Index of the first glob metacharacter (`*`, `?`, `[`, `{`, or an extglob `+(`, `@(`, `!(`), or -1. */
function firstMeta(glob: string): number {
  return glob.search(/[*?[{]|[+@!]\(/);
}

/** The part of a glob before its first metacharacter: every path it matches starts with it. */
export function literalPrefix(glob: string): string {
  const g = normalise(glob);
  const i = firstMeta(g);
  return i < 0 ? g : g.slice(0, i);
}

/** A negation like `!dir/**` takes a whole subtree out; returns `dir/` (or "" for `!**`), else null. */
function negatedSubtree(glob: string): string | null {
  const g = normalise(glob.slice(1));
  if (g === '**') return '';
  const m = /^(.*\/)\*\*$/.exec(g);
  return m && firstMeta(m[1]) < 0 ? m[1] : null;
}

/**
 * Whether two scopes can match a common path, judged from the globs alone: for every pair of
 * granting globs, a literal glob (a plain path) is tested against the other scope exactly; for two
 * wildcard globs, one literal prefix must contain the other (`src/auth/**` and `src/**`), unless a
 * subtree negation of either scope takes the narrower prefix out. Returns a reason, or null.
 */
export function globsOverlap(a: readonly string[], b: readonly string[]): string | null {
  const grantsA = a.filter((g) => !g.startsWith('!'));
  const grantsB = b.filter((g) => !g.startsWith('!'));
  const negated = [...a, ...b].filter((g) => g.startsWith('!')).map(negatedSubtree).filter((s): s is string => s !== null);
  const scopeA = compileScope(a);
  const scopeB = compileScope(b);
  for (const ga of grantsA) {
    for (const gb of grantsB) {
      const na = normalise(ga);
      const nb = normalise(gb);
      const litA = firstMeta(na) < 0;
      const litB = firstMeta(nb) < 0;
      if (litA || litB) {
        const path = litA ? na : nb;
        if (scopeA.matches(path) && scopeB.matches(path)) return `both scopes match ${path}`;
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

/** Every tracked path of the worktree at `cwd` (`git ls-files`, one process). */
export function trackedFiles(cwd: string): string[] {
  const res = gitRaw(['-c', 'core.quotePath=true', 'ls-files', '-z', '--full-name'], { cwd });
  return res.status === 0 ? splitNul(res.stdout) : [];
}

/**
 * The IN_PROGRESS intents of `others` whose scope can match a path `intent` owns: tracked files
 * both scopes match (exact, negations applied), else the glob test of `globsOverlap`.
 */
export function findOverlaps(intent: Pick<Intent, 'id' | 'owned_scope'>, others: readonly Intent[], files: readonly string[]): Overlap[] {
  const out: Overlap[] = [];
  const mine = compileScope(intent.owned_scope);
  const minePaths = files.filter((f) => mine.matches(f));
  for (const other of others) {
    if (other.id === intent.id || other.status !== 'IN_PROGRESS') continue;
    const theirs = compileScope(other.owned_scope);
    const both = minePaths.filter((f) => theirs.matches(f));
    if (both.length) {
      out.push({
        intent: other.id,
        paths: both.slice(0, MAX_PATHS),
        reason: `${both.length} tracked file${both.length === 1 ? '' : 's'} match${both.length === 1 ? 'es' : ''} both scopes`,
      });
      continue;
    }
    const why = globsOverlap(intent.owned_scope, other.owned_scope);
    if (why) out.push({ intent: other.id, paths: [], reason: why });
  }
  return out;
}

/** One line per overlap, for a human. */
export function describeOverlap(id: string, o: Overlap): string {
  const paths = o.paths.length ? `: ${o.paths.join(', ')}${o.paths.length === MAX_PATHS ? ', …' : ''}` : '';
  return `${id}'s scope overlaps IN_PROGRESS ${o.intent} (${o.reason})${paths}`;
}

/**
 * The local `intent/<ID>` branches and their tips, read from the ref files (no process) unless the
 * repository uses reftable, then with `git for-each-ref`.
 */
export function intentBranches(repo: Repo): Map<string, string> {
  const out = new Map<string, string>();
  const common = repo.commonDir;
  if (existsSync(join(common, 'reftable'))) {
    const res = gitRaw(['for-each-ref', '--format=%(objectname) %(refname)', `refs/heads/${BRANCH_PREFIX}`], { cwd: repo.root });
    for (const line of res.stdout.split('\n')) {
      const m = /^([0-9a-f]{40,64}) refs\/heads\/intent\/(.+)$/.exec(line);
      if (m) out.set(m[2], m[1]);
    }
    return out;
  }
  try {
    for (const line of readFileSync(join(common, 'packed-refs'), 'utf8').split('\n')) {
      const m = /^([0-9a-f]{40,64}) refs\/heads\/intent\/(.+)$/.exec(line);
      if (m) out.set(m[2], m[1]);
    }
  } catch { /* no packed refs */ }
  const walk = (dir: string, prefix: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(dir, e.name), `${prefix}${e.name}/`);
      else if (e.isFile() && !e.name.endsWith('.lock')) {
        try {
          const sha = readFileSync(join(dir, e.name), 'utf8').trim();
          if (/^[0-9a-f]{40,64}$/.test(sha)) out.set(prefix + e.name, sha); // loose refs win over packed ones
        } catch { /* being rewritten */ }
      }
    }
  };
  walk(join(common, 'refs', 'heads', 'intent'), '');
  return out;
}

/** A staged path another IN_PROGRESS intent also changed on its unmerged branch. */
export interface ConflictAhead {
  intent: string;
  paths: string[];
}

/**
 * The staged paths that other IN_PROGRESS intents also changed on their `intent/<ID>` branches
 * and that HEAD does not have yet: one `git log` over the commits of those branches not reachable
 * from HEAD, and no process at all when no other IN_PROGRESS intent has a branch.
 */
export function conflictsAhead(repo: Repo, registry: Registry, selfId: string, staged: readonly string[]): ConflictAhead[] {
  if (!staged.length) return [];
  const branches = intentBranches(repo);
  const tips = new Map<string, string>();
  for (const [id, sha] of branches) {
    if (id === selfId) continue;
    const other = registry.intents.find((i) => i.id === id);
    if (other?.status === 'IN_PROGRESS') tips.set(id, sha);
  }
  if (!tips.size) return [];
  const res = gitRaw(
    ['-c', 'core.quotePath=true', 'log', '-z', '--no-color', '--no-renames', '--name-only', '--format=%x01%H %P', ...new Set(tips.values()), '--not', 'HEAD', '--'],
    { cwd: repo.root },
  );
  if (res.status !== 0) return []; // a warning only: an unborn HEAD or a vanished branch is no reason to block
  const commits = new Map<string, { parents: string[]; files: string[] }>();
  for (const chunk of res.stdout.split('\x01')) {
    if (!chunk) continue;
    const fields = chunk.split('\0').filter((f) => f !== '');
    const head = (fields.shift() ?? '').replace(/\n/g, ' ').trim().split(' ').filter(Boolean);
    if (!head.length) continue;
    const [sha, ...parents] = head;
    commits.set(sha, { parents, files: fields.map((f) => f.replace(/^\n+/, '')).filter(Boolean) });
  }
  const stagedSet = new Set(staged);
  const out: ConflictAhead[] = [];
  for (const [id, tip] of tips) {
    const files = new Set<string>();
    const seen = new Set<string>();
    const stack = [tip];
    while (stack.length) {
      const sha = stack.pop()!;
      if (seen.has(sha)) continue;
      seen.add(sha);
      const c = commits.get(sha);
      if (!c) continue; // reachable from HEAD: merged already
      for (const f of c.files) files.add(f);
      stack.push(...c.parents);
    }
    const hits = staged.filter((p) => files.has(p) && stagedSet.has(p));
    if (hits.length) out.push({ intent: id, paths: hits });
  }
  return out;
}

/** The stderr warning for conflicts ahead. */
export function describeConflicts(selfId: string, conflicts: readonly ConflictAhead[]): string[] {
  return conflicts.map((c) => {
    const shown = c.paths.slice(0, MAX_PATHS);
    return `intent: warning: conflict ahead: ${c.paths.length === 1 ? `${shown[0]} is` : `${c.paths.length} staged paths are`} also changed on ${BRANCH_PREFIX}${c.intent} ` +
      `(IN_PROGRESS intent ${c.intent}, not merged yet)${c.paths.length > 1 ? `: ${shown.join(', ')}${c.paths.length > shown.length ? ', …' : ''}` : ''}. ` +
      `Merging ${selfId} and ${c.intent} will conflict there: coordinate, or leave those paths to ${c.intent}.`;
  });
}
