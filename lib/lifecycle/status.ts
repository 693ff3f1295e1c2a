import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { BRANCH_PREFIX } from '../intents/active.js';
import { BREAKER_DEFAULTS, readBreaker } from '../guardrails/breaker.js';
import { budgetLeft, type BudgetLeft } from '../guardrails/budget.js';
import { loadConfig } from '../intents/config.js';
import { gitRaw, splitNul } from '../git/process.js';
import { findOverlaps, intentBranches, trackedFiles, type Overlap } from '../intents/overlap.js';
import { loadRegistry, type Budget, type IntentStatus } from '../intents/registry.js';
import { openRepo, orchestrationPath } from '../git/repo.js';
import { parseNote, readNotes } from '../trace/verify.js';
import { listWorktrees } from '../git/worktrees.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';

/** One intent as `intent status` reports it. */
export interface IntentStatusRow {
  intent: string;
  name: string;
  status: IntentStatus;
  /** `intent/<ID>` when that branch exists. */
  branch: string | null;
  /** The linked worktree on that branch, if any. */
  worktree: string | null;
  /** Of the worktree: clean, dirty (uncommitted changes) or missing (registered, directory gone); null without one. */
  state: 'clean' | 'dirty' | 'missing' | null;
  /** Entries of `git status --porcelain` in the worktree. */
  dirty_paths: number;
  /** Governed commits (notes naming the intent) reachable from its branch, or all of them when it has no branch. */
  commits: number;
  /** Added + deleted lines over those commits. */
  changed_lines: number;
  budget: Budget | null;
  budget_left: BudgetLeft | null;
  breaker: { open: boolean; since: string | null; reason: string | null; recent_rejections: number };
  /** Other IN_PROGRESS intents whose scope can match a path this one owns (IN_PROGRESS intents only). */
  overlaps: Overlap[];
  scope: string[];
}

export interface StatusReport {
  registry: string;
  intents: IntentStatusRow[];
}

/**
 * Every intent of the main worktree's registry with its branch, worktree, progress (from the notes:
 * one `ls-tree` and one `cat-file --batch` for all of them, one `rev-list` for all branches),
 * budget, worktree state, breaker and scope overlaps.
 */
export function intentStatus(cwd: string, now: Date = new Date()): StatusReport {
  const repo = openRepo(cwd);
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  const registry = loadRegistry(registryPath);
  const config = loadConfig(repo.mainRoot, repo.mainRoot);
  const windowMs = (config.breakerWindowMinutes ?? BREAKER_DEFAULTS.windowMinutes) * 60_000;

  // Notes: sha -> intent and changed lines, parsed once.
  const notes = new Map<string, { id: string; lines: number }>();
  for (const [sha, text] of readNotes({ root: repo.root, mainRoot: repo.mainRoot }, NOTES_REF)) {
    const parsed = parseNote(text);
    if (typeof parsed === 'string') continue;
    const meta = parsed.record.metadata?.[METADATA_KEY];
    if (!meta || typeof meta.intent_id !== 'string') continue;
    let lines = 0;
    for (const f of Object.values(meta.files ?? {})) lines += (Number(f?.added_lines) || 0) + (Number(f?.deleted_lines) || 0);
    notes.set(sha, { id: meta.intent_id, lines });
  }

  const branches = intentBranches(repo);
  const reach = reachable(repo.root, [...new Set(branches.values())]);
  const worktrees = worktreesByBranch(repo.root);
  const files = trackedFiles(repo.mainRoot);

  const intents = registry.intents.map((intent): IntentStatusRow => {
    const tip = branches.get(intent.id) ?? null;
    let commits = 0;
    let lines = 0;
    const count = (n: { id: string; lines: number } | undefined) => {
      if (n?.id !== intent.id) return;
      commits++;
      lines += n.lines;
    };
    if (tip) for (const sha of reach(tip)) count(notes.get(sha));
    else for (const n of notes.values()) count(n);

    const branch = tip ? BRANCH_PREFIX + intent.id : null;
    const worktree = worktrees.get(`refs/heads/${BRANCH_PREFIX}${intent.id}`) ?? null;
    let state: IntentStatusRow['state'] = null;
    let dirty = 0;
    if (worktree) {
      if (!existsSync(worktree)) state = 'missing';
      else {
        const res = gitRaw(['status', '--porcelain', '-z', '--no-renames', '--untracked-files=normal'], { cwd: worktree });
        dirty = res.status === 0 ? splitNul(res.stdout).length : 0;
        state = res.status !== 0 ? 'missing' : dirty ? 'dirty' : 'clean';
      }
    }
    const br = readBreaker(repo, intent.id);
    const recent = br.rejections.filter((r) => Date.parse(r.at) > now.getTime() - windowMs).length;
    return {
      intent: intent.id,
      name: intent.name,
      status: intent.status,
      branch,
      worktree,
      state,
      dirty_paths: dirty,
      commits,
      changed_lines: lines,
      budget: intent.budget ?? null,
      budget_left: intent.budget ? budgetLeft(intent, { commits, changed_lines: lines }, now) : null,
      breaker: { open: !!br.open, since: br.open?.since || null, reason: br.open?.reason ?? null, recent_rejections: recent },
      overlaps: intent.status === 'IN_PROGRESS' ? findOverlaps(intent, registry.intents, files) : [],
      scope: intent.owned_scope,
    };
  });
  return { registry: registryPath, intents };
}

