import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, realpathSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gate } from '../authority/gate.js';
import { readNotesFor } from '../authority/objects.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import { parseNote } from '../trace/verify.js';
import { BRANCH_PREFIX } from '../intents/active.js';
import { assertNotAgent } from '../core/agent-env.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw, splitNul } from '../git/process.js';
import { appendLesson } from '../intents/lessons.js';
import { defaultSetup, withProjectHooksKept } from './worktree-setup.js';
import { withLock } from '../core/lock.js';
import { registryLockPath, setIntentStatus } from '../intents/registry-edit.js';
import { findIntent, loadRegistry, type Intent } from '../intents/registry.js';
import { openRepo, orchestrationPath, stateDir, type Repo } from '../git/repo.js';
import { worktreeOfBranch } from '../git/worktrees.js';

/**
 * Before `done --merge`: the intent's commits that the base lacks must pass the authority check
 * (`intent gate`) against the base as committed: notes for this intent, hashes true, paths
 * inside the committed scope. A hook-free or mislabelled commit is not merged.
 */
function assertMergeable(repo: Repo, id: string, branch: string, base: string, tip: string): void {
  const r = gate(repo.mainRoot, {
    updates: [{ old: '0'.repeat(40), new: tip, ref: `refs/heads/${branch}` }], base: 'HEAD', baseLabel: `${base} as committed`, settled: ['HEAD'], pusher: null, local: true,
  });
  if (!r.findings.length) return;
  const lines = r.findings.map((f) => `  ${f.code} ${(f.commit ?? '-').slice(0, 12)}: ${f.message}\n      next: ${f.next}`);
  throw new IntentError(
    'AUTHORITY_REFUSED',
    `Cannot merge ${branch} into ${base}: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'} of the authority check (what the server would refuse):\n${lines.join('\n')}\n` +
      `Scope and .intentignore come from ${base} as committed: commit .orchestration/ first if an approved change is missing; otherwise fix the commits in the intent's worktree. Nothing was changed (no check was run).`,
    { intent: id, findings: r.findings },
  );
}

/** Default time one acceptance check may run, in seconds. */
export const DEFAULT_CHECK_TIMEOUT_S = 600;
/** The longest timeout accepted (a timer cannot wait longer than about 24 days). */
export const MAX_CHECK_TIMEOUT_S = 2_000_000;
/** The note every command that edits the main worktree's registry prints. */
export const COMMIT_REGISTRY_NOTE = 'The registry change is not committed: commit .orchestration/active_intents.yaml to record it.';

/** One acceptance check as it ran. */
export interface CheckRun {
  /** 1-based position in `acceptance_checks`. */
  index: number;
  command: string;
  passed: boolean;
  /** The exit code, or null when the check was killed by a signal. */
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  /** Its stdout and stderr, interleaved as written. */
  log: string;
}

/** What happened to an intent's worktree and branch at the end of `done` or `abandon`. */
export interface Cleanup {
  worktree: { path: string | null; removed: boolean; reason: string };
  branch: { name: string; deleted: boolean; reason: string };
}

/** What `intent done` did. */
export interface DoneResult extends Cleanup {
  intent: string;
  status: 'COMPLETED';
  registry: string;
  checks: CheckRun[];
  /** With --merge: the branch merged into and the merge commit (or the base's head when already merged). */
  merged: { into: string; commit: string; already: boolean } | null;
  note: string;
}

/** What `intent abandon` did. */
export interface AbandonResult extends Cleanup {
  intent: string;
  status: 'ABANDONED';
  /** False when the intent was already ABANDONED. */
  changed: boolean;
  registry: string;
  note: string;
}

export interface DoneOptions {
  /** Merge branch intent/<ID> into the main worktree's branch after the checks pass. */
  merge?: boolean;
  /** Delete branch intent/<ID> (git branch -d) once it is merged and its worktree removed. */
  deleteBranch?: boolean;
  /** Seconds one check may run (default 600). */
  timeoutSeconds?: number;
  /** Called with a line of progress per check (for the terminal). */
  progress?: (line: string) => void;
  now?: Date;
  /** The environment that tells an agent process (refused: finishing is a human's decision). */
  env?: NodeJS.ProcessEnv;
}

