/**
 * hooks: the git hooks and their installer. One dispatcher (dispatch) loads only the module of the
 * hook that runs: pre-commit (scope, budget, breaker), commit-msg (mutation claims), post-commit
 * (records the commit), merge (pre-merge-commit, post-merge), post-rewrite (amend, rebase) and
 * pre-push (the authority's gate on what is pushed); the hook server (server) serves them all from
 * one resident process per repository, and reads a commit's diff ahead of its post-commit (prefetch).
 * install writes the hook files and runners (hook-file says what a file is; install-record
 * remembers what was there before); worktree-hooks keeps the hook folder of
 * intent worktrees intact (chain-cache spares its hooks a `git config` each); health is the quick check that the main worktree's hooks are still intent's.
 * Imports: core, git, intents, mutation, trace, guardrails.
 */
export { runHook } from './dispatch.js';
export { mainHooksWarning } from './health.js';
