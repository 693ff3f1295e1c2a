import { BRANCH_PREFIX } from './active.js';
import { gitRaw, splitNul } from '../git/process.js';
import { idsWithStatus, type Intent, type Registry } from './registry.js';
import type { Repo } from '../git/repo.js';
import { compileScope, isCleanPath, type Scope } from './scope.js';
import { cachedBranchFiles, keepBranchFiles, madeSince } from './conflicts-cache.js';
import { intentBranches } from './branch-tips.js';

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

/** A scope prepared once for many overlap checks. */
interface ScopeInfo {
  scope: Scope;
  /** Granting globs: normalised, whether literal (a plain path), literal prefix. */
  grants: { raw: string; norm: string; literal: boolean; prefix: string }[];
  /** Subtrees that `!dir/**` negations take out. */
  negated: string[];
  /** Answers of `scope.matches` for the plain paths of other scopes. */
  memo: Map<string, boolean>;
}

function scopeInfo(globs: readonly string[]): ScopeInfo {
  return {
    scope: compileScope(globs),
    grants: globs.filter((g) => !g.startsWith('!')).map((raw) => {
      const norm = normalise(raw);
      return { raw, norm, literal: firstMeta(norm) < 0, prefix: literalPrefix(raw) };
    }),
    negated: globs.filter((g) => g.startsWith('!')).map(negatedSubtree).filter((s): s is string => s !== null),
    memo: new Map(),
  };
}

/** `scope.matches(path)` for a tracked file name, skipped when it starts with none of the scope's literal starts. */
function matchesFile(scope: Scope, path: string): boolean {
  return scope.starts.some((s) => path.startsWith(s)) && scope.matches(path);
}

/** `scope.matches(path)`, remembered, and skipped when the path starts with none of the scope's literal starts. */
function matchesPath(info: ScopeInfo, path: string): boolean {
  let hit = info.memo.get(path);
  if (hit === undefined) {
    hit = (!isCleanPath(path) || info.scope.starts.some((s) => path.startsWith(s))) && info.scope.matches(path);
    info.memo.set(path, hit);
  }
  return hit;
}

/**
 * Whether two scopes can match a common path, judged from the globs alone: for every pair of
 * granting globs, a literal glob (a plain path) is tested against the other scope exactly; for two
 * wildcard globs, one literal prefix must contain the other (`src/auth/**` and `src/**`), unless a
 * subtree negation of either scope takes the narrower prefix out. Returns a reason, or null.
 */
export function globsOverlap(a: readonly string[], b: readonly string[]): string | null {
  return infosOverlap(scopeInfo(a), scopeInfo(b));
}

/** globsOverlap on prepared scopes; `skip` names plain paths known not to be matched by both. */
function infosOverlap(a: ScopeInfo, b: ScopeInfo, skip?: ReadonlySet<string>): string | null {
  for (const ga of a.grants) {
    for (const gb of b.grants) {
      if (ga.literal || gb.literal) {
        const path = ga.literal ? ga.norm : gb.norm;
        if (skip?.has(path)) continue;
        if (matchesPath(a, path) && matchesPath(b, path)) return `both scopes match ${path}`;
        continue;
      }
      const pa = ga.prefix;
      const pb = gb.prefix;
      if (!pa.startsWith(pb) && !pb.startsWith(pa)) continue;
      const narrower = pa.length >= pb.length ? pa : pb;
      if (a.negated.some((n) => narrower.startsWith(n)) || b.negated.some((n) => narrower.startsWith(n))) continue;
      if (pa === '' || pb === '') return `"${pa === '' ? ga.raw : gb.raw}" can match any path, including those of "${pa === '' ? gb.raw : ga.raw}"`;
      return `"${ga.raw}" and "${gb.raw}" can match the same paths (prefix "${narrower}" lies within "${narrower === pa ? pb : pa}")`;
    }
  }
  return null;
}

