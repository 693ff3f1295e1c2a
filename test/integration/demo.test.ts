import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, git, ledgerLines, noteOf, run, tempDir } from '../helpers.js';

// `intent demo` as a user runs it: `node dist/bin/intent.js demo`.

const demoDirs = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('intent-demo-'));
const SCOPE_LINE = 'Scope Violation: INT-001 is not authorized to edit src/billing/invoice.ts';

describe('intent demo', () => {
  it('passes, shows the rejected out-of-scope commit and leaves no temporary directory behind', () => {
    // The demo process gets a private TMPDIR (its os.tmpdir()), so counting its intent-demo-*
    // directories before and after races no other process on the machine.
    const tmp = tempDir('intent-test-demotmp-');
    const before = demoDirs(tmp).length;
    expect(before).toBe(0);
    const r = run(process.execPath, [CLI, 'demo'], tempDir(), { TMPDIR: tmp });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Demo passed');
    expect(r.stdout).not.toContain('Demo FAILED');
    expect(r.stdout).toContain(SCOPE_LINE);
    expect(r.stdout).not.toContain('Kept:');

    const m = /A fresh repository at (.+)\n/.exec(r.stdout);
    expect(m, 'the demo names its repository').not.toBeNull();
    const demoRepo = m![1];
    expect(demoRepo.startsWith(join(tmp, 'intent-demo-'))).toBe(true);
    expect(existsSync(demoRepo)).toBe(false);
    expect(demoDirs(tmp).length).toBe(before);
    // All that is left is the report, whose path the demo prints last.
    expect(readdirSync(tmp)).toEqual(['intent-report-demo.html']);
    expect(r.stdout.trimEnd().split('\n').pop()).toBe(`Report: ${join(tmp, 'intent-report-demo.html')} (open it in a browser)`);
    const html = readFileSync(join(tmp, 'intent-report-demo.html'), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    const data = JSON.parse(html.match(/<script type="application\/json" id="intent-report-data">([^<]*)<\/script>/)![1]);
    expect(data.commits.map((c: { intent: string }) => c.intent).sort()).toEqual(['INT-001', 'INT-002']);
    expect(data.verify.ok).toBe(true);
    expect(data.totals.lines_now.ai).toBeGreaterThan(0);
  });

  it('--json: one JSON object on stdout, the narration on stderr', () => {
    const dir = tempDir();
    const r = run(process.execPath, [CLI, 'demo', '--dir', dir, '--json'], tempDir());
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, repo: expect.stringContaining(dir), chainIntact: true });
    expect(out.governedCommits).toHaveLength(2);
    expect(out.rejected.exitCode).not.toBe(0);
    expect(r.stderr).toContain('Demo passed');
  });

  it('--dir keeps the repository there, with its two governed commits noted', () => {
    const dir = tempDir();
    const r = run(process.execPath, [CLI, 'demo', '--dir', dir], tempDir());
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Demo passed');
    const repo = join(dir, 'shop');
    expect(r.stdout).toContain(`Kept: ${repo}`);
    expect(r.stdout).toContain(`Report: ${join(dir, 'intent-report.html')}`);
    expect(existsSync(join(dir, 'intent-report.html'))).toBe(true);
    expect(existsSync(join(repo, '.git'))).toBe(true);

    const notes = git(repo, 'notes', '--ref=intents', 'list').split('\n').filter(Boolean);
    expect(notes).toHaveLength(2);
    const commits = notes.map((l) => l.split(' ')[1]);
    const intents = commits.map((c) => noteOf(repo, c)!.record.metadata['dev.intent'].intent_id).sort();
    expect(intents).toEqual(['INT-001', 'INT-002']);
    for (const c of commits) expect(noteOf(repo, c)!.record.vcs.revision).toBe(c);
    expect(ledgerLines(repo)).toHaveLength(2);
    expect(git(repo, 'log', '--notes=intents', '--branches')).toContain('INT-001 JWT Authentication Migration · ');
  });
});
