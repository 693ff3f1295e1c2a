/**
 * The hook folder of intent worktrees, `<git-common-dir>/intent/hooks`: `intent checkout` points
 * each intent worktree's own core.hooksPath there. Every hook in it runs intent's hook (when intent
 * has one of that name), then the repository's own hook, found when it runs. An installer run in
 * the worktree (`lefthook install`, also from `npm install`) resolves its hooks folder to this one
 * and writes here: each hook first checks, with one `test -ef` per file against hard links in
 * `hooks.ref/`, that the folder is still intent's, and if not has the runner restore it (moving
 * the installer's files to `hooks.displaced/`); pre-commit and prepare-commit-msg then check the
 * commit being made, another hook that can stop git refuses it this once.
 *
 * A hook intent has none of (CHAIN_ONLY_HOOKS) is in the folder only while the repository's own
 * hooks folder has an executable one to pass on to: git starts no shell for a post-index-change of
 * nobody's on every index it writes (each `git add`, each commit). Each hook compares, with
 * builtins, those here with those there, and has the runner add or remove ours when they differ
 * (`sync-worktree-hooks`): the first hook of any kind in an intent worktree after a team adds or
 * removes one (in a commit, its pre-commit) brings the folder in line.
 */
import { accessSync, constants, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { PKG_ROOT } from '../core/version.js';
import { git, gitRaw } from '../git/process.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import { managerOf, readHookFile, type Manager } from './hook-file.js';
import { CHAINED_HOOKS, HOOKS, lexists, runLine, shQuote, WORKTREE_HOOKS, writeIfChanged } from './install.js';
import { loadRecord, saveRecord } from './install-record.js';
import { chainTarget, onlyIntentsBlock, refreshChainCache } from './chain-cache.js';
import { withLock } from '../core/lock.js';
import { hostEnv } from '../core/settings.js';

export { CHAINED_HOOKS } from './install.js';

const isOurs = (hook: string) => (WORKTREE_HOOKS as readonly string[]).includes(hook);
/**
 * The last hook git runs before a ref moves: in state `prepared` it looks, with builtins, at
 * prepare-commit-msg (the hook that checks each commit) as well as at the links, its bytes
 * included (an installer may rewrite a file in place); when the folder is not intent's it restores
 * it and checks the commits the transaction brings before any branch has them
 * (lib/hooks/ref-check.ts). Otherwise it only passes on to the repository's own.
 */
export const GUARD_HOOK = 'reference-transaction';
/** The hooks always in the folder: those intent runs its own hook for, and the guard. */
export const KEPT_HOOKS = [...CHAINED_HOOKS.filter(isOurs), GUARD_HOOK];
const kept = (hook: string) => KEPT_HOOKS.includes(hook);
/** Every hook the folder may hold. */
const FOLDER_HOOKS = [...CHAINED_HOOKS, GUARD_HOOK];
const template = () => readFileSync(join(PKG_ROOT, 'git-hooks', 'worktree-hook.sh'), 'utf8');
/**
 * The hooks intent has none of in intent worktrees: in the folder only while the repository's own
 * folder has them (executable, and more than intent's block: pre-commit and commit-msg there,
 * which `intent init` installs, may be intent's block alone).
 */
export const CHAIN_ONLY_HOOKS = CHAINED_HOOKS.filter((h) => !isOurs(h));
/** Those of CHAIN_ONLY_HOOKS that `intent init` puts in the repository's own folder: there, intent's block alone counts as none. */
const REPO_ONLY_HOOKS = CHAIN_ONLY_HOOKS.filter((h) => (HOOKS as readonly string[]).includes(h));

/** The hooks that record a commit just made: a restore found there warns that it may not have been checked. */
const RECORDING = new Set(['post-commit', 'post-merge']);
/** Hooks that can stop what git is doing: a restore found there refuses it (the check may have been skipped). */
/** Hooks that, in intent worktrees, run intent's whole check of the commit being made. */
const CHECKS_COMMIT = new Set(['pre-commit', 'prepare-commit-msg']);
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
  const ours = isOurs(hook);
  const text = template();
  return text
    .replace('@HOOK@', hook)
    .replace('@DIR@', () => shQuote(worktreeHooksPath(repo)))
    .replace('@COMMON@', () => shQuote(repo.commonDir))
    .replace('@MAIN@', () => shQuote(repo.mainRoot))
    .replace('@KEPT@', KEPT_HOOKS.join(' '))
    .replaceAll('@CHAIN_ONLY@', CHAIN_ONLY_HOOKS.join(' '))
    .replace('@REPO_ONLY@', REPO_ONLY_HOOKS.join(' | '))
    .replace('@OURS@', ours ? 'true' : 'false')
    .replace('@RUN@', () => (ours ? runLine(hook, 'intent_hook_run') : ':'))
    .replace('@GUARD@', () => (hook === GUARD_HOOK ? guardLines(text.split('\n')[1]) : ''))
    .replace('@RESTORE@', () => (hook === GUARD_HOOK
      ? 'intent_in="$(mktemp)" || exit 1; cat >"$intent_in"; "$runner" restore-worktree-hooks "$hook" "$@" <"$intent_in" || { rm -f "$intent_in"; exit 1; }; exec <"$intent_in"; rm -f "$intent_in"'
      : '"$runner" restore-worktree-hooks "$hook" || exit $?'));
}

