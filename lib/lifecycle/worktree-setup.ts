/**
 * A new intent worktree made ready to run the project (`intent checkout`): files copied from the
 * main worktree and commands run in it, as the `worktreeSetup` setting says, or by default the
 * install the lockfile names when the project has a package.json and the worktree no
 * node_modules. What those commands start installs git hooks into a folder of its own (the hooks
 * path pointed there through the environment: lib/git/hooks-env.ts withHooksPath), never over the
 * intent worktrees' hooks; and if anything changed those all the same, they are put back before
 * the checkout returns. `intent done`'s acceptance checks run with git's hooks as they are (a
 * project's tests may make commits that need them), and the intent worktrees' hooks are put back
 * after each check when it changed them (`npm test` running `npm pack` running `prepare:
 * lefthook install`).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { withHooksPath } from '../git/hooks-env.js';
import { stateDir, type Repo } from '../git/repo.js';
import type { Config } from '../intents/config.js';
import { hostEnv } from '../core/settings.js';
import { inspectWorktreeHooks, restoreWorktreeHooks } from '../hooks/worktree-hooks.js';

/** What was done to make the worktree ready. */
export interface SetupResult {
  /** config: the worktreeSetup setting; default: the lockfile's install; off: switched off (setting false, --no-setup); none: nothing to do. */
  source: 'config' | 'default' | 'off' | 'none';
  /** Paths copied from the main worktree. */
  copied: string[];
  /** Each command run, in order, with its exit code (null: killed) and duration. */
  ran: { command: string; exit_code: number | null; ms: number }[];
  /** The command that failed (the rest were not run), or null. */
  failed: string | null;
  /** Hooks of the intent worktrees that something the commands ran had changed, put back. */
  hooksRestored: string[];
}

/** The install a lockfile at the project's root names, or null (no package.json, node_modules there already, or no lockfile). */
export function defaultSetup(wt: string): string | null {
  if (!existsSync(join(wt, 'package.json')) || existsSync(join(wt, 'node_modules'))) return null;
  const has = (f: string) => existsSync(join(wt, f));
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci';
  if (has('pnpm-lock.yaml')) return 'pnpm install --frozen-lockfile';
  if (has('yarn.lock')) return has('.yarnrc.yml') ? 'yarn install --immutable' : 'yarn install --frozen-lockfile';
  if (has('bun.lock') || has('bun.lockb')) return 'bun install --frozen-lockfile';
  return null;
}

/**
 * The environment a project's own commands run with from intent (set-up, acceptance checks): the
 * user's, without a git hook's variables, and with git's hooks path pointed at `hooksDir` when given.
 */
export function projectEnv(hooksDir: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...hostEnv() };
  for (const k of ['GIT_DIR', 'GIT_INDEX_FILE', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_PREFIX']) delete env[k];
  return hooksDir ? withHooksPath(env, hooksDir) : env;
}

/**
 * Runs `fn` with the environment for a project's commands (with `scratch`, git's hooks path pointed
 * at a folder of their own, removed afterwards); then puts the intent worktrees' hooks back if
 * anything changed them. Returns fn's value and what was put back.
 */
export async function withProjectHooksKept<T>(repo: Repo, opts: { scratch: boolean }, fn: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<{ value: T; hooksRestored: string[] }> {
  const dir = join(stateDir(repo), 'project-hooks', String(process.pid));
  if (opts.scratch) mkdirSync(dir, { recursive: true });
  let hooksRestored: string[] = [];
  const restore = () => {
    const state = inspectWorktreeHooks(repo);
    if (state.changed.length || state.foreign.length) hooksRestored = restoreWorktreeHooks(repo).restored;
  };
  try {
    const value = await fn(projectEnv(opts.scratch ? dir : null));
    restore();
    return { value, hooksRestored };
  } catch (e) {
    try { restore(); } catch { /* the error that stopped fn is the one to report; the next hook restores */ }
    throw e;
  } finally {
    if (opts.scratch) rmSync(dir, { recursive: true, force: true });
  }
}

/** How long one set-up command may run (an install that waits on a network that never answers). */
export const SETUP_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * `sh -c command` in its own process group, its output to `out`; its exit code, 127 when it could
 * not start, null when killed: at `timeoutMs` the group is stopped (SIGTERM, SIGKILL 2 s later),
 * and with intent when intent is interrupted (SIGINT, SIGTERM), so no install outlives it.
 */
function runBounded(command: string, cwd: string, env: NodeJS.ProcessEnv, out: 2 | 'ignore', timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', out, out], detached: true });
    const kill = (signal: NodeJS.Signals) => { try { process.kill(-child.pid!, signal); } catch { /* gone */ } };
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => { kill('SIGTERM'); killer = setTimeout(() => kill('SIGKILL'), 2000); }, timeoutMs);
    const onSignal = (signal: NodeJS.Signals) => {
      kill('SIGKILL');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const done = (code: number | null) => {
      clearTimeout(timer);
      if (killer) clearTimeout(killer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(code);
    };
    child.on('error', () => done(127));
    child.on('exit', (c) => done(c));
  });
}

/** Prepares the new worktree `wt` (see the top of this file); `output` gets the commands' output (default: nowhere). */
export async function prepareWorktree(
  repo: Repo,
  wt: string,
  setting: Config['worktreeSetup'],
  opts: { skip?: boolean; output?: 'stderr' | 'ignore'; progress?: (line: string) => void; timeoutMs?: number } = {},
): Promise<SetupResult> {
  const out: SetupResult = { source: 'none', copied: [], ran: [], failed: null, hooksRestored: [] };
  if (opts.skip || setting === false) return { ...out, source: 'off' };
  let copy: string[] = [];
  let run: string[] = [];
  if (setting) {
    out.source = 'config';
    ({ copy, run } = setting);
  } else {
    const cmd = defaultSetup(wt);
    if (!cmd) return out;
    out.source = 'default';
    run = [cmd];
  }
  for (const p of copy) {
    const from = join(repo.mainRoot, p);
    const to = join(wt, p);
    if (!existsSync(from) || existsSync(to)) continue;
    cpSync(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    out.copied.push(p);
  }
  if (!run.length) return out;
  const { hooksRestored } = await withProjectHooksKept(repo, { scratch: true }, async (env) => {
    for (const command of run) {
      opts.progress?.(`preparing the worktree: ${command}`);
      const t0 = Date.now();
      const code = await runBounded(command, wt, env, opts.output === 'stderr' ? 2 : 'ignore', opts.timeoutMs ?? SETUP_TIMEOUT_MS);
      out.ran.push({ command, exit_code: code, ms: Date.now() - t0 });
      if (code !== 0) {
        out.failed = command;
        break;
      }
    }
  });
  out.hooksRestored = hooksRestored;
  return out;
}
