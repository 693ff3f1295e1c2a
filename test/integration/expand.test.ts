import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listExpansionRequests, requestExpansion } from '../../lib/intents/expansion.js';
import { checkoutIntent, git, governedRepo, intent } from '../helpers.js';

// `intent expand` as a real process, and the request store behind it.

const INTENTS = [
  { id: 'INT-001', name: 'JWT Authentication Migration', scope: ['src/auth/**'] },
  { id: 'INT-002', scope: ['src/billing/**'] },
];

const requestsDir = (repo: string) => join(repo, '.git', 'intent', 'requests');
const requestFiles = (repo: string) => (existsSync(requestsDir(repo)) ? readdirSync(requestsDir(repo)) : []);

describe('intent expand', () => {
  it('files a PENDING request, prints its id on stdout and how a human approves it', () => {
    const repo = governedRepo(INTENTS);
    const r = intent(repo, ['expand', 'INT-001', 'src/billing/**', 'src/shared/plan.ts', '--reason', 'JWT claims carry the billing plan']);
    expect(r.status, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^REQ-\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(r.stdout).toBe(`${id}\n`);
    expect(r.stderr).toContain(`a human approves with: intent approve ${id}`);
    expect(requestFiles(repo)).toEqual([`${id}.json`]);
    const onDisk = JSON.parse(readFileSync(join(requestsDir(repo), `${id}.json`), 'utf8'));
    expect(onDisk).toMatchObject({
      id, intent: 'INT-001', globs: ['src/billing/**', 'src/shared/plan.ts'],
      reason: 'JWT claims carry the billing plan', requested_by: 'cli', status: 'PENDING',
    });
    expect(Number.isNaN(Date.parse(onDisk.requested_at))).toBe(false);
    expect(listExpansionRequests(repo)).toEqual([onDisk]);
    // Nothing is committed or shown to git.
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('--json prints the request; requests from an intent worktree land in the shared store', () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-002');
    const r = intent(wt, ['expand', 'INT-002', 'docs/billing/', '--reason', 'document the rounding rule', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const req = JSON.parse(r.stdout);
    expect(req).toMatchObject({ intent: 'INT-002', globs: ['docs/billing/'], status: 'PENDING', requested_by: 'cli' });
    expect(listExpansionRequests(repo).map((x) => x.id)).toEqual([req.id]);
    expect(listExpansionRequests(wt).map((x) => x.id)).toEqual([req.id]);
  });

  it('refuses an unknown intent with exit 1 and names the known ones', () => {
    const repo = governedRepo(INTENTS);
    const r = intent(repo, ['expand', 'INT-404', 'src/**', '--reason', 'x']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Unknown intent "INT-404"');
    expect(r.stderr).toContain('INT-001, INT-002');
    const j = intent(repo, ['expand', 'INT-404', 'src/**', '--reason', 'x', '--json']);
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout).error.code).toBe('UNKNOWN_INTENT');
    expect(requestFiles(repo)).toEqual([]);
  });

  it('refuses bad globs and an empty reason with exit 1 (INVALID_INPUT), listing every bad glob', () => {
    const repo = governedRepo(INTENTS);
    const r = intent(repo, ['expand', 'INT-001', '../outside/**', '/etc/passwd', 'src/ok/**', '--reason', 'x', '--json']);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toContain('globs[0]: "../outside/**" contains ".."');
    expect(err.message).toContain('globs[1]: "/etc/passwd" is an absolute path');
    expect(err.message).not.toContain('src/ok');
    const neg = intent(repo, ['expand', 'INT-001', '!src/auth/x.ts', '--reason', 'x']);
    expect(neg.status).toBe(1);
    expect(neg.stderr).toContain('negation');
    const empty = intent(repo, ['expand', 'INT-001', 'src/x/**', '--reason', '  ']);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('needs a reason');
    expect(requestFiles(repo)).toEqual([]);
  });

  it('is a usage error (exit 2) without --reason or without a glob', () => {
    const repo = governedRepo(INTENTS);
    const noReason = intent(repo, ['expand', 'INT-001', 'src/x/**']);
    expect(noReason.status).toBe(2);
    expect(noReason.stderr).toContain('--reason');
    const noGlob = intent(repo, ['expand', 'INT-001', '--reason', 'x']);
    expect(noGlob.status).toBe(2);
    expect(requestFiles(repo)).toEqual([]);
  });

  it('gives sortable, unique ids, also for many requests in the same second', () => {
    const repo = governedRepo(INTENTS);
    const now = new Date('2026-11-23T09:15:00.123Z');
    const ids = Array.from({ length: 30 }, () =>
      requestExpansion(repo, { intentId: 'INT-001', globs: ['src/x/**', 'src/x/**'], reason: 'r', requestedBy: 'test', now }).id);
    expect(new Set(ids).size).toBe(30);
    for (const id of ids) expect(id.startsWith('REQ-20261123-091500-')).toBe(true);
    const later = requestExpansion(repo, { intentId: 'INT-001', globs: ['src/y/**'], reason: 'r', requestedBy: 'test', now: new Date('2026-11-23T09:15:01Z') });
    const listed = listExpansionRequests(repo);
    expect(listed).toHaveLength(31);
    expect(listed.at(-1)!.id).toBe(later.id);
    expect(listed[0].globs).toEqual(['src/x/**']); // duplicates dropped
    expect(() => requestExpansion(repo, { intentId: 'INT-001', globs: ['src/x/**'], reason: 'x'.repeat(2001), requestedBy: 'test' }))
      .toThrow(/at most 2000/);
  });
});
