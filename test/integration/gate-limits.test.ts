// The gate's bounds and defaults (issue 39), over git http-backend: a changed file above the
// policy's max_blob_bytes is never read (BLOB_TOO_LARGE from the local pre-push, the server's
// pre-receive and CI alike; a smaller one is checked as ever), and once authority.yaml lists the
// humans, an identity nobody listed may not push (IDENTITY_UNLISTED).
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutIntent, git, intent, registryYaml, removeTree, run, writeFiles } from '../helpers.js';
import { authorityRepo, codesOf, notesSpec, serverRepo, startGitServer, verdict, type GitServer } from '../git-server.js';

const INT_001 = [{ id: 'INT-001', scope: ['src/**'], status: 'IN_PROGRESS' }];

let root: string;
let server: GitServer;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-limits-')));
  server = await startGitServer(root);
});

afterAll(() => {
  server?.stop();
  if (root) removeTree(root);
});

describe('max_blob_bytes', () => {
  it('refuses a commit whose changed file is larger, without reading it; a smaller one is checked', () => {
    const srv = serverRepo(root, 'limits.git');
    const repo = authorityRepo(join(root, 'repo'), { 'README.md': '# limits\n' }, INT_001, 'agents:\n  agent-1: ["INT-001"]\nhumans: ["alice"]\nmax_blob_bytes: 4096\n');
    for (const who of ['alice', 'agent-1']) git(repo, 'remote', 'add', who, server.url(who, 'limits.git'));
    expect(run('git', ['push', '-q', 'alice', 'main'], repo).status).toBe(0);
    const wt = checkoutIntent(repo, 'INT-001');
    const commitFile = (path: string, bytes: number) => {
      writeFiles(wt, { [path]: 'a line of text\n'.repeat(Math.ceil(bytes / 15)) });
      git(wt, 'add', '-A');
      const r = run('git', ['commit', '-q', '-m', path], wt);
      expect(r.status, r.stderr).toBe(0);
      return git(wt, 'rev-parse', 'HEAD').trim();
    };
    const small = commitFile('src/small.txt', 2000);
    const ok = run('git', ['push', 'agent-1', 'intent/INT-001', ...notesSpec(wt, 'agent-1')], wt);
    expect(ok.status, ok.stderr).toBe(0);

    const big = commitFile('src/big.txt', 8000);
    git(wt, 'fetch', '-q', 'agent-1');
    const specs = ['intent/INT-001', ...notesSpec(wt, 'agent-1')];
    const local = verdict(run('git', ['push', '--dry-run', 'agent-1', ...specs], wt));
    const remote = verdict(run('git', ['push', '--no-verify', 'agent-1', ...specs], wt));
    const ci = intent(wt, ['gate', '--base', git(srv, 'rev-parse', 'main').trim(), '--ref', 'refs/heads/intent/INT-001', '--old', small, '--new', big, '--pusher', 'agent-1', '--notes', specs[1].split(':')[0]]);
    for (const [tier, v] of [['local', local], ['server', remote], ['ci', verdict(ci)]] as const) {
      expect(v.ok, `${tier}: ${v.text}`).toBe(false);
      expect(v.codes, `${tier}: ${v.text}`).toEqual(['BLOB_TOO_LARGE']);
    }
    expect(remote.text).toMatch(/src\/big\.txt: a changed file of 7\.\d KiB, above the 4\.0 KiB the check reads/);
    expect(remote.text).toContain('max_blob_bytes');
    expect(git(srv, 'rev-parse', 'refs/heads/intent/INT-001').trim()).toBe(small);
    expect(codesOf(ci.stdout)).toEqual(['BLOB_TOO_LARGE']);
  });
});

describe('identities nobody listed', () => {
  it('once humans are listed, an unlisted identity (a person or an agent nobody listed yet) is refused, saying why; a listed human is not', () => {
    const srv = serverRepo(root, 'unlisted.git');
    const repo = authorityRepo(join(root, 'unlisted'), { 'README.md': '# unlisted\n' }, INT_001, 'agents:\n  agent-1: ["INT-001"]\nhumans: ["alice"]\n');
    // The base does not exist yet on the server: its first push is judged by an empty policy.
    expect(run('git', ['push', '-q', server.url('alice', 'unlisted.git'), 'main'], repo).status).toBe(0);
    writeFiles(repo, { 'README.md': '# unlisted\nmore\n' });
    git(repo, 'commit', '-q', '-am', 'more');
    for (const who of ['mallory', 'agent-9']) {
      const r = run('git', ['push', '--no-verify', server.url(who, 'unlisted.git'), 'main'], repo);
      expect(r.status).not.toBe(0);
      expect(codesOf(r.stderr), r.stderr).toEqual(['IDENTITY_UNLISTED']);
      expect(r.stderr).toContain(`${who} is in neither agents nor humans of .orchestration/authority.yaml`);
      expect(r.stderr).toContain('next: an administrator lists the identity');
    }
    expect(git(srv, 'rev-parse', 'main').trim()).not.toBe(git(repo, 'rev-parse', 'main').trim());
    const ok = run('git', ['push', '--no-verify', server.url('Alice', 'unlisted.git'), 'main'], repo);
    expect(ok.status, ok.stderr).toBe(0);
  });
});

describe('time_limit_seconds', () => {
  it('refuses what it could not judge in time, saying how much it judged', () => {
    const repo = join(root, 'slow');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFiles(repo, {
      'README.md': '# slow\n',
      '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/**'], status: 'IN_PROGRESS' }]),
      '.orchestration/authority.yaml': 'time_limit_seconds: 0.001\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    // 2,500 commits on the intent's branch (more than one chunk of 2,000), in one fast-import stream.
    const stream = [`reset refs/heads/intent/INT-001\nfrom refs/heads/main\n`];
    for (let k = 1; k <= 2500; k++) stream.push(`commit refs/heads/intent/INT-001\ncommitter A <a@example.com> ${1_700_000_000 + k} +0000\ndata 2\nc\nM 100644 inline src/f.ts\ndata ${String(k).length + 1}\n${k}\n`);
    const r = run('git', ['fast-import', '--quiet'], repo, {}, stream.join(''));
    expect(r.status, r.stderr).toBe(0);
    const g = intent(repo, ['gate', '--base', 'main', '--ref', 'refs/heads/intent/INT-001', '--new', 'intent/INT-001', '--pusher', 'alice', '--json']);
    expect(g.status).toBe(1);
    const out = JSON.parse(g.stdout);
    const timeout = out.findings.find((f: { code: string }) => f.code === 'GATE_TIMEOUT');
    expect(timeout?.message).toBe('the check ran past its 0.001 s (time_limit_seconds): 2000 of 2500 commits judged, the rest not; the push is refused.');
    expect(timeout.next).toContain('time_limit_seconds');
    expect(out.findings.filter((f: { code: string }) => f.code === 'NOTE_MISSING')).toHaveLength(2000);
  });
});
