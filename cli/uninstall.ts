import { uninstall } from '../lib/lifecycle/index.js';
import { emit } from './output.js';

/** `intent uninstall [--remove-data]`. */
export function run(opts: { cwd: string; removeData: boolean; json: boolean }): void {
  const r = uninstall(opts.cwd, { removeData: opts.removeData });
  emit(opts.json, r, () => {
    const lines = [`intent: uninstalled from ${r.root}`];
    for (const pid of r.stopped) lines.push(`  stopped  process ${pid} (this repository's hook server)`);
    for (const h of r.hooks) lines.push(`  hook     ${h.file}: ${h.action}${h.note ? ` (${h.note})` : ''}`);
    for (const w of r.worktrees) lines.push(`  worktree ${w}: core.hooksPath unset`);
    for (const c of r.config) lines.push(`  config   ${c}`);
    for (const f of r.removed) lines.push(`  removed  ${f}`);
    for (const d of r.data.removed) lines.push(`  removed  ${d}`);
    for (const d of r.data.kept) lines.push(`  kept     ${d}${r.data.removed.length ? '' : ' (`--remove-data` removes it)'}`);
    for (const w of r.openWorktrees) lines.push(`  kept     ${w} (an intent worktree, still open: \`git worktree remove\` removes it)`);
    for (const w of r.reinstalls) lines.push(`  note     ${w} runs intent init: the next npm install installs intent again; remove it there`);
    if (r.yours.length) {
      lines.push('Files intent created or wrote into in your work tree, for you to remove (or keep) and commit:');
      for (const f of r.yours) lines.push(`  ${f}`);
    }
    return lines.join('\n') + '\n';
  });
}
