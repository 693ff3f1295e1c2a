import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeFile } from '../../lib/agents/adapter.js';
import { runGateAction, runWorkflowStep } from '../github-action.js';
import { CLI, PKG_ROOT, bypassCommit, checkoutIntent, git, governedRepo, intent, noteOf, run, tempDir, writeFiles } from '../helpers.js';

/** A governed repository with a bare `origin`, main pushed, and an intent worktree. */
function withRemote(): { bare: string; repo: string; wt: string } {
  const bare = join(tempDir(), 'origin.git');
  git(tempDir(), 'init', '-q', '--bare', '-b', 'main', bare);
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
  git(repo, 'remote', 'add', 'origin', bare);
  const wt = checkoutIntent(repo, 'INT-001');
  // The server's main is the authority: the intent must be in progress there.
  git(repo, 'commit', '-q', '-am', 'INT-001 in progress');
  git(repo, 'push', '-q', 'origin', 'main');
  return { bare, repo, wt };
}

function commit(wt: string, files: Record<string, string>, message: string, extra: string[] = []): string {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  const r = run('git', ['commit', '-q', ...extra, '-m', message], wt);
  expect(r.status, r.stderr).toBe(0);
  return git(wt, 'rev-parse', 'HEAD').trim();
}

describe('pre-push hook', () => {
  it('refuses to push governed commits that fail verification, and lets honest ones through', () => {
    const { bare, wt } = withRemote();
    const c1 = commit(wt, { 'src/a.ts': 'a\nb\n' }, 'one');
    commit(wt, { 'src/b.ts': 'b\n' }, 'two');
    git(wt, 'notes', '--ref=intents', 'remove', c1);
    const refused = run('git', ['push', 'origin', 'intent/INT-001'], wt);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('intent: push refused');
    expect(refused.stderr).toContain(`NOTE_MISSING ${c1.slice(0, 12)}`);
    expect(run('git', ['rev-parse', '--verify', '-q', 'refs/heads/intent/INT-001'], bare).status).not.toBe(0);

    // Record the note again (re-run post-commit for that commit through the library) and push.
    const rec = run(process.execPath, ['--input-type=module', '-e',
      `import { recordCommit } from ${JSON.stringify(join(PKG_ROOT, 'dist/lib/trace/record-commit.js'))}; recordCommit(process.cwd(), process.env, { rev: '${c1}' });`], wt);
    expect(rec.status, rec.stderr).toBe(0);
    const ok = run('git', ['push', '-q', 'origin', 'intent/INT-001', 'refs/notes/intents'], wt);
    expect(ok.status, ok.stderr).toBe(0);
    expect(git(bare, 'rev-parse', 'intent/INT-001').trim()).toBe(git(wt, 'rev-parse', 'HEAD').trim());
  });
});

