import { existsSync, readFileSync } from 'node:fs';
import { requireActive, resolveIntentId } from './active.js';
import { loadConfig } from './config.js';
import { stagedPaths } from './diff.js';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE, scopeViolationMessage } from './errors.js';
import { loadRegistry, type Intent } from './registry.js';
import { openRepo, orchestrationPath, type Repo } from './repo.js';
import { compileScope, globProblem, outOfScope, parseIgnoreFile, type Scope } from './scope.js';

/** What the pre-commit check decided. */
export type PreCommitResult =
  | { governed: false; reason: string }
  | { governed: true; intent: Intent; paths: string[] };

/** Loads `.orchestration/.intentignore` of the main worktree; a bad glob is an error. */
export function loadIgnore(repo: Repo): Scope | null {
  const file = orchestrationPath(repo, '.intentignore');
  if (!existsSync(file)) return null;
  const globs = parseIgnoreFile(readFileSync(file, 'utf8'));
  for (const g of globs) {
    const problem = globProblem(g);
    if (problem) throw new IntentError('CONFIG_INVALID', `${file}: "${g}" ${problem}.`, { file, glob: g });
  }
  return globs.some((g) => !g.startsWith('!')) ? compileScope(globs) : null;
}

/**
 * The pre-commit decision for the worktree at `cwd`: throws NO_ACTIVE_INTENT, SCOPE_VIOLATION,
 * REGISTRY_INVALID or CONFIG_INVALID to block; returns when the commit may go ahead.
 */
export function checkStagedCommit(cwd: string, env: NodeJS.ProcessEnv = process.env): PreCommitResult {
  const repo = openRepo(cwd);
  const config = loadConfig(repo.mainRoot, repo.mainRoot);
  const named = resolveIntentId(repo, env.INTENT_ID);
  if (!named) {
    if (repo.isMainWorktree && !config.requireIntent) return { governed: false, reason: 'main worktree, no intent named' };
    throw new IntentError(
      'NO_ACTIVE_INTENT',
      `${NO_ACTIVE_INTENT_MESSAGE}\n${repo.isMainWorktree
        ? `${config.source} sets requireIntent: name the intent, e.g. INTENT_ID=INT-001 git commit …`
        : 'This worktree has no intent. Create intent worktrees with `intent checkout <ID>`.'}`,
      {},
    );
  }
  const registry = loadRegistry(orchestrationPath(repo, 'active_intents.yaml'));
  const intent = requireActive(registry, named.id);
  const paths = stagedPaths(repo.root);
  const bad = outOfScope(paths, compileScope(intent.owned_scope), loadIgnore(repo), !repo.isMainWorktree);
  if (bad.length) {
    const lines = bad.map((p) => scopeViolationMessage(intent.id, p));
    const orch = bad.some((p) => p.startsWith('.orchestration/'));
    throw new IntentError(
      'SCOPE_VIOLATION',
      `${lines.join('\n')}\n${intent.id} owns: ${intent.owned_scope.join(', ')}\n` +
        `Unstage ${bad.length === 1 ? 'that path' : 'those paths'} (git restore --staged -- <path>) or ask a human to widen the scope in the main worktree's registry.` +
        (orch ? '\n.orchestration/ is governed from the main worktree only: an intent worktree may not change it.' : ''),
      { intent: intent.id, paths: bad, scope: intent.owned_scope },
    );
  }
  return { governed: true, intent, paths };
}
