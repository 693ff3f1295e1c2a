import { describe, expect, it } from 'vitest';
import { identityKey, intentOfRef, parseAuthority, parseUpdates, pusherFromEnv } from '../../lib/authority/index.js';

describe('authority.yaml', () => {
  it('defaults to no agents and main protected; reads agents and protected branches', () => {
    expect(parseAuthority(undefined)).toEqual({ config: { protectedBranches: ['main'], agents: new Map(), identityCase: 'insensitive', maxBlobBytes: null, timeLimitSeconds: 600, humans: null, unlisted: 'human', unlistedSetting: false }, problem: null });
    const r = parseAuthority('protected_branches: [main, refs/heads/release]\nagents:\n  bot-1: ["INT-001", "INT-002"]\n  bot-2: "*"\n');
    expect(r.problem).toBeNull();
    expect(r.config.protectedBranches).toEqual(['main', 'release']);
    expect([...r.config.agents]).toEqual([['bot-1', ['INT-001', 'INT-002']], ['bot-2', ['*']]]);
  });

  it('reports what is wrong instead of guessing (an unusable file refuses every push)', () => {
    expect(parseAuthority('agents: [a, b]\n').problem).toMatch(/agents must map/);
    expect(parseAuthority('agents:\n  bot: [1]\n').problem).toMatch(/agents\.bot must be a list of intent ids/);
    expect(parseAuthority('protected_branches: main\n').problem).toMatch(/protected_branches must be a list/);
    expect(parseAuthority('agent: {}\n').problem).toMatch(/unknown key "agent"/);
    expect(parseAuthority('agents: [\n').problem).toMatch(/not valid YAML/);
    expect(parseAuthority('identity_case: upper\n').problem).toMatch(/identity_case must be "insensitive" \(the default\) or "sensitive"/);
  });

  it('compares identities as the host does: case-folded by default (Agent-1 listed, agent-1 pushing is that agent), as written with identity_case: sensitive', () => {
    const folded = parseAuthority('agents:\n  Agent-1: ["INT-001"]\n');
    expect(folded.problem).toBeNull();
    expect(identityKey(folded.config, 'agent-1')).toBe(identityKey(folded.config, 'AGENT-1'));
    expect(folded.config.agents.get(identityKey(folded.config, 'agent-1'))).toEqual(['INT-001']);
    // Two entries one login: refused, naming both.
    expect(parseAuthority('agents:\n  bot: ["INT-001"]\n  BOT: ["INT-002"]\n').problem).toMatch(/lists "bot" and "BOT", one login/);
    const exact = parseAuthority('identity_case: sensitive\nagents:\n  Agent-1: ["INT-001"]\n  agent-1: ["INT-002"]\n');
    expect(exact.problem).toBeNull();
    expect(exact.config.agents.get(identityKey(exact.config, 'Agent-1'))).toEqual(['INT-001']);
    expect(exact.config.agents.get(identityKey(exact.config, 'AGENT-1'))).toBeUndefined();
  });
});

describe('the pusher and the pushed refs', () => {
  it('takes the identity the host gives, in order, ignoring blanks', () => {
    expect(pusherFromEnv({})).toBeNull();
    expect(pusherFromEnv({ REMOTE_USER: ' ', GL_USERNAME: 'gl' })).toEqual({ name: 'gl', from: 'GL_USERNAME' });
    expect(pusherFromEnv({ GITHUB_ACTOR: 'gh', REMOTE_USER: 'web' })).toEqual({ name: 'web', from: 'REMOTE_USER' });
    expect(pusherFromEnv({ GITEA_PUSHER_NAME: 'tea' })?.name).toBe('tea');
    // gitolite gives its hooks GL_USER.
    expect(pusherFromEnv({ GL_USER: 'agent-1' })).toEqual({ name: 'agent-1', from: 'GL_USER' });
  });

  it('parses pre-receive input and names intent refs', () => {
    const a = 'a'.repeat(40);
    const z = '0'.repeat(40);
    expect(parseUpdates(`${z} ${a} refs/heads/intent/INT-001\n${a} ${z} refs/heads/old\ngarbage\n\n`)).toEqual([
      { old: z, new: a, ref: 'refs/heads/intent/INT-001' },
      { old: a, new: z, ref: 'refs/heads/old' },
    ]);
    expect(intentOfRef('refs/heads/intent/INT-001')).toBe('INT-001');
    expect(intentOfRef('refs/heads/intent/')).toBeNull();
    expect(intentOfRef('refs/heads/main')).toBeNull();
    expect(intentOfRef('refs/remotes/origin/intent/INT-001')).toBeNull();
  });
});

describe('max_blob_bytes', () => {
  it('takes a whole number of bytes, and refuses anything else with the example', () => {
    expect(parseAuthority('max_blob_bytes: 1000\n').config.maxBlobBytes).toBe(1000);
    for (const bad of ['max_blob_bytes: 0\n', 'max_blob_bytes: -5\n', 'max_blob_bytes: 1.5\n', 'max_blob_bytes: "64M"\n']) {
      expect(parseAuthority(bad).problem, bad).toMatch(/max_blob_bytes must be a whole number of bytes, e\.g\. 134217728/);
    }
  });
});

describe('humans and unlisted', () => {
  it('listing agents or humans refuses every identity in neither list (secure by default); unlisted: human says otherwise; twins are refused', () => {
    const none = parseAuthority('agents:\n  agent-1: ["INT-001"]\n').config;
    expect([none.humans, none.unlisted, none.unlistedSetting]).toEqual([null, 'refuse', false]);
    expect(parseAuthority('protected_branches: ["main"]\n').config.unlisted).toBe('human');
    const listed = parseAuthority('agents:\n  agent-1: ["INT-001"]\nhumans: ["Alice"]\n').config;
    expect([[...listed.humans!], listed.unlisted]).toEqual([['alice'], 'refuse']);
    expect(parseAuthority('humans: ["alice"]\nunlisted: human\n').config.unlisted).toBe('human');
    expect(parseAuthority('unlisted: refuse\n').config.unlisted).toBe('refuse');
    expect(parseAuthority('unlisted: maybe\n').problem).toMatch(/unlisted must be "refuse"/);
    expect(parseAuthority('humans: alice\n').problem).toMatch(/humans must be a list of identities/);
    expect(parseAuthority('agents:\n  Agent-1: ["INT-001"]\nhumans: ["agent-1"]\n').problem).toMatch(/"agent-1" is listed as an agent and as a human/);
  });
});