describe('server pre-receive template', () => {
  function serverWithHook(): { bare: string; repo: string; wt: string } {
    const s = withRemote();
    copyFileSync(join(PKG_ROOT, 'templates', 'server', 'pre-receive'), join(s.bare, 'hooks', 'pre-receive'));
    return s;
  }
  const env = { INTENT_BIN: `${process.execPath} ${CLI}` };

  it('accepts governed commits pushed with their notes', () => {
    const { bare, wt } = serverWithHook();
    commit(wt, { 'src/a.ts': 'a\nb\n' }, 'one');
    const r = run('git', ['push', 'origin', 'intent/INT-001', 'refs/notes/intents'], wt, env);
    expect(r.status, r.stderr).toBe(0);
    expect(git(bare, 'rev-parse', 'intent/INT-001').trim()).toBe(git(wt, 'rev-parse', 'HEAD').trim());
  });

  it('refuses a commit out of scope that got past every local hook, and commits pushed without notes', () => {
    const { bare, wt } = serverWithHook();
    commit(wt, { 'src/a.ts': 'a\nb\n' }, 'one');
    writeFiles(wt, { 'docs/x.md': 'sneaky\n' });
    git(wt, 'add', '-A');
    const sneaky = bypassCommit(wt, ['-q', '-m', 'out of scope']);
    // push --no-verify skips pre-push: only the server stands in the way.
    const r = run('git', ['push', '--no-verify', 'origin', 'intent/INT-001', 'refs/notes/intents'], wt, env);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${sneaky.slice(0, 12)}: Scope Violation: INT-001 is not authorized to edit docs/x.md`);
    expect(run('git', ['rev-parse', '--verify', '-q', 'refs/heads/intent/INT-001'], bare).status).not.toBe(0);

    git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    const noNotes = run('git', ['push', '--no-verify', 'origin', 'intent/INT-001'], wt, env);
    expect(noNotes.status).not.toBe(0);
    expect(noNotes.stderr).toContain('NOTE_MISSING');
  });
});

describe('GitHub Actions template', () => {
  it('the action runs against a clone of a real remote on a pull_request_target event: clean, then a tampered note fails', () => {
    const { bare, wt } = withRemote();
    const base = git(wt, 'rev-parse', 'main').trim();
    commit(wt, { 'src/a.ts': 'a\nb\n' }, 'one');
    commit(wt, { 'src/c.ts': 'c\n' }, 'two');
    const head = git(wt, 'rev-parse', 'HEAD').trim();
    git(wt, 'push', '-q', 'origin', 'intent/INT-001', 'refs/notes/intents', 'HEAD:refs/pull/3/head');

    const workflow = parse(readFileSync(join(PKG_ROOT, 'templates', 'ci', 'intent-gate.yml'), 'utf8'));
    const steps = workflow.jobs.gate.steps as { name?: string; run?: string; uses?: string; with?: Record<string, unknown> }[];
    expect(steps.filter((s) => s.run), 'the workflow runs nothing itself: the action does').toEqual([]);
    expect(steps.at(-1)!.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    // What actions/checkout with fetch-depth 0 gives on pull_request_target: a clone at the base.
    const ci = join(tempDir(), 'ci');
    git(tempDir(), 'clone', '-q', bare, ci);
    git(ci, 'checkout', '-q', '--detach', base);
    const event = { name: 'pull_request_target', number: 3, base, head, headRef: 'intent/INT-001' } as const;
    const summary = join(tempDir(), 'step-summary.md');
    const ok = runGateAction(ci, event, 'someone', 'someone', { GITHUB_STEP_SUMMARY: summary });
    expect(ok.status, ok.stderr + ok.stdout).toBe(0);
    expect(ok.stdout).toContain('accepted');
    // The job summary: the pull request's numbers, as intent stats prints them for its range.
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain(`### intent stats: ${base}..${head}`);
    expect(md).toContain('2 governed commits, 2 lines added.');
    expect(md).toContain('| INT-001 ');
    expect(noteOf(ci, head)).not.toBeNull();
    expect(git(ci, 'status', '--porcelain'), 'the head is never checked out').toBe('');
    expect(git(ci, 'rev-parse', 'HEAD').trim()).toBe(base);

    // Someone rewrites a note on the remote: the same action now fails and names the fault.
    const note = noteOf(wt)!.raw.replace(/sha256:[0-9a-f]{64}/, 'sha256:' + 'f'.repeat(64));
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', note.replace(/\n$/, ''), 'HEAD');
    git(wt, 'push', '-q', '--no-verify', '--force', 'origin', 'refs/notes/intents');
    const bad = runGateAction(ci, event, 'someone');
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('HASH_MISMATCH');

    // On a plain pull_request event (the pull request's own workflow file) it refuses to judge.
    const wrong = runGateAction(ci, { name: 'pull_request' }, 'someone');
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('must run on pull_request_target');
  });
});