/**
 * `intent done <ID>`: runs the intent's acceptance checks in its worktree and marks it COMPLETED
 * when every one passes; with `merge`, first merges intent/<ID> into the main worktree's branch.
 * Then removes the worktree when nothing would be lost (no uncommitted or untracked files, branch
 * merged into the base). Refuses, changing nothing, when the intent is not IN_PROGRESS, has no
 * worktree, the caller stands in that worktree, or a worktree that must be clean is not. A failed
 * check leaves the status unchanged, saves its log and appends a lesson.
 */
export async function finishIntent(cwd: string, id: string, opts: DoneOptions = {}): Promise<DoneResult> {
  assertNotAgent(`done ${id}`, opts.env);
  const repo = openRepo(cwd);
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  const intent = requireIntent(registryPath, id);
  if (intent.status !== 'IN_PROGRESS') {
    const hint = {
      PENDING: `Start it first: intent checkout ${id}.`,
      BLOCKED: 'A human must unblock it in the registry first.',
      COMPLETED: `It is already done. To land its branch by hand: git merge --no-ff ${BRANCH_PREFIX}${id} in the main worktree.`,
      ABANDONED: 'It was abandoned; create a new intent for new work.',
      IN_PROGRESS: '',
    }[intent.status];
    throw new IntentError(
      'INTENT_WRONG_STATUS',
      `Cannot finish ${id}: it is ${intent.status}, and only an IN_PROGRESS intent can be finished. ${hint} Nothing was changed.`,
      { intent: id, status: intent.status },
    );
  }
  const timeoutS = opts.timeoutSeconds ?? DEFAULT_CHECK_TIMEOUT_S;
  if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > MAX_CHECK_TIMEOUT_S) {
    throw new IntentError('USAGE', `--timeout must be a positive number of seconds, at most ${MAX_CHECK_TIMEOUT_S}, got ${String(opts.timeoutSeconds)}.`, { timeout: opts.timeoutSeconds });
  }
  const branch = BRANCH_PREFIX + id;
  const wt = worktreeOfBranch(repo.mainRoot, branch);
  if (!wt) {
    throw new IntentError(
      'NO_WORKTREE',
      `Cannot finish ${id}: it has no worktree (branch ${branch} is not checked out anywhere), and the acceptance checks run there. ` +
        `Run \`intent checkout ${id}\`, then \`intent done ${id}\` again. Nothing was changed.`,
      { intent: id, branch },
    );
  }
  refuseInside(repo, wt, 'done', id);
  const dirty = dirtyFiles(wt);
  if (dirty.length) {
    throw new IntentError(
      'WORKTREE_DIRTY',
      `Cannot finish ${id}: its worktree ${wt} has uncommitted or untracked files:\n${listFiles(dirty)}\n` +
        `Commit them (or remove them) in that worktree, then run \`intent done ${id}\` again. Nothing was changed.`,
      { intent: id, worktree: wt, files: dirty },
    );
  }
  let base: string | null = null;
  if (opts.merge) {
    base = mainBranch(repo);
    const mainDirty = dirtyFiles(repo.mainRoot).filter((f) => !f.slice(3).startsWith('.orchestration/'));
    if (mainDirty.length) {
      throw new IntentError(
        'WORKTREE_DIRTY',
        `Cannot merge ${branch} into ${base}: the main worktree ${repo.mainRoot} has uncommitted or untracked files:\n${listFiles(mainDirty)}\n` +
          `Commit or stash them, then run \`intent done ${id} --merge\` again. Nothing was changed (no check was run).`,
        { intent: id, worktree: repo.mainRoot, files: mainDirty },
      );
    }
  }
  const tip = git(['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: repo.mainRoot }).trim();
  if (opts.merge && base) assertMergeable(repo, id, branch, base, tip);

  // The checks.
  const checks = acceptanceChecks(intent);
  const now = opts.now ?? new Date();
  const logDir = join(stateDir(repo), 'checks', id);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const runs: CheckRun[] = [];
  if (!checks.length) opts.progress?.(`${id} has no acceptance_checks in ${registryPath}; nothing to run.`);
  for (const [i, command] of checks.entries()) {
    mkdirSync(logDir, { recursive: true });
    const log = join(logDir, `${stamp}-${i + 1}.log`);
    opts.progress?.(`[${i + 1}/${checks.length}] ${command}`);
    // A hooks installer the check runs (npm test running npm pack running prepare: lefthook install) is undone after it.
    const { value: r } = await withProjectHooksKept(repo, { scratch: false }, (env) => runCheck(command, wt, log, timeoutS * 1000, env));
    const passed = !r.timed_out && r.exit_code === 0;
    const run: CheckRun = { index: i + 1, command, passed, ...r, log };
    runs.push(run);
    opts.progress?.(`[${i + 1}/${checks.length}] ${passed ? 'passed' : 'FAILED'} in ${seconds(r.duration_ms)} (log: ${log})`);
    if (!passed) {
      const how = r.timed_out ? `timed out after ${timeoutS} s` : r.exit_code !== null ? `exit ${r.exit_code}` : `killed by ${r.signal}`;
      appendLesson(repo.root, { text: `Acceptance check \`${command}\` failed for ${id} (${how})`, intentId: id, now, local: true });
      const what = r.timed_out
        ? `did not finish within ${timeoutS} s and was stopped. If it needs longer, pass --timeout <seconds>; if it waits for input, make it not.`
        : r.exit_code !== null ? `exited with ${r.exit_code} after ${seconds(r.duration_ms)}.` : `was killed by ${r.signal} after ${seconds(r.duration_ms)}.`;
      const skipped = checks.slice(i + 1);
      const install = defaultSetup(wt);
      const unprepared = install ? `The worktree has no node_modules: install the dependencies there (cd ${wt} && ${install}); \`intent checkout\` does it for a new worktree (worktreeSetup in docs/lifecycle.md).\n` : '';
      throw new IntentError(
        'CHECK_FAILED',
        `Acceptance check ${i + 1} of ${checks.length} for ${id} failed: \`${command}\` ${what}\n` +
          `Its output is in ${log}${tail(log)}\n` +
          (skipped.length ? `Not run: ${skipped.map((c) => `\`${c}\``).join(', ')}.\n` : '') + unprepared +
          `${id} stays IN_PROGRESS; nothing was merged or removed. Fix it in ${wt}, commit, and run \`intent done ${id}${opts.merge ? ' --merge' : ''}\` again.`,
        { intent: id, check: run, checks: runs, skipped, worktree: wt },
      );
    }
  }

  // The branch must still be what was checked.
  const tipNow = git(['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: repo.mainRoot }).trim();
  if (tipNow !== tip) {
    throw new IntentError(
      'WORKTREE_CONFLICT',
      `${branch} moved while the checks ran (${tip.slice(0, 12)} → ${tipNow.slice(0, 12)}): the new commits were not checked. Run \`intent done ${id}${opts.merge ? ' --merge' : ''}\` again. Nothing was changed.`,
      { intent: id, before: tip, after: tipNow },
    );
  }

  const statusNow = findIntent(loadRegistry(registryPath), id)?.status;
  if (statusNow !== 'IN_PROGRESS') {
    throw new IntentError(
      'INTENT_WRONG_STATUS',
      `${id} became ${statusNow ?? 'unregistered'} in ${registryPath} while the checks ran; nothing was merged or changed.`,
      { intent: id, status: statusNow ?? null },
    );
  }

  // A host's squash or rebase merge, carried (intent carry): the branch's work is on the base already.
  const into = base ?? mainBranchOrHead(repo);
  const landed = into ? carriedInto(repo, id, branch, into) : null;
  let merged: DoneResult['merged'] = null;
  if (opts.merge && base) merged = landed ? { into: base, commit: landed, already: true } : mergeBranch(repo, id, branch, base, tip);

  withLock(registryLockPath(repo), () => setIntentStatus(registryPath, id, 'COMPLETED', now));
  const cleanup = cleanUp(repo, wt, branch, { requireMergedInto: into, deleteBranch: !!opts.deleteBranch, carriedAs: landed });
  return { intent: id, status: 'COMPLETED', registry: registryPath, checks: runs, merged, ...cleanup, note: COMMIT_REGISTRY_NOTE };
}

/**
 * `intent abandon <ID>`: marks the intent ABANDONED and removes its worktree when it holds no
 * uncommitted or untracked files (otherwise keeps it and says so). The branch is always kept.
 */
export function abandonIntent(cwd: string, id: string, opts: { now?: Date; env?: NodeJS.ProcessEnv } = {}): AbandonResult {
  assertNotAgent(`abandon ${id}`, opts.env);
  const repo = openRepo(cwd);
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  const intent = requireIntent(registryPath, id);
  if (intent.status === 'COMPLETED') {
    throw new IntentError(
      'INTENT_WRONG_STATUS',
      `Cannot abandon ${id}: it is COMPLETED. Finished work is not abandoned; create a new intent to undo it. Nothing was changed.`,
      { intent: id, status: intent.status },
    );
  }
  const branch = BRANCH_PREFIX + id;
  const wt = worktreeOfBranch(repo.mainRoot, branch);
  if (wt) refuseInside(repo, wt, 'abandon', id);
  const changed = withLock(registryLockPath(repo), () => setIntentStatus(registryPath, id, 'ABANDONED', opts.now ?? new Date()));
  let cleanup: Cleanup;
  if (!wt) {
    cleanup = {
      worktree: { path: null, removed: false, reason: `${id} has no worktree` },
      branch: { name: branch, deleted: false, reason: branchExists(repo, branch) ? 'kept: abandon never deletes a branch' : 'there is no such branch' },
    };
  } else {
    cleanup = cleanUp(repo, wt, branch, { requireMergedInto: null, deleteBranch: false });
    cleanup.branch.reason = 'kept: abandon never deletes a branch (its commits stay reachable there)';
  }
  return { intent: id, status: 'ABANDONED', changed, registry: registryPath, ...cleanup, note: COMMIT_REGISTRY_NOTE };
}

function requireIntent(registryPath: string, id: string): Intent {
  const registry = loadRegistry(registryPath);
  const intent = findIntent(registry, id);
  if (!intent) {
    throw new IntentError(
      'UNKNOWN_INTENT',
      `Unknown intent ${id}: it is not in ${registryPath}. Known intents: ${registry.intents.map((i) => i.id).join(', ') || 'none'}.`,
      { intent: id, path: registryPath, known: registry.intents.map((i) => i.id) },
    );
  }
  return intent;
}

/** The intent's acceptance checks: the shell commands of its `acceptance_checks:` (validated by the registry). */
export function acceptanceChecks(intent: Intent): string[] {
  return intent.acceptance_checks ?? [];
}

/** Runs `sh -c command` in `cwd` in its own process group, stdout and stderr appended to `log`. */
function runCheck(command: string, cwd: string, log: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Omit<CheckRun, 'index' | 'command' | 'passed' | 'log'>> {
  const started = Date.now();
  const fd = openSync(log, 'a', 0o644);
  writeSync(fd, `$ ${command}\n# in ${cwd}, started ${new Date(started).toISOString()}, timeout ${timeoutMs / 1000} s\n`);
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', fd, fd], detached: true });
    } catch (e) {
      closeSync(fd);
      reject(e);
      return;
    }
    closeSync(fd);
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals): void => {
      try { process.kill(-child.pid!, signal); } catch { /* already gone */ }
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      killGroup('SIGKILL');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      killer = setTimeout(() => killGroup('SIGKILL'), 2000);
    }, timeoutMs);
    let finished = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (killer) clearTimeout(killer);
      if (timedOut) killGroup('SIGKILL'); // whatever the check left behind
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      const duration = Date.now() - started;
      const end = error ? `could not start: ${error.message}` : timedOut ? `timed out after ${timeoutMs / 1000} s, stopped` : exitCode !== null ? `exit ${exitCode}` : `killed by ${signal}`;
      try { appendFileSync(log, `\n# ${end} after ${duration} ms\n`); } catch { /* the log is best effort */ }
      resolve({ exit_code: error ? 127 : exitCode, signal: signal ?? null, timed_out: timedOut, duration_ms: duration });
    };
    child.once('error', (e) => finish(null, null, e));
    child.once('exit', (code, signal) => finish(code, signal));
  });
}

