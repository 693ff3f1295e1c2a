/**
 * The guard's check (reference-transaction of intent worktrees, state `prepared`), made only when
 * the guard found the intent worktrees' hook folder changed by another installer: prepare-commit-msg,
 * which checks each commit, may not have been intent's for this one. Each commit the transaction
 * would put on HEAD or a branch that no ref has yet is judged as pre-commit judges a commit: its
 * paths against its first parent (a rename's two sides), outside the intent's scope or under
 * `.orchestration/` refused; a merge's paths taken from the base as the base has them are the
 * base's. A refusal in `prepared` aborts the transaction: the commit is on no branch.
 */
import { IntentError, scopeViolationMessage } from '../core/errors.js';
import { commitDiff } from '../git/diff.js';
import { git } from '../git/process.js';
import { openHookRepo, orchestrationPath } from '../git/repo.js';
import { basePathsOfMerge, localBaseTips, resultOfChanges } from '../git/update-merge.js';
import { requireActive, resolveIntentId } from '../intents/active.js';
import { loadIgnore } from '../intents/ignore.js';
import { loadRegistry } from '../intents/registry.js';
import { compileScope, outOfScope } from '../intents/scope.js';

const ZERO = /^0+$/;
const OID = /^[0-9a-f]{40,64}$/;

/** The commits of the transaction `input` (git's `<old> <new> <ref>` lines) that no ref reaches yet, oldest first. */
export function newCommits(cwd: string, input: string): string[] {
  const tips = new Set<string>();
  for (const line of input.split('\n')) {
    const [, next, ref] = line.trim().split(' ');
    if (!next || !ref || ZERO.test(next) || !OID.test(next)) continue;
    if (ref === 'HEAD' || ref.startsWith('refs/heads/')) tips.add(next);
  }
  if (!tips.size) return [];
  // (Tags and other objects: rev-list names only commits; --not --all: what no ref, HEAD among them, has.)
  const out = git(['rev-list', '--reverse', '--topo-order', ...tips, '--not', '--all'], { cwd });
  return out.split('\n').filter(Boolean);
}

/**
 * Throws SCOPE_VIOLATION when a commit the transaction `input` brings leaves the intent's scope
 * (the intent of the worktree at `cwd`); returns the commits it judged.
 */
export function checkTransaction(cwd: string, env: NodeJS.ProcessEnv, input: string): string[] {
  const repo = openHookRepo(cwd, env);
  if (repo.isMainWorktree) return [];
  const commits = newCommits(repo.root, input);
  if (!commits.length) return [];
  const named = resolveIntentId(repo, env.INTENT_ID);
  if (!named) throw new IntentError('NO_ACTIVE_INTENT', 'intent: this intent worktree names no intent: its commits cannot be checked. Open intent worktrees with `intent checkout <ID>`.', {});
  const intent = requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), named.id);
  const scope = compileScope(intent.owned_scope);
  const ignore = loadIgnore(repo);
  let tips: string[] | null = null;
  for (const sha of commits) {
    const { parents, changes } = commitDiff(repo.root, sha);
    const paths = changes.flatMap((c) => (c.oldPath && c.oldPath !== c.path ? [c.oldPath, c.path] : [c.path]));
    const fromBase = parents.length < 2 ? new Set<string>() : basePathsOfMerge(repo.root, parents, (tips ??= localBaseTips(repo.root)), () => resultOfChanges(changes));
    const bad = outOfScope(paths.filter((p) => !fromBase.has(p)), scope, ignore, true);
    if (bad.length) {
      throw new IntentError(
        'SCOPE_VIOLATION',
        `${bad.map((p) => scopeViolationMessage(intent.id, p)).join('\n')}\n${intent.id} owns: ${intent.owned_scope.join(', ')}\n` +
          `Commit ${sha.slice(0, 12)} was made without intent's check (the hooks were not intent's) and is on no branch: intent refused to move ${repo.branch ?? 'HEAD'} to it. ` +
          'Nothing was committed: leave the path out of the commit (unstage it, or commit without -a) and commit again.',
        { intent: intent.id, paths: bad, scope: intent.owned_scope },
      );
    }
  }
  return commits;
}
