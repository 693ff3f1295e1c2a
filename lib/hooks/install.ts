import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute, basename } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw } from '../git/process.js';
import { stateDir, type Repo } from '../git/repo.js';
import { PKG_ROOT } from '../core/version.js';

/** The hooks `intent init` installs. */
export const HOOKS = ['pre-commit', 'commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge', 'post-rewrite', 'pre-push'] as const;

/** Hooks that read standard input: ours must buffer it so the hooks chained after it get it too. */
const STDIN_HOOKS = new Set(['post-rewrite', 'pre-push', 'reference-transaction', 'pre-receive', 'post-receive']);

/** The client-side hooks an intent worktree's hook folder passes on to the repository's own. */
const CHAINED_HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg',
  'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'post-rewrite',
  'push-to-checkout', 'pre-auto-gc', 'sendemail-validate', 'post-index-change',
];

const BEGIN = '# >>> intent >>>';
const END = '# <<< intent <<<';

/** What installing one hook did. */
export interface HookInstall {
  hook: string;
  file: string;
  action: 'created' | 'inserted' | 'chained' | 'updated' | 'unchanged';
  /** Where a foreign, non-shell hook was moved so ours can run it afterwards. */
  chainedTo?: string;
}

/** Quotes a string for POSIX sh. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Writes the runners in `<common-dir>/intent/bin/`: `hook`, which every git hook calls, and
 * `agent`, which the agents' hook programs call. Returns true if either changed.
 */
export function installRunner(repo: Repo): boolean {
  const runner = (entry: string) =>
    readFileSync(join(PKG_ROOT, 'git-hooks', 'runner.sh'), 'utf8')
      .replace('@NODE@', () => shQuote(process.execPath))
      .replace('@ENTRY@', () => shQuote(join(PKG_ROOT, 'dist', 'bin', entry)));
  const hook = writeIfChanged(join(stateDir(repo), 'bin', 'hook'), runner('hook.js'), 0o755);
  const agent = writeIfChanged(join(stateDir(repo), 'bin', 'agent'), runner('agent-hook.js'), 0o755);
  return hook || agent;
}

function writeIfChanged(file: string, text: string, mode: number): boolean {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text);
  chmodSync(file, mode);
  return true;
}

/**
 * The directory whose hook files git runs, and the files `intent` should edit there. Follows
 * `core.hooksPath`; for husky (hooksPath `.husky/_`, regenerated on every install) it edits
 * husky's own user hook files in `.husky/`, which husky runs.
 */
export function hookTargets(repo: Repo): { dir: string; where: HookDirKind; husky: boolean } {
  const raw = git(['rev-parse', '--git-path', 'hooks'], { cwd: repo.mainRoot }).trim();
  let dir = isAbsolute(raw) ? raw : resolve(repo.mainRoot, raw);
  let husky = false;
  if (basename(dir) === '_' && basename(dirname(dir)) === '.husky') {
    dir = dirname(dir);
    husky = true;
  } else if (basename(dir) === '.husky') husky = true;
  const where: HookDirKind = inside(repo.commonDir, dir) ? 'git-dir' : inside(repo.mainRoot, dir) ? 'work-tree' : 'outside';
  return { dir, where, husky };
}

/**
 * Where the hooks directory is, which decides what a hook does when the runner is missing:
 * in the git dir it fails closed (this clone was initialised, so the runner was removed); in the
 * work tree (committed, shared with clones that may not use intent) it warns; outside the
 * repository (a global core.hooksPath shared by every repository) it stays silent.
 */
export type HookDirKind = 'git-dir' | 'work-tree' | 'outside';

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// A clone that was initialised (it has <common-dir>/intent) but lost its runner always blocks.
const BLOCK_IF_INITIALISED =
  'if [ -d "$(git rev-parse --git-common-dir)/intent" ]; then echo "intent: $intent_hook is missing; run \\`intent init\\` again. Blocking." >&2; exit 1; fi';
const MISSING: Record<HookDirKind, string> = {
  'git-dir': BLOCK_IF_INITIALISED,
  'work-tree': `${BLOCK_IF_INITIALISED}\n    echo "intent: this clone is not initialised: run \\\`intent init\\\`. Commits here are not governed until then." >&2`,
  outside: BLOCK_IF_INITIALISED,
};

/**
 * Intent worktrees also run intent's prepare-commit-msg: git runs it for every commit, also those
 * made without pre-commit (cherry-pick, revert, `commit --no-verify`), and it can refuse the commit.
 * pre-commit leaves a mark naming the git process it ran for (in the git dir, beside the index git
 * names); prepare-commit-msg of the same process sees it and starts nothing, any other commit is
 * checked there. Not installed in the main worktree, where commits are ungoverned by default.
 */
export const WORKTREE_ONLY_HOOKS = ['prepare-commit-msg'] as const;
const CHECKED_MARK = '"${GIT_INDEX_FILE%/*}/intent-pre-commit-ran"';

/** The shell lines that call hook `hook` through `runner` (an expression), buffering stdin where needed. */
function runLine(hook: string, runner: string): string {
  // commit-msg only has work when the message makes a mutation claim: no process otherwise.
  if (hook === 'commit-msg') return `if grep -qi '^Intent-Mutation:' "$1" 2>/dev/null; then ${runner} ${hook} "$@" || exit $?; fi`;
  // (`|| :`: a mark that cannot be written or read only means prepare-commit-msg checks again; and hooks may run under `sh -e`.)
  if (hook === 'pre-commit' || hook === 'pre-merge-commit') return `${runner} ${hook} "$@" || exit $?; { [ -n "\${GIT_INDEX_FILE:-}" ] && echo "$PPID" >${CHECKED_MARK}; } 2>/dev/null || :`;
  if (hook === 'prepare-commit-msg') {
    return `intent_ran=; { [ -n "\${GIT_INDEX_FILE:-}" ] && [ -f ${CHECKED_MARK} ] && read -r intent_ran <${CHECKED_MARK}; } 2>/dev/null || :; ` +
      `if [ "$intent_ran" != "$PPID" ]; then ${runner} ${hook} "$@" || exit $?; fi`;
  }
  if (!STDIN_HOOKS.has(hook)) return `${runner} ${hook} "$@" || exit $?`;
  return `intent_in="$(mktemp)" || exit 1; cat >"$intent_in"; ${runner} ${hook} "$@" <"$intent_in" || exit $?; exec <"$intent_in"; rm -f "$intent_in"`;
}

