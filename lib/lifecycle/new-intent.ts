import { realpathSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { withLock } from '../core/lock.js';
import { assertHuman } from '../intents/approval.js';
import { addIntent, checkNewIntent, type NewIntentSpec } from '../intents/registry-add.js';
import { registryLockPath } from '../intents/registry-edit.js';
import type { Intent } from '../intents/registry.js';
import { openRepo, orchestrationPath } from '../git/repo.js';

/** What `intent new` did. */
export interface NewIntentResult {
  intent: Intent;
  /** The registry file (absolute). */
  registry: string;
  /** `.orchestration` relative to the current directory, for the commit command (`intent init`'s other files go with the first one). */
  orchestrationRelative: string;
}

/**
 * `intent new`: a human adds a PENDING intent to the main worktree's registry (under the registry
 * lock, byte-surgically: see addIntent). Refused from agent processes and intent worktrees.
 */
export function newIntent(cwd: string, spec: NewIntentSpec, opts: { env?: NodeJS.ProcessEnv; now?: Date } = {}): NewIntentResult {
  checkNewIntent(spec);
  const repo = openRepo(cwd);
  assertHuman(repo, `new ${spec.id}`, opts.env);
  const registry = orchestrationPath(repo, 'active_intents.yaml');
  const intent = withLock(registryLockPath(repo), () => addIntent(registry, spec, opts.now ?? new Date()));
  return { intent, registry, orchestrationRelative: relative(realpathSync(cwd), dirname(registry)) || '.' };
}
