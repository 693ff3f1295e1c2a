import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, expectRefused, fixture, git, governedRepo, intent, run, writeFiles } from '../helpers.js';
import { AGENT_MARKER_NAMES } from '../../lib/core/agent-env.js';

// `intent approve`, `intent reject` and `intent requests` as real processes: the human side of
// scope expansion, checked end to end through the pre-commit hook.

const REGISTRY = `# Team registry: hand-written, keep the comments!
active_intents:
  # The auth work
  - id: 'INT-001'
    name: JWT Authentication Migration   # a plain scalar
    status: PENDING    # intent checkout sets this
    owned_scope:
      - "src/auth/**"     # all of auth
      - 'src/middleware/jwt.ts'
    # constraints come next
    constraints: ["Must not use external auth providers"]

  - id: "INT-002"
    name: "Invoice rounding fix"
    status: 'PENDING'
    owned_scope: ["src/billing/**"]   # billing only
    updated_at: "2026-02-17T15:30:00Z"
`;

/** The environment of a human's terminal: none of the variables agent processes carry. */
function humanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = Object.fromEntries(AGENT_MARKER_NAMES.map((k) => [k, undefined]));
  return { ...env, ...extra };
}

/** A governed repository with REGISTRY committed and INT-001 checked out (built once per file, copied). */
function setup(): { repo: string; wt: string } {
  return fixture('setup', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], { 'README.md': '# r\n', 'src/auth/a.ts': 'a\n' });
    writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
    git(repo, 'commit', '-q', '-am', 'hand-written registry');
    const wt = checkoutIntent(repo, 'INT-001');
    return { repo, wt };
  });
}

const registryText = (repo: string) => readFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'utf8');
const requestOf = (repo: string, id: string) => JSON.parse(readFileSync(join(repo, '.git', 'intent', 'requests', `${id}.json`), 'utf8'));
const agentMd = (repo: string) => readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8');