/**
 * The guard's look at prepare-commit-msg's bytes: its second line, the template's, which no other
 * installer writes (builtins, about a hundred bytes read).
 */
function guardLines(mark: string): string {
  return 'if [ -z "$intent_bad" ] && [ "${1:-}" = prepared ]; then\n' +
    '  intent_l=; { IFS= read -r intent_l && IFS= read -r intent_l; } <"$dir/prepare-commit-msg" 2>/dev/null\n' +
    `  [ "$intent_l" = ${shQuote(mark)} ] || intent_bad=1\n` +
    'fi\n';
}

/**
 * The repository's own hooks folder the hooks of intent worktrees pass on to, as a hook of `repo`'s
 * worktree would find it (null: unknown, see chainTarget).
 */
function currentTarget(repo: Repo): string | null {
  try {
    return chainTarget(repo, repo.root, hostEnv());
  } catch {
    return null;
  }
}

/**
 * Writes (or brings up to date) the hooks of the intent worktrees' hook folder and their hard
 * links in `hooks.ref/`, the hooks intent has none of only for those the repository's own folder
 * `orig` has (found when not given; null: unknown, those there are kept); returns the folder and
 * the hooks it rewrote, added or removed.
 */
export function writeWorktreeHooks(repo: Repo, orig: string | null = currentTarget(repo)): { dir: string; changed: string[] } {
  const dir = worktreeHooksPath(repo);
  const changed: string[] = [];
  mkdirSync(refDir(repo), { recursive: true });
  for (const hook of KEPT_HOOKS) {
    const file = join(dir, hook);
    const ref = join(refDir(repo), hook);
    const wrote = writeIfChanged(file, worktreeHookText(repo, hook), 0o755);
    if (wrote || !sameFile(file, ref)) {
      rmSync(ref, { force: true });
      linkSync(file, ref);
    }
    if (wrote) changed.push(hook);
  }
  changed.push(...syncChainOnlyHooks(repo, orig));
  return { dir, changed };
}

/** Whether git would run the hook file `file` (what the shell's `test -x` and git ask: access(2)). */
function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Which of the hooks intent has none of belong in the folder: those `orig` has, executable and
 * more than intent's block (null: those here now).
 */
function wantedChainOnly(repo: Repo, orig: string | null): Set<string> {
  const dir = worktreeHooksPath(repo);
  if (orig === null) return new Set(CHAIN_ONLY_HOOKS.filter((h) => lexists(join(dir, h))));
  return new Set(orig === dir ? [] : CHAIN_ONLY_HOOKS.filter((h) => runnable(join(orig, h)) && !onlyIntentsBlock(orig, h)));
}

/**
 * Puts into the folder the hooks intent has none of that `orig` has, and takes out the others;
 * returns those it added, rewrote or removed. A file that is not ours (an installer's) is left to
 * restoreWorktreeHooks, which each hook triggers. Every step keeps what the hooks' first loop
 * accepts (absent, or the same file as its link in `hooks.ref/`): a new hook is linked first and
 * renamed into place; one that goes is removed before its link. Locked: hooks of several worktrees
 * may do it at once.
 */
function syncChainOnlyHooks(repo: Repo, orig: string | null): string[] {
  const dir = worktreeHooksPath(repo);
  const changed: string[] = [];
  withLock(join(stateDir(repo), 'hooks.lock'), () => {
    const wanted = wantedChainOnly(repo, orig);
    for (const hook of CHAIN_ONLY_HOOKS) {
      const file = join(dir, hook);
      const ref = join(refDir(repo), hook);
      const text = worktreeHookText(repo, hook);
      const f = readHookFile(file);
      const linked = sameFile(file, ref);
      if (f.exists && !linked && (f.symlink || f.text !== text)) continue;
      if (wanted.has(hook)) {
        if (f.exists && linked && f.text === text && f.executable) continue;
        if (f.exists) unlinkSync(file);
        const tmp = join(dir, `.${hook}.${process.pid}.tmp`);
        writeIfChanged(tmp, text, 0o755);
        rmSync(ref, { force: true });
        linkSync(tmp, ref);
        renameSync(tmp, file);
        changed.push(hook);
      } else {
        if (f.exists) {
          unlinkSync(file);
          changed.push(hook);
        }
        rmSync(ref, { force: true });
      }
    }
  });
  return changed;
}

/**
 * What a hook of an intent worktree at `cwd` does when the hooks intent has none of in the folder
 * are not those the repository's own folder has: adds or removes them (and brings the chain cache
 * up to date while here). Returns the hooks it changed.
 */
