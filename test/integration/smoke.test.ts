import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, ledgerLines, noteOf, run, writeFiles } from '../helpers.js';

describe('governed commit, end to end', () => {
  it('records an in-scope commit and rejects an out-of-scope one', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], { 'src/auth/a.ts': 'a\n', 'src/other.ts': 'o\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/a.ts': 'a\nb\n' });
    git(wt, 'commit', '-q', '-am', 'in scope');
    const note = noteOf(wt);
    expect(note?.summary).toBe('INT-001 Intent INT-001 · INTENT_EVOLUTION · 1 file, 1 range');
    expect(note?.record.files[0].conversations[0].ranges).toEqual([
      { start_line: 2, end_line: 2, content_hash: 'sha256:0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f' },
    ]);
    expect(ledgerLines(repo)).toHaveLength(1);

    writeFiles(wt, { 'src/other.ts': 'changed\n' });
    const head = git(wt, 'rev-parse', 'HEAD');
    const r = run('git', ['commit', '-q', '-am', 'out of scope'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit src/other.ts');
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(head);
    expect(ledgerLines(repo)).toHaveLength(1);
  });
});
