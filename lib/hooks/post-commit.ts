/** post-commit: records the commit just made (lib/trace/record-commit.ts) and warns when it left its scope. */
import { METADATA_KEY } from '../core/version.js';
import { openHookRepo } from '../git/repo.js';
import { advanceConflictsCache } from '../intents/conflicts-cache.js';
import type { TraceRecord } from '../trace/record.js';

export { ledgerPath, recordCommit } from '../trace/record-commit.js';

/**
 * A commit that left its scope got past pre-commit (git runs none for cherry-pick and revert, and
 * `--no-verify` skips it): it is recorded as a scope violation, and the committer hears it now.
 */
export function bypassWarning(record: TraceRecord | null): string {
  const meta = record?.metadata[METADATA_KEY];
  const bad = meta?.scope_violations ?? [];
  if (!record || !meta || !bad.length) return '';
  return `intent: WARNING: commit ${record.vcs.revision.slice(0, 12)} changes ${bad.length} path${bad.length === 1 ? '' : 's'} outside ${meta.intent_id}'s scope ` +
    `without the pre-commit check (cherry-pick, revert and --no-verify skip it):\n${bad.map((p) => `  ${JSON.stringify(p)}`).join('\n')}\n` +
    'intent: it is recorded as a scope violation and `intent verify` reports it. To take it back and keep the changes: git reset --soft HEAD~1\n';
}

/**
 * The commit just recorded was made on top of HEAD: what pre-commit learnt about the other intents'
 * branches holds for it too (lib/intents/conflicts-cache.ts). Only here: other hooks record
 * commits that may have existed before (a fast-forward), for which it would not hold.
 */
export function advanceConflicts(cwd: string, env: NodeJS.ProcessEnv, record: TraceRecord | null): void {
  const parents = record?.metadata[METADATA_KEY]?.parents;
  if (!record || !parents) return;
  try {
    advanceConflictsCache(openHookRepo(cwd, env), record.vcs.revision, parents);
  } catch { /* the next pre-commit asks git */ }
}
