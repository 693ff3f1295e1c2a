// `intent notes fold`: the per-intent notes refs folded into refs/notes/intents, in a real
// repository: notes added where a commit has none, never changed where it has one, and nothing
// taken that the ref's intent cannot speak for.
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, run, writeFiles } from '../helpers.js';

function fold(cwd: string, args: string[] = []): any {
  const r = intent(cwd, ['notes', 'fold', '--json', ...args]);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout);
}

describe('intent notes fold', () => {
  it('adds the notes of the ref\'s own intent, leaves out what names another intent, and is idempotent', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['docs/**'] }], { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    const wt1 = checkoutIntent(repo, 'INT-001');
    writeFiles(wt1, { 'src/a.ts': 'a\nb\n' });
    git(wt1, 'commit', '-q', '-am', 'one');
    const c1 = git(wt1, 'rev-parse', 'HEAD').trim();
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'docs/x.md': 'x\ny\n' });
    git(wt2, 'commit', '-q', '-am', 'two');
    const c2 = git(wt2, 'rev-parse', 'HEAD').trim();
    // What the pushes would have left on a server: each intent's ref; INT-002's also carries INT-001's note.
    const all = git(repo, 'rev-parse', 'refs/notes/intents').trim();
    git(repo, 'update-ref', 'refs/notes/intent/INT-002', all);
    git(repo, 'notes', '--ref=refs/notes/intent/INT-001', 'add', '-C', git(repo, 'rev-parse', `refs/notes/intents:${c1}`).trim(), c1);
    git(repo, 'update-ref', '-d', 'refs/notes/intents');

    const out = fold(repo);
    expect(out).toMatchObject({ added: 2, refs: ['refs/notes/intent/INT-001', 'refs/notes/intent/INT-002'] });
    expect(out.skipped).toEqual([{ ref: 'refs/notes/intent/INT-002', commit: c1, why: 'intent/INT-002 does not reach it' }]);
    expect(git(repo, 'log', '--notes=intents', '-1', c1)).toContain('INT-001');
    expect(git(repo, 'log', '--notes=intents', '-1', c2)).toContain('INT-002');
    const tip = git(repo, 'rev-parse', 'refs/notes/intents').trim();
    expect(fold(repo)).toMatchObject({ added: 0, tip });

    // A note for INT-001's commit rewritten in INT-002's ref as INT-002's: left out while
    // intent/INT-002 does not reach the commit, and, once it does (a merge), because another
    // intent's note has it: another intent's note stays as it is.
    const forged = git(repo, 'notes', '--ref=intents', 'show', c1).replace(/INT-001/g, 'INT-002');
    run('git', ['notes', '--ref=refs/notes/intent/INT-002', 'add', '-f', '-F', '-', c1], repo, {}, forged);
    expect(fold(repo, ['refs/notes/intent/INT-002']).skipped).toEqual([{ ref: 'refs/notes/intent/INT-002', commit: c1, why: 'intent/INT-002 does not reach it' }]);
    const merge = git(repo, 'commit-tree', '-p', c2, '-p', c1, '-m', 'merge', `${c2}^{tree}`).trim();
    git(repo, 'update-ref', 'refs/heads/intent/INT-002', merge);
    const again = fold(repo, ['refs/notes/intent/INT-002']);
    expect(again.skipped).toEqual([{ ref: 'refs/notes/intent/INT-002', commit: c1, why: 'refs/notes/intents has a note of another intent for it' }]);
    expect(git(repo, 'rev-parse', 'refs/notes/intents').trim()).toBe(tip);
    expect(intent(repo, ['notes', 'fold', 'refs/heads/main']).stderr).toContain('refs/heads/main is not a per-intent notes ref (refs/notes/intent/<ID>)');
  });
});
