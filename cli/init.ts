import { init } from '../lib/lifecycle/index.js';
import { registryCommitMessage } from '../lib/intents/index.js';
import { emit } from './output.js';

/** INT-001, or the number after the highest INT-<n> the registry has. */
function nextId(ids: string[]): string {
  const n = Math.max(0, ...ids.map((id) => /^INT-(\d+)$/.exec(id)).filter((m) => m).map((m) => Number(m![1])));
  return `INT-${String(n + 1).padStart(3, '0')}`;
}

/** `intent init`. */
export function run(opts: { cwd: string; json: boolean; agents: string[] }): void {
  const r = init(opts.cwd, { agents: opts.agents });
  emit(opts.json, r, () => {
    if (!r.changed) return `intent: ${r.root} is already initialised; nothing changed.\n`;
    const lines = [`intent: initialised ${r.root}`];
    for (const f of r.created) lines.push(`  created  ${f}`);
    for (const f of r.kept) lines.push(`  kept     ${f} (already there)`);
    for (const h of r.hooks) {
      const what = h.action === 'chained' ? `chained (your hook moved to ${h.chainedTo}, runs after ours${h.supersededTo ? `; the copy chained before kept as ${h.supersededTo}` : ''})`
        : h.action === 'inserted' ? 'added to your existing hook (your lines run after ours)'
        : h.via === 'legacy' ? `${h.action} (in ${h.file}, which the pre-commit framework runs)` : h.action;
      lines.push(`  hook     ${h.file}: ${what}`);
    }
    if (r.worktreeHooks.length) lines.push(`  hooks    of intent worktrees rewritten: ${r.worktreeHooks.join(', ')}`);
    for (const c of r.config) lines.push(`  config   ${c}`);
    for (const a of r.agents) {
      lines.push(`  agent    ${a.agent}: ${a.file} ${a.changed ? 'written (commit it so every worktree has it)' : 'up to date'}`);
      if (a.trust) lines.push(`           ${a.trust}`);
    }
    const open = r.intents.find((i) => i.status === 'IN_PROGRESS') ?? r.intents.find((i) => i.status === 'PENDING');
    if (open) {
      // A teammate's clone: the registry came with it.
      lines.push(
        `Next: the registry has ${r.intents.length} intent${r.intents.length === 1 ? '' : 's'} (intent status lists them); open one's worktree, or add your own with intent new:`,
        `  wt=$(intent checkout ${open.id}) && cd "$wt"`,
      );
    } else {
      const id = nextId(r.intents.map((i) => i.id));
      lines.push(
        'Next: add an intent and commit the registry (verify and the server judge every commit by the registry in the history), then open its worktree:',
        `  intent new ${id} --name "What it is for" --scope "src/feature/**" --acceptance-check "npm test"`,
        `  git add .orchestration && git commit -m "${registryCommitMessage(r.root, 'register', id)}"`,
        `  wt=$(intent checkout ${id}) && cd "$wt"`,
      );
    }
    return lines.join('\n') + '\n';
  });
}