export function syncFromHook(cwd: string): string[] {
  const repo = openRepo(cwd);
  const env = hostEnv();
  const orig = chainTarget(repo, cwd, env);
  if (orig === null) return [];
  const changed = syncChainOnlyHooks(repo, orig);
  try {
    refreshChainCache(repo, cwd, env);
  } catch { /* the hooks ask git instead */ }
  return changed;
}

/**
 * Whether `changed` (what syncFromHook did, run from hook `hook`) added a hook git runs before
 * `hook` in the same command: pre-commit, added during a commit's prepare-commit-msg.
 */
export function missedBefore(cwd: string, hook: string, changed: string[]): boolean {
  return hook === 'prepare-commit-msg' && changed.includes('pre-commit') && existsSync(join(worktreeHooksPath(openRepo(cwd)), 'pre-commit'));
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
  /** Hooks intent has none of that the repository's own folder has and this one lacks (the next hook adds them). */
  missing: string[];
}

/**
 * Compares the intent worktrees' hook folder with what intent writes there (reads every file), for
 * the repository's own hooks folder `orig` (found when not given): a hook intent has none of is
 * missing only when `orig` has it, and may be absent otherwise.
 */
export function inspectWorktreeHooks(repo: Repo, orig: string | null = currentTarget(repo)): WorktreeHooksState {
  const dir = worktreeHooksPath(repo);
  const changed: WorktreeHooksState['changed'] = [];
  const missing: string[] = [];
  const wanted = wantedChainOnly(repo, orig);
  for (const hook of FOLDER_HOOKS) {
    const f = readHookFile(join(dir, hook));
    if (!f.exists && !kept(hook)) {
      if (wanted.has(hook)) missing.push(hook);
      continue;
    }
    if (f.symlink || f.text !== worktreeHookText(repo, hook) || !f.executable || !sameFile(join(dir, hook), join(refDir(repo), hook))) {
      changed.push({ hook, manager: f.symlink ? null : managerOf(f.text) });
    }
  }
  const known = new Set(FOLDER_HOOKS);
  const foreign = existsSync(dir) ? readdirSync(dir).filter((n) => !known.has(n) && !n.startsWith('.')).map((n) => join(dir, n)) : [];
  return { changed, foreign, missing };
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
  const orig = currentTarget(repo);
  const state = inspectWorktreeHooks(repo, orig);
  const moved: WorktreeRestore['moved'] = [];
  const removed: string[] = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const moveAside = (file: string) => {
    const f = readHookFile(file);
    const base = file.slice(dir.length + 1);
    if (FOLDER_HOOKS.some((h) => base === `${h}.old` && f.text === worktreeHookText(repo, h))) {
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
  const { changed } = writeWorktreeHooks(repo, orig);
  const restored = [...new Set([...state.changed.map((c) => c.hook), ...changed])];
  return { restored, moved, removed };
}

/**
 * The message a hook prints after restoring the folder, and whether it refuses (a hook that can
 * stop git does: the commit may have skipped intent's check).
 */
export function restoreMessage(hook: string, r: WorktreeRestore): { refuse: boolean; text: string } {
  // pre-commit and prepare-commit-msg (which runs pre-commit's checks in intent worktrees) go on to
  // check this very commit once the folder is back: the commit is judged, not refused blind.
  const checks = CHECKS_COMMIT.has(hook);
  const refuse = REFUSING.has(hook) && !checks;
  const managers = [...new Set(r.moved.map((m) => m.manager).filter((m): m is Manager => !!m && m !== 'intent'))];
  const by = managers.length ? ` (by ${managers.join(', ')})` : '';
  const lines = [
    `intent: the hooks of intent worktrees were changed by another installer${by}: ${r.restored.join(', ') || 'extra files'}. Intent restored them.`,
  ];
  if (r.moved.length) lines.push(`intent: moved aside: ${r.moved.map((m) => m.to).join(', ')}`);
  lines.push('intent: install hook managers from the main worktree: the hooks of intent worktrees run the repository\'s own hooks after intent\'s.');
  if (refuse) lines.push(`intent: ${hook} refused this time, since intent's checks may not have run: run the same git command again.`);
  if (checks) lines.push(`intent: ${hook} checks this commit now.`);
  // (The guard checks what the transaction brings itself, lib/hooks/ref-check.ts: dispatch.ts.)
  const unchecked = RECORDING.has(hook) ? r.restored.filter((h) => REFUSING.has(h)) : [];
  if (!refuse && unchecked.length) {
    // The hook that checks a commit before it is made was not intent's: this one was not checked.
    lines.push(`intent: WARNING: this commit was made while ${unchecked.join(', ')} was not intent's: it was NOT checked before it was made. ` +
      'Its trace note records what it changed (paths out of its scope included), and intent gate refuses those; to take it back: git reset --soft HEAD^.');
  }
  return { refuse, text: lines.join('\n') + '\n' };
}

/** What the hook `hook` of an intent worktree at `cwd` does when it finds the folder changed. */
export function restoreFromHook(cwd: string, hook: string): { refuse: boolean; text: string } {
  return restoreMessage(hook, restoreWorktreeHooks(openRepo(cwd)));
}
