import { chmodSync, appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, fixture, git, governedRepo, intent, ledgerLines, noteOf, run, tempDir, writeFiles } from '../helpers.js';

// Recovery from what crashes, full disks and read-only files leave behind: verify sees every loss
// (ledger and notes are cross-checked), repair heals it and says exactly what it did.

/**
 * A governed repository with `commits` governed commits in INT-001's worktree: built once per file
 * (each from the one with a commit less) and copied for every test.
 */
function setup(commits: number): { repo: string; wt: string; ledger: string; shas: string[] } {
  return fixture(`setup ${commits}`, () => {
    if (commits === 0) {
      const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
      const wt = checkoutIntent(repo, 'INT-001');
      return { repo, wt, ledger: join(repo, '.orchestration', 'agent_trace.jsonl'), shas: [] };
    }
    const s = setup(commits - 1);
    return { ...s, shas: [...s.shas, commitIn(s.wt, commits)] };
  });
}

function commitIn(wt: string, i: number): string {
  writeFiles(wt, { 'src/a.ts': `a\n${i}\n` });
  const r = run('git', ['commit', '-q', '-am', `c${i}`], wt);
  expect(r.status, r.stderr).toBe(0);
  return git(wt, 'rev-parse', 'HEAD').trim();
}

function verifyJson(cwd: string, args: string[] = []): { status: number; findings: any[] } {
  const r = intent(cwd, ['verify', '--json', ...args]);
  return { status: r.status, findings: JSON.parse(r.stdout).findings };
}

function repairJson(cwd: string): any {
  const r = intent(cwd, ['repair', '--json']);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout);
}

describe('ledger and notes cross-checked, repair heals', () => {
  it('a ledger line lost after its note was written is a finding; repair appends it', () => {
    const { wt, ledger, shas } = setup(3);
    const lines = readFileSync(ledger, 'utf8').split('\n');
    writeFileSync(ledger, lines.slice(0, 2).join('\n') + '\n'); // the hook was killed before the third line
    const v = verifyJson(wt);
    expect(v.status).toBe(1);
    expect(v.findings.map((f) => [f.code, f.commit])).toEqual([['LEDGER_MISMATCH', shas[2]]]);
    expect(v.findings[0].message).toContain('intent repair appends it');
    expect(repairJson(wt)).toMatchObject({ recorded: [], ledgerAppended: 1, quarantined: 0, rechained: 0, tornBytes: 0 });
    expect(verifyJson(wt).findings).toEqual([]);
  });

  it('a note replaced after its ledger line was written is a finding', () => {
    const { wt, shas } = setup(2);
    const note = noteOf(wt)!;
    note.record.id = '00000000-0000-4000-8000-000000000000';
    git(wt, 'notes', '--ref=intents', 'add', '-f', '-m', `${note.summary}\n${JSON.stringify(note.record)}`, 'HEAD');
    const v = verifyJson(wt);
    expect(v.findings.map((f) => [f.code, f.commit])).toEqual([['LEDGER_MISMATCH', shas[1]]]);
    expect(v.findings[0].message).toContain('is not in its note (the note was replaced after it was recorded)');
    // repair does not launder it: the ledger keeps the record it had, and verify still reports it.
    expect(repairJson(wt)).toMatchObject({ ledgerAppended: 0 });
    expect(verifyJson(wt).findings.map((f) => f.code)).toEqual(['LEDGER_MISMATCH']);
  });

  it('a torn line followed by more commits (a full disk) is healed: set aside, re-chained behind a repair entry', () => {
    const { repo, wt, ledger } = setup(2);
    const good = readFileSync(ledger, 'utf8');
    const torn = '{"version":"0.1.0","id":"torn-by-a-full-di';
    appendFileSync(ledger, torn);
    commitIn(wt, 3);
    commitIn(wt, 4);
    const v = verifyJson(wt);
    expect(v.findings.map((f) => f.code)).toEqual(['LEDGER_BROKEN']);
    expect(v.findings[0].message).toContain(':3: not a ledger record');

    const r = repairJson(wt);
    expect(r).toMatchObject({ recorded: [], ledgerAppended: 0, quarantined: 1, rechained: 2, brokeAt: 3, tornBytes: 0 });
    const text = readFileSync(ledger, 'utf8');
    expect(text.startsWith(good)).toBe(true); // the lines before the break, byte for byte
    const lines = ledgerLines(repo);
    expect(lines).toHaveLength(5);
    const entry = JSON.parse(lines[2]).metadata['dev.intent'].ledger_repair;
    expect(entry).toMatchObject({ broke_at_line: 3, rechained: 2, quarantined: [{ line: 3, bytes: torn.length }] });
    const side = readFileSync(r.quarantineFile, 'utf8');
    expect(side).toContain(`\n${torn}\n`);
    expect(verifyJson(wt).findings).toEqual([]);
    // The next commit chains on; a second repair has nothing to do.
    commitIn(wt, 5);
    expect(verifyJson(wt).findings).toEqual([]);
    const again = intent(wt, ['repair']);
    expect(again.stdout).toBe('intent repair: nothing to repair.\n');
  });

  it('a line removed in the middle: repair re-chains the rest and appends the lost record', () => {
    const { wt, ledger, shas } = setup(4);
    const lines = readFileSync(ledger, 'utf8').split('\n');
    writeFileSync(ledger, [lines[0], ...lines.slice(2)].join('\n'));
    const v = verifyJson(wt);
    expect(v.findings.map((f) => f.code).sort()).toEqual(['LEDGER_BROKEN', 'LEDGER_MISMATCH']);
    expect(v.findings.find((f) => f.code === 'LEDGER_MISMATCH').commit).toBe(shas[1]);
    const r = repairJson(wt);
    expect(r).toMatchObject({ quarantined: 0, rechained: 2, brokeAt: 2, ledgerAppended: 1 });
    const human = intent(wt, ['repair']);
    expect(human.stdout).toBe('intent repair: nothing to repair.\n');
    expect(verifyJson(wt).findings).toEqual([]);
  });

  it('a read-only ledger: the commit keeps its note and says only the ledger line is missing; repair refuses clearly, then heals', () => {
    const { wt, ledger, shas } = setup(1);
    chmodSync(ledger, 0o444);
    writeFiles(wt, { 'src/a.ts': 'a\nro\n' });
    const c = run('git', ['commit', '-q', '-am', 'while read-only'], wt);
    expect(c.status).toBe(0);
    expect(c.stderr).not.toContain('NOT recorded');
    expect(c.stderr).toContain('was recorded, but its ledger line was not');
    expect(c.stderr).toContain('is read-only');
    const sha = git(wt, 'rev-parse', 'HEAD').trim();
    expect(noteOf(wt)!.record.vcs.revision).toBe(sha);
    expect(verifyJson(wt).findings.map((f) => [f.code, f.commit])).toEqual([['LEDGER_MISMATCH', sha]]);

    const r = intent(wt, ['repair']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^intent: .*agent_trace\.jsonl is read-only \(mode 0444\).*chmod u\+w/);
    expect(r.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    const j = intent(wt, ['repair', '--json']);
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'WRITE_FAILED', data: { reason: 'read-only' } });

    chmodSync(ledger, 0o644);
    expect(repairJson(wt)).toMatchObject({ ledgerAppended: 1 });
    expect(verifyJson(wt).findings).toEqual([]);
    expect(shas).toHaveLength(1);
  });
});

