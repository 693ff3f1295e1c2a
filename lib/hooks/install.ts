import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import { PKG_ROOT } from '../core/version.js';
import { git } from '../git/process.js';
import { stateDir, type Repo } from '../git/repo.js';
import { BEGIN, hasBlock, isEditableShell, managerOf, readHookFile, replaceBlock, sha256 } from './hook-file.js';
import { originalsDir, sigOf, type HookRecord, type InstallRecord } from './install-record.js';

/** The hooks `intent init` installs. */
/** The client-side hooks an intent worktree's hook folder passes on to the repository's own. */
export const CHAINED_HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg',
  'commit-msg', 'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'post-rewrite',
  'push-to-checkout', 'pre-auto-gc', 'sendemail-validate', 'post-index-change',
];

export const HOOKS = ['pre-commit', 'commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge', 'post-rewrite', 'pre-push'] as const;

/** Hooks that read standard input: ours must buffer it so the hooks chained after it get it too. */
const STDIN_HOOKS = new Set(['post-rewrite', 'pre-push', 'reference-transaction', 'pre-receive', 'post-receive']);

/** What installing one hook did. */
export interface HookInstall {
  hook: string;
  file: string;
  action: 'created' | 'inserted' | 'chained' | 'updated' | 'unchanged';
  /** Where a hook intent does not edit (not a text shell script, a symlink, disabled) was moved so ours can run it afterwards. */
  chainedTo?: string;
  /** A chained copy left by an earlier install, replaced because the hook was regenerated: kept here. */
  supersededTo?: string;
  /** The pre-commit framework runs the hook from `<hook>.legacy`, where intent's block is. */
  via?: 'legacy';
}

/** Quotes a string for POSIX sh. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The text of the runner `name` (`hook` or `agent`) for this package and Node.js. */
export function runnerText(entry: 'hook.cjs' | 'agent-hook.js'): string {
  return readFileSync(join(PKG_ROOT, 'git-hooks', 'runner.sh'), 'utf8')
    .replace('@NODE@', () => shQuote(process.execPath))
    .replace('@ENTRY@', () => shQuote(join(PKG_ROOT, 'dist', 'bin', entry)));
}

/** The runners in `<common-dir>/intent/bin/`, with the entry each runs. */
export const RUNNERS = [['hook', 'hook.cjs'], ['agent', 'agent-hook.js']] as const;

/**
 * Writes the runners in `<common-dir>/intent/bin/`: `hook`, which every git hook calls, and
 * `agent`, which the agents' hook programs call. Returns true if either changed.
 */
export function installRunner(repo: Repo): boolean {
  let changed = false;
  for (const [name, entry] of RUNNERS) changed = writeIfChanged(join(stateDir(repo), 'bin', name), runnerText(entry), 0o755) || changed;
  return changed;
}

/** Writes `text` (atomically, so a running hook keeps its old file) unless the file already holds it. */
export function writeIfChanged(file: string, text: string, mode: number): boolean {
  if (existsSync(file) && readFileSync(file, 'utf8') === text && (statSync(file).mode & 0o7777) === mode) return false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text);
  chmodSync(file, mode);
  return true;
}

/**
 * Where the hooks directory is, which decides what a hook does when the runner is missing:
 * in the git dir it fails closed (this clone was initialised, so the runner was removed); in the
 * work tree (committed, shared with clones that may not use intent) it warns; outside the
 * repository (a global core.hooksPath shared by every repository) it stays silent.
 */
export type HookDirKind = 'git-dir' | 'work-tree' | 'outside';

/** Where intent's hook files go. */
export interface HookTargets {
  /** The folder of the files intent edits (husky: `.husky`, whose files husky's stubs run). */
  dir: string;
  /** The folder git runs hooks from (`git rev-parse --git-path hooks`). */
  runDir: string;
  where: HookDirKind;
  husky: boolean;
}

/**
 * The directory whose hook files git runs, and the files `intent` should edit there. Follows
 * `core.hooksPath`; for husky (hooksPath `.husky/_`, regenerated on every install) it edits
 * husky's own user hook files in `.husky/`, which husky runs.
 */