/** Branch ref -> worktree path. */
function worktreesByBranch(cwd: string): Map<string, string> {
  return new Map(listWorktrees(cwd).flatMap((w) => (w.branch ? [[w.branch, w.path] as const] : [])));
}

/**
 * The commits reachable from each of `tips`, from one `git rev-list --parents` over all of them:
 * returns a function tip -> set of shas (computed on demand).
 */
function reachable(cwd: string, tips: string[]): (tip: string) => Set<string> {
  const parents = new Map<string, string[]>();
  if (tips.length) {
    const res = gitRaw(['rev-list', '--parents', ...tips, '--'], { cwd });
    if (res.status === 0) {
      for (const line of res.stdout.split('\n')) {
        const [sha, ...ps] = line.split(' ');
        if (sha) parents.set(sha, ps);
      }
    }
  }
  return (tip) => {
    const seen = new Set<string>();
    const stack = [tip];
    while (stack.length) {
      const sha = stack.pop()!;
      if (seen.has(sha) || !parents.has(sha)) continue;
      seen.add(sha);
      stack.push(...parents.get(sha)!);
    }
    return seen;
  };
}

/** `path` relative to `cwd` when that is shorter. */
function shortPath(path: string, cwd: string | undefined): string {
  if (!cwd) return path;
  const rel = relative(cwd, path) || '.';
  return rel.length < path.length ? rel : path;
}

/** Cuts `s` to `max` characters with "…". */
function cut(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, max - 1).join('') + '…';
}

function budgetText(left: BudgetLeft | null): string {
  if (!left) return '-';
  const parts: string[] = [];
  if (left.commits !== null) parts.push(`${left.commits} commit${left.commits === 1 ? '' : 's'}`);
  if (left.changed_lines !== null) parts.push(`${left.changed_lines} line${left.changed_lines === 1 ? '' : 's'}`);
  if (left.expires_at) parts.push(left.expired ? 'EXPIRED' : `until ${left.expires_at}`);
  return parts.length ? parts.join(', ') : '-';
}

/** The human table: one row per intent, columns padded, long scopes and names cut with "…". */
export function formatStatus(report: StatusReport, opts: { cwd?: string; scopeWidth?: number } = {}): string {
  if (!report.intents.length) return `No intents in ${report.registry}.\n`;
  const header = ['ID', 'STATUS', 'BRANCH', 'WORKTREE', 'STATE', 'COMMITS', 'LINES', 'BUDGET LEFT', 'BREAKER', 'OVERLAPS', 'SCOPE'];
  const rows = report.intents.map((r) => [
    r.intent,
    r.status,
    r.branch ?? '-',
    r.worktree ? shortPath(r.worktree, opts.cwd) : '-',
    r.state === 'dirty' ? `dirty (${r.dirty_paths})` : r.state ?? '-',
    String(r.commits),
    String(r.changed_lines),
    budgetText(r.budget_left),
    r.breaker.open ? 'OPEN' : r.breaker.recent_rejections ? `closed (${r.breaker.recent_rejections} refused)` : 'closed',
    r.overlaps.length ? r.overlaps.map((o) => o.intent).join(', ') : '-',
    cut(r.scope.join(', '), opts.scopeWidth ?? 40),
  ]);
  const len = (s: string) => Array.from(s).length;
  const widths = header.map((h, i) => Math.max(len(h), ...rows.map((row) => len(row[i]))));
  const right = new Set([5, 6]);
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : right.has(i) ? ' '.repeat(widths[i] - len(c)) + c : c + ' '.repeat(widths[i] - len(c)))).join('  ').trimEnd();
  const out = [line(header), ...rows.map(line)];
  const open = report.intents.filter((r) => r.breaker.open);
  for (const r of open) out.push(`${r.intent}: circuit breaker open: ${r.breaker.reason}; a human runs: intent reset ${r.intent}`);
  return out.join('\n') + '\n';
}