describe('repair reports exactly what it did', () => {
  it('several kinds of damage at once: the printed and --json counts equal what changed in the ledger and the side file', () => {
    const { repo, wt, ledger, shas } = setup(6);
    const original = readFileSync(ledger, 'utf8').split('\n').filter((l) => l !== '');
    expect(original).toHaveLength(6);
    // Damage: line 2 lost, line 4 torn in the middle (a full disk, closed off by the next line),
    // line 6 never written (killed between note and ledger line), line 1 written again, a stray
    // line, a torn last line.
    const torn4 = original[3].slice(0, 40);
    const tornLast = original[0].slice(0, 25);
    writeFileSync(ledger, [original[0], original[2], torn4, original[4], original[0], 'not a record'].join('\n') + '\n' + tornLast);
    // A commit that never got its note (hooks skipped).
    writeFiles(wt, { 'src/a.ts': 'a\n7\n' });
    expect(run('git', ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-am', 'c7'], wt).status).toBe(0);
    const c7 = git(wt, 'rev-parse', 'HEAD').trim();
    const quarantine = join(repo, '.git', 'intent', 'ledger-quarantine.txt');
    expect(existsSync(quarantine)).toBe(false);

    const r = intent(wt, ['repair', '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toEqual({
      recorded: [c7], unknown: [], ledgerAppended: 3, tornBytes: 0, quarantined: 4, duplicates: 1, rechained: 2, brokeAt: 2, quarantineFile: quarantine,
    });
    // The ledger: line 1 as it was, the repair entry, the two intact records re-chained, the new
    // note's record, then the three lost records (commits 2, 4, 6), oldest first.
    const now = ledgerLines(repo).map((l) => JSON.parse(l));
    expect(now).toHaveLength(8);
    expect(JSON.stringify(now[0])).toBe(original[0]);
    const entry = now[1].metadata['dev.intent'].ledger_repair;
    expect(entry).toMatchObject({ broke_at_line: 2, rechained: j.rechained });
    expect(entry.quarantined.map((q: any) => [q.line, q.duplicate_of ?? null])).toEqual([[3, null], [5, 1], [6, null], [7, null]]);
    expect(entry.quarantined).toHaveLength(j.quarantined);
    expect(now.slice(2, 5).map((rec) => rec.vcs.revision)).toEqual([shas[2], shas[4], c7]);
    expect(now.slice(5).map((rec) => rec.vcs.revision).sort()).toEqual([shas[1], shas[3], shas[5]].sort()); // by commit time (one second: by sha)
    // The side file: the lines from the break on, as they were (the damaged ones among them).
    const side = readFileSync(quarantine, 'utf8').split('\n');
    expect(side[0]).toMatch(/lines 2-7 as they were \(the last one unterminated\); quarantined: 3, 5, 6, 7$/);
    expect(side.slice(1, -1)).toEqual([original[2], torn4, original[4], original[0], 'not a record', tornLast]);
    expect(verifyJson(wt).findings).toEqual([]);
    // The same counts in words; a second run has nothing to do.
    expect(intent(wt, ['repair']).stdout).toBe('intent repair: nothing to repair.\n');
  });

  it('the human output names each count; a record written twice is set aside, not kept twice', () => {
    const { repo, wt, ledger } = setup(4);
    const original = readFileSync(ledger, 'utf8').split('\n').filter((l) => l !== '');
    writeFileSync(ledger, [original[0], original[2], 'garbage', original[2]].join('\n') + '\n');
    const r = intent(wt, ['repair']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'intent repair: healed the ledger from line 2: 2 damaged lines (1 record written twice) set aside, 1 record re-chained behind a repair entry; appended 2 missing ledger lines.\n' +
      `  the lines taken out of the ledger are kept in ${join(repo, '.git', 'intent', 'ledger-quarantine.txt')}\n`,
    );
    expect(ledgerLines(repo)).toHaveLength(5);
  });
});

describe('a second clone', () => {
  it('without notes: one NOTES_ABSENT (not one NOTE_MISSING per commit); after init and git fetch a hint to sync; after sync clean', () => {
    const { repo } = setup(3);
    const remote = join(tempDir(), 'remote.git');
    git(dirname(remote), 'init', '-q', '--bare', '-b', 'main', remote);
    git(repo, 'remote', 'add', 'origin', remote);
    git(repo, 'push', '-q', '--no-verify', 'origin', 'main', 'intent/INT-001');
    expect(intent(repo, ['init']).status).toBe(0);
    const s = intent(repo, ['sync', '--json']);
    expect(s.status, s.stderr).toBe(0);

    const clone = join(dirname(remote), 'second');
    git(dirname(remote), 'clone', '-q', remote, clone);
    git(clone, 'fetch', '-q', 'origin', 'intent/INT-001:intent/INT-001');
    const v = verifyJson(clone, ['--all']);
    expect(v.status).toBe(1);
    expect(v.findings.map((f) => f.code)).toEqual(['NOTES_ABSENT']);
    expect(v.findings[0].message).toContain('none of the 3 governed commits can be checked');
    expect(v.findings[0].message).toContain('intent init');

    expect(intent(clone, ['init']).status).toBe(0);
    git(clone, 'fetch', '-q');
    const v2 = verifyJson(clone, ['--all']);
    expect(v2.findings.map((f) => f.code)).toEqual(['NOTES_ABSENT']);
    expect(v2.findings[0].message).toContain('refs/notes/remotes/origin/intents: take them with `intent sync origin`');

    expect(intent(clone, ['sync']).status).toBe(0);
    const v3 = verifyJson(clone, ['--all']);
    expect(v3.findings).toEqual([]);
    expect(v3.status).toBe(0);
    expect(existsSync(join(clone, '.orchestration', 'agent_trace.jsonl'))).toBe(true);
  });
});

describe('verify --intent', () => {
  it('refuses an intent the registry does not know (no false findings), accepts a known one', () => {
    const { wt } = setup(1);
    const r = intent(wt, ['verify', '--intent', 'INT-999', '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'UNKNOWN_INTENT', data: { intent: 'INT-999', known: ['INT-001'] } });
    const h = intent(wt, ['verify', '--intent', 'INT-999']);
    expect(h.stderr).toContain('Unknown intent "INT-999" for --intent');
    expect(intent(wt, ['verify', 'HEAD~1..HEAD', '--intent', 'INT-001']).status).toBe(0);
  });
});