function expand(cwd: string, id: string, ...globs: string[]): string {
  const r = intent(cwd, ['expand', id, ...globs, '--reason', 'the JWT carries the billing plan']);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('intent approve', () => {
  it('widens the scope: the commit refused before approval passes after it; only the new glob is added to the registry', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**');
    writeFiles(wt, { 'src/billing/plan.ts': 'export const plan = "pro";\n' });
    git(wt, 'add', '-A');
    expectRefused(run('git', ['commit', '-q', '-m', 'billing plan in the token'], wt), 'Scope Violation: INT-001 is not authorized to edit src/billing/plan.ts');

    const before = registryText(repo);
    const r = intent(repo, ['approve', req], humanEnv());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Approved ${req}`);
    expect(r.stdout).toContain('commit .orchestration/active_intents.yaml to record it');
    expect(registryText(repo)).toBe(before.replace(
      "      - 'src/middleware/jwt.ts'\n",
      "      - 'src/middleware/jwt.ts'\n      - 'src/billing/**'\n", // quoted like the item before it
    ));
    const stored = requestOf(repo, req);
    expect(stored).toMatchObject({ id: req, status: 'APPROVED', decided_by: 'Test Committer <committer@example.com>', added_globs: ['src/billing/**'] });
    expect(Number.isNaN(Date.parse(stored.decided_at))).toBe(false);

    // The same commit, unchanged, now passes: the hook reads the main worktree's registry afresh.
    const ok = run('git', ['commit', '-q', '-m', 'billing plan in the token'], wt);
    expect(ok.status, ok.stderr).toBe(0);
    expect(git(wt, 'log', '-1', '--format=%s').trim()).toBe('billing plan in the token');
  });

  it('--json; a glob already in the scope is not added twice; updated_at is bumped', () => {
    const { repo } = setup();
    const wt2 = checkoutIntent(repo, 'INT-002');
    const req = expand(wt2, 'INT-002', 'src/billing/**', 'docs/billing/');
    const before = registryText(repo);
    const r = intent(repo, ['approve', req, '--json'], humanEnv());
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ intent: 'INT-002', added: ['docs/billing/'], already: ['src/billing/**'], scope: ['src/billing/**', 'docs/billing/'] });
    expect(out.request.status).toBe('APPROVED');
    const after = registryText(repo);
    expect(after).toMatch(/owned_scope: \["src\/billing\/\*\*", "docs\/billing\/"\] {3}# billing only\n/);
    expect(after).toMatch(/updated_at: "\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"\n$/);
    expect(after.replace(/updated_at: "[^"]*"/, '').replace(', "docs/billing/"', '')).toBe(before.replace(/updated_at: "[^"]*"/, ''));
  });

  it('is refused from inside the intent worktree and from agent processes (NOT_A_HUMAN); nothing changes', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**');
    const before = registryText(repo);

    const fromWt = intent(join(wt, 'src'), ['approve', req], humanEnv());
    expect(fromWt.status).toBe(1);
    expect(fromWt.stderr).toContain('is an intent worktree');
    expect(fromWt.stderr).toContain(`A human must run \`intent approve ${req}\` in a terminal in the main worktree (cd ${repo})`);

    for (const env of [{ INTENT_AGENT: '1' }, { CLAUDE_PROJECT_DIR: repo }, { CURSOR_TRACE_ID: 'abc' }, { CLINE_CONNECTOR_CLI_LAUNCH: '{}' }, { COPILOT_AGENT_SESSION_ID: 's1' }, { OPENCODE_PID: '42' }, { CRUSH: '1' }]) {
      const r = intent(repo, ['approve', req, '--json'], humanEnv(env));
      expect(r.status, JSON.stringify(env)).toBe(1);
      const err = JSON.parse(r.stdout).error;
      expect(err.code).toBe('NOT_A_HUMAN');
      expect(err.message).toContain(Object.keys(env)[0]);
      expect(err.message).toContain('A human must run');
    }
    const rej = intent(repo, ['reject', req, '--reason', 'no'], humanEnv({ INTENT_AGENT: '1' }));
    expect(rej.status).toBe(1);
    expect(rej.stderr).toContain('looks like it comes from an agent process');

    expect(registryText(repo)).toBe(before);
    expect(requestOf(repo, req).status).toBe('PENDING');
  });

  it('an unknown request id: UNKNOWN_REQUEST naming the pending ones', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**');
    const before = registryText(repo);
    const r = intent(repo, ['approve', 'REQ-20260101-000000-beef'], humanEnv());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Unknown scope-expansion request "REQ-20260101-000000-beef"');
    expect(r.stderr).toContain(`Pending requests: ${req}.`);
    const j = intent(repo, ['reject', '../../etc/passwd', '--json'], humanEnv());
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'UNKNOWN_REQUEST', data: { pending: [req] } });
    expect(registryText(repo)).toBe(before);
  });

  it('a request cannot be decided twice: a clear error, nothing changed', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**');
    expect(intent(repo, ['approve', req], humanEnv()).status).toBe(0);
    const registry = registryText(repo);
    const stored = requestOf(repo, req);

    const again = intent(repo, ['approve', req, '--json'], humanEnv());
    expect(again.status).toBe(1);
    const err = JSON.parse(again.stdout).error;
    expect(err.code).toBe('REQUEST_DECIDED');
    expect(err.message).toContain(`Request ${req} was already APPROVED by Test Committer <committer@example.com>`);
    expect(err.message).toContain('nothing changed');
    const reject = intent(repo, ['reject', req, '--reason', 'changed my mind'], humanEnv());
    expect(reject.status).toBe(1);
    expect(reject.stderr).toContain('already APPROVED');

    expect(registryText(repo)).toBe(registry);
    expect(requestOf(repo, req)).toEqual(stored);
  });
});