/** The last lines of a log, indented, for an error message ("" when empty or unreadable). */
function tail(log: string): string {
  let text: string;
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return '';
  }
  // The check's own output sits between our two header lines and our footer line.
  const body = text.split('\n').slice(2);
  while (body.length && body[body.length - 1].trim() === '') body.pop();
  if (body.length && body[body.length - 1].startsWith('# ')) body.pop();
  const lines = body.filter((l) => l.trim() !== '');
  if (!lines.length) return '';
  const last = lines.slice(-10).map((l) => `  | ${l.length > 300 ? l.slice(0, 300) + '…' : l}`);
  return `; its last lines:\n${last.join('\n')}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Merges `branch` (which must still be at `tip`) into `base` in the main worktree; aborts on conflict. */
function mergeBranch(repo: Repo, id: string, branch: string, base: string, tip: string): NonNullable<DoneResult['merged']> {
  const main = repo.mainRoot;
  if (gitRaw(['merge-base', '--is-ancestor', tip, 'HEAD'], { cwd: main }).status === 0) {
    return { into: base, commit: git(['rev-parse', 'HEAD'], { cwd: main }).trim(), already: true };
  }
  const res = gitRaw(['merge', '--no-ff', '--no-edit', branch], { cwd: main });
  if (res.status === 0) return { into: base, commit: git(['rev-parse', 'HEAD'], { cwd: main }).trim(), already: false };
  const inMerge = gitRaw(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: main }).status === 0;
  if (inMerge) {
    const conflicted = splitNul(gitRaw(['diff', '--name-only', '-z', '--diff-filter=U'], { cwd: main }).stdout);
    const abort = gitRaw(['merge', '--abort'], { cwd: main });
    throw new IntentError(
      'MERGE_CONFLICT',
      `Merging ${branch} into ${base} conflicts${conflicted.length ? ` in: ${conflicted.join(', ')}` : ''}. ` +
        (abort.status === 0
          ? `The merge was aborted: ${base}, ${branch} and the worktree are as they were, and ${id} stays IN_PROGRESS. `
          : `git merge --abort failed (${abort.stderr.trim()}): finish or abort the merge in ${main} by hand. ${id} stays IN_PROGRESS. `) +
        `Bring ${branch} up to date with ${base} in its worktree (e.g. git rebase ${base}), resolve the conflicts, then run \`intent done ${id} --merge\` again.`,
      { intent: id, branch, base, files: conflicted, aborted: abort.status === 0 },
    );
  }
  throw new IntentError(
    'GIT_FAILED',
    `git merge --no-ff --no-edit ${branch} failed in ${main} (exit ${res.status}): ${(res.stderr || res.stdout).trim()}\nNothing was merged; ${id} stays IN_PROGRESS.`,
    { intent: id, branch, base, stderr: res.stderr },
  );
}

