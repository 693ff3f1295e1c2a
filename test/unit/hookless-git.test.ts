// The pure parts of governing agents whose shell turns git's hooks off (Gemini CLI): the
// environment a commit needs (lib/git/hooks-env.ts), the command-line guard
// (lib/agents/hookless-git.ts), `intent commit`'s refusal of hook-skipping arguments, Gemini's
// folder-trust rule, and the agent markers of Gemini's and Codex's shells.
import { describe, expect, it } from 'vitest';
import { envHooksPaths, hooksRestoredEnv, withoutHooksPathOverrides } from '../../lib/git/hooks-env.js';
import { committingGitCommand, isIntentCommit } from '../../lib/agents/hookless-git.js';
import { skipsHooks } from '../../lib/lifecycle/commit.js';
import { geminiTrusts } from '../../lib/agents/agent-trust.js';
import { agentMarker } from '../../lib/core/agent-env.js';

const GEMINI = {
  PATH: '/usr/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_SYSTEM: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_COUNT: '3',
  GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_VALUE_0: '', GIT_CONFIG_KEY_1: 'core.hooksPath', GIT_CONFIG_VALUE_1: '',
  GIT_CONFIG_KEY_2: 'core.pager', GIT_CONFIG_VALUE_2: 'cat',
};

describe('hooks-env', () => {
  it('finds the hooksPath override and removes only it, renumbering the rest', () => {
    expect(envHooksPaths(GEMINI)).toEqual(['']);
    const env = withoutHooksPathOverrides(GEMINI);
    expect(env).toMatchObject({ GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_KEY_1: 'core.pager', GIT_CONFIG_VALUE_1: 'cat', GIT_CONFIG_GLOBAL: '/dev/null' });
    expect(env.GIT_CONFIG_KEY_2).toBeUndefined();
    expect(envHooksPaths(env)).toEqual([]);
  });

  it('a commit gets the user\'s config back only where the hooks were blanked', () => {
    const env = hooksRestoredEnv(GEMINI);
    expect(env.GIT_CONFIG_GLOBAL).toBeUndefined();
    expect(env.GIT_CONFIG_SYSTEM).toBeUndefined();
    expect(env.GIT_CONFIG_NOSYSTEM).toBeUndefined();
    expect(env.PATH).toBe('/usr/bin');
    // No override: nothing changes (a test's or a user's /dev/null global config stays).
    const plain = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'maintenance.auto', GIT_CONFIG_VALUE_0: 'false' };
    expect(hooksRestoredEnv(plain)).toEqual(plain);
    // The key is case-insensitive, and GIT_CONFIG_PARAMETERS counts too.
    expect(envHooksPaths({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'Core.HooksPath', GIT_CONFIG_VALUE_0: '/x' })).toEqual(['/x']);
    expect(hooksRestoredEnv({ GIT_CONFIG_PARAMETERS: "'core.hooksPath'=''" }).GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(hooksRestoredEnv({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: '' }).GIT_CONFIG_COUNT).toBeUndefined();
  });
});

describe('hookless-git: the command-line guard', () => {
  it('finds committing git commands in any form the text shows', () => {
    const cases: [string, string | undefined][] = [
      ['git commit -m x', 'commit'], ['git -C sub commit', 'commit'], ['/usr/local/bin/git commit', 'commit'], ['git --git-dir=.git commit', 'commit'],
      ['git -c a.b=c merge x', 'merge'], ['x && git pull', 'pull'], ['sh -c "git rebase main"', 'rebase'], ["bash -c 'git am p'", 'am'],
      ['git cherry-pick a', 'cherry-pick'], ['git revert HEAD', 'revert'], ['"git" commit', 'commit'], ['(git commit)', 'commit'], ['git  --no-pager  commit', 'commit'],
      ['git status', undefined], ['git log --grep commit', undefined], ['echo commit', undefined], ['intent commit -m x', undefined], ['legit commit', undefined],
      ['git commit-tree x', undefined], ['git commits', undefined], ['digit merge', undefined],
    ];
    for (const [c, sub] of cases) expect(committingGitCommand(c), c).toBe(sub);
  });

  it('knows `intent commit` with literal arguments that keep the hooks on', () => {
    for (const c of ['intent commit -m x', 'intent commit -q -m "feat: a b"', "npx intent commit -a -m 'x y'", 'intent commit -- src/a.ts']) expect(isIntentCommit(c), c).toBe(true);
    for (const c of ['intent commit -n -m x', 'intent commit --no-verify -m x', 'intent commit --amend', 'intent commit -m "$(id)"', 'intent commit -m x; rm -rf y', 'intent commit -m `id`', 'intent commitx']) {
      expect(isIntentCommit(c), c).toBe(false);
    }
  });

  it('intent commit refuses what skips the hooks, not a message that looks like it', () => {
    expect(skipsHooks(['-n', '-m', 'x'])).toBe('-n');
    expect(skipsHooks(['-anm', 'x'])).toBe('-anm');
    expect(skipsHooks(['--no-verify'])).toBe('--no-verify');
    expect(skipsHooks(['--no-ve'])).toBe('--no-ve');
    expect(skipsHooks(['-m', '-n'])).toBeNull();
    expect(skipsHooks(['-mn'])).toBeNull(); // -m with the message "n"
    expect(skipsHooks(['--message', '--no-verify'])).toBeNull();
    expect(skipsHooks(['-a', '-m', 'x', '--', '-n'])).toBeNull();
    expect(skipsHooks(['--no-edit'])).toBeNull();
  });
});

describe("Gemini CLI's folder trust", () => {
  it('the longest matching rule wins; TRUST_PARENT trusts the parent; DO_NOT_TRUST refuses', () => {
    expect(geminiTrusts({ '/w/repo.worktrees': 'TRUST_FOLDER' }, '/w/repo.worktrees/INT-001')).toBe(true);
    expect(geminiTrusts({ '/w/repo.worktrees/INT-001': 'TRUST_PARENT' }, '/w/repo.worktrees/INT-002')).toBe(true);
    expect(geminiTrusts({ '/w': 'TRUST_FOLDER', '/w/repo.worktrees': 'DO_NOT_TRUST' }, '/w/repo.worktrees/INT-001')).toBe(false);
    expect(geminiTrusts({ '/w/repo': 'TRUST_FOLDER' }, '/w/repo.worktrees/INT-001')).toBeUndefined();
  });
});

describe('agent markers', () => {
  it("Gemini CLI's and Codex's shells are agent processes", () => {
    expect(agentMarker({ GEMINI_CLI: '1' })).toContain('Gemini CLI');
    expect(agentMarker({ CODEX_THREAD_ID: 'x' })).toContain('Codex');
    expect(agentMarker({})).toBeNull();
  });
});
