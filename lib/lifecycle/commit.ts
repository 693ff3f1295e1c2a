/**
 * `intent commit [git commit arguments]`: `git commit` with git's hooks on, for an agent whose
 * shell turns them off (Gemini CLI sets `core.hooksPath` to an empty value through the
 * environment). The environment's hook overrides are removed (`hooksRestoredEnv`), so intent's
 * hooks check the commit and attach its Agent Trace note; afterwards the note is looked for, and a
 * commit on an intent branch without one is reported.
 */
import { spawnSync } from 'node:child_process';
import { IntentError } from '../core/errors.js';
import { NOTES_REF } from '../core/version.js';
import { hostEnv } from '../core/settings.js';
import { hooksRestoredEnv } from '../git/hooks-env.js';
import { gitRaw } from '../git/process.js';
import { openRepo } from '../git/repo.js';
import { BRANCH_PREFIX } from '../intents/active.js';

/** What `intent commit` did. */
export interface CommitResult {
  /** git commit's exit status. */
  status: number;
  /** The new commit (null when git made none). */
  commit: string | null;
  /** Whether the new commit has its note (null: not on an intent branch, or no commit). */
  noted: boolean | null;
}

/** Short options of git commit that take a value (the rest of the word, or the next argument). */
const SHORT_VALUE = 'mFCcSt';
/** Long options of git commit whose value is the next argument when not given with `=`. */
const LONG_VALUE = new Set(['--message', '--file', '--reuse-message', '--reedit-message', '--template', '--author', '--date', '--cleanup', '--fixup', '--squash', '--trailer', '--pathspec-from-file']);

/** The argument that would skip the hooks (`--no-verify`, an abbreviation of it, `-n` alone or bundled), or null. */
export function skipsHooks(args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return null;
    if (a.startsWith('--')) {
      if (a.length >= 6 && '--no-verify'.startsWith(a)) return a;
      if (LONG_VALUE.has(a)) i++;
      continue;
    }
    if (!/^-[a-zA-Z]/.test(a)) continue;
    for (let j = 1; j < a.length; j++) {
      if (a[j] === 'n') return a;
      if (SHORT_VALUE.includes(a[j])) {
        if (j === a.length - 1) i++;
        break;
      }
    }
  }
  return null;
}

/** Runs `git commit <args>` in `cwd` with the hooks on; git's own output goes to the terminal. */
export function commitWithHooks(cwd: string, args: string[], env: NodeJS.ProcessEnv = hostEnv()): CommitResult {
  const skip = skipsHooks(args);
  if (skip) throw new IntentError('USAGE', `intent commit runs the hooks; ${skip} would skip them. Commit without it.`, { arg: skip });
  const repo = openRepo(cwd);
  const head = () => {
    const r = gitRaw(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: repo.root });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  const before = head();
  const res = spawnSync('git', ['commit', ...args], { cwd, env: hooksRestoredEnv(env), stdio: 'inherit' });
  if (res.error) throw new IntentError('GIT_FAILED', `could not run git commit: ${res.error.message}`, {});
  const after = head();
  const commit = after && after !== before ? after : null;
  let noted: boolean | null = null;
  const branch = gitRaw(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: repo.root }).stdout.trim();
  if (commit && branch.startsWith(BRANCH_PREFIX)) {
    noted = gitRaw(['notes', `--ref=${NOTES_REF}`, 'list', commit], { cwd: repo.root }).status === 0;
  }
  return { status: res.status ?? 128, commit, noted };
}
