import { existsSync } from 'node:fs';
import { gitRaw } from './process.js';

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
  const res = gitRaw(['worktree', 'list', '--porcelain', '-z'], { cwd });
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
  const wt = listWorktrees(cwd).find((w) => w.branch === `refs/heads/${name}` && existsSync(w.path));
  return wt ? wt.path : null;
}
