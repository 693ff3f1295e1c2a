/**
 * git: the plumbing. One process wrapper (process), the repository and its worktrees (repo,
 * worktrees), file names as bytes (paths), pinned diffs parsed into hunks (diff, hunks), blobs
 * read in batches (blobs) and notes writes that wait for git's ref lock (notes).
 * Imports: core.
 */
export { openRepo, type Repo } from './repo.js';
