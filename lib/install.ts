import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from './fsutil.js';
import { git } from './git.js';
import { stateDir, type Repo } from './repo.js';

/** The hooks `intent init` installs. */
export const HOOKS = ['pre-commit', 'post-commit'] as const;

const PKG_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
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

/** Writes `<common-dir>/intent/bin/hook`, the runner every hook calls. Returns true if changed. */
export function installRunner(repo: Repo): boolean {
  const file = join(stateDir(repo), 'bin', 'hook');
  const text = readFileSync(join(PKG_ROOT, 'git-hooks', 'runner.sh'), 'utf8')
    .replace('@NODE@', () => shQuote(process.execPath))
    .replace('@ENTRY@', () => shQuote(join(PKG_ROOT, 'dist', 'cli', 'hook.js')));
  return writeIfChanged(file, text, 0o755);
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

const MISSING: Record<HookDirKind, string> = {
  'git-dir': 'echo "intent: $intent_hook is missing; run \\`intent init\\` again. Blocking: this clone was initialised." >&2; exit 1',
  'work-tree': 'echo "intent: $intent_hook is missing; run \\`intent init\\` in this clone. Commits here are not governed until then." >&2',
  outside: ':',
};

function block(hook: string, where: HookDirKind): string {
  return readFileSync(join(PKG_ROOT, 'git-hooks', 'block.sh'), 'utf8')
    .replace('@HOOK@', hook)
    .replace('@MISSING@', () => MISSING[where]);
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
