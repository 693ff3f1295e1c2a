// A hook manager installed before `intent init`: both run, governance holds in the intent worktree
// and the main worktree, a re-install of the manager is reported and fixed, `intent uninstall` gives
// the manager's files back byte for byte. (Shared matrix: hook-managers.ts.)
import { describe, expect, it } from 'vitest';
import { expectRefused, git, intent } from '../helpers.js';
import { MANAGERS, prepare, preCommitRequired, copy, snapshot, ok, doctorOk, commit, governed, reportedAndFixed, noIntentLeft } from './hook-managers.js';

prepare();
preCommitRequired();

describe.each(MANAGERS)('$name', (m) => {
  it('installed before intent init: both run, governance holds, a re-install is reported and fixed, uninstall gives its files back', () => {
    const { repo, env, marks } = copy();
    m.install(repo, env);
    const before = snapshot(repo, m.dirs);
    ok(repo, ['init']);
    expect(doctorOk(repo), intent(repo, ['doctor']).stdout).toBe(true);
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path;
    governed(wt, env);
    expect(marks(), 'the manager\'s hook runs in the intent worktree').toContain(m.name);
    // A human commit in the main worktree runs the manager's hook too.
    const n = marks().length;
    expect(commit(repo, 'README.md', env).status).toBe(0);
    expect(marks().length).toBe(n + 1);
    // An out-of-scope commit naming the intent is refused in the main worktree.
    expectRefused(commit(repo, 'src/other.ts', env, { INTENT_ID: 'INT-001' }), 'Scope Violation: INT-001 is not authorized to edit src/other.ts');
    git(repo, 'checkout', '--', 'src/other.ts');

    m.install(repo, env);
    reportedAndFixed(repo);
    governed(wt, env);

    ok(repo, ['uninstall']);
    expect(snapshot(repo, m.dirs)).toEqual(before);
    noIntentLeft(repo, m.dirs);
  });
});
