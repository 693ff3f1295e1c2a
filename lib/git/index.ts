/**
 * git: the plumbing. One process wrapper (process), the repository and its worktrees (repo,
 * worktrees), file names as bytes (paths), pinned diffs parsed into hunks (diff, hunks), which
 * commits a clone has and a ref reaches (commits), blobs read in batches (blobs), notes writes that wait for git's ref lock (notes), what a command
 * changed in a worktree since a snapshot (snapshot), and the index file read in-process for the
 * staged paths (index-file).
 * Imports: core.
 */
export { openRepo, type Repo } from './repo.js';
