import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../error-code.js';
import {
  assertBreakerClosed, breakerFile, breakerIntents, BREAKER_DEFAULTS, LOOP_REPEATS, readBreaker, recordRejection, resetBreaker, validIntentId,
} from '../../lib/guardrails/breaker.js';
import { IntentError } from '../../lib/core/errors.js';
import type { Repo } from '../../lib/git/repo.js';

// The circuit breaker (issue 42, mutation testing): it opens after maxRejections refusals within
// the window or LOOP_REPEATS refusals of the same staged tree, stays open, and fails closed on a
// corrupt state file. The breaker only reads repo.commonDir, so a folder stands in for a repository.

function fakeRepo(): Repo {
  const d = mkdtempSync(join(tmpdir(), 'breaker-'));
  return { commonDir: d, gitDir: d, root: d } as unknown as Repo;
}
const at = (min: number) => new Date(Date.UTC(2026, 0, 1, 12, min));
const reject = (tree: string | null, reason = 'out of scope') => ({ tree, code: 'SCOPE_VIOLATION', reason });


describe('intent ids', () => {
  it('accepts the registry\'s ids and nothing that could leave the folder', () => {
    for (const id of ['INT-001', 'a', 'A_b-9', 'x'.repeat(64)]) expect(validIntentId(id)).toBe(true);
    for (const id of ['', '-a', '_a', '../x', 'a/b', 'a.b', 'x'.repeat(65), 'a b', ' a', 'a\n']) expect(validIntentId(id)).toBe(false);
    const repo = fakeRepo();
    expect(breakerFile(repo, 'INT-1')).toBe(join(repo.commonDir, 'intent', 'breaker', 'INT-1.json'));
    expect(codeOf(() => breakerFile(repo, '../x'))).toBe('INVALID_INPUT');
  });
});

describe('recordRejection', () => {
  it('opens after maxRejections distinct refusals within the window, not before', () => {
    const repo = fakeRepo();
    const max = BREAKER_DEFAULTS.maxRejections;
    for (let i = 0; i < max - 1; i++) {
      const r = recordRejection(repo, 'INT-1', reject(`tree${i}`), { now: at(i) });
      expect(r.tripped).toBeNull();
      expect(r.state.open).toBeNull();
      expect(r.state.rejections).toHaveLength(i + 1);
    }
    expect(() => assertBreakerClosed(repo, 'INT-1')).not.toThrow();
    const last = recordRejection(repo, 'INT-1', reject('treeLast', 'budget'), { now: at(max - 1) });
    expect(last.tripped).toBe(`${max} rejected commits in ${BREAKER_DEFAULTS.windowMinutes} minutes (last: budget)`);
    expect(last.state.open).toEqual({ since: at(max - 1).toISOString(), reason: last.tripped });
    expect(readBreaker(repo, 'INT-1')).toEqual(last.state);
    expect(codeOf(() => assertBreakerClosed(repo, 'INT-1'))).toBe('BREAKER_OPEN');
    // Open stays open: a further refusal does not trip again nor close it.
    const more = recordRejection(repo, 'INT-1', reject('t'), { now: at(max) });
    expect(more.tripped).toBeNull();
    expect(more.state.open).toEqual(last.state.open);
  });

  it('forgets refusals older than the window', () => {
    const repo = fakeRepo();
    recordRejection(repo, 'INT-1', reject('a'), { now: at(0), maxRejections: 2, windowMinutes: 1 });
    // Exactly one minute later the first refusal is at the window's edge: out.
    const r = recordRejection(repo, 'INT-1', reject('b'), { now: new Date(at(0).getTime() + 60_000), maxRejections: 2, windowMinutes: 1 });
    expect(r.tripped).toBeNull();
    expect(r.state.rejections.map((x) => x.tree)).toEqual(['b']);
    const r2 = recordRejection(repo, 'INT-1', reject('c'), { now: new Date(at(0).getTime() + 90_000), maxRejections: 2, windowMinutes: 1 });
    expect(r2.tripped).toBe('2 rejected commits in 1 minute (last: out of scope)');
  });

  it('opens on the same staged tree refused LOOP_REPEATS times', () => {
    const repo = fakeRepo();
    const tree = 'abcdef0123456789abcdef';
    const opts = { maxRejections: 100 };
    recordRejection(repo, 'INT-1', reject('other'), { ...opts, now: at(0) });
    for (let i = 1; i < LOOP_REPEATS; i++) expect(recordRejection(repo, 'INT-1', reject(tree), { ...opts, now: at(i) }).tripped).toBeNull();
    const r = recordRejection(repo, 'INT-1', reject(tree), { ...opts, now: at(LOOP_REPEATS) });
    expect(r.tripped).toBe(`the same staged tree ${tree.slice(0, 12)} was refused ${LOOP_REPEATS} times in 10 minutes, a retry loop (last: out of scope)`);
  });

  it('does not count refusals without a tree as the same tree', () => {
    const repo = fakeRepo();
    for (let i = 0; i < LOOP_REPEATS + 1; i++) {
      expect(recordRejection(repo, 'INT-1', reject(null), { maxRejections: 100, now: at(i) }).tripped).toBeNull();
    }
  });

  it('keeps at most 100 refusals', () => {
    const repo = fakeRepo();
    let r;
    for (let i = 0; i < 102; i++) r = recordRejection(repo, 'INT-1', reject(`t${i}`), { maxRejections: 1000, windowMinutes: 1000, now: new Date(at(0).getTime() + i * 1000) });
    expect(r!.state.rejections).toHaveLength(100);
    expect(r!.state.rejections[0].tree).toBe('t2');
    expect(r!.state.rejections[99].tree).toBe('t101');
  });
});

