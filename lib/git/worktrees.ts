import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitStep, runGitSteps, type GitSteps } from './process.js';

/** One worktree of `git worktree list --porcelain -z`. */
export interface WorktreeEntry {
  path: string;
  /** The checked-out branch's ref (`refs/heads/…`), or null (detached, bare). */
  branch: string | null;
  /** git marks a worktree whose folder is gone as prunable. */
  prunable: boolean;
}

/** The worktrees of the repository around `cwd`; empty when git cannot list them. */
export function listWorktrees(cwd: string): WorktreeEntry[] {
  return runGitSteps(listWorktreesSteps(cwd));
}

/** `listWorktrees` as git steps. */
export function* listWorktreesSteps(cwd: string): GitSteps<WorktreeEntry[]> {
  const res = yield* gitStep(['worktree', 'list', '--porcelain', '-z'], { cwd });
  if (res.status !== 0) return [];
  const out: WorktreeEntry[] = [];
  for (const entry of res.stdout.split('\0\0')) {
    const fields = entry.split('\0');
    const wt = fields.find((f) => f.startsWith('worktree '));
    if (!wt) continue;
    const br = fields.find((f) => f.startsWith('branch '));
    out.push({ path: wt.slice('worktree '.length), branch: br ? br.slice('branch '.length) : null, prunable: fields.some((f) => f === 'prunable' || f.startsWith('prunable ')) });
  }
  return out;
}

/** The folder of the worktree that has branch `name` (without refs/heads/) checked out and still exists, or null. */
export function worktreeOfBranch(cwd: string, name: string): string | null {
  return runGitSteps(worktreeOfBranchSteps(cwd, name));
}

/** `worktreeOfBranch` as git steps. */
export function* worktreeOfBranchSteps(cwd: string, name: string): GitSteps<string | null> {
  const wt = (yield* listWorktreesSteps(cwd)).find((w) => w.branch === `refs/heads/${name}` && existsSync(w.path));
  return wt ? wt.path : null;
}

/**
 * The worktrees as `listWorktrees` gives them, read from git's files instead of a process: the
 * main worktree (`mainRoot`, the common dir's HEAD) and each linked one from
 * `<common dir>/worktrees/<name>/` (`gitdir`: its `.git` file, absolute or relative to that folder;
 * `HEAD`; `locked`). Prunable as git says it: the `gitdir` file or the `.git` file it names is
 * gone, and the worktree is not locked. Null where the files do not tell (reftable keeps HEAD
 * elsewhere): then ask `git worktree list`.
 */
export function readWorktrees(commonDir: string, mainRoot: string): WorktreeEntry[] | null {
  if (existsSync(join(commonDir, 'reftable'))) return null;
  const branchOf = (dir: string): string | null | undefined => {
    try {
      const head = readFileSync(join(dir, 'HEAD'), 'utf8').trim();
      return head.startsWith('ref: refs/heads/') ? head.slice(5) : null;
    } catch {
      return undefined;
    }
  };
  const mainBranch = branchOf(commonDir);
  if (mainBranch === undefined) return null;
  const out: WorktreeEntry[] = [{ path: mainRoot, branch: mainBranch, prunable: false }];
  let names: string[];
  try {
    names = readdirSync(join(commonDir, 'worktrees'));
  } catch {
    return out; // no linked worktree
  }
  for (const name of names) {
    const admin = join(commonDir, 'worktrees', name);
    let gitFile: string | null = null;
    try {
      gitFile = resolve(admin, readFileSync(join(admin, 'gitdir'), 'utf8').trim());
    } catch { /* no gitdir file */ }
    const branch = branchOf(admin);
    if (branch === undefined && gitFile === null) continue; // not a worktree's folder
    const prunable = (gitFile === null || !existsSync(gitFile)) && !existsSync(join(admin, 'locked'));
    out.push({ path: gitFile ? dirname(gitFile) : admin, branch: branch ?? null, prunable });
  }
  return out;
}