export function hookTargets(repo: Repo): HookTargets {
  const raw = git(['rev-parse', '--git-path', 'hooks'], { cwd: repo.mainRoot }).trim();
  const runDir = isAbsolute(raw) ? raw : resolve(repo.mainRoot, raw);
  let dir = runDir;
  let husky = false;
  if (basename(dir) === '_' && basename(dirname(dir)) === '.husky') {
    dir = dirname(dir);
    husky = true;
  } else if (basename(dir) === '.husky') husky = true;
  const where: HookDirKind = inside(repo.commonDir, dir) ? 'git-dir' : inside(repo.mainRoot, dir) ? 'work-tree' : 'outside';
  return { dir, runDir, where, husky };
}

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
 * The hooks intent runs in intent worktrees (their hook folder, lib/hooks/worktree-hooks.ts): two
 * per commit. prepare-commit-msg, which git runs for every commit (also cherry-pick, revert and
 * `commit --no-verify`) and which can refuse it, makes pre-commit's checks and commit-msg's check
 * of a mutation claim; post-commit records. pre-commit and commit-msg are there only to pass on to
 * the repository's own (a hook process costs about 2 ms a commit). The folder's guard,
 * reference-transaction, runs too (twice per commit, builtins only unless an installer changed the
 * folder: worktree-hooks.ts GUARD_HOOK). The main worktree, where commits are ungoverned by
 * default, runs HOOKS from the repository's own folder.
 */
export const WORKTREE_HOOKS = ['prepare-commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge', 'pre-push', 'post-rewrite'] as const;

/** The shell lines that call hook `hook` through `runner` (an expression), buffering stdin where needed. */
export function runLine(hook: string, runner: string): string {
  // commit-msg only has work when the message makes a mutation claim: no process otherwise.
  // (Read by the shell itself, no grep: a line starting `Intent-Mutation:` in any ASCII case,
  // what lib/mutation/claim.ts looks for.)
  if (hook === 'commit-msg') {
    return 'intent_claim=; { while IFS= read -r intent_l || [ -n "$intent_l" ]; do case $intent_l in ' +
      '[Ii][Nn][Tt][Ee][Nn][Tt]-[Mm][Uu][Tt][Aa][Tt][Ii][Oo][Nn]:*) intent_claim=1; break ;; esac; done <"$1"; } 2>/dev/null || :; ' +
      `if [ -n "$intent_claim" ]; then ${runner} ${hook} "$@" || exit $?; fi`;
  }
  if (!STDIN_HOOKS.has(hook)) return `${runner} ${hook} "$@" || exit $?`;
  return `intent_in="$(mktemp)" || exit 1; cat >"$intent_in"; ${runner} ${hook} "$@" <"$intent_in" || exit $?; exec <"$intent_in"; rm -f "$intent_in"`;
}

/** Intent's block for `hook` in a hooks folder of kind `where`. */
export function block(hook: string, where: HookDirKind): string {
  return readFileSync(join(PKG_ROOT, 'git-hooks', 'block.sh'), 'utf8')
    .replace('@RUN@', () => runLine(hook, '"$intent_hook"'))
    .replace('@MISSING@', () => MISSING[where]);
}

/** The lines after our block in a wrapper that runs a chained original. */
function chainLines(husky: boolean): string {
  // husky runs its hook files with `sh -e`, whatever their mode; git runs only executable hooks,
  // so a disabled original stays disabled.
  return husky
    ? 'if [ -f "$0.intent-chained" ]; then sh -e "$0.intent-chained" "$@" || exit $?; fi\n'
    : 'if [ -x "$0.intent-chained" ]; then exec "$0.intent-chained" "$@"; fi\n';
}

/** The file intent creates where there was none, and the wrapper it puts in front of a chained original. */
export function createdText(hook: string, where: HookDirKind): string {
  return `#!/bin/sh\n${block(hook, where)}`;
}
export function wrapperText(hook: string, where: HookDirKind, husky: boolean): string {
  return `#!/bin/sh\n${block(hook, where)}${chainLines(husky)}`;
}

/**
 * Installs one hook without harming what is there, recording in `record` what it changed:
 * - no file: one is created (a chained original left by an earlier install is chained again);
 * - our block already there: brought up to date, the file's mode kept;
 * - the pre-commit framework's hook whose `<hook>.legacy` (which it runs) has our block: that block;
 * - a text shell script, executable (husky's files: any mode): our block after its shebang, the
 *   rest byte for byte; the original bytes and mode are copied to `<state>/originals/`;
 * - anything else (a binary, another interpreter, a symlink, a disabled hook): moved to
 *   `<hook>.intent-chained` (rename: bytes, mode and symlink kept) and run after ours if executable.
 * Re-running changes nothing.
 */
