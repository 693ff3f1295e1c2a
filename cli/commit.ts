import { commitWithHooks } from '../lib/lifecycle/index.js';
import { emit } from './output.js';

/** `intent commit [git commit arguments]`: git commit with the hooks on (for agents whose shell turns them off). */
export function run(opts: { cwd: string; args: string[]; json: boolean }): void {
  const r = commitWithHooks(opts.cwd, opts.args);
  const warning = r.noted === false
    ? `intent commit: ${r.commit} has no Agent Trace note: the hooks did not record it. Run \`intent doctor\` in this worktree.\n`
    : '';
  emit(opts.json, { status: r.status, commit: r.commit, noted: r.noted }, () => warning);
  process.exitCode = r.status !== 0 ? r.status : r.noted === false ? 1 : 0;
}
