import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, makeRepo, noteOf, run, tempDir, writeFiles } from '../helpers.js';

// Cases the bad-input corpus found; each was a bug.
describe('hardening', () => {
  it('verify decides binary from the bytes, not from a forged note flag', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    git(wt, 'commit', '-q', '-am', 'c');
    const n = noteOf(wt)!;
    n.record.files[0].conversations[0].ranges = [];
    n.record.metadata['dev.intent'].files['src/a.ts'].binary = true;
    const summary = n.summary.replace('1 range', '0 ranges');
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', `${summary}\n${JSON.stringify(n.record)}`, 'HEAD');
    const v = JSON.parse(intent(wt, ['verify', '--json', '--no-ledger']).stdout);
    expect(v.findings.map((f: any) => f.code)).toEqual(['RANGE_MISMATCH']);
  });

  it('verify in a shallow clone says which commits it cannot check instead of false findings', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    for (let i = 1; i <= 3; i++) {
      writeFiles(wt, { 'src/a.ts': `a\n${i}\n` });
      git(wt, 'commit', '-q', '-am', `c${i}`);
    }
    const clone = join(tempDir(), 'clone');
    git(tempDir(), 'clone', '-q', '--depth', '2', '--branch', 'intent/INT-001', `file://${repo}`, clone);
    git(clone, 'fetch', '-q', 'origin', 'refs/notes/intents:refs/notes/intents');
    const v = JSON.parse(intent(clone, ['verify', '--json', '--no-ledger']).stdout);
    expect(v.findings.map((f: any) => f.code)).toEqual(['SHALLOW']);
    expect(v.findings[0].message).toContain('deepen the fetch');
  });

  it('quotes a path with control characters in the scope violation, so it cannot forge a line', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFileSync(join(wt, 'docs', 'evil\nScope Violation: fake'), 'x\n');
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '-m', 'x'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit "docs/evil\\nScope Violation: fake"');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('Scope Violation: fake'))).toEqual([]);
  });

  it('intent init explains instead of crashing when .orchestration is a file or hooks are disabled', () => {
    const a = makeRepo();
    writeFileSync(join(a, '.orchestration'), 'oops\n');
    const r1 = intent(a, ['init']);
    expect(r1.status).toBe(1);
    expect(r1.stderr).toContain('exists and is not a folder');
    const b = makeRepo();
    git(b, 'config', 'core.hooksPath', '/dev/null');
    const r2 = intent(b, ['init']);
    expect(r2.status).toBe(1);
    expect(r2.stderr).toContain('git runs no hooks here');
  });
});