export function installHook(t: HookTargets, hook: string, record: InstallRecord, commonDir: string): HookInstall {
  const file = join(t.dir, hook);
  const ours = block(hook, t.where);
  const f = readHookFile(file);
  const chained = `${file}.intent-chained`;
  const prev = record.hooks[file];
  if (prev) {
    // An installer renamed intent's file (lefthook: <hook>.old; the pre-commit framework:
    // <hook>.legacy): the record follows it there, so that uninstall finds it.
    for (const moved of [`${file}.old`, `${file}.legacy`]) {
      const m = readHookFile(moved);
      if (!record.hooks[moved] && m.bytes && !m.symlink && sha256(m.bytes) === prev.written) record.hooks[moved] = { ...prev, file: moved };
    }
  }

  if (!f.exists) {
    if (lexists(chained)) {
      // Our wrapper was deleted (simple-git-hooks removes hooks it does not know): chain again.
      const text = wrapperText(hook, t.where, t.husky);
      write(file, text, 0o755);
      remember(record, file, { hook, file, action: 'chained', chainedTo: chained }, text);
      return { hook, file, action: 'chained', chainedTo: chained };
    }
    const text = createdText(hook, t.where);
    write(file, text, 0o755);
    remember(record, file, { hook, file, action: 'created' }, text);
    return { hook, file, action: 'created' };
  }

  if (!f.symlink && hasBlock(f.text)) return refresh(record, file, hook, f.text!, f.mode, ours, prev);

  const legacy = `${file}.legacy`;
  if (managerOf(f.text) === 'pre-commit') {
    const l = readHookFile(legacy);
    if (!l.symlink && hasBlock(l.text)) {
      const r = refresh(record, legacy, hook, l.text!, l.mode, ours, record.hooks[legacy]);
      return { ...r, via: 'legacy' };
    }
  }

  if (isEditableShell(f, t.husky)) {
    const text = insertBlock(f.text!, ours);
    const backup = `${sha256(file).slice(0, 16)}-${hook}`;
    mkdirSync(originalsDir(commonDir), { recursive: true });
    writeFileAtomic(join(originalsDir(commonDir), backup), f.bytes!);
    write(file, text, f.mode);
    remember(record, file, { hook, file, action: 'inserted', backup, mode: f.mode }, text);
    return { hook, file, action: 'inserted' };
  }

  let supersededTo: string | undefined;
  if (lexists(chained)) {
    // A chained copy from an earlier install, and the hook was regenerated since (a manager wrote
    // a new one over our wrapper): the new one is the hook now; the old copy is kept aside.
    mkdirSync(originalsDir(commonDir), { recursive: true });
    supersededTo = join(originalsDir(commonDir), `${sha256(file).slice(0, 16)}-${hook}.superseded-${Date.now()}`);
    renameSync(chained, supersededTo);
    for (const r of Object.values(record.hooks)) if (r.chainedTo === chained) r.chainedTo = supersededTo;
  }
  renameSync(file, chained);
  const text = wrapperText(hook, t.where, t.husky);
  write(file, text, 0o755);
  remember(record, file, { hook, file, action: 'chained', chainedTo: chained }, text);
  return { hook, file, action: 'chained', chainedTo: chained, ...(supersededTo ? { supersededTo } : {}) };
}

/** Our block is in `text` already: bring it up to date, keeping the file's mode. */
function refresh(record: InstallRecord, file: string, hook: string, text: string, mode: number, ours: string, prev: HookRecord | undefined): HookInstall {
  const next = replaceBlock(text, ours)!;
  if (next !== text) write(file, next, mode);
  // A file an older version wrote has no record: what was there before is no longer known, so
  // uninstall can only take our block out of it.
  const base: Omit<HookRecord, 'written' | 'size' | 'mtimeMs'> = prev ?? { hook, file, action: text.startsWith(`#!/bin/sh\n${BEGIN}`) && next === `#!/bin/sh\n${ours}` ? 'created' : 'inserted' };
  remember(record, file, base, next);
  return { hook, file, action: next === text ? 'unchanged' : 'updated' };
}

/** `text` with our block after its shebang line (or first, without one). */
export function insertBlock(text: string, ours: string): string {
  if (!text.startsWith('#!')) return ours + text;
  const nl = text.indexOf('\n');
  return nl === -1 ? `${text}\n${ours}` : text.slice(0, nl + 1) + ours + text.slice(nl + 1);
}

function write(file: string, text: string, mode: number): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text);
  chmodSync(file, mode);
}

function remember(record: InstallRecord, file: string, base: Omit<HookRecord, 'written' | 'size' | 'mtimeMs'>, text: string): void {
  const sig = sigOf(file)!;
  record.hooks[file] = { ...base, written: sha256(text), size: sig.size, mtimeMs: sig.mtimeMs };
}

/** Whether anything is at `p`, a dangling symlink included. */
export function lexists(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
}

/** Copies a file's bytes and mode (used to put an original back). */
export function restoreCopy(from: string, to: string, mode: number): void {
  const tmp = `${to}.intent-restore`;
  copyFileSync(from, tmp);
  chmodSync(tmp, mode);
  renameSync(tmp, to);
}
