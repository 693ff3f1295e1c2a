import { newIntent } from '../lib/lifecycle/index.js';
import { registryCommitMessage } from '../lib/intents/index.js';
import { dirname } from 'node:path';
import { emit } from './output.js';

/** `intent new <id> --name … --scope …`: adds a PENDING intent to the registry and prints the next steps. */
export function run(opts: { cwd: string; id: string; name: string; scope: string[]; constraint: string[]; acceptanceCheck: string[]; json: boolean }): void {
  const r = newIntent(opts.cwd, { id: opts.id, name: opts.name, owned_scope: opts.scope, constraints: opts.constraint, acceptance_checks: opts.acceptanceCheck });
  const commit = `git add ${r.orchestrationRelative} && git commit -m "${registryCommitMessage(dirname(dirname(r.registry)), 'register', r.intent.id)}"`;
  const checkout = `wt=$(intent checkout ${r.intent.id}) && cd "$wt"`;
  emit(opts.json, { intent: r.intent, registry: r.registry, next: [commit, checkout] }, () =>
    [
      `intent: added ${r.intent.id} (PENDING) to ${r.registry}: ${r.intent.name}; owns ${r.intent.owned_scope.join(', ')}`,
      ...(r.intent.acceptance_checks?.length ? [`  acceptance checks (intent done runs them): ${r.intent.acceptance_checks.join('; ')}`] : []),
      'Next: commit the registry (verify and the server check every commit against the registry in the history), then open the worktree:',
      `  ${commit}`,
      `  ${checkout}`,
    ].join('\n') + '\n');
}
