/** post-commit: records the commit just made (lib/trace/record-commit.ts) and warns when it left its scope. */
import { METADATA_KEY } from '../core/version.js';
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