/**
 * The commit on `into` whose carried record (a host's squash or rebase merge given its record by
 * `intent carry`) names every commit of `branch` that `into` does not reach, for intent `id`; null
 * when there is none. Such a branch has landed although git does not see it merged.
 */
export function carriedInto(repo: Repo, id: string, branch: string, into: string): string | null {
  const own = gitRaw(['rev-list', `${into}..refs/heads/${branch}`], { cwd: repo.mainRoot });
  const base = gitRaw(['merge-base', into, `refs/heads/${branch}`], { cwd: repo.mainRoot }).stdout.trim();
  if (own.status !== 0 || !base) return null;
  const pending = new Set(own.stdout.split('\n').filter(Boolean));
  if (!pending.size) return null;
  const since = gitRaw(['rev-list', `${base}..${into}`], { cwd: repo.mainRoot }).stdout.split('\n').filter(Boolean);
  if (!since.length) return null;
  // Only the notes of those commits (one listing of the notes tree, one read of the wanted blobs).
  const notes = readNotesFor(repo.mainRoot, NOTES_REF, since);
  for (const sha of [...since].reverse()) {
    const text = notes.get(sha)?.text;
    if (!text) continue;
    const parsed = parseNote(text);
    if (typeof parsed === 'string') continue;
    const meta = parsed.record.metadata?.[METADATA_KEY];
    const from = meta?.carried?.from;
    if (meta?.intent_id !== id || !Array.isArray(from)) continue;
    for (const f of from) if (typeof f === 'string') pending.delete(f);
    if (!pending.size) return sha;
  }
  return null;
}

