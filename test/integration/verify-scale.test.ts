import { describe, expect, it } from 'vitest';
import { recordCommit } from '../../dist/lib/trace/record-commit.js';
import { checkoutIntent, git, governedRepo, intent, run, writeFiles } from '../helpers.js';

describe('intent verify over a few hundred governed commits', () => {
  it('is clean after amends, an interactive rebase with fixups and cherry-picks, then names tampering', async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    // 300 commits recorded by the post-commit code itself (hooks skipped only to save process start-ups).
    for (let i = 1; i <= 300; i++) {
      writeFiles(wt, { [`src/m${i % 17}.ts`]: `export const v${i} = ${i};\n`.repeat(1 + (i % 3)), 'src/log.txt': `${i}\n` });
      git(wt, 'add', '-A');
      git(wt, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `c${i}`);
      expect(recordCommit(wt, process.env)).not.toBeNull();
      // A minute of synchronous work starves vitest's worker IPC: give the event loop a turn.
      if (i % 50 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // With the real hooks: amend, an interactive rebase with fixups, and a cherry-pick.
    writeFiles(wt, { 'src/amend.ts': 'x\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '--amend', '--no-edit');
    for (let k = 0; k < 3; k++) {
      writeFiles(wt, { [`src/fix${k}.ts`]: `${k}\n` });
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', 'fixup! c298');
    }
    const rb = run('git', ['rebase', '-q', '-i', '--autosquash', 'HEAD~6'], wt, { GIT_SEQUENCE_EDITOR: 'true' });
    expect(rb.status, rb.stderr).toBe(0);
    const last = git(wt, 'rev-parse', 'HEAD').trim();
    git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    expect(run('git', ['cherry-pick', last], wt, { GIT_COMMITTER_DATE: new Date(Date.now() + 60_000).toISOString() }).status).toBe(0);

    const v = intent(wt, ['verify', '--json']);
    const out = JSON.parse(v.stdout);
    expect(out.findings).toEqual([]);
    expect(v.status).toBe(0);
    expect(out.governed).toBe(300);

    // One forged hash in the middle of the history is found and named.
    const victim = git(wt, 'rev-parse', 'HEAD~150').trim();
    const note = git(wt, 'notes', '--ref=intents', 'show', victim).replace(/sha256:[0-9a-f]{64}/, 'sha256:' + 'a'.repeat(64));
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', note.trimEnd(), victim);
    const bad = JSON.parse(intent(wt, ['verify', '--json', '--no-ledger']).stdout);
    expect(bad.findings.map((f: any) => [f.code, f.commit])).toEqual([['HASH_MISMATCH', victim]]);
  }, 400_000); // one long test: 300 commits (about 2 minutes on a loaded 2-core machine, over 3 at worst)
});
