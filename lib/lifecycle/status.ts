import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { BRANCH_PREFIX } from '../intents/active.js';
import { BREAKER_DEFAULTS, breakerIntents, readBreaker } from '../guardrails/breaker.js';
import { budgetLeft, type BudgetLeft } from '../guardrails/budget.js';
import { loadConfig } from '../intents/config.js';
import { gitRaw, gitRawAsync, splitNul } from '../git/process.js';
import { intentBranches } from '../intents/branch-tips.js';
import { overlapChecker, trackedFiles, type Overlap } from '../intents/overlap.js';
import { loadRegistry, type Budget, type IntentStatus } from '../intents/registry.js';
import { openRepo, orchestrationPath } from '../git/repo.js';
import { noteSummaries } from './status-notes.js';
import { listWorktrees } from '../git/worktrees.js';
import { unhookedClaudeSessions, type UnhookedSession } from '../agents/claude-sessions.js';
import { checkMainHooks, hooksWarning, type HookProblem } from '../hooks/health.js';

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
  /** Claude Code sessions that wrote in the worktree without intent's hooks (e.g. started in a subdirectory). */
  unhooked_sessions: UnhookedSession[];
}

export interface StatusReport {
  registry: string;
  intents: IntentStatusRow[];
  /** Problems of the main worktree's hooks (empty: all intent's; null: intent is not installed in this clone). */
  hooks: HookProblem[] | null;
}

/**
 * Every intent of the main worktree's registry with its branch, worktree, progress (from the notes:
 * one `ls-tree`, one `cat-file --batch` for the notes not summarised before, one `rev-list` for
 * all branches), budget, worktree state (`git status`, a few at once), breaker and scope overlaps.
 */
export function intentStatus(cwd: string, now: Date = new Date()): StatusReport {
  const gathered = gather(cwd);
  return gathered.rows(worktreeStatesInTurn(gathered.worktreePaths), now);
}

/** intentStatus with the worktrees' `git status` run a few at a time (what `intent status` uses). */
export async function intentStatusAsync(cwd: string, now: Date = new Date()): Promise<StatusReport> {
  const gathered = gather(cwd);
  return gathered.rows(await worktreeStates(gathered.worktreePaths), now);
}

type WorktreeStates = Map<string, { state: IntentStatusRow['state']; dirty: number }>;

/** Everything status reads but the worktrees' state; `rows` builds the report once that is known. */
function gather(cwd: string): { worktreePaths: string[]; rows: (states: WorktreeStates, now: Date) => StatusReport } {
  const repo = openRepo(cwd);
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  const registry = loadRegistry(registryPath);
  const config = loadConfig(repo.mainRoot, repo.mainRoot);
  const windowMs = (config.breakerWindowMinutes ?? BREAKER_DEFAULTS.windowMinutes) * 60_000;

  const notesOf = noteSummaries(repo);

  const branches = intentBranches(repo);
  const reachableOf = reachability(repo.root, [...new Set(branches.values())]);
  const worktrees = worktreesByBranch(repo.root);
  const overlapsOf = overlapChecker(registry.intents, trackedFiles(repo.mainRoot));
  const breakers = breakerIntents(repo);
  const worktreePaths = registry.intents.flatMap((i) => worktrees.get(`refs/heads/${BRANCH_PREFIX}${i.id}`) ?? []);

  const hooks = checkMainHooks(repo.commonDir);
  const rows = (states: WorktreeStates, now: Date): StatusReport => ({ registry: registryPath, hooks, intents: registry.intents.map((intent): IntentStatusRow => {
    const tip = branches.get(intent.id) ?? null;
    const own = notesOf.get(intent.id) ?? [];
    // With a branch: the intent's governed commits reachable from its tip; without: all of them.
    const counted = tip && own.length ? reachableOf(tip, own) : own;
    const commits = counted.length;
    const lines = counted.reduce((n, c) => n + c.lines, 0);

    const branch = tip ? BRANCH_PREFIX + intent.id : null;
    const worktree = worktrees.get(`refs/heads/${BRANCH_PREFIX}${intent.id}`) ?? null;
    const { state, dirty } = (worktree && states.get(worktree)) || { state: null, dirty: 0 };
    const br = breakers === null || breakers.has(intent.id) ? readBreaker(repo, intent.id) : { open: null, rejections: [] };
    const unhooked: UnhookedSession[] = worktree && state !== 'missing' && existsSync(worktree) ? unhookedClaudeSessions(worktree) : [];
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
      overlaps: intent.status === 'IN_PROGRESS' ? overlapsOf(intent) : [],
      scope: intent.owned_scope,
      unhooked_sessions: unhooked,
    };
  }) });
  return { worktreePaths, rows };
}

/** How many `git status` run at once (each reads its whole worktree; more would only queue for the disk and the cores). */
const STATUS_PARALLEL = 4;