/** Removes the worktree only when nothing would be lost; deletes the branch only when asked and merged (or landed as `carriedAs`). */
function cleanUp(repo: Repo, wt: string, branch: string, opts: { requireMergedInto: string | null; deleteBranch: boolean; carriedAs?: string | null }): Cleanup {
  const out: Cleanup = {
    worktree: { path: wt, removed: false, reason: '' },
    branch: { name: branch, deleted: false, reason: 'kept (pass --delete-branch to delete it once merged)' },
  };
  const dirty = dirtyFiles(wt);
  const merged = opts.requireMergedInto === null || !!opts.carriedAs ||
    gitRaw(['merge-base', '--is-ancestor', `refs/heads/${branch}`, opts.requireMergedInto], { cwd: repo.mainRoot }).status === 0;
  const how = opts.carriedAs ? `landed on ${opts.requireMergedInto} as ${opts.carriedAs.slice(0, 12)} (a host's merge, carried)` : `merged into ${opts.requireMergedInto}`;
  if (dirty.length) {
    out.worktree.reason = `kept: it has uncommitted or untracked files (${dirty.map((f) => f.slice(3)).slice(0, 10).join(', ')}${dirty.length > 10 ? ', …' : ''}); ` +
      `save what you need, then git worktree remove ${wt}`;
  } else if (!merged) {
    out.worktree.reason = `kept: ${branch} is not merged into ${opts.requireMergedInto}; merge it (git merge --no-ff ${branch} in ${repo.mainRoot}), then git worktree remove ${wt}`;
  } else {
    const res = withLock(join(stateDir(repo), 'checkout.lock'), () => gitRaw(['worktree', 'remove', wt], { cwd: repo.mainRoot }));
    if (res.status === 0) {
      out.worktree.removed = true;
      out.worktree.reason = opts.requireMergedInto === null ? 'removed: it had no uncommitted or untracked files' : `removed: clean, and ${branch} ${opts.carriedAs ? 'has ' : 'is '}${how}`;
    } else {
      out.worktree.reason = `kept: git worktree remove failed: ${res.stderr.trim()}`;
    }
  }
  if (opts.deleteBranch) {
    if (!merged) out.branch.reason = `kept: not merged into ${opts.requireMergedInto}`;
    else if (!out.worktree.removed) out.branch.reason = 'kept: its worktree was kept';
    else {
      // git branch -d refuses a branch whose commits a squash replaced: its work is on the base all the same.
      const res = gitRaw(['branch', opts.carriedAs ? '-D' : '-d', branch], { cwd: repo.mainRoot });
      if (res.status === 0) out.branch = { name: branch, deleted: true, reason: `deleted: ${how}` };
      else out.branch.reason = `kept: git branch -d failed: ${res.stderr.trim()}`;
    }
  }
  return out;
}