describe('intent reject', () => {
  it('marks the request REJECTED with the reason and appends a lesson tagged with the intent; the scope stays', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**', 'src/shared/plan.ts');
    const before = registryText(repo);
    const r = intent(repo, ['reject', req, '--reason', 'billing is frozen until March', '--json'], humanEnv());
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ intent: 'INT-001', request: { status: 'REJECTED', decision_reason: 'billing is frozen until March' }, lesson: { appended: true } });
    expect(requestOf(repo, req)).toMatchObject({ status: 'REJECTED', decision_reason: 'billing is frozen until March', decided_by: 'Test Committer <committer@example.com>' });
    expect(registryText(repo)).toBe(before);
    const md = agentMd(repo);
    expect(md).toMatch(/\n## \d{4}-\d{2}-\d{2} · INT-001 · Scope expansion to src\/billing\/\*\*, src\/shared\/plan\.ts was rejected: billing is…\n/);
    expect(md.endsWith('\nScope expansion to src/billing/**, src/shared/plan.ts was rejected: billing is frozen until March\n')).toBe(true);
    // The agent sees it in its handshake.
    const ctx = intent(wt, ['context', 'INT-001', '--max-bytes', '8192']);
    expect(ctx.stdout).toContain('was rejected: billing is frozen until March');
    // And the commit stays refused.
    writeFiles(wt, { 'src/billing/plan.ts': 'x\n' });
    git(wt, 'add', '-A');
    expectRefused(run('git', ['commit', '-q', '-m', 'x'], wt), 'Scope Violation: INT-001 is not authorized to edit src/billing/plan.ts');
  });

  it('without --reason says so in the lesson', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**');
    const r = intent(repo, ['reject', req], humanEnv());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Rejected ${req}`);
    expect(agentMd(repo)).toContain('Scope expansion to src/billing/** was rejected (no reason given).');
    expect(requestOf(repo, req).decision_reason).toBeUndefined();
  });
});

describe('intent requests', () => {
  it('lists pending requests first, then decided ones', () => {
    const { repo, wt } = setup();
    const a = expand(wt, 'INT-001', 'src/a/**');
    const b = expand(wt, 'INT-001', 'src/b/**');
    const c = expand(wt, 'INT-001', 'src/c/**');
    expect(intent(repo, ['approve', a], humanEnv()).status).toBe(0);
    const j = intent(repo, ['requests', '--json']);
    expect(j.status, j.stderr).toBe(0);
    const ids = JSON.parse(j.stdout).requests.map((r: { id: string; status: string }) => `${r.id}:${r.status}`);
    expect(ids).toEqual([`${b}:PENDING`, `${c}:PENDING`, `${a}:APPROVED`]);
    const text = intent(wt, ['requests']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout.indexOf(b)).toBeLessThan(text.stdout.indexOf(a));
    expect(text.stdout).toContain('2 pending.');
    const empty = intent(governedRepo([{ id: 'INT-001', scope: ['src/**'] }]), ['requests']);
    expect(empty.stdout).toBe('No scope-expansion requests.\n');
  });

  it('leaves no stray files in the request store', () => {
    const { repo, wt } = setup();
    const req = expand(wt, 'INT-001', 'src/billing/**');
    expect(intent(repo, ['approve', req], humanEnv()).status).toBe(0);
    const dir = join(repo, '.git', 'intent', 'requests');
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([`${req}.json`]);
  });
});

describe('a path a "!" glob takes back', () => {
  it('expand and approve say it stays excluded (never "may now also edit" it), and the commit is still refused', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**', '!src/secret/**'] }], { 'README.md': '# r\n', 'src/a.ts': 'a\n', 'src/secret/key.ts': 'k\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const filed = intent(wt, ['expand', 'INT-001', 'src/secret/key.ts', '--reason', 'rotate the key']);
    expect(filed.status, filed.stderr).toBe(0);
    expect(filed.stderr).toContain('src/secret/key.ts is taken back by !src/secret/** in INT-001\'s scope');
    const req = filed.stdout.trim();
    const r = intent(repo, ['approve', req], humanEnv());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('may now also edit');
    expect(r.stdout).toContain('But src/secret/key.ts is taken back by !src/secret/** in INT-001\'s scope: INT-001 still may not edit it.');
    const j = intent(repo, ['approve', expand(wt, 'INT-001', 'src/secret/other.ts', 'docs/x.md'), '--json'], humanEnv());
    expect(JSON.parse(j.stdout).taken_back).toEqual([{ glob: 'src/secret/other.ts', by: ['!src/secret/**'] }]);
    writeFiles(wt, { 'src/secret/key.ts': 'k2\n' });
    expectRefused(run('git', ['commit', '-q', '-am', 'rotate'], wt), 'Scope Violation: INT-001 is not authorized to edit src/secret/key.ts');
  });
});
