// A hook manager installed after `intent init`: the main worktree's loss is reported loudly (or
// governance still holds), `intent doctor --fix` restores it, both run; `intent uninstall` leaves
// exactly the files the manager alone writes. (Shared matrix: hook-managers.ts.)
import { describe, expect, it } from 'vitest';
import { expectRefused, git } from '../helpers.js';
import { MANAGERS, prepare, preCommitRequired, copy, snapshot, ok, commit, governed, reportedAndFixed, noIntentLeft } from './hook-managers.js';

prepare();
preCommitRequired();

describe.each(MANAGERS)('$name', (m) => {
  it('installed after intent init: reported loudly (or still governed), fixed by doctor --fix; uninstall leaves exactly the manager\'s files', () => {
    const clean = copy();
    m.install(clean.repo, clean.env);
    const expected = snapshot(clean.repo, m.dirs);

    const { repo, env, marks } = copy();
    ok(repo, ['init']);
    m.install(repo, env);
    reportedAndFixed(repo);
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path;
    governed(wt, env);
    expect(marks()).toContain(m.name);
    expectRefused(commit(repo, 'src/other.ts', env, { INTENT_ID: 'INT-001' }), 'Scope Violation: INT-001 is not authorized to edit src/other.ts');
    git(repo, 'checkout', '--', 'src/other.ts');

    ok(repo, ['uninstall']);
    expect(snapshot(repo, m.dirs)).toEqual(expected);
    noIntentLeft(repo, m.dirs);
  });
});
