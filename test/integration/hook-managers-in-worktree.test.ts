// A hook manager installed inside an intent worktree after `intent checkout` (what `npm install`
// does through lefthook's postinstall): the worktree stays governed, what it changed in the main
// worktree is reported and fixed, then installed in the main worktree it runs in both; `intent
// uninstall` leaves no intent behind. (Shared matrix: hook-managers.ts.)
import { describe, expect, it } from 'vitest';
import { expectRefused, intent, run } from '../helpers.js';
import { MANAGERS, prepare, preCommitRequired, copy, ok, governed, reportedAndFixed, noIntentLeft } from './hook-managers.js';

prepare();
preCommitRequired();

describe.each(MANAGERS)('$name', (m) => {
  it('installed inside an intent worktree after intent checkout: the worktree stays governed, the main worktree\'s loss is reported', () => {
    const { repo, env, marks } = copy();
    ok(repo, ['init']);
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path;
    if (m.name === 'pre-commit') {
      // It refuses while core.hooksPath is set (as it is in an intent worktree): nothing written.
      expectRefused(run('pre-commit', ['install'], wt, env), 'core.hooksPath', 'pre-commit install');
    } else m.install(wt, env);
    governed(wt, env);
    const folder = JSON.parse(intent(repo, ['doctor', '--json']).stdout).checks.find((c: { subject: string }) => c.subject === 'worktree hooks');
    expect(folder.ok, folder.message).toBe(true);
    // Installed again in the main worktree (where managers belong): its hook runs in both.
    m.install(repo, env);
    reportedAndFixed(repo);
    const n = marks().filter((x) => x === m.name).length;
    governed(wt, env);
    expect(marks().filter((x) => x === m.name).length).toBeGreaterThan(n);

    ok(repo, ['uninstall']);
    noIntentLeft(repo, m.dirs);
    expect(run('git', ['config', '--worktree', 'core.hooksPath'], wt).stdout.trim()).toBe('');
  });
});
