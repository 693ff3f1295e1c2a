/**
 * git: the plumbing. One process wrapper (process), the repository and its worktrees (repo,
 * worktrees), file names as bytes (paths), pinned diffs parsed into hunks (diff, hunks), blobs
 * read in batches (blobs), notes writes that wait for git's ref lock (notes), and what a command
 * changed in a worktree since a snapshot (snapshot).
 * Imports: core.
 */
export { openRepo, type Repo } from './repo.js';
