/**
 * The hook folder of intent worktrees, `<git-common-dir>/intent/hooks`: `intent checkout` points
 * each intent worktree's own core.hooksPath there. Every hook in it runs intent's hook (when intent
 * has one of that name), then the repository's own hook, found when it runs. An installer run in
 * the worktree (`lefthook install`, also from `npm install`) resolves its hooks folder to this one
 * and writes here: each hook first checks, with one `test -ef` per file against hard links in
 * `hooks.ref/`, that the folder is still intent's, and if not has the runner restore it (moving
 * the installer's files to `hooks.displaced/`) and refuses the commit meanwhile.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { PKG_ROOT } from '../core/version.js';
import { git, gitRaw } from '../git/process.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import { managerOf, readHookFile, type Manager } from './hook-file.js';
import { CHAINED_HOOKS, HOOKS, lexists, runLine, shQuote, WORKTREE_ONLY_HOOKS, writeIfChanged } from './install.js';
import { loadRecord, saveRecord } from './install-record.js';
import { refreshChainCache } from './chain-cache.js';
import { hostEnv } from '../core/settings.js';

export { CHAINED_HOOKS } from './install.js';

/** Hooks that can stop what git is doing: a restore found there refuses it (the check may have been skipped). */
const REFUSING = new Set(['applypatch-msg', 'pre-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg', 'pre-rebase', 'pre-push', 'push-to-checkout', 'sendemail-validate']);

/** The hook folder of intent worktrees (whether or not it exists). */
export function worktreeHooksPath(repo: Repo): string {
  return join(stateDir(repo), 'hooks');
}

/** The hook folder of intent worktrees, if `intent checkout` ever made it. */
export function worktreeHooksDir(repo: Repo): string | null {
  const dir = worktreeHooksPath(repo);
  return existsSync(dir) ? dir : null;
}

const refDir = (repo: Repo) => join(stateDir(repo), 'hooks.ref');
/** Where files another installer wrote into the folder are moved. */
export const displacedDir = (repo: Repo) => join(stateDir(repo), 'hooks.displaced');

/** The text of the worktree hook `hook` for this repository. */
export function worktreeHookText(repo: Repo, hook: string): string {
  const ours = (HOOKS as readonly string[]).includes(hook) || (WORKTREE_ONLY_HOOKS as readonly string[]).includes(hook);
  return readFileSync(join(PKG_ROOT, 'git-hooks', 'worktree-hook.sh'), 'utf8')
    .replace('@HOOK@', hook)
    .replace('@DIR@', () => shQuote(worktreeHooksPath(repo)))
    .replace('@COMMON@', () => shQuote(repo.commonDir))
    .replace('@MAIN@', () => shQuote(repo.mainRoot))
    .replace('@ALL@', CHAINED_HOOKS.join(' '))
    .replace('@OURS@', ours ? 'true' : 'false')
    .replace('@RUN@', () => runLine(hook, 'intent_hook_run'));
}

/**
 * Writes (or brings up to date) the hooks of the intent worktrees' hook folder and their hard
 * links in `hooks.ref/`; returns the folder and the hooks it rewrote.
 */
export function writeWorktreeHooks(repo: Repo): { dir: string; changed: string[] } {
  const dir = worktreeHooksPath(repo);
  const changed: string[] = [];
  mkdirSync(refDir(repo), { recursive: true });
  for (const hook of CHAINED_HOOKS) {
    const file = join(dir, hook);
    const ref = join(refDir(repo), hook);
    const wrote = writeIfChanged(file, worktreeHookText(repo, hook), 0o755);
    if (wrote || !sameFile(file, ref)) {
      rmSync(ref, { force: true });
      linkSync(file, ref);
    }
    if (wrote) changed.push(hook);
  }
  return { dir, changed };
}

function sameFile(a: string, b: string): boolean {
  const sa = statSync(a, { throwIfNoEntry: false });
  const sb = statSync(b, { throwIfNoEntry: false });
  return !!sa && !!sb && sa.ino === sb.ino && sa.dev === sb.dev;
}

/**
 * Gives the intent worktree at `worktree` hooks it cannot edit: its own `core.hooksPath` (through
 * `extensions.worktreeConfig`) points at the intent worktrees' hook folder. Without this, a
 * relative `core.hooksPath` (husky, a `.githooks` folder) resolves inside the agent's worktree,
 * where hooks may be missing (husky's `.husky/_` is git-ignored) or edited by the agent.
 */
export function installWorktreeHooks(repo: Repo, worktree: string): string {
  const { dir } = writeWorktreeHooks(repo);
  // git refuses --worktree in a repository with linked worktrees until extensions.worktreeConfig
  // is on (then nothing is written): the first checkout turns it on and tries again.
  const set = () => gitRaw(['config', '--worktree', 'core.hooksPath', dir], { cwd: worktree });
  let res = set();
  if (res.status !== 0 && git(['config', '--bool', '--default', 'false', '--get', 'extensions.worktreeConfig'], { cwd: repo.mainRoot }).trim() !== 'true') {
    git(['config', 'extensions.worktreeConfig', 'true'], { cwd: repo.mainRoot });
    const record = loadRecord(repo);
    record.config.worktreeConfig = true;
    saveRecord(repo.commonDir, record);
    res = set();
  }
  if (res.status !== 0) {
    throw new IntentError('GIT_FAILED', `git config --worktree core.hooksPath ${dir} failed in ${worktree}: ${res.stderr.trim()}`, { worktree });
  }
  try {
    refreshChainCache(repo, worktree, hostEnv());
  } catch { /* the hooks ask git instead; pre-commit tries again */ }
  return dir;
}