/** Every tracked path of the worktree at `cwd` (`git ls-files`, one process). */
export function trackedFiles(cwd: string): string[] {
  const res = gitRaw(['-c', 'core.quotePath=true', 'ls-files', '-z', '--full-name'], { cwd });
  return res.status === 0 ? splitNul(res.stdout) : [];
}

/** Strings with numbers attached, sorted once: which start with `p` (a range), which are a prefix of `s`. */
class PrefixIndex {
  private readonly keys: string[];
  private readonly values: number[][];
  private readonly byKey = new Map<string, number[]>();
  private readonly lengths: number[];

  constructor(entries: Iterable<readonly [string, number]>) {
    for (const [key, value] of entries) {
      const list = this.byKey.get(key);
      if (list) list.push(value);
      else this.byKey.set(key, [value]);
    }
    this.keys = [...this.byKey.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    this.values = this.keys.map((k) => this.byKey.get(k)!);
    this.lengths = [...new Set(this.keys.map((k) => k.length))];
  }

  /** Calls `visit` with the numbers of every key that starts with `p`. */
  startingWith(p: string, visit: (value: number) => void): void {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keys[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.keys.length && this.keys[i].startsWith(p); i++) for (const v of this.values[i]) visit(v);
  }

  /** Calls `visit` with the numbers of every key that `s` starts with. */
  prefixesOf(s: string, visit: (value: number) => void): void {
    for (const n of this.lengths) {
      if (n > s.length) continue;
      const list = this.byKey.get(n === s.length ? s : s.slice(0, n));
      if (list) for (const v of list) visit(v);
    }
  }
}

/**
 * Overlap checks against the IN_PROGRESS intents of `intents` over the tracked `files`, prepared
 * once for many questions (`intent status` asks for every IN_PROGRESS intent). Each distinct scope
 * is compiled once and matched only against the files that start with one of its literal starts;
 * which intents match which file is kept, so shared files are found per file, not per pair; and the
 * glob test runs only for the intents an index of prefixes names as possible (a nested prefix, or
 * a plain path the other scope may match). The answers are exactly those of the pair-by-pair test
 * (test/unit/overlap.test.ts compares them on random registries).
 */
export function overlapChecker(intents: readonly Intent[], files: readonly string[]): (intent: Pick<Intent, 'id' | 'owned_scope'>) => Overlap[] {
  const fileIndex = new PrefixIndex(files.map((f, i) => [f, i] as const));
  const tracked = new Set(files);
  const infos = new Map<string, ScopeInfo>();
  const matched = new Map<string, number[]>();
  const keyOf = (globs: readonly string[]) => globs.join('\0');
  const infoOf = (globs: readonly string[]): ScopeInfo => {
    const key = keyOf(globs);
    let info = infos.get(key);
    if (!info) infos.set(key, (info = scopeInfo(globs)));
    return info;
  };
  /** Indexes (into `files`, ascending) of the tracked files a scope matches. */
  const filesOf = (globs: readonly string[]): number[] => {
    const key = keyOf(globs);
    let hit = matched.get(key);
    if (hit) return hit;
    const { scope } = infoOf(globs);
    const candidates = new Set<number>();
    for (const start of new Set(scope.starts)) fileIndex.startingWith(start, (i) => candidates.add(i));
    hit = [...candidates].filter((i) => scope.matches(files[i])).sort((x, y) => x - y);
    matched.set(key, hit);
    return hit;
  };
  const active = intents.filter((o) => o.status === 'IN_PROGRESS');
  // Intents with the same scope overlap the same others for the same reasons: the work is done
  // once per distinct scope (a group), then given to each of its intents.
  const groupOf = new Map<string, number>();
  const members: number[][] = [];
  const groupGlobs: (readonly string[])[] = [];
  active.forEach((o, k) => {
    const key = keyOf(o.owned_scope);
    let g = groupOf.get(key);
    if (g === undefined) {
      groupOf.set(key, (g = members.length));
      members.push([]);
      groupGlobs.push(o.owned_scope);
    }
    members[g].push(k);
  });
  const groupInfos = groupGlobs.map(infoOf);
  // Lazily built: which groups match each file; where their globs start.
  let byFile: Map<number, number[]> | null = null;
  let wildPrefixes: PrefixIndex | null = null; // literal prefixes of wildcard grants
  let scopeStarts: PrefixIndex | null = null; // Scope.starts
  let plainPaths: PrefixIndex | null = null; // plain-path grants that are not tracked files
  const anyPath: number[] = []; // groups with an unclean plain path: always worth the full test
  const prepare = (): void => {
    if (byFile) return;
    byFile = new Map();
    const wild: [string, number][] = [];
    const starts: [string, number][] = [];
    const plain: [string, number][] = [];
    groupInfos.forEach((info, g) => {
      for (const f of filesOf(groupGlobs[g])) {
        const list = byFile!.get(f);
        if (list) list.push(g);
        else byFile!.set(f, [g]);
      }
      for (const s of info.scope.starts) starts.push([s, g]);
      for (const gr of info.grants) {
        if (!gr.literal) wild.push([gr.prefix, g]);
        else if (!isCleanPath(gr.norm)) anyPath.push(g);
        else if (!tracked.has(gr.norm)) plain.push([gr.norm, g]);
      }
    });
    wildPrefixes = new PrefixIndex(wild);
    scopeStarts = new PrefixIndex(starts);
    plainPaths = new PrefixIndex(plain);
  };
  const counts = new Int32Array(members.length);
  /** The groups a scope overlaps, with the shared files (at most MAX_PATHS) and the reason. */
  const groupOverlaps = (globs: readonly string[]): { group: number; paths: string[]; reason: string }[] => {
    prepare();
    const shared = new Map<number, string[]>();
    for (const f of filesOf(globs)) {
      for (const g of byFile!.get(f) ?? []) {
        const n = ++counts[g];
        if (n === 1) shared.set(g, [files[f]]);
        else if (n <= MAX_PATHS) shared.get(g)!.push(files[f]);
      }
    }
    // The groups the glob test can say yes for (a superset; the test itself decides).
    const mine = infoOf(globs);
    const maybe = new Set<number>(anyPath);
    const add = (g: number) => maybe.add(g);
    for (const gr of mine.grants) {
      if (!gr.literal) {
        wildPrefixes!.startingWith(gr.prefix, add);
        wildPrefixes!.prefixesOf(gr.prefix, add);
      } else if (!isCleanPath(gr.norm)) {
        for (let g = 0; g < members.length; g++) maybe.add(g);
      } else if (!tracked.has(gr.norm)) {
        scopeStarts!.prefixesOf(gr.norm, add);
      }
    }
    for (const s of new Set(mine.scope.starts)) plainPaths!.startingWith(s, add);
    const out: { group: number; paths: string[]; reason: string }[] = [];
    for (const g of new Set([...shared.keys(), ...maybe])) {
      const n = counts[g];
      if (n) {
        out.push({ group: g, paths: shared.get(g)!, reason: `${n} tracked file${n === 1 ? '' : 's'} match${n === 1 ? 'es' : ''} both scopes` });
        continue;
      }
      // A tracked plain path both scopes matched would have been a shared file: skip those.
      const why = infosOverlap(mine, groupInfos[g], tracked);
      if (why) out.push({ group: g, paths: [], reason: why });
    }
    for (const g of shared.keys()) counts[g] = 0;
    return out;
  };
  const asked = new Map<string, ReturnType<typeof groupOverlaps>>();
  return (intent) => {
    const key = keyOf(intent.owned_scope);
    let found = asked.get(key);
    if (!found) asked.set(key, (found = groupOverlaps(intent.owned_scope)));
    const hits: [number, { paths: string[]; reason: string }][] = [];
    for (const o of found) for (const k of members[o.group]) if (active[k].id !== intent.id) hits.push([k, o]);
    return hits.sort((x, y) => x[0] - y[0]).map(([k, o]) => ({ intent: active[k].id, paths: [...o.paths], reason: o.reason }));
  };
}

/**
 * The IN_PROGRESS intents of `others` whose scope can match a path `intent` owns: tracked files
 * both scopes match (exact, negations applied), else the glob test of `globsOverlap`. One
 * question (`intent checkout`): each other scope is tested only on the files this one matches,
 * and only those that start with one of its literal starts. For many questions against the same
 * registry, `overlapChecker` prepares the work once.
 */
export function findOverlaps(intent: Pick<Intent, 'id' | 'owned_scope'>, others: readonly Intent[], files: readonly string[]): Overlap[] {
  const out: Overlap[] = [];
  const mine = scopeInfo(intent.owned_scope);
  const minePaths = files.filter((f) => matchesFile(mine.scope, f));
  const tracked = new Set(minePaths);
  const sortedMine = [...minePaths].sort();
  const mineHasPrefix = (p: string): boolean => {
    let lo = 0;
    let hi = sortedMine.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sortedMine[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    return lo < sortedMine.length && sortedMine[lo].startsWith(p);
  };
  /**
   * Whether `other` could overlap at all, from its glob strings, before compiling it (most of
   * 500 IN_PROGRESS scopes cannot): a shared file needs one of mine under one of its literal
   * prefixes; the glob test needs nested prefixes or a plain path one side matches. Globs with
   * `.`, `..` or empty segments (which the matcher normalises) are always compiled.
   */
  const mineUnclean = mine.grants.some((ga) => ga.literal && !isCleanPath(ga.norm));
  const mayOverlap = (globs: readonly string[]): boolean => {
    if (mineUnclean) return true;
    for (const g of globs) {
      if (g.startsWith('!')) continue;
      const norm = normalise(g);
      if (!isCleanPath(norm)) return true;
      const prefix = literalPrefix(g);
      if (mineHasPrefix(prefix)) return true;
      if (firstMeta(norm) < 0) {
        if (matchesPath(mine, norm)) return true;
        if (mine.grants.some((ga) => !ga.literal && norm.startsWith(ga.prefix))) return true;
        continue;
      }
      for (const ga of mine.grants) {
        if (ga.literal ? ga.norm.startsWith(prefix) : ga.prefix.startsWith(prefix) || prefix.startsWith(ga.prefix)) return true;
      }
    }
    return false;
  };
  const infos = new Map<string, ScopeInfo>();
  for (const other of others) {
    if (other.id === intent.id || other.status !== 'IN_PROGRESS') continue;
    if (!mayOverlap(other.owned_scope)) continue;
    const key = other.owned_scope.join('\0');
    let theirs = infos.get(key);
    if (!theirs) infos.set(key, (theirs = scopeInfo(other.owned_scope)));
    const both = minePaths.filter((f) => matchesFile(theirs.scope, f));
    if (both.length) {
      out.push({
        intent: other.id,
        paths: both.slice(0, MAX_PATHS),
        reason: `${both.length} tracked file${both.length === 1 ? '' : 's'} match${both.length === 1 ? 'es' : ''} both scopes`,
      });
      continue;
    }
    // A tracked file both scopes matched would have been found above: skip those plain paths.
    const why = infosOverlap(mine, theirs, tracked);
    if (why) out.push({ intent: other.id, paths: [], reason: why });
  }
  return out;
}

/** One line per overlap, for a human. */
export function describeOverlap(id: string, o: Overlap): string {
  const paths = o.paths.length ? `: ${o.paths.join(', ')}${o.paths.length === MAX_PATHS ? ', …' : ''}` : '';
  return `${id}'s scope overlaps IN_PROGRESS ${o.intent} (${o.reason})${paths}`;
}

/** Most staged paths conflictsAhead passes to git as a pathspec. */
const MAX_PATHSPEC = 200;

/** A staged path another IN_PROGRESS intent also changed on its unmerged branch. */
export interface ConflictAhead {
  intent: string;
  paths: string[];
}

/**
 * The staged paths that other IN_PROGRESS intents also changed on their `intent/<ID>` branches
 * and that HEAD (`head`) does not have yet. What each branch changed is kept between commits
 * (conflicts-cache.ts): git is asked only about the tips that moved, with one `git log` over
 * their commits not reachable from HEAD, and about branches with too many files to keep, with the
 * staged paths; no process at all when no other IN_PROGRESS intent has a branch. Without `head`
 * (HEAD not readable from git's files, e.g. reftable), nothing is kept and the staged paths limit
 * one `git log` against HEAD (on an unborn branch git finds nothing, as before the cache).
 */
export function conflictsAhead(repo: Repo, registry: Registry, selfId: string, staged: readonly string[], head: string | null): ConflictAhead[] {
  if (!staged.length) return [];
  // No other intent in progress: no branch to read.
  const inProgress = idsWithStatus(registry, 'IN_PROGRESS');
  if (![...inProgress].some((id) => id !== selfId)) return [];
  const branches = intentBranches(repo);
  const tips = new Map<string, string>();
  for (const [id, sha] of branches) {
    if (id !== selfId && inProgress.has(id)) tips.set(id, sha);
  }
  if (!tips.size) return [];
  let files: Map<string, Set<string>>;
  if (head) {
    const cached = cachedBranchFiles(repo, head, tips);
    files = cached.files;
    // A branch that moved on from a tip the cache knows: only its new commits are read (one git
    // process each, a few commits), so a commit's check does not grow with other branches' length.
    let grew = false;
    const grown = grownSinceAll(repo, [...cached.moved].map(([id, before]) => ({ id, tip: tips.get(id)!, before: before.tip })), head);
    for (const [id, before] of cached.moved) {
      const more = grown.get(id);
      if (more) {
        files.set(id, new Set([...before.files, ...more]));
        grew = true;
      }
    }
    const moved = new Map([...tips].filter(([id]) => !files.has(id) && !cached.big.has(id)));
    let ok = true;
    if (moved.size) {
      const asked = changedOnBranches(repo, moved, head, null);
      for (const [id, f] of asked.files) files.set(id, f);
      ok = asked.ok;
    }
    if (ok && (grew || moved.size)) keepBranchFiles(repo, head, tips, files, cached.big);
    // Branches with too many files to keep: asked each time, about the staged paths only.
    const big = new Map([...tips].filter(([id]) => cached.big.has(id)));
    if (big.size) for (const [id, f] of changedOnBranches(repo, big, head, staged).files) files.set(id, f);
  } else {
    files = changedOnBranches(repo, tips, 'HEAD', staged).files;
  }
  const out: ConflictAhead[] = [];
  for (const id of tips.keys()) {
    const changed = files.get(id);
    const hits = changed ? staged.filter((p) => changed.has(p)) : [];
    if (hits.length) out.push({ intent: id, paths: hits });
  }
  return out;
}

/**
 * For each branch that moved on from a kept tip (`before`), the files changed by the commits its
 * `tip` has that neither `before` nor `head` has, when `tip` descends from `before` (a branch that
 * grew); null otherwise (rewritten, or git failed: read the branch whole). From the commits the
 * hook server recorded itself where they are all there (madeSince), else one `git log` of all
 * the other branches' new commits (with 8 agents committing, each check finds 7 branches moved); a
 * branch whose walk meets any other boundary than its own `before` (its new commits reach what
 * another kept tip has) is asked alone, so a commit that log left out for another branch's sake is
 * never missed.
 */
function grownSinceAll(repo: Repo, moved: { id: string; tip: string; before: string }[], head: string): Map<string, Set<string> | null> {
  const out = new Map<string, Set<string> | null>();
  // In the hook server, a branch whose new commits it recorded itself needs no git at all.
  const grown = moved.filter((g) => {
    const made = madeSince(g.id, g.tip, g.before);
    if (made) out.set(g.id, made);
    return !made;
  });
  if (grown.length === 1) out.set(grown[0].id, grownSince(repo, grown[0], head));
  else if (grown.length) {
    const commits = newCommits(repo, grown.map((g) => g.tip), grown.map((g) => g.before), head);
    for (const g of grown) {
      const walk = commits && walkFiles(commits, g.tip);
      const boundary = walk ? [...walk.seen].filter((sha) => !commits!.has(sha)) : [];
      out.set(g.id, walk && boundary.length === 1 && boundary[0] === g.before ? walk.files : grownSince(repo, g, head));
    }
  }
  return out;
}

/** What `grownSinceAll` finds for one branch, from a `git log` of its own. */
function grownSince(repo: Repo, g: { tip: string; before: string }, head: string): Set<string> | null {
  const commits = newCommits(repo, [g.tip], [g.before], head);
  if (!commits) return null;
  const { files, seen } = walkFiles(commits, g.tip);
  return seen.has(g.before) ? files : null;
}

/** The commits `tips` have that neither `befores` nor `head` have, with their files (null: git failed). */
function newCommits(repo: Repo, tips: string[], befores: string[], head: string): Map<string, { parents: string[]; files: string[] }> | null {
  const res = gitRaw(
    ['-c', 'core.quotePath=true', 'log', '-z', '--no-color', '--no-renames', '--name-only', '--format=%x01%H %P', ...tips, '--not', ...befores, head, '--'],
    { cwd: repo.root },
  );
  return res.status === 0 ? parseLog(res.stdout) : null;
}

/**
 * The files of the listed commits `tip` reaches through listed commits (a commit not listed, the
 * boundary of the log, ends its path), and every commit the walk came to, boundary included.
 */
function walkFiles(commits: ReadonlyMap<string, { parents: string[]; files: string[] }>, tip: string): { files: Set<string>; seen: Set<string> } {
  const files = new Set<string>();
  const seen = new Set<string>();
  const stack = [tip];
  while (stack.length) {
    const sha = stack.pop()!;
    if (seen.has(sha)) continue;
    seen.add(sha);
    const c = commits.get(sha);
    if (!c) continue;
    for (const f of c.files) files.add(f);
    stack.push(...c.parents);
  }
  return { files, seen };
}

/** `git log -z --name-only --format=%x01%H %P` output: each commit's parents and files. */
function parseLog(out: string): Map<string, { parents: string[]; files: string[] }> {
  const commits = new Map<string, { parents: string[]; files: string[] }>();
  for (const chunk of out.split('\x01')) {
    if (!chunk) continue;
    const fields = chunk.split('\0').filter((f) => f !== '');
    const top = (fields.shift() ?? '').replace(/\n/g, ' ').trim().split(' ').filter(Boolean);
    if (!top.length) continue;
    const [sha, ...parents] = top;
    commits.set(sha, { parents, files: fields.map((f) => f.replace(/^\n+/, '')).filter(Boolean) });
  }
  return commits;
}

/**
 * For each tip (by intent), the files changed by its commits that `head` does not reach: one
 * `git log --name-only`, limited to `paths` when given (then the sets hold only those); `ok`
 * false when git failed.
 */
function changedOnBranches(repo: Repo, tips: ReadonlyMap<string, string>, head: string, paths: readonly string[] | null): { files: Map<string, Set<string>>; ok: boolean } {
  // `--sparse` still lists every commit when the paths limit the diff, which the walk below needs.
  // Names in git's quoted form (not UTF-8) and very many paths go without the limit.
  const limit = paths !== null && paths.length <= MAX_PATHSPEC && !paths.some((p) => p.startsWith('"'));
  const res = gitRaw(
    [
      '-c', 'core.quotePath=true', ...(limit ? ['--literal-pathspecs'] : []),
      'log', '-z', '--no-color', '--no-renames', '--name-only', ...(limit ? ['--full-history', '--sparse'] : []),
      '--format=%x01%H %P', ...new Set(tips.values()), '--not', head, '--', ...(limit ? paths : []),
    ],
    { cwd: repo.root },
  );
  const commits = parseLog(res.stdout);
  const out = new Map<string, Set<string>>();
  // (A commit not listed is reachable from HEAD: merged already.)
  for (const [id, tip] of tips) out.set(id, walkFiles(commits, tip).files);
  // A git that failed (a tip or HEAD it cannot read) found nothing: answered, never kept.
  return { files: out, ok: res.status === 0 };
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