const STATUS_ARGS = ['status', '--porcelain', '-z', '--no-renames', '--untracked-files=normal'];

/** A worktree's state from its `git status`. */
function stateOf(res: { status: number; stdout: string }): { state: IntentStatusRow['state']; dirty: number } {
  const dirty = res.status === 0 ? splitNul(res.stdout).length : 0;
  return { state: res.status !== 0 ? 'missing' : dirty ? 'dirty' : 'clean', dirty };
}

/** Each worktree's state (clean, dirty, missing) and dirty entries: one `git status` each, in turn. */
function worktreeStatesInTurn(paths: string[]): WorktreeStates {
  return new Map(paths.map((path) => [path, existsSync(path) ? stateOf(gitRaw(STATUS_ARGS, { cwd: path })) : { state: 'missing' as const, dirty: 0 }]));
}

/** worktreeStatesInTurn with a few `git status` at a time. */
async function worktreeStates(paths: string[]): Promise<WorktreeStates> {
  const out: WorktreeStates = new Map();
  const queue = [...new Set(paths)];
  const worker = async (): Promise<void> => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      out.set(path, existsSync(path) ? stateOf(await gitRawAsync(STATUS_ARGS, { cwd: path })) : { state: 'missing', dirty: 0 });
    }
  };
  await Promise.all(Array.from({ length: Math.min(STATUS_PARALLEL, queue.length) }, worker));
  return out;
}

/** Branch ref -> worktree path. */
function worktreesByBranch(cwd: string): Map<string, string> {
  return new Map(listWorktrees(cwd).flatMap((w) => (w.branch ? [[w.branch, w.path] as const] : [])));
}

/**
 * Which of some commits each of `tips` reaches, from one `git rev-list --parents` over all of
 * them. A query walks back from its tip only as far as the oldest commit asked about (by
 * generation: a commit can only reach commits of a lower generation) and stops once it has found
 * them all, so a branch's few commits on top of a long history cost a few steps, not the history.
 */
function reachability(cwd: string, tips: string[]): <T extends { sha: string }>(tip: string, commits: T[]) => T[] {
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
  const generation = new Map<string, number>();
  /** 1 + the highest generation of the parents (parents outside the listed history count as 0). */
  const gen = (start: string): number => {
    const stack = [start];
    while (stack.length) {
      const sha = stack[stack.length - 1];
      if (generation.has(sha)) {
        stack.pop();
        continue;
      }
      const ps = (parents.get(sha) ?? []).filter((p) => parents.has(p));
      const todo = ps.filter((p) => !generation.has(p));
      if (todo.length) {
        stack.push(...todo);
        continue;
      }
      generation.set(sha, 1 + Math.max(0, ...ps.map((p) => generation.get(p)!)));
      stack.pop();
    }
    return generation.get(start)!;
  };
  return (tip, commits) => {
    const wanted = new Map<string, number>();
    for (const c of commits) if (parents.has(c.sha)) wanted.set(c.sha, gen(c.sha));
    if (!wanted.size || !parents.has(tip)) return [];
    const floor = Math.min(...wanted.values());
    const found = new Set<string>();
    const seen = new Set<string>();
    const stack = [tip];
    while (stack.length && found.size < wanted.size) {
      const sha = stack.pop()!;
      if (seen.has(sha) || !parents.has(sha)) continue;
      seen.add(sha);
      if (wanted.has(sha)) found.add(sha);
      if (gen(sha) <= floor) continue; // its parents are older than every commit asked about
      stack.push(...parents.get(sha)!);
    }
    return commits.filter((c) => found.has(c.sha));
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

/** At most OVERLAP_IDS other intents by ID, then how many more (`--json` lists them all). */
const OVERLAP_IDS = 3;
function overlapCell(overlaps: readonly Overlap[]): string {
  if (!overlaps.length) return '-';
  const ids = overlaps.slice(0, OVERLAP_IDS).map((o) => o.intent).join(', ');
  return overlaps.length > OVERLAP_IDS ? `${ids} (+${overlaps.length - OVERLAP_IDS} more)` : ids;
}

/** The human table: one row per intent, columns padded, long scopes and names cut with "…". */
export function formatStatus(report: StatusReport, opts: { cwd?: string; scopeWidth?: number } = {}): string {
  const hooks = hooksWarning(report.hooks);
  if (!report.intents.length) return `No intents in ${report.registry}.\n${hooks}`;
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
    overlapCell(r.overlaps),
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
  for (const r of report.intents) {
    for (const s of r.unhooked_sessions) {
      out.push(`${r.intent}: warning: Claude Code session ${s.session_id} used ${s.tools.join(', ')} in ${s.cwd} without intent's hooks ` +
        `(it was not started at the worktree root, or its hooks were off): its writes are not checked or credited. Start the agent at ${r.worktree}.`);
    }
  }
  return out.join('\n') + '\n' + hooks;
}
