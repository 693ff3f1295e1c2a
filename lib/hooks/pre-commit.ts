import { hostEnv, readSettings } from '../core/settings.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { requireActive, resolveIntentId } from '../intents/active.js';
import { loadConfig, type Config } from '../intents/config.js';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE, scopeViolationMessage, type AnyIntentError } from '../core/errors.js';
import { gitRaw } from '../git/process.js';
import { loadRegistry, type Intent, type Registry } from '../intents/registry.js';
import { headOid, openHookRepo, orchestrationPath, stateDir, type Repo } from '../git/repo.js';
import { compileScope, outOfScope } from '../intents/scope.js';
import { loadIgnore } from '../intents/ignore.js';
import { stagedPaths } from '../git/diff.js';
import { activeHookContext, lap } from '../core/hook-context.js';
import { otherIntentBranchesMayExist } from '../intents/branch-tips.js';
import { basePathsOfMerge, localBaseTips, mergeHeads, stagedResult } from '../git/update-merge.js';

/**
 * The staged paths that are the intent's work: during a merge of the base into the intent's branch
 * (`git merge origin/main`), the paths the merge takes from the base as the base has them are the
 * base's (lib/git/update-merge.ts), not checked against the intent's scope.
 */
function ownPaths(repo: Repo, paths: string[], env: NodeJS.ProcessEnv): string[] {
  if (repo.isMainWorktree) return paths;
  const heads = mergeHeads(repo.root, repo.gitDir, env);
  if (!heads.length) return paths;
  const head = headOid(repo);
  if (!head) return paths;
  const base = basePathsOfMerge(repo.root, [head, ...heads], localBaseTips(repo.root), () => stagedResult(repo.root));
  return base.size ? paths.filter((p) => !base.has(p)) : paths;
}

/** What the pre-commit check decided. */
export type PreCommitResult =
  | { governed: false; reason: string }
  | { governed: true; intent: Intent; paths: string[]; warnings: string[]; inProcess?: boolean };

/** Refusals that count towards an intent's circuit breaker (and leave a lesson). */
/**
 * Refusals the agent caused, counted toward the breaker. A registry that is missing or does not
 * parse is a human's doing (an intent worktree may not change it): counting it would open every
 * intent's breaker for one bad edit in the main worktree.
 */
const COUNTED = new Set(['SCOPE_VIOLATION', 'BUDGET_EXCEEDED']);
const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The pre-commit decision for the worktree at `cwd`: throws BREAKER_OPEN, NO_ACTIVE_INTENT,
 * SCOPE_VIOLATION, BUDGET_EXCEEDED, REGISTRY_INVALID or CONFIG_INVALID to block; resolves when the
 * commit may go ahead, with warnings (conflicts ahead) for stderr. The breaker, budget, overlap
 * and lesson modules are loaded only when they have something to do (a hook runs on every commit).
 */
export async function checkStagedCommit(cwd: string, env: NodeJS.ProcessEnv = hostEnv()): Promise<PreCommitResult> {
  const repo = openHookRepo(cwd, env);
  const named = resolveIntentId(repo, env.INTENT_ID);
  lap('repo');
  // An open breaker refuses before anything else is looked at (no state file: nothing to load).
  if (named && INTENT_ID.test(named.id) && existsSync(join(stateDir(repo), 'breaker', `${named.id}.json`))) {
    (await import('../guardrails/breaker.js')).assertBreakerClosed(repo, named.id);
  }
  const config = loadConfig(repo.mainRoot, repo.mainRoot);
  lap('config');
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
  // The staged paths: served, after a commit the server recorded, from the index in-process
  // (prefetch.ts); otherwise from `git diff --cached`.
  const served = !!activeHookContext()?.defer && readSettings(env).readAhead;
  const head = served ? headOid(repo) : null;
  const inProcess = served ? (await import('./prefetch.js')).stagedPathsInProcess(repo, env, head) : null;
  const staged = inProcess ?? stagedPaths(repo.root);
  lap('staged');
  const registryFile = orchestrationPath(repo, 'active_intents.yaml');
  let registry: Registry | null = null;
  let intent: Intent | null = null;
  let paths: string[];
  try {
    registry = loadRegistry(registryFile);
    intent = requireActive(registry, named.id);
    const budget = intent.budget ? await import('../guardrails/budget.js') : null;
    // With a max_changed_lines budget, one numstat gives both the paths and the line count.
    const numstat = budget && intent.budget?.max_changed_lines !== undefined ? budget.stagedNumstat(repo.root) : null;
    paths = numstat ? numstat.paths : staged;
    const bad = outOfScope(ownPaths(repo, paths, env), compileScope(intent.owned_scope), loadIgnore(repo), !repo.isMainWorktree);
    if (bad.length) {
      const lines = bad.map((p) => scopeViolationMessage(intent!.id, p));
      const orch = bad.some((p) => p.startsWith('.orchestration/'));
      throw new IntentError(
        'SCOPE_VIOLATION',
        `${lines.join('\n')}\n${intent.id} owns: ${intent.owned_scope.join(', ')}\n` +
          `Leave ${bad.length === 1 ? 'that path' : 'those paths'} out of the commit: unstage (git restore --staged -- <path>) and commit without -a ` +
          '(`git commit -a` stages every modified file again), or undo the change (git restore --staged --worktree -- <path>); ' +
          `or ask for the path: intent expand ${intent.id} <path> --reason "…".` +
          (orch ? '\n.orchestration/ is governed from the main worktree only: an intent worktree may not change it.' : ''),
        { intent: intent.id, paths: bad, scope: intent.owned_scope },
      );
    }
    budget?.checkCommitBudget(repo, intent, registryFile, new Date(), numstat?.lines);
    lap('scope');
  } catch (e) {
    if (e instanceof IntentError && COUNTED.has(e.code)) throw await recordRefusal(repo, named.id, intent, e, config);
    throw e;
  }
  let warnings: string[] = [];
  if (paths.length && otherIntentBranchesMayExist(repo, intent.id)) {
    const overlap = await import('../intents/overlap.js');
    warnings = overlap.describeConflicts(intent.id, overlap.conflictsAhead(repo, registry, intent.id, paths, head ?? headOid(repo)));
  }
  lap('conflicts');
  // The intent worktrees' hooks read the repository's own hooks folder from a cache (no git
  // process per hook); bring it up to date while we are here. Never fails the commit.
  // Before the answer: the hook that asked plans again from it once answered, when the cache did not
  // hold while it waited (a hook the team just added: worktree-hook.sh).
  if (!repo.isMainWorktree) {
    try {
      (await import('./chain-cache.js')).refreshChainCache(repo, repo.root, env);
    } catch { /* the hooks ask git instead */ }
  }
  lap('chain');
  // In the hook server: post-commit's git work, read ahead once git has its answer (prefetch.ts).
  if (served) (await import('./prefetch.js')).prefetchCommit(repo, env, head);
  lap('prefetch');
  return { governed: true, intent, paths, warnings, ...(inProcess ? { inProcess: true } : {}) };
}

