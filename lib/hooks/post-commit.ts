/** post-commit: records the commit just made (lib/trace/record-commit.ts) and warns when it left its scope. */
import { METADATA_KEY } from '../core/version.js';
import { recordCommit, type Prefetched, type PreparedRecord } from '../trace/record-commit.js';
import type { TraceRecord } from '../trace/record.js';

export { ledgerPath, recordCommit } from '../trace/record-commit.js';

/**
 * A commit that left its scope got past the check before it (`git -c core.hooksPath=…`, a hook
 * folder an installer changed, the main worktree's `--no-verify`): it is recorded as a scope
 * violation, and the committer hears it now.
 */
export function bypassWarning(record: TraceRecord | null): string {
  const meta = record?.metadata[METADATA_KEY];
  const bad = meta?.scope_violations ?? [];
  if (!record || !meta || !bad.length) return '';
  return `intent: WARNING: commit ${record.vcs.revision.slice(0, 12)} changes ${bad.length} path${bad.length === 1 ? '' : 's'} outside ${meta.intent_id}'s scope ` +
    `without the pre-commit check (cherry-pick, revert and --no-verify skip it):\n${bad.map((p) => `  ${JSON.stringify(p)}`).join('\n')}\n` +
    'intent: it is recorded as a scope violation and `intent verify` reports it. To take it back and keep the changes: git reset --soft HEAD~1\n';
}

/** What recording the commit just made gave: the record, whether the work read ahead was its own, what to print, the trace. */
export interface Recorded {
  record: TraceRecord | null;
  readAhead: boolean;
  stderr: string;
  trace: Record<string, unknown>;
}

/**
 * Records the commit at HEAD of `cwd`, just made (`madeNow`), from what was read ahead for it when
 * that is its own (`prefetched`, and `prepared` from it before the commit was made); `waitedMs`:
 * how long post-commit waited for that work (trace).
 */
export function recordMadeNow(cwd: string, env: NodeJS.ProcessEnv, warn: (text: string) => void, prefetched: Prefetched | null, waitedMs = 0, prepared: PreparedRecord | null = null): Recorded {
  const t0 = performance.now() - waitedMs;
  let readAhead = false;
  const phases: Record<string, number> = {};
  const lap = (name: string) => { phases[name] = Math.round((performance.now() - t0) * 100) / 100; };
  const record = recordCommit(cwd, env, { madeNow: true, warn, prefetched, prepared, readAhead: (used) => { readAhead = used; }, lap });
  return { record, readAhead, stderr: bypassWarning(record), trace: { readAhead, aheadWaitMs: Math.round(waitedMs * 100) / 100, phases } };
}