describe('GitHub Actions notes audit (templates/ci/intent-notes-audit.yml)', () => {
  it('takes a baseline, passes an honest notes change and moves its tag, fails on a rewritten note of main and keeps the tag', () => {
    const { bare, repo, wt } = withRemote();
    const c1 = commit(wt, { 'src/a.ts': 'a\nb\n' }, 'one');
    git(repo, 'merge', '-q', '--no-edit', 'intent/INT-001');
    git(repo, 'push', '-q', 'origin', 'main', 'refs/notes/intents');
    const workflow = parse(readFileSync(join(PKG_ROOT, 'templates', 'ci', 'intent-notes-audit.yml'), 'utf8'));
    expect(Object.keys(workflow.on)).toEqual(['schedule', 'workflow_dispatch']);
    expect(workflow.permissions).toEqual({ contents: 'write' });
    expect((workflow.jobs.audit.steps as { uses?: string }[]).at(-1)!.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);

    // What actions/checkout gives on a schedule event: a clone at the default branch.
    const ci = join(tempDir(), 'ci');
    git(tempDir(), 'clone', '-q', bare, ci);
    const tag = () => run('git', ['rev-parse', '-q', '--verify', 'refs/tags/intent-notes-audited'], bare).stdout.trim();
    const notesTip = () => git(bare, 'rev-parse', 'refs/notes/intents').trim();
    // Each scheduled run checks out main as it is then.
    const audit = (name: string) => {
      git(ci, 'fetch', '-q', 'origin');
      git(ci, 'reset', '-q', '--hard', 'origin/main');
      return runGateAction(ci, { name }, 'someone');
    };
    const first = audit('schedule');
    expect(first.status, first.stderr + first.stdout).toBe(0);
    expect(first.stdout).toContain('first notes audit');
    expect(tag()).toBe(notesTip());

    // An agent's honest work: a new commit, pushed with its intent's own notes ref (refs/notes/intents
    // does not move); a human merges it and pushes main with its records: both judged with main's move.
    const c2 = commit(wt, { 'src/c.ts': 'c\n' }, 'two');
    expect(intent(wt, ['push']).status).toBe(0);
    expect(run('git', ['notes', '--ref=intents', 'list', c2], bare).status, 'the shared ref has no record of an unmerged commit').not.toBe(0);
    git(repo, 'merge', '-q', '--no-edit', 'intent/INT-001');
    const pushed = intent(repo, ['push']);
    expect(pushed.status, pushed.stderr).toBe(0);
    const honest = audit('workflow_dispatch');
    expect(honest.status, honest.stderr + honest.stdout).toBe(0);
    expect(honest.stdout).toContain('accepted');
    expect(tag()).toBe(notesTip());
    const audited = tag();

    // A record of an intent branch's commit written straight to refs/notes/intents (an agent
    // pushing the shared ref past the absent host check): not one that came with its commit.
    const c3 = commit(wt, { 'src/d.ts': 'd\n' }, 'three');
    git(wt, 'push', '-q', '--no-verify', 'origin', 'intent/INT-001');
    git(wt, 'fetch', '-q', 'origin', '+refs/notes/intents:refs/notes/remotes/origin/intents');
    const blobOf = git(wt, 'rev-parse', `refs/notes/intents:${c3}`).trim();
    git(wt, 'update-ref', 'refs/notes/forge', 'refs/notes/remotes/origin/intents');
    git(wt, 'notes', '--ref=refs/notes/forge', 'add', '-C', blobOf, c3);
    git(wt, 'push', '-q', '--no-verify', 'origin', 'refs/notes/forge:refs/notes/intents');
    const stray = audit('schedule');
    expect(stray.status, stray.stdout).toBe(1);
    expect(stray.stdout).toMatch(new RegExp(`NOTE_NOT_BROUGHT\\s+${c3.slice(0, 12)}`));
    expect(tag()).toBe(audited);
    git(wt, 'push', '-q', '--no-verify', '-f', 'origin', `${audited}:refs/notes/intents`);

    // A note of main's history rewritten and pushed past the (absent) host check.
    const note = noteOf(wt, c1)!.raw.replace(/sha256:[0-9a-f]{64}/, 'sha256:' + 'f'.repeat(64));
    git(wt, 'fetch', '-q', 'origin', '+refs/notes/intents:refs/notes/remotes/origin/intents');
    git(wt, 'update-ref', 'refs/notes/forge', 'refs/notes/remotes/origin/intents');
    git(wt, 'notes', '--ref=refs/notes/forge', 'add', '-f', '-m', note.replace(/\n$/, ''), c1);
    git(wt, 'push', '-q', '--no-verify', 'origin', 'refs/notes/forge:refs/notes/intents');
    const bad = audit('schedule');
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('NOTE_REWRITTEN');
    expect(bad.stdout).toContain(c1.slice(0, 12));
    expect(tag(), 'the baseline does not move past a refused change').toBe(audited);
    // And it keeps failing until the note is put back.
    expect(audit('schedule').status).toBe(1);
  });
});

