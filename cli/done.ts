import { finishIntent, type Cleanup } from '../lib/lifecycle/index.js';
import { IntentError } from '../lib/core/index.js';
import { emit } from './output.js';

/**
 * `intent done <id> [--merge] [--delete-branch] [--timeout s]`: runs the acceptance checks, marks
 * the intent COMPLETED, optionally merges its branch, and removes its worktree when nothing would
 * be lost.
 */
export async function run(opts: { cwd: string; id: string; merge: boolean; deleteBranch: boolean; timeout?: string; json: boolean }): Promise<void> {
  let timeoutSeconds: number | undefined;
  if (opts.timeout !== undefined) {
    timeoutSeconds = Number(opts.timeout);
    if (!/^\s*\d+(\.\d+)?\s*$/.test(opts.timeout) || !(timeoutSeconds > 0)) {
      throw new IntentError('USAGE', `--timeout must be a positive number of seconds, got "${opts.timeout}".`, { timeout: opts.timeout });
    }
  }
  const progress = opts.json ? undefined : (line: string) => process.stderr.write(`intent: ${line}\n`);
  const r = await finishIntent(opts.cwd, opts.id, { merge: opts.merge, deleteBranch: opts.deleteBranch, timeoutSeconds, progress });
  emit(opts.json, r, () => {
    const lines = [`${r.intent} is COMPLETED: ${r.checks.length ? `all ${r.checks.length} acceptance check${r.checks.length === 1 ? '' : 's'} passed` : 'it has no acceptance checks'}.`];
    if (r.merged) lines.push(r.merged.already ? `${r.branch.name} was already merged into ${r.merged.into}.` : `Merged ${r.branch.name} into ${r.merged.into} (${r.merged.commit.slice(0, 12)}).`);
    lines.push(...cleanupLines(r));
    lines.push(r.note);
    return lines.join('\n') + '\n';
  });
}

/** Human lines for what happened to the worktree and the branch. */
export function cleanupLines(r: Cleanup): string[] {
  return [
    r.worktree.path ? `Worktree ${r.worktree.path}: ${r.worktree.reason}.` : `Worktree: ${r.worktree.reason}.`,
    `Branch ${r.branch.name}: ${r.branch.reason}.`,
  ];
}