function block(hook: string, where: HookDirKind): string {
  return readFileSync(join(PKG_ROOT, 'git-hooks', 'block.sh'), 'utf8')
    .replace('@RUN@', () => runLine(hook, '"$intent_hook"'))
    .replace('@MISSING@', () => MISSING[where]);
}

/**
 * Gives the intent worktree at `worktree` hooks it cannot edit: its own `core.hooksPath` (through
 * `extensions.worktreeConfig`) points at `<common-dir>/intent/hooks`, whose hooks run intent's
 * and then the repository's own hooks. Without this, a relative `core.hooksPath` (husky, a
 * `.githooks` folder) resolves inside the agent's worktree, where hooks may be missing (husky's
 * `.husky/_` is git-ignored) or edited by the agent.
 */
export function installWorktreeHooks(repo: Repo, worktree: string): string {
  const dir = writeWorktreeHooks(repo);
  // git refuses --worktree in a repository with linked worktrees until extensions.worktreeConfig
  // is on (then nothing is written): the first checkout turns it on and tries again.
  const set = () => gitRaw(['config', '--worktree', 'core.hooksPath', dir], { cwd: worktree });
  let res = set();
  if (res.status !== 0 && git(['config', '--bool', '--default', 'false', '--get', 'extensions.worktreeConfig'], { cwd: repo.mainRoot }).trim() !== 'true') {
    git(['config', 'extensions.worktreeConfig', 'true'], { cwd: repo.mainRoot });
    res = set();
  }
  if (res.status !== 0) {
    throw new IntentError('GIT_FAILED', `git config --worktree core.hooksPath ${dir} failed in ${worktree}: ${res.stderr.trim()}`, { worktree });
  }
  return dir;
}

/** The hook folder of intent worktrees, if `intent checkout` ever made it. */
export function worktreeHooksDir(repo: Repo): string | null {
  const dir = join(stateDir(repo), 'hooks');
  return existsSync(dir) ? dir : null;
}

/** Writes (or brings up to date) the hooks of the intent worktrees' hook folder; returns the folder. */
export function writeWorktreeHooks(repo: Repo): string {
  const dir = join(stateDir(repo), 'hooks');
  const orig = git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], { cwd: repo.mainRoot }).trim();
  const runner = join(stateDir(repo), 'bin', 'hook');
  const template = readFileSync(join(PKG_ROOT, 'git-hooks', 'worktree-hook.sh'), 'utf8');
  for (const hook of CHAINED_HOOKS) {
    const ours = (HOOKS as readonly string[]).includes(hook) || (WORKTREE_ONLY_HOOKS as readonly string[]).includes(hook);
    const text = template
      .replace('@HOOK@', hook)
      .replace('@RUNNER@', () => shQuote(runner))
      .replace('@OURS@', ours ? 'true' : 'false')
      .replace('@RUN@', () => runLine(hook, '"$runner"'))
      .replace('@ORIG@', () => shQuote(orig));
    writeIfChanged(join(dir, hook), text, 0o755);
  }
  return dir;
}

const SHELL = /^#!\s*(\/usr\/bin\/env\s+)?(\/usr)?(\/local)?(\/bin\/)?(sh|bash|dash|zsh|ksh)\b/;

/**
 * Installs one hook without replacing what is there: a new file when none exists; our block
 * after the shebang of an existing shell hook (its own lines run after ours); a non-shell hook is
 * moved to `<hook>.intent-chained` and run by ours afterwards. Re-running changes nothing.
 */
export function installHook(dir: string, hook: string, where: HookDirKind): HookInstall {
  const file = join(dir, hook);
  const ours = block(hook, where);
  if (!existsSync(file)) {
    writeIfChanged(file, `#!/bin/sh\n${ours}`, 0o755);
    return { hook, file, action: 'created' };
  }
  const text = readFileSync(file, 'utf8');
  const b = text.indexOf(BEGIN);
  const e = text.indexOf(END);
  if (b !== -1 && e > b) {
    const end = text.indexOf('\n', e);
    const next = text.slice(0, b) + ours + (end === -1 ? '' : text.slice(end + 1));
    if (next === text) return { hook, file, action: 'unchanged' };
    writeIfChanged(file, next, 0o755);
    return { hook, file, action: 'updated' };
  }
  const firstLine = text.split('\n', 1)[0];
  if (!firstLine.startsWith('#!') || SHELL.test(firstLine)) {
    const next = firstLine.startsWith('#!') ? `${firstLine}\n${ours}${text.slice(firstLine.length + 1)}` : `${ours}${text}`;
    writeIfChanged(file, next, 0o755);
    return { hook, file, action: 'inserted' };
  }
  const chained = `${file}.intent-chained`;
  if (existsSync(chained)) throw new Error(`${chained} already exists; move it away and re-run \`intent init\`.`);
  renameSync(file, chained);
  writeIfChanged(file, `#!/bin/sh\n${ours}exec "$(dirname "$0")/${hook}.intent-chained" "$@"\n`, 0o755);
  return { hook, file, action: 'chained', chainedTo: chained };
}
