import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bypassCommit, checkoutIntent, fixture, git, governedRepo, intent, noteOf, registryYaml, run, writeFiles } from '../helpers.js';

function verifyJson(cwd: string, args: string[] = []): { status: number; out: any } {
  const r = intent(cwd, ['verify', ...args, '--json']);
  return { status: r.status, out: JSON.parse(r.stdout) };
}

function codes(out: any): string[] {
  return out.findings.map((f: any) => `${f.code} ${f.commit?.slice(0, 7) ?? '-'}`).sort();
}

/** A repo with an intent worktree and three governed commits (built once per file, copied). */
function history(): { repo: string; wt: string; shas: string[] } {
  return fixture('history', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['docs/**'] }], { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const shas: string[] = [];
    for (let i = 1; i <= 3; i++) {
      writeFiles(wt, { 'src/a.ts': readFileSync(join(wt, 'src/a.ts'), 'utf8') + `line ${i}\n`, [`src/f${i}.ts`]: `f${i}\n` });
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', `c${i}`);
      shas.push(git(wt, 'rev-parse', 'HEAD').trim());
    }
    return { repo, wt, shas };
  });
}

describe('intent verify', () => {
  it('is clean on honest history, including amend, rebase -i fixup and cherry-pick', () => {
    const { repo, wt } = history();
    let v = verifyJson(wt);
    expect(v.out.findings).toEqual([]);
    expect(v.status).toBe(0);
    expect(v.out.governed).toBe(3);

    writeFiles(wt, { 'src/a.ts': readFileSync(join(wt, 'src/a.ts'), 'utf8') + 'amended\n' });
    git(wt, 'commit', '-q', '-a', '--amend', '--no-edit');
    writeFiles(wt, { 'src/g.ts': 'g\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'fixup! c3');
    const r = run('git', ['rebase', '-q', '-i', '--autosquash', 'HEAD~3'], wt, { GIT_SEQUENCE_EDITOR: 'true' });
    expect(r.status, r.stderr).toBe(0);
    v = verifyJson(wt);
    expect(v.out.findings).toEqual([]);
    expect(v.out.governed).toBe(3);

    // Cherry-pick: drop the last commit, then pick it back as a new commit.
    const last = git(wt, 'rev-parse', 'HEAD').trim();
    git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    git(wt, 'notes', '--ref=intents', 'remove', last);
    const when = new Date(Date.now() + 60_000).toISOString();
    expect(run('git', ['cherry-pick', last], wt, { GIT_COMMITTER_DATE: when }).status).toBe(0);
    expect(git(wt, 'rev-parse', 'HEAD').trim()).not.toBe(last);
    v = verifyJson(wt);
    expect(v.out.findings).toEqual([]);
    expect(v.out.governed).toBe(3);
    expect(repo).toBeTruthy();
  });

  it('names the commit and the fault for each tampering', () => {
    const { repo, wt, shas } = history();
    const [c1, c2, c3] = shas;
    // 1. A forged note: one hash changed.
    const n2 = noteOf(wt, c2)!;
    const forged = n2.raw.replace(/sha256:[0-9a-f]{64}/, 'sha256:' + '0'.repeat(64));
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', forged.replace(/\n$/, ''), c2);
    // 2. A note moved to another commit: c3's note now sits on c1, c3 has none.
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', noteOf(wt, c3)!.raw.replace(/\n$/, ''), c1);
    git(wt, 'notes', '--ref=intents', 'remove', c3);
    let v = verifyJson(wt, ['--no-ledger']);
    expect(v.status).toBe(1);
    expect(codes(v.out)).toEqual([`HASH_MISMATCH ${c2.slice(0, 7)}`, `NOTE_MISPLACED ${c1.slice(0, 7)}`, `NOTE_MISSING ${c3.slice(0, 7)}`]);
    expect(v.out.findings.find((f: any) => f.code === 'HASH_MISMATCH').message).toMatch(/src\/.*: the note says sha256:0{64}, the committed lines hash to sha256:[0-9a-f]{64}/);

    // 3. A commit out of scope that got past every hook (recorded by repair); then the registry is widened after the fact.
    writeFiles(wt, { 'docs/x.md': 'sneaky\n' });
    const c4 = bypassCommit(wt, ['-q', '-a', '-m', 'out of scope']);
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/**', 'docs/**'] }, { id: 'INT-002', scope: ['docs/**'] }]) });
    const later = new Date(Date.now() + 120_000).toISOString();
    const w = run('git', ['commit', '-q', '-am', 'widen INT-001'], repo, { GIT_COMMITTER_DATE: later, GIT_AUTHOR_DATE: later });
    expect(w.status, w.stderr).toBe(0);
    v = verifyJson(wt, ['--no-ledger', `${c3}..HEAD`]);
    expect(codes(v.out)).toEqual([`SCOPE_VIOLATION ${c4.slice(0, 7)}`]);
    expect(v.out.findings[0].message).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    // 4. Laundering: rewrite c4's note to claim the widened scope. The registry gave that scope only later.
    const n4 = noteOf(wt, c4)!;
    const rec = n4.record;
    rec.metadata['dev.intent'].scope = ['src/**', 'docs/**'];
    rec.metadata['dev.intent'].scope_violations = [];
    const summary = n4.summary.replace(/ · SCOPE VIOLATION.*$/, '');
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', `${summary}\n${JSON.stringify(rec)}`, c4);
    v = verifyJson(wt, ['--no-ledger', `${c3}..HEAD`]);
    expect(codes(v.out)).toEqual([`SCOPE_NOT_IN_REGISTRY ${c4.slice(0, 7)}`]);
    expect(v.out.findings[0].message).toContain('To recover: commit .orchestration/active_intents.yaml on the base branch');

    // 5. A ledger line edited in the middle.
    const ledger = join(repo, '.orchestration', 'agent_trace.jsonl');
    const lines = readFileSync(ledger, 'utf8').split('\n');
    lines[1] = lines[1].replace('"c', '"C');
    writeFileSync(ledger, lines.join('\n'));
    v = verifyJson(wt, [`${c3}..HEAD`]);
    const broken = v.out.findings.filter((f: any) => f.code === 'LEDGER_BROKEN');
    expect(broken).toHaveLength(1);
    expect(broken[0].message).toMatch(/agent_trace\.jsonl:3: the hash chain is broken/);
  });

  it('the ledger\'s first line is a link of the chain too: removing it is LEDGER_BROKEN at the new first line', () => {
    const repo = governedRepo([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    for (const v of [1, 2]) {
      writeFiles(wt, { 'src/a.ts': `a ${v}\n` });
      git(wt, 'commit', '-q', '-am', `edit ${v}`);
    }
    expect(verifyJson(wt).status).toBe(0);
    const ledger = join(repo, '.orchestration', 'agent_trace.jsonl');
    const lines = readFileSync(ledger, 'utf8').split('\n');
    expect(lines.filter(Boolean)).toHaveLength(2);
    writeFileSync(ledger, lines.slice(1).join('\n'));
    const { status, out } = verifyJson(wt, ['--all']);
    expect(status).toBe(1);
    const broken = out.findings.filter((f: any) => f.code === 'LEDGER_BROKEN');
    expect(broken).toHaveLength(1);
    expect(broken[0].message).toMatch(/agent_trace\.jsonl:1: the hash chain is broken: prev_line_sha256 is [0-9a-f]{64}, line 0 hashes to null/);
  });

  it('a rename whose source is out of scope is a scope violation, also when the commit skipped the hooks and was repaired', () => {
    const repo = governedRepo([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/**'] }], { 'docs/guide.md': '# guide\nline\n', 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    git(wt, 'mv', 'docs/guide.md', 'src/guide.md');
    const sha = bypassCommit(wt, ['-q', '-m', 'move the guide into src']);
    // git sees the rename (the source, docs/guide.md, is the out-of-scope side).
    expect(git(wt, 'show', '--name-status', '-M', '--format=', sha).trim()).toMatch(/^R100\tdocs\/guide\.md\tsrc\/guide\.md$/);
    const { status, out } = verifyJson(wt, ['HEAD~1..HEAD']);
    expect(status).toBe(1);
    const scope = out.findings.filter((f: any) => f.code === 'SCOPE_VIOLATION');
    expect(scope.map((f: any) => [f.commit, f.path])).toEqual([[sha, 'docs/guide.md']]);
  });

  it('reports an unparsable note and usage errors without crashing', () => {
    const { wt, shas } = history();
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', 'garbage', shas[0]);
    const v = verifyJson(wt, ['--no-ledger']);
    expect(codes(v.out)).toEqual([`NOTE_UNPARSABLE ${shas[0].slice(0, 7)}`]);
    const human = intent(wt, ['verify', '--no-ledger']);
    expect(human.status).toBe(1);
    expect(human.stdout).toContain('NOTE_UNPARSABLE');
    expect(intent(wt, ['verify', 'no-such-rev..HEAD']).status).toBe(2);
  });
});
