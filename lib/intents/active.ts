import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE } from '../core/errors.js';
import { realOrSelf } from '../core/files.js';
import { findIntent, type Intent, type Registry } from './registry.js';
import type { Repo } from '../git/repo.js';
import { hostEnv, readSettings } from '../core/settings.js';

/** The branch prefix of intent worktrees. */
export const BRANCH_PREFIX = 'intent/';

/** Where a worktree records its active intent (inside its own git dir, never committed). */
export function activeIntentFile(gitDir: string): string {
  return join(gitDir, 'intent-id');
}

/** Records the active intent of the worktree whose git dir is `gitDir`. */
export function recordActiveIntent(gitDir: string, id: string): void {
  writeFileSync(activeIntentFile(gitDir), id + '\n');
}

/** How the active intent was found. */
export type IntentSource = 'worktree' | 'branch' | 'env';

/**
 * The intent a commit in this worktree works under, or null when none is named. An intent
 * worktree's own record (or its `intent/<ID>` branch) wins; `INTENT_ID` may only repeat it. In
 * the main worktree `INTENT_ID` names the intent.
 */
export function resolveIntentId(repo: Repo, envId = readSettings(hostEnv()).intentId): { id: string; source: IntentSource } | null {
  const fromEnv = envId?.trim() || null;
  let own: { id: string; source: IntentSource } | null = null;
  const file = activeIntentFile(repo.gitDir);
  if (!repo.isMainWorktree && existsSync(file)) {
    own = { id: readFileSync(file, 'utf8').trim(), source: 'worktree' };
    assertAgree(repo, own.id);
  }
  else if (repo.branch?.startsWith(BRANCH_PREFIX)) own = { id: repo.branch.slice(BRANCH_PREFIX.length), source: 'branch' };
  if (own && fromEnv && fromEnv !== own.id) {
    throw new IntentError(
      'NO_ACTIVE_INTENT',
      `${NO_ACTIVE_INTENT_MESSAGE}\nThis worktree belongs to ${own.id}, but INTENT_ID names ${fromEnv}. Commit ${fromEnv}'s work in its own worktree (intent checkout ${fromEnv}).`,
      { worktreeIntent: own.id, envIntent: fromEnv },
    );
  }
  if (own) return own;
  return fromEnv ? { id: fromEnv, source: 'env' } : null;
}

/**
 * An intent worktree's names for its intent must agree: its record (written by `intent
 * checkout`), its branch when that is an intent branch (`intent/<ID>`; during a rebase, the branch
 * being rebased; a side branch or a detached HEAD names no intent) and git's registration of the
 * worktree (which must point back at this directory). A guardrail: an honest agent that renamed
 * or moved something learns it at once; the server decides what lands anyway.
 */
function assertAgree(repo: Repo, id: string): void {
  const branch = repo.branch ?? branchBeingRebased(repo.gitDir);
  let problem: string | null = null;
  if (branch?.startsWith(BRANCH_PREFIX) && branch !== BRANCH_PREFIX + id) {
    problem = `its record names ${id}, but its branch is ${branch} (expected ${BRANCH_PREFIX}${id})`;
  } else {
    let registered: string | null = null;
    try {
      registered = dirname(readFileSync(join(repo.gitDir, 'gitdir'), 'utf8').trim());
    } catch { /* no registration file: not a linked worktree git knows */ }
    if (registered !== null && registered !== repo.root && realOrSelf(registered) !== realOrSelf(repo.root)) {
      problem = `git registers this worktree at ${registered}, not ${repo.root} (a moved or copied worktree: run git worktree repair)`;
    }
  }
  if (problem) {
    throw new IntentError(
      'NO_ACTIVE_INTENT',
      `${NO_ACTIVE_INTENT_MESSAGE}\nThis worktree's intent is unclear: ${problem}. Switch back to ${BRANCH_PREFIX}${id} (git switch ${BRANCH_PREFIX}${id}), or ask a human to run intent checkout for the intent you work on.`,
      { intent: id, branch, worktree: repo.root },
    );
  }
}

function branchBeingRebased(gitDir: string): string | null {
  for (const dir of ['rebase-merge', 'rebase-apply']) {
    try {
      const ref = readFileSync(join(gitDir, dir, 'head-name'), 'utf8').trim();
      if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
    } catch { /* not rebasing with this backend */ }
  }
  return null;
}

/** The registry entry for `id`, which must exist and be IN_PROGRESS. */
export function requireActive(registry: Registry, id: string): Intent {
  const intent = findIntent(registry, id);
  if (!intent) {
    throw new IntentError(
      'NO_ACTIVE_INTENT',
      `${NO_ACTIVE_INTENT_MESSAGE}\n${id} is not in ${registry.path}. Known intents: ${registry.intents.map((i) => i.id).join(', ') || 'none'}.`,
      { intent: id },
    );
  }
  if (intent.status !== 'IN_PROGRESS') {
    throw new IntentError(
      'NO_ACTIVE_INTENT',
      `${NO_ACTIVE_INTENT_MESSAGE}\n${id} is ${intent.status}, not IN_PROGRESS. Run \`intent checkout ${id}\` to start it, or pick an intent that is in progress.`,
      { intent: id, status: intent.status },
    );
  }
  return intent;
}