describe('readBreaker', () => {
  it('is closed and empty without a file, and fails closed on a corrupt one', () => {
    const repo = fakeRepo();
    expect(readBreaker(repo, 'INT-1')).toEqual({ intent: 'INT-1', open: null, rejections: [] });
    expect(() => assertBreakerClosed(repo, 'INT-1')).not.toThrow();
    expect(() => assertBreakerClosed(repo, '../bad')).not.toThrow();
    const file = breakerFile(repo, 'INT-1');
    mkdirSync(join(repo.commonDir, 'intent', 'breaker'), { recursive: true });
    writeFileSync(file, '{not json');
    const s = readBreaker(repo, 'INT-1');
    expect(s.open).not.toBeNull();
    expect(s.open!.reason).toContain('corrupt');
    expect(codeOf(() => assertBreakerClosed(repo, 'INT-1'))).toBe('BREAKER_OPEN');
  });

  it('keeps only well-formed rejections and an open state with both fields', () => {
    const repo = fakeRepo();
    mkdirSync(join(repo.commonDir, 'intent', 'breaker'), { recursive: true });
    const good = { at: 'x', tree: null, code: 'C', reason: 'r' };
    writeFileSync(breakerFile(repo, 'INT-1'), JSON.stringify({
      open: { since: 's' }, rejections: [good, null, { at: 1, code: 'C', reason: 'r' }, { at: 'x', code: 2, reason: 'r' }, { at: 'x', code: 'C' }],
    }));
    expect(readBreaker(repo, 'INT-1')).toEqual({ intent: 'INT-1', open: null, rejections: [good] });
    writeFileSync(breakerFile(repo, 'INT-1'), JSON.stringify({ open: { reason: 'r' }, rejections: 'no' }));
    expect(readBreaker(repo, 'INT-1')).toEqual({ intent: 'INT-1', open: null, rejections: [] });
    writeFileSync(breakerFile(repo, 'INT-1'), JSON.stringify({ open: { since: 's', reason: 'r', extra: 1 } }));
    expect(readBreaker(repo, 'INT-1').open).toEqual({ since: 's', reason: 'r' });
  });
});

describe('resetBreaker and breakerIntents', () => {
  it('closes an open breaker, forgets its refusals and reports what it was', () => {
    const repo = fakeRepo();
    expect(breakerIntents(repo)).toEqual(new Set());
    expect(resetBreaker(repo, 'INT-1')).toEqual({ wasOpen: false, reason: null, rejections: 0 });
    recordRejection(repo, 'INT-1', reject('t'), { maxRejections: 2, now: at(0) });
    const open = recordRejection(repo, 'INT-1', reject('u'), { maxRejections: 2, now: at(1) });
    recordRejection(repo, 'INT-2', reject('t'), { now: at(0) });
    writeFileSync(join(repo.commonDir, 'intent', 'breaker', 'INT-1.json.lock.stale'), '');
    expect(breakerIntents(repo)).toEqual(new Set(['INT-1', 'INT-2']));
    expect(resetBreaker(repo, 'INT-1')).toEqual({ wasOpen: true, reason: open.tripped, rejections: 2 });
    expect(existsSync(breakerFile(repo, 'INT-1'))).toBe(false);
    expect(() => assertBreakerClosed(repo, 'INT-1')).not.toThrow();
    expect(resetBreaker(repo, 'INT-2')).toEqual({ wasOpen: false, reason: null, rejections: 1 });
  });

  it('names the intent, the time and the reason in the open error', () => {
    const repo = fakeRepo();
    recordRejection(repo, 'INT-1', reject('t'), { maxRejections: 1, now: at(0) });
    try {
      assertBreakerClosed(repo, 'INT-1');
      expect.unreachable();
    } catch (e) {
      const err = e as IntentError;
      expect(err.code).toBe('BREAKER_OPEN');
      expect(err.message).toContain(`Circuit breaker open for INT-1 since ${at(0).toISOString()}: 1 rejected commits`);
      expect(err.message).toContain('intent reset INT-1');
    }
  });
});

describe('what the breaker reports', () => {
  it('names the refused id and the open state in the errors\' data', () => {
    const repo = fakeRepo();
    try {
      breakerFile(repo, 'a/b');
      expect.unreachable();
    } catch (e) {
      expect((e as IntentError).data).toMatchObject({ intent: 'a/b' });
    }
    const r = recordRejection(repo, 'INT-1', reject('t'), { maxRejections: 1, now: at(0) });
    try {
      assertBreakerClosed(repo, 'INT-1');
      expect.unreachable();
    } catch (e) {
      expect((e as IntentError).data).toMatchObject({ intent: 'INT-1', since: at(0).toISOString(), reason: r.tripped });
    }
  });

  it('lists breaker files by their full intent id, and null when the folder cannot be listed', () => {
    const repo = fakeRepo();
    recordRejection(repo, 'INT-0001-long-name', reject('t'), { now: at(0) });
    recordRejection(repo, 'x', reject('t'), { now: at(0) });
    expect(breakerIntents(repo)).toEqual(new Set(['INT-0001-long-name', 'x']));
    const other = fakeRepo();
    mkdirSync(join(other.commonDir, 'intent'), { recursive: true });
    writeFileSync(join(other.commonDir, 'intent', 'breaker'), 'not a folder');
    expect(breakerIntents(other)).toBeNull();
  });

  it('keeps no rejections from a corrupt file', () => {
    const repo = fakeRepo();
    mkdirSync(join(repo.commonDir, 'intent', 'breaker'), { recursive: true });
    writeFileSync(breakerFile(repo, 'INT-1'), '{"rejections": [');
    expect(readBreaker(repo, 'INT-1').rejections).toEqual([]);
  });
});
