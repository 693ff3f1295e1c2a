import { formatStatus, intentStatusAsync } from '../lib/lifecycle/index.js';
import { emit } from './output.js';

/** `intent status`: every intent of the registry with its branch, worktree, progress, budget, breaker and overlaps. */
export async function run(opts: { cwd: string; json: boolean }): Promise<void> {
  const report = await intentStatusAsync(opts.cwd);
  emit(opts.json, report, () => formatStatus(report, { cwd: opts.cwd }));
}
