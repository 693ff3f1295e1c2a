import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, ledgerLines, noteOf, spawnAsync, writeFiles } from '../helpers.js';

/**
 * Runs the installed post-commit hook in its own node (no hook server: killing the runner would
 * not stop the server's work; test/integration/hook-server.test.ts kills the server) and SIGKILLs
 * it after `ms` (it may finish first).
 */
function killHookAfter(wt: string, hook: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(hook, ['post-commit'], { cwd: wt, stdio: 'ignore', env: { ...process.env, INTENT_HOOK_SERVER: '0' } });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('crash recovery', () => {
  it('finds every commit a killed post-commit left without a note or ledger line, and intent repair restores them', async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const hook = join(repo, '.git', 'intent', 'bin', 'hook');
    // Calibrate: how long one post-commit run takes here.
    writeFiles(wt, { 'src/a.ts': 'a\n0\n' });
    git(wt, 'add', '-A');
    git(wt, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'calibrate');
    const t0 = Date.now();
    await killHookAfter(wt, hook, 60_000);
    const full = Math.max(50, Date.now() - t0);

    const commits: string[] = [];
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 1; i <= 24; i++) {
      writeFiles(wt, { [`src/f${i}.ts`]: `export const f${i} = ${i};\n` });
      git(wt, 'add', '-A');
      git(wt, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `c${i}`);
      commits.push(git(wt, 'rev-parse', 'HEAD').trim());
      await killHookAfter(wt, hook, Math.floor(rand() * full * 1.2));
    }
    const noted = commits.filter((c) => git(wt, 'notes', '--ref=intents', 'list').includes(c));
    const before = JSON.parse(intent(wt, ['verify', '--json', '--no-ledger']).stdout);
    const reported = before.findings.filter((f: any) => f.code === 'NOTE_MISSING').map((f: any) => f.commit).sort();
    expect(reported).toEqual(commits.filter((c) => !noted.includes(c)).sort());
    expect(before.findings.every((f: any) => f.code === 'NOTE_MISSING')).toBe(true);
    // The kills must have hit both ways at least once, or the test proves nothing.
    expect(reported.length).toBeGreaterThan(0);
    expect(noted.length).toBeGreaterThan(0);

    const r = intent(wt, ['repair', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).recorded.sort()).toEqual(reported);
    const after = JSON.parse(intent(wt, ['verify', '--json']).stdout);
    expect(after.findings).toEqual([]);
    // One ledger line per note: lines lost between the note and the ledger are back too.
    const ids = ledgerLines(repo).map((l) => JSON.parse(l).vcs.revision);
    for (const c of commits) expect(ids).toContain(c);
  }, 120_000);

  it("a git process that outlives a killed hook, holding the notes ref's lock, only delays the next note", async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const lock = join(repo, '.git', 'refs', 'notes', 'intents.lock');
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, '');
    setTimeout(() => rmSync(lock, { force: true }), 1500);
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    git(wt, 'add', '-A');
    const r = await spawnAsync('git', ['commit', '-q', '-m', 'while locked'], wt);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/WARNING/);
    expect(existsSync(lock)).toBe(false);
    expect(noteOf(wt)!.record.metadata['dev.intent'].intent_id).toBe('INT-001');
    expect(JSON.parse(intent(wt, ['verify', '--json']).stdout).findings).toEqual([]);
  });

  it('cuts a torn last ledger line without touching earlier lines', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    for (let i = 1; i <= 3; i++) {
      writeFiles(wt, { 'src/a.ts': `a\n${i}\n` });
      git(wt, 'commit', '-q', '-am', `c${i}`);
    }
    const ledger = join(repo, '.orchestration', 'agent_trace.jsonl');
    const good = readFileSync(ledger);
    appendFileSync(ledger, '{"version":"0.1.0","id":"torn-by-a-cr');
    const v = JSON.parse(intent(wt, ['verify', '--json']).stdout);
    expect(v.findings.map((f: any) => f.code)).toEqual(['LEDGER_BROKEN']);
    expect(v.findings[0].message).toContain(':4: not a ledger record (a torn last line: run intent repair)');
    const r = JSON.parse(intent(wt, ['repair', '--json']).stdout);
    expect(r.tornBytes).toBe('{"version":"0.1.0","id":"torn-by-a-cr'.length);
    expect(readFileSync(ledger).equals(good)).toBe(true);
    expect(JSON.parse(intent(wt, ['verify', '--json']).stdout).findings).toEqual([]);
    // The next commit chains onto the last good line.
    writeFiles(wt, { 'src/a.ts': 'a\n4\n' });
    git(wt, 'commit', '-q', '-am', 'c4');
    expect(JSON.parse(intent(wt, ['verify', '--json']).stdout).findings).toEqual([]);
  });
});