/** What is wrong with the intent worktrees' hook folder. */
export interface WorktreeHooksState {
  /** Hooks that are missing or not intent's current text. */
  changed: { hook: string; manager: Manager | null }[];
  /** Other files in the folder (an installer's `<hook>.old`, hooks intent does not chain). */
  foreign: string[];
}

/** Compares the intent worktrees' hook folder with what intent writes there (reads every file). */
export function inspectWorktreeHooks(repo: Repo): WorktreeHooksState {
  const dir = worktreeHooksPath(repo);
  const changed: WorktreeHooksState['changed'] = [];
  for (const hook of CHAINED_HOOKS) {
    const f = readHookFile(join(dir, hook));
    if (f.symlink || f.text !== worktreeHookText(repo, hook) || !f.executable || !sameFile(join(dir, hook), join(refDir(repo), hook))) {
      changed.push({ hook, manager: f.symlink ? null : managerOf(f.text) });
    }
  }
  const known = new Set(CHAINED_HOOKS);
  const foreign = existsSync(dir) ? readdirSync(dir).filter((n) => !known.has(n) && !n.startsWith('.')).map((n) => join(dir, n)) : [];
  return { changed, foreign };
}

/** What restoring the folder did. */
export interface WorktreeRestore {
  /** Hooks rewritten. */
  restored: string[];
  /** Files moved out of the folder, with the manager that wrote them when recognised. */
  moved: { file: string; to: string; manager: Manager | null }[];
  /** Copies of intent's own hooks that an installer had renamed (lefthook's `<hook>.old`), removed. */
  removed: string[];
}

/**
 * Puts intent's hooks back into the intent worktrees' hook folder: another installer's files are
 * moved to `hooks.displaced/` (the repository's own hooks, which these chain to, are where they
 * belong), copies of ours it renamed are removed, and every hook is rewritten and relinked.
 */
export function restoreWorktreeHooks(repo: Repo): WorktreeRestore {
  const dir = worktreeHooksPath(repo);
  const state = inspectWorktreeHooks(repo);
  const moved: WorktreeRestore['moved'] = [];
  const removed: string[] = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const moveAside = (file: string) => {
    const f = readHookFile(file);
    const base = file.slice(dir.length + 1);
    if (CHAINED_HOOKS.some((h) => base === `${h}.old` && f.text === worktreeHookText(repo, h))) {
      unlinkSync(file);
      removed.push(file);
      return;
    }
    mkdirSync(displacedDir(repo), { recursive: true });
    const to = join(displacedDir(repo), `${base}.${stamp}`);
    renameSync(file, to);
    moved.push({ file, to, manager: f.symlink ? null : managerOf(f.text) });
  };
  for (const { hook } of state.changed) {
    const file = join(dir, hook);
    const f = readHookFile(file);
    if (f.exists && (f.symlink || f.text !== worktreeHookText(repo, hook))) moveAside(file);
  }
  for (const file of state.foreign) if (lexists(file)) moveAside(file);
  const { changed } = writeWorktreeHooks(repo);
  const restored = [...new Set([...state.changed.map((c) => c.hook), ...changed])];
  return { restored, moved, removed };
}

/**
 * The message a hook prints after restoring the folder, and whether it refuses (a hook that can
 * stop git does: the commit may have skipped intent's check).
 */
export function restoreMessage(hook: string, r: WorktreeRestore): { refuse: boolean; text: string } {
  const refuse = REFUSING.has(hook);
  const managers = [...new Set(r.moved.map((m) => m.manager).filter((m): m is Manager => !!m && m !== 'intent'))];
  const by = managers.length ? ` (by ${managers.join(', ')})` : '';
  const lines = [
    `intent: the hooks of intent worktrees were changed by another installer${by}: ${r.restored.join(', ') || 'extra files'}. Intent restored them.`,
  ];
  if (r.moved.length) lines.push(`intent: moved aside: ${r.moved.map((m) => m.to).join(', ')}`);
  lines.push('intent: install hook managers from the main worktree: the hooks of intent worktrees run the repository\'s own hooks after intent\'s.');
  if (refuse) lines.push(`intent: ${hook} refused this time, since intent's checks may not have run: run the same git command again.`);
  return { refuse, text: lines.join('\n') + '\n' };
}

/** What the hook `hook` of an intent worktree at `cwd` does when it finds the folder changed. */
export function restoreFromHook(cwd: string, hook: string): { refuse: boolean; text: string } {
  return restoreMessage(hook, restoreWorktreeHooks(openRepo(cwd)));
}
