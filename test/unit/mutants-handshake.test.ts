import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../error-code.js';
import { handshakeFile, recordHandshake, requireHandshake, selectedIntent, type AgentSession } from '../../lib/agents/handshake.js';
import { IntentError } from '../../lib/core/errors.js';
import type { Repo } from '../../lib/git/repo.js';

// The handshake (issue 42, mutation testing): a session writes only after selecting the worktree's
// intent; sessions are told apart by agent and session id, and anything but a recorded selection
// of exactly that id refuses. It only reads repo.gitDir and repo.root: a folder stands in.

function fakeRepo(): Repo {
  const d = mkdtempSync(join(tmpdir(), 'handshake-'));
  return { gitDir: d, root: d } as unknown as Repo;
}

describe('handshake sessions', () => {
  it('refuses a session without a usable agent name or session id', () => {
    const repo = fakeRepo();
    const bad = [
      null, undefined, {}, { agent: 'a' }, { sessionId: 's' }, { agent: '', sessionId: 's' }, { agent: ' \t', sessionId: 's' },
      { agent: 'a', sessionId: '' }, { agent: 'a', sessionId: '  ' }, { agent: 1, sessionId: 's' }, { agent: 'a', sessionId: 2 },
    ] as unknown as AgentSession[];
    for (const s of bad) {
      expect(codeOf(() => handshakeFile(repo, s)), JSON.stringify(s)).toBe('INVALID_INPUT');
      expect(codeOf(() => recordHandshake(repo, s, 'INT-001')), JSON.stringify(s)).toBe('INVALID_INPUT');
    }
    expect(codeOf(() => handshakeFile(repo, { agent: 'a', sessionId: 's' }))).toBeUndefined();
  });

  it('keeps sessions apart even when agent and id run together the same way', () => {
    const repo = fakeRepo();
    const a = { agent: 'ab', sessionId: 'c' };
    const b = { agent: 'a', sessionId: 'bc' };
    expect(handshakeFile(repo, a)).not.toBe(handshakeFile(repo, b));
    expect(handshakeFile(repo, a)).toBe(handshakeFile(repo, { ...a }));
    expect(dirname(handshakeFile(repo, a))).toBe(join(repo.gitDir, 'intent-handshake'));
    // Named by the first 32 hex digits of SHA-256(agent NUL session id).
    expect(basename(handshakeFile(repo, a))).toMatch(/^[0-9a-f]{32}\.json$/);
    recordHandshake(repo, a, 'INT-001');
    expect(selectedIntent(repo, a)).toBe('INT-001');
    expect(selectedIntent(repo, b)).toBeNull();
    expect(codeOf(() => requireHandshake(repo, b, 'INT-001'))).toBe('NO_ACTIVE_INTENT');
  });

  it('refuses an intent id that is empty, blank or not a string, and records nothing', () => {
    const repo = fakeRepo();
    const s = { agent: 'cline', sessionId: 't' };
    for (const id of ['', '   ', 7, null] as unknown as string[]) {
      expect(codeOf(() => recordHandshake(repo, s, id)), String(id)).toBe('INVALID_INPUT');
    }
    expect(selectedIntent(repo, s)).toBeNull();
  });

  it('records the selection as JSON with the session and the time', () => {
    const repo = fakeRepo();
    const s = { agent: 'cline', sessionId: 't' };
    recordHandshake(repo, s, 'INT-007');
    const body = JSON.parse(readFileSync(handshakeFile(repo, s), 'utf8'));
    expect(body).toMatchObject({ agent: 'cline', sessionId: 't', intent: 'INT-007' });
    expect(Number.isNaN(Date.parse(body.at))).toBe(false);
    expect(readFileSync(handshakeFile(repo, s), 'utf8').endsWith('}\n')).toBe(true);
  });

  it('treats an unreadable or malformed selection as none', () => {
    const repo = fakeRepo();
    const s = { agent: 'cline', sessionId: 't' };
    const file = handshakeFile(repo, s);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{broken');
    expect(selectedIntent(repo, s)).toBeNull();
    writeFileSync(file, JSON.stringify({ intent: 5 }));
    expect(selectedIntent(repo, s)).toBeNull();
    expect(codeOf(() => requireHandshake(repo, s, 'INT-001'))).toBe('NO_ACTIVE_INTENT');
    writeFileSync(file, JSON.stringify({ intent: 'INT-001' }));
    expect(selectedIntent(repo, s)).toBe('INT-001');
    expect(codeOf(() => requireHandshake(repo, s, 'INT-001'))).toBeUndefined();
  });

  it('says which intent the session selected and which the worktree works on', () => {
    const repo = fakeRepo();
    const s = { agent: 'cline', sessionId: 't' };
    recordHandshake(repo, s, 'INT-002');
    try {
      requireHandshake(repo, s, 'INT-001');
      expect.unreachable();
    } catch (e) {
      const err = e as IntentError;
      expect(err.code).toBe('NO_ACTIVE_INTENT');
      expect(err.message).toContain('This session selected INT-002, but this worktree works on INT-001.');
      expect(err.data).toMatchObject({ intent: 'INT-001', selected: 'INT-002', agent: 'cline', session: 't', worktree: repo.root });
    }
  });
});