describe('GitHub Actions carry (templates/ci/intent-carry.yml) after a merge button', () => {
  it("copies the pull request's checked records from its intent's notes ref: carried onto a squash, folded for a merge commit's parents; the notes audit accepts both", () => {
    const { bare, repo, wt } = withRemote();
    const MODEL = 'anthropic/claude-sonnet-4-5';
    const agentCommit = (path: string, content: string, message: string) => {
      writeFile({ worktree: wt, path, content, tool: 'write_to_file', modelId: MODEL, conversationUrl: 'roo-code://task/t1' });
      git(wt, 'commit', '-q', '-m', message);
      return git(wt, 'rev-parse', 'HEAD').trim();
    };
    // The audit's baseline, before any pull request.
    const ci = join(tempDir(), 'audit');
    git(tempDir(), 'clone', '-q', bare, ci);
    const audit = () => {
      git(ci, 'fetch', '-q', 'origin');
      git(ci, 'reset', '-q', '--hard', 'origin/main');
      return runGateAction(ci, { name: 'schedule' }, 'someone');
    };
    expect(audit().status).toBe(0);

    // Pull request 1: the agent pushes its branch with its own notes ref; the host squashes it,
    // keeps refs/pull/1/head and deletes the branch.
    const base1 = git(repo, 'rev-parse', 'main').trim();
    const c1 = agentCommit('src/a.ts', 'a\nm1\nm2\n', 'model writes');
    expect(intent(wt, ['push']).status).toBe(0);
    expect(run('git', ['rev-parse', '-q', '--verify', 'refs/notes/intents'], bare).status, 'nothing on the shared ref').not.toBe(0);
    const host = join(tempDir(), 'host');
    git(tempDir(), 'clone', '-q', bare, host);
    const HOST = ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=Host', '-c', 'user.email=host@example.com'];
    git(host, ...HOST, 'merge', '-q', '--squash', 'origin/intent/INT-001');
    git(host, ...HOST, 'commit', '-q', '-m', 'Auth (#1)');
    const squash = git(host, 'rev-parse', 'HEAD').trim();
    git(host, 'push', '-q', 'origin', 'main', `${c1}:refs/pull/1/head`, ':refs/heads/intent/INT-001');

    const job = (n: number, merged: string, head: string, base: string) => {
      const dir = join(tempDir(), `carry-${n}`);
      git(tempDir(), 'clone', '-q', bare, dir);
      const r = runWorkflowStep('intent-carry.yml', 'carry', "Carry the pull request's records onto what the merge made", dir, {
        MERGED: merged, HEAD_SHA: head, HEAD_REF: 'intent/INT-001', BASE_SHA: base, AUTHOR: 'agent-1', PR: String(n),
      });
      expect(r.status, r.stdout + r.stderr).toBe(0);
    };
    job(1, squash, c1, base1);
    const carried = git(bare, 'notes', '--ref=intents', 'show', squash);
    expect(carried).toContain('carried (squash)');
    expect(carried).toContain(MODEL);
    const a1 = audit();
    expect(a1.status, a1.stdout + a1.stderr).toBe(0);
    // The CI mode's attestations: the step signs what main gained with the secret's key; a fresh
    // clone verifies them with the allowed signers, and without the secret the step writes none.
    const keyDir = tempDir();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci', '-f', join(keyDir, 'k')]);
    const signers = join(keyDir, 'allowed_signers');
    writeFileSync(signers, `intent-ci namespaces="intent-attestation" ${readFileSync(join(keyDir, 'k.pub'), 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
    const attestIn = join(tempDir(), 'attest-1');
    git(tempDir(), 'clone', '-q', bare, attestIn);
    const stepEnv = { MERGED: squash, BASE_SHA: base1, BASE_REF: 'main', MERGED_BY: 'alice', RUNNER_TEMP: tempDir() };
    const none = runWorkflowStep('intent-carry.yml', 'carry', 'Attest what main gained', attestIn, { ...stepEnv, ATTEST_KEY: '' });
    expect(none.stdout).toContain('no attestations written');
    const signed = runWorkflowStep('intent-carry.yml', 'carry', 'Attest what main gained', attestIn, { ...stepEnv, ATTEST_KEY: readFileSync(join(keyDir, 'k'), 'utf8') });
    expect(signed.status, signed.stdout + signed.stderr).toBe(0);
    const fresh = join(tempDir(), 'fresh');
    git(tempDir(), 'clone', '-q', bare, fresh);
    git(fresh, 'fetch', '-q', 'origin', '+refs/notes/*:refs/notes/*');
    const v = intent(fresh, ['attest', 'verify', `${base1}..${squash}`, '--allowed-signers', signers, '--json']);
    expect(v.status, v.stdout).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: true, attested: 1, signers: { 'intent-ci': 1 } });

    // Pull request 2, merged with a merge commit: its commit is on main now, with its own record.
    git(wt, 'fetch', '-q', 'origin');
    git(wt, 'reset', '-q', '--hard', 'origin/main');
    const base2 = git(wt, 'rev-parse', 'HEAD').trim();
    const c2 = agentCommit('src/b.ts', 'b1\n', 'model adds b');
    const p2 = intent(wt, ['push']);
    expect(p2.status, `c1 ${c1} c2 ${c2} squash ${squash}\n${p2.stderr}`).toBe(0);
    git(host, 'fetch', '-q', 'origin');
    git(host, ...HOST, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #2', 'origin/intent/INT-001');
    const merge = git(host, 'rev-parse', 'HEAD').trim();
    git(host, 'push', '-q', 'origin', 'main', `${c2}:refs/pull/2/head`);
    job(2, merge, c2, base2);
    expect(git(bare, 'notes', '--ref=intents', 'show', c2)).toBe(git(wt, 'notes', '--ref=intents', 'show', c2));
    const a2 = audit();
    expect(a2.status, a2.stdout + a2.stderr).toBe(0);

    // A record forged in the intent's notes ref after the gate passed: the job judges it again and copies nothing.
    const c3 = agentCommit('src/c.ts', 'c1\n', 'model adds c');
    expect(intent(wt, ['push']).status).toBe(0);
    git(wt, 'fetch', '-q', 'origin', '+refs/notes/intent/INT-001:refs/notes/remotes/origin/intent/INT-001');
    git(wt, 'update-ref', 'refs/notes/forge', 'refs/notes/remotes/origin/intent/INT-001');
    const forged = git(wt, 'notes', '--ref=intents', 'show', c3).replace(/sha256:[0-9a-f]{64}/, `sha256:${'0'.repeat(64)}`);
    run('git', ['notes', '--ref=refs/notes/forge', 'add', '-f', '-F', '-', c3], wt, {}, forged);
    git(wt, 'push', '-q', '--no-verify', 'origin', 'refs/notes/forge:refs/notes/intent/INT-001');
    git(host, 'fetch', '-q', 'origin');
    git(host, ...HOST, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #3', 'origin/intent/INT-001');
    git(host, 'push', '-q', 'origin', 'main', `${c3}:refs/pull/3/head`);
    const dir = join(tempDir(), 'carry-3');
    git(tempDir(), 'clone', '-q', bare, dir);
    const r = runWorkflowStep('intent-carry.yml', 'carry', "Carry the pull request's records onto what the merge made", dir, {
      MERGED: git(host, 'rev-parse', 'HEAD').trim(), HEAD_SHA: c3, HEAD_REF: 'intent/INT-001', BASE_SHA: git(host, 'rev-parse', 'HEAD^1').trim(), AUTHOR: 'agent-1', PR: '3',
    });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(new RegExp(`HASH_MISMATCH\\s+${c3.slice(0, 12)}`));
    expect(run('git', ['notes', '--ref=intents', 'list', c3], bare).status).not.toBe(0);
  });
});
