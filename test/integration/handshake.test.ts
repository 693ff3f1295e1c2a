import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { handshakeFile, recordHandshake, requireHandshake, selectedIntent } from '../../lib/agents/handshake.js';
import { IntentError } from '../../lib/core/errors.js';
import { openRepo, type Repo } from '../../lib/git/repo.js';
import { checkoutIntent, forFile, governedRepo } from '../helpers.js';

describe('the handshake', () => {
  let wt: Repo;
  let other: Repo;
  beforeAll(() => forFile(() => {
    const repo = governedRepo([
      { id: 'INT-001', name: 'a', scope: ['src/a/**'] },
      { id: 'INT-002', name: 'b', scope: ['src/b/**'] },
    ]);
    wt = openRepo(checkoutIntent(repo, 'INT-001'));
    other = openRepo(checkoutIntent(repo, 'INT-002'));
  }));
  const session = { agent: 'cline', sessionId: 'task-1' };

  function refusal(fn: () => void): IntentError {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(IntentError);
      return e as IntentError;
    }
    throw new Error('expected a refusal');
  }

  it('refuses a session that selected nothing, with what to do', () => {
    // A session of its own: the next test makes its selections in `session`.
    const e = refusal(() => requireHandshake(wt, { agent: 'cline', sessionId: 'task-none' }, 'INT-001'));
    expect(e.code).toBe('NO_ACTIVE_INTENT');
    expect(e.message.startsWith('You must cite a valid active Intent ID.')).toBe(true);
    expect(e.message).toContain('select_active_intent with intent_id "INT-001"');
    expect(e.message).toContain('intent context INT-001');
    expect(e.data).toMatchObject({ intent: 'INT-001', selected: null, agent: 'cline', session: 'task-none' });
  });

  it('accepts the selected intent, refuses another id, and keeps sessions and worktrees apart', () => {
    recordHandshake(wt, session, 'INT-001');
    expect(() => requireHandshake(wt, session, 'INT-001')).not.toThrow();
    expect(selectedIntent(wt, session)).toBe('INT-001');
    // The file lives in this worktree's own git dir, complete JSON (written atomically).
    const file = handshakeFile(wt, session);
    expect(file.startsWith(wt.gitDir + '/')).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ agent: 'cline', sessionId: 'task-1', intent: 'INT-001' });
    expect(readdirSync(join(wt.gitDir, 'intent-handshake')).filter((n) => !n.endsWith('.json'))).toEqual([]);

    const wrong = refusal(() => requireHandshake(wt, session, 'INT-002'));
    expect(wrong.message).toContain('selected INT-001, but this worktree works on INT-002');
    expect(refusal(() => requireHandshake(wt, { agent: 'cline', sessionId: 'task-2' }, 'INT-001')).data.selected).toBeNull();
    expect(refusal(() => requireHandshake(wt, { agent: 'cursor', sessionId: 'task-1' }, 'INT-001')).code).toBe('NO_ACTIVE_INTENT');
    expect(refusal(() => requireHandshake(other, session, 'INT-002')).code).toBe('NO_ACTIVE_INTENT');
    expect(existsSync(handshakeFile(other, session))).toBe(false);

    // A new selection replaces the old one.
    recordHandshake(wt, session, 'INT-002');
    expect(refusal(() => requireHandshake(wt, session, 'INT-001')).message).toContain('selected INT-002');
  });

  it('refuses a session without an id and an empty intent id', () => {
    expect(refusal(() => recordHandshake(wt, { agent: 'cline', sessionId: ' ' }, 'INT-001')).code).toBe('INVALID_INPUT');
    expect(refusal(() => recordHandshake(wt, session, '')).code).toBe('INVALID_INPUT');
  });
});
