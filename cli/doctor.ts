import { doctor } from '../lib/lifecycle/index.js';
import { emit } from './output.js';

/** `intent doctor [--fix]`: exit 0 when everything is in place, 1 otherwise. */
export function run(opts: { cwd: string; fix: boolean; json: boolean }): void {
  const r = doctor(opts.cwd, { fix: opts.fix });
  emit(opts.json, r, () => {
    const width = Math.max(...r.checks.map((c) => c.subject.length));
    const lines = r.checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.subject.padEnd(width)}  ${c.message}`);
    if (r.fixed) {
      const did = [
        ...r.fixed.install.hooks.filter((h) => h.action !== 'unchanged').map((h) => `${h.hook} ${h.action}`),
        ...(r.fixed.install.runnerChanged ? ['runners rewritten'] : []),
        ...(r.fixed.install.worktreeHooks.length ? [`worktree hooks restored (${r.fixed.install.worktreeHooks.join(', ')})`] : []),
        ...r.fixed.install.config,
        ...r.fixed.worktrees.map((w) => `core.hooksPath set in ${w}`),
      ];
      lines.unshift(`intent doctor --fix: ${did.length ? did.join('; ') : 'nothing to repair'}`);
    }
    const tail = r.ok ? 'intent doctor: everything in place.' : `intent doctor: ${r.checks.filter((c) => !c.ok).length} problem(s).${r.fixed ? '' : ' `intent doctor --fix` repairs what it can.'}`;
    return `${lines.join('\n')}\n${tail}\n`;
  });
  if (!r.ok) process.exitCode = 1;
}