/** Refuses when the command runs inside the worktree it would remove. */
function refuseInside(repo: Repo, wt: string, action: 'done' | 'abandon', id: string): void {
  if (samePath(repo.root, wt)) {
    throw new IntentError(
      'CWD_IN_WORKTREE',
      `Cannot run \`intent ${action} ${id}\` from inside ${id}'s own worktree (${wt}): it may remove the worktree you stand in. ` +
        `Run it from the main worktree: cd ${repo.mainRoot} && intent ${action} ${id}. Nothing was changed.`,
      { intent: id, worktree: wt, main: repo.mainRoot },
    );
  }
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

/** `git status --porcelain` lines (`XY path`) of every uncommitted or untracked file in `dir`. */
function dirtyFiles(dir: string): string[] {
  const fields = splitNul(git(['status', '--porcelain', '-z', '--untracked-files=all'], { cwd: dir }));
  const out: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    out.push(f);
    if (f[0] === 'R' || f[0] === 'C') i++; // the rename's source path follows
  }
  return out;
}

function listFiles(lines: string[]): string {
  const shown = lines.slice(0, 20).map((l) => `  ${l}`);
  if (lines.length > 20) shown.push(`  … and ${lines.length - 20} more`);
  return shown.join('\n');
}

/** The main worktree's current branch; refuses a detached HEAD (nothing to merge into). */
function mainBranch(repo: Repo): string {
  const res = gitRaw(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: repo.mainRoot });
  const name = res.status === 0 ? res.stdout.trim() : '';
  if (!name) {
    throw new IntentError(
      'WORKTREE_CONFLICT',
      `Cannot merge: the main worktree ${repo.mainRoot} has no current branch (detached HEAD). Check out the branch to merge into (git switch main), then run intent done --merge again. Nothing was changed.`,
      { worktree: repo.mainRoot },
    );
  }
  return name;
}

function mainBranchOrHead(repo: Repo): string {
  const res = gitRaw(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: repo.mainRoot });
  return res.status === 0 && res.stdout.trim() ? res.stdout.trim() : 'HEAD';
}

function branchExists(repo: Repo, branch: string): boolean {
  return gitRaw(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo.mainRoot }).status === 0;
}