/**
 * Records a refused commit for the intent's circuit breaker (with the staged tree, so a retried
 * identical commit is recognised) and leaves a lesson: one per intent and kind of refusal (the
 * text is stable), written only for commits from intent worktrees (in the main worktree the new
 * AGENT.md lines would end up in the next `git commit -a`). A refusal that opens the breaker says
 * so and leaves a lesson naming the trip. Returns the error to throw.
 */
async function recordRefusal(repo: Repo, id: string, intent: Intent | null, e: AnyIntentError, config: Config): Promise<IntentError> {
  if (!INTENT_ID.test(id)) return e;
  try {
    const { recordRejection } = await import('../guardrails/breaker.js');
    const { appendLesson } = await import('../intents/lessons.js');
    const first = e.message.split('\n')[0];
    const { tripped } = recordRejection(
      repo,
      id,
      { tree: stagedTree(repo.root), code: e.code, reason: first },
      { maxRejections: config.breakerMaxRejections, windowMinutes: config.breakerWindowMinutes },
    );
    if (!repo.isMainWorktree) {
      try {
        appendLesson(repo.root, { text: refusalLesson(id, intent, e), intentId: id, local: true });
      } catch { /* the lesson is a courtesy; the refusal stands */ }
    }
    if (!tripped) return e;
    try {
      appendLesson(repo.root, { text: `Circuit breaker opened for ${id}: ${tripped}. A human must review the work and run intent reset ${id}.`, intentId: id, local: true });
    } catch { /* as above */ }
    return e.withMessage(
      `${e.message}\nCircuit breaker opened for ${id}: ${tripped}.\nEvery further commit for ${id} is refused until a human runs: intent reset ${id}`,
      { breaker: { open: true, reason: tripped } },
    );
  } catch (err) {
    return e.withMessage(`${e.message}\nintent: could not record this refusal for the circuit breaker: ${(err as Error).message}`);
  }
}

/** The staged tree (`git write-tree` of the index the hook's environment names), or null. */
function stagedTree(cwd: string): string | null {
  const res = gitRaw(['write-tree'], { cwd, inheritRepoEnv: true });
  return res.status === 0 ? res.stdout.trim() || null : null;
}

/** A lesson text that is the same for every refusal of one kind (no paths, times or counts). */
function refusalLesson(id: string, intent: Intent | null, e: AnyIntentError): string {
  switch (e.code) {
    case 'SCOPE_VIOLATION':
      return `Commits for ${id} were refused for staging paths outside its scope (${intent?.owned_scope.join(', ') ?? 'see the registry'}). ` +
        `Stage only paths inside it; for more, ask a human with intent expand ${id} <glob> --reason "…".`;
    case 'BUDGET_EXCEEDED': {
      const limit = e.data.limit;
      const max = e.data.limit === 'expires_at' ? e.data.expires_at : e.data.max;
      return `Commits for ${id} were refused for exceeding budget.${limit} (${String(max)}). ` +
        'Finish the intent within its budget or ask a human to raise it in the registry; retrying the same commit will not help.';
    }
    default:
      return `Commits for ${id} were refused because the main worktree's intent registry could not be used (${e.code}). ` +
        'A human must fix .orchestration/active_intents.yaml in the main worktree; retrying will not help until then.';
  }
}
