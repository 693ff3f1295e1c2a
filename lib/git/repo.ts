import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { gitStep, gitStepOk, runGitSteps, runGitStepsAsync, type GitSteps } from './process.js';
import { hostEnv } from '../core/settings.js';

/** Where a command runs: the worktree, its git dirs, and the main worktree that governs it. */
export interface Repo {
  /** Top of the current worktree. */
  root: string;
  /** This worktree's git dir (`.git` or `.git/worktrees/<name>`). */
  gitDir: string;
  /** The git dir shared by all worktrees. */
  commonDir: string;
  /** Top of the main worktree (the primary checkout), whose `.orchestration/` governs. */
  mainRoot: string;
  isMainWorktree: boolean;
  /** Current branch name without `refs/heads/`, or null when detached. */
  branch: string | null;
}

/** Resolves the repository around `cwd`; throws NOT_A_REPOSITORY / BARE_REPOSITORY. */
export function openRepo(cwd: string): Repo {
  return runGitSteps(openRepoSteps(cwd));
}

/** `openRepo` without blocking on git (an editor's extension host). */
export function openRepoAsync(cwd: string): Promise<Repo> {
  return runGitStepsAsync(openRepoSteps(cwd));
}

/** `openRepo` as git steps, for callers that are step functions themselves. */
export function* openRepoSteps(cwd: string): GitSteps<Repo> {
  const res = yield* gitStep(
    ['rev-parse', '--path-format=absolute', '--is-bare-repository', '--git-dir', '--git-common-dir', '--show-toplevel'],
    { cwd },
  );
  if (res.status !== 0) {
    if (/not a git repository/i.test(res.stderr)) {
      throw new IntentError('NOT_A_REPOSITORY', `${cwd} is not inside a git repository. Run \`git init\` first, or cd into one.`, { cwd });
    }
    if (/must be run in a work tree|bare/i.test(res.stderr)) {
      throw new IntentError('BARE_REPOSITORY', `${cwd} is a bare repository: intents need a work tree. Run this in a clone.`, { cwd });
    }
    throw new IntentError('GIT_FAILED', `git rev-parse failed in ${cwd}: ${res.stderr.trim()}`, { cwd });
  }
  const [bare, gitDir, commonDir, root] = res.stdout.replace(/\n$/, '').split('\n');
  if (bare === 'true' || !root) {
    throw new IntentError('BARE_REPOSITORY', `${cwd} is a bare repository: intents need a work tree. Run this in a clone.`, { cwd });
  }
  const isMainWorktree = gitDir === commonDir;
  const mainRoot = isMainWorktree ? root : yield* mainWorktreeRootSteps(root, commonDir);
  return { root, gitDir, commonDir, mainRoot, isMainWorktree, branch: readBranch(gitDir) };
}

/**
 * `openRepo` for a git hook, which git runs at the top of the worktree: the repository is read
 * from the files git itself follows (`.git`, a linked worktree's `gitdir:` file, `commondir`)
 * instead of a `git rev-parse` process (about 5 ms of every hook). Anything unusual (GIT_DIR
 * naming another folder, GIT_WORK_TREE or GIT_COMMON_DIR set, a config or per-worktree config
 * that sets core.bare or core.worktree, a missing HEAD) is left to `openRepo`.
 */
export function openHookRepo(cwd: string, env: NodeJS.ProcessEnv = hostEnv()): Repo {
  return repoFromFiles(cwd, env) ?? openRepo(cwd);
}

function repoFromFiles(cwd: string, env: NodeJS.ProcessEnv): Repo | null {
  if (env.GIT_WORK_TREE || env.GIT_COMMON_DIR || env.GIT_OBJECT_DIRECTORY) return null;
  try {
    const root = realpathSync(cwd);
    const dotGit = join(root, '.git');
    const st = lstatSync(dotGit);
    let gitDir: string;
    if (st.isDirectory()) gitDir = dotGit;
    else if (st.isFile()) {
      const m = /^gitdir: (.+?)\r?\n?$/.exec(readFileSync(dotGit, 'utf8'));
      if (!m) return null;
      gitDir = resolve(root, m[1]);
    } else return null;
    if (env.GIT_DIR && resolve(root, env.GIT_DIR) !== gitDir) return null;
    let commonDir = gitDir;
    if (existsSync(join(gitDir, 'commondir'))) commonDir = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    if (!existsSync(join(gitDir, 'HEAD'))) return null;
    const sets = /^\s*(?:bare\s*=\s*true|worktree\s*=)/im;
    if (sets.test(readFileSync(join(commonDir, 'config'), 'utf8'))) return null;
    if (existsSync(join(gitDir, 'config.worktree')) && sets.test(readFileSync(join(gitDir, 'config.worktree'), 'utf8'))) return null;
    const isMainWorktree = gitDir === commonDir;
    const mainRoot = isMainWorktree ? root : runGitSteps(mainWorktreeRootSteps(root, commonDir));
    return { root, gitDir, commonDir, mainRoot, isMainWorktree, branch: readBranch(gitDir) };
  } catch {
    return null;
  }
}

function* mainWorktreeRootSteps(cwd: string, commonDir: string): GitSteps<string> {
  // The usual layout: the main worktree holds the common dir as its `.git`. Checking that
  // directly saves a process per hook and avoids `git worktree list`, which fails while another
  // process is half-way through `git worktree add`.
  if (basename(commonDir) === '.git' && existsSync(join(dirname(commonDir), '.git', 'HEAD'))) {
    const top = dirname(commonDir);
    if (statSync(join(top, '.git')).isDirectory()) return top;
  }
  const out = yield* gitStepOk(['worktree', 'list', '--porcelain', '-z'], { cwd });
  const first = out.split('\0').find((l) => l.startsWith('worktree '));
  if (!first) throw new IntentError('GIT_FAILED', `could not find the main worktree of ${cwd}`, { cwd });
  return first.slice('worktree '.length);
}

function readBranch(gitDir: string): string | null {
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    return head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : null;
  } catch {
    return null;
  }
}

/** Path of a file under the main worktree's `.orchestration/`. */
export function orchestrationPath(repo: Repo, name: string): string {
  return join(repo.mainRoot, '.orchestration', name);
}

/** Directory for the toolkit's private state inside the common git dir (never committed). */
export function stateDir(repo: Repo): string {
  return join(repo.commonDir, 'intent');
}

/**
 * The commit HEAD points at, read from the ref files (no process): null when the branch is unborn
 * or the refs are stored another way (reftable), where the caller must not guess.
 */
export function headOid(repo: Repo): string | null {
  try {
    const head = readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim();
    if (OID.test(head)) return head;
    if (!head.startsWith('ref: refs/')) return null;
    return refOid(repo, head.slice(5));
  } catch {
    return null;
  }
}

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The object a ref (`refs/heads/x`) names, read from its loose file or `packed-refs` (no
 * process): null when there is no such ref, it is symbolic, or the refs are stored another way
 * (reftable), where the caller must not guess.
 */
export function refOid(repo: Pick<Repo, 'commonDir'>, ref: string): string | null {
  if (existsSync(join(repo.commonDir, 'reftable'))) return null;
  try {
    const loose = readFileSync(join(repo.commonDir, ref), 'utf8').trim();
    return OID.test(loose) ? loose : null;
  } catch { /* packed, or none */ }
  try {
    const line = readFileSync(join(repo.commonDir, 'packed-refs'), 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`));
    const packed = line?.split(' ')[0] ?? '';
    return OID.test(packed) ? packed : null;
  } catch {
    return null;
  }
}
