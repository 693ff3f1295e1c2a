import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withLock } from '../../lib/core/lock.js';
import { CLI, checkoutIntent, git, governedRepo, ledgerLines, noteOf, registryYaml, tempDir, writeFiles, spawnAsync } from '../helpers.js';

// Many worktrees commit at the same moment: every note and every ledger line must survive,
// untorn and chained.

const INTENTS = 8;
const ROUNDS = 5;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('concurrent governed commits', () => {
  it(`${INTENTS} worktrees × ${ROUNDS} rounds of simultaneous real commits lose no note and no ledger line`, async () => {
    const ids = Array.from({ length: INTENTS }, (_, i) => `INT-${String(i + 1).padStart(3, '0')}`);
    const base: Record<string, string> = { 'README.md': '# r\n' };
    ids.forEach((_, i) => (base[`src/m${i}/seed.ts`] = 'seed\n'));
    const repo = governedRepo(ids.map((id, i) => ({ id, scope: [`src/m${i}/**`] })), base);
    const wts = ids.map((id) => checkoutIntent(repo, id));

    const shas: string[] = [];
    const shaIntent = new Map<string, string>();
    for (let round = 0; round < ROUNDS; round++) {
      wts.forEach((wt, i) => {
        writeFiles(wt, { [`src/m${i}/r${round}.ts`]: `export const round${round} = ${i};\n` });
        git(wt, 'add', '-A');
      });
      // Start every commit before awaiting any of them.
      const pending = wts.map((wt, i) => spawnAsync('git', ['commit', '-q', '-m', `round ${round} of ${ids[i]}`], wt));
      const results = await Promise.all(pending);
      results.forEach((r, i) => {
        expect(r.code, `${ids[i]} round ${round}: ${r.stderr}`).toBe(0);
        expect(r.stderr).not.toContain('NOT recorded');
        const sha = git(wts[i], 'rev-parse', 'HEAD').trim();
        shas.push(sha);
        shaIntent.set(sha, ids[i]);
      });
    }
    expect(new Set(shas).size).toBe(INTENTS * ROUNDS);

    // Every commit has its note, and each note is whole: summary + one JSON line for this commit.
    const annotated = new Set(
      git(repo, 'notes', '--ref=intents', 'list').split('\n').filter(Boolean).map((l) => l.split(' ')[1]),
    );
    for (const sha of shas) {
      expect(annotated.has(sha), `note of ${sha}`).toBe(true);
      const note = noteOf(repo, sha)!;
      expect(note.raw.split('\n')).toHaveLength(3);
      expect(note.summary.startsWith(`${shaIntent.get(sha)} `)).toBe(true);
      expect(note.record.vcs.revision).toBe(sha);
      expect(note.record.metadata['dev.intent'].intent_id).toBe(shaIntent.get(sha));
      expect(note.record.files).toHaveLength(1);
    }

    // The ledger: exactly one parseable, chained line per commit.
    const raw = readFileSync(join(repo, '.orchestration', 'agent_trace.jsonl'), 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const lines = ledgerLines(repo);
    expect(lines).toHaveLength(INTENTS * ROUNDS);
    expect(raw).toBe(lines.join('\n') + '\n');
    let prev: string | null = null;
    const seen = new Map<string, number>();
    for (const line of lines) {
      const rec = JSON.parse(line);
      expect(rec.metadata['dev.intent'].prev_line_sha256).toBe(prev);
      prev = sha256(line);
      seen.set(rec.vcs.revision, (seen.get(rec.vcs.revision) ?? 0) + 1);
    }
    for (const sha of shas) expect(seen.get(sha), `ledger lines for ${sha}`).toBe(1);
    expect(seen.size).toBe(INTENTS * ROUNDS);

    // Each intent's lines appear in its own commit order.
    for (const [i, wt] of wts.entries()) {
      const own = git(wt, 'rev-list', '--reverse', `HEAD~${ROUNDS}..HEAD`).split('\n').filter(Boolean);
      const order = lines.map((l) => JSON.parse(l).vcs.revision).filter((s: string) => own.includes(s));
      expect(order, ids[i]).toEqual(own);
    }
    // No lock or stale lock file is left behind. The in-process note writer's mark stays, blanked:
    // it names no writer (lib/git/notes-write.ts).
    const state = join(repo, '.git', 'intent');
    const left = readdirSync(state).filter((f) => f.includes('lock'));
    expect(left.filter((f) => !(f === 'notes-lock-owner' && readFileSync(join(state, f), 'utf8').trim() === ''))).toEqual([]);
  }, 300_000);
});

describe('concurrent checkouts', () => {
  it(`${INTENTS} simultaneous \`intent checkout\` processes each get their worktree and IN_PROGRESS`, async () => {
    const ids = Array.from({ length: INTENTS }, (_, i) => `INT-${String(i + 1).padStart(3, '0')}`);
    const repo = governedRepo(ids.map((id, i) => ({ id, scope: [`src/m${i}/**`] })));
    const results = await Promise.all(ids.map((id) => spawnAsync(process.execPath, [CLI, 'checkout', id, '--json'], repo)));
    const paths = results.map((r, i) => {
      expect(r.code, `${ids[i]}: ${r.stderr}${r.stdout}`).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toStrictEqual({ intent: ids[i], path: out.path, branch: `intent/${ids[i]}`, created: true });
      return out.path as string;
    });
    expect(new Set(paths).size).toBe(INTENTS);
    for (const [i, p] of paths.entries()) expect(git(p, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`intent/${ids[i]}`);
    const registry = readFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'utf8');
    expect(registry.match(/status: "IN_PROGRESS"/g)).toHaveLength(INTENTS);
    expect(registry).not.toContain('PENDING');
    expect(registry).toBe(registryYaml(ids.map((id, i) => ({ id, status: 'IN_PROGRESS', scope: [`src/m${i}/**`] }))));
  }, 120_000);
});

describe('withLock', () => {
  it('takes over a lock file left behind by a dead process', () => {
    const dir = tempDir();
    const lock = join(dir, 'state', 'x.lock');
    const dead = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout.trim());
    expect(deadPid).toBeGreaterThan(0);
    expect(() => process.kill(deadPid, 0)).toThrow();
    writeFiles(dir, { 'state/x.lock': `${deadPid}\n` });

    let inside = '';
    const out = withLock(lock, () => {
      inside = readFileSync(lock, 'utf8');
      return 'ran';
    }, 5_000);
    expect(out).toBe('ran');
    expect(inside).toMatch(new RegExp(`^${process.pid} (\\d+|-)\\n$`));
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(join(dir, 'state'))).toEqual([]);
  });

  it('waits for a live holder, then runs', async () => {
    const dir = tempDir();
    const lock = join(dir, 'y.lock');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const holder = `
      const fs = require('node:fs');
      const fd = fs.openSync(${JSON.stringify(lock)}, 'wx');
      fs.writeSync(fd, process.pid + '\\n');
      fs.closeSync(fd);
      fs.appendFileSync(${JSON.stringify(log)}, 'holder-start\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
      fs.appendFileSync(${JSON.stringify(log)}, 'holder-end\\n');
      fs.unlinkSync(${JSON.stringify(lock)});
    `;
    let exited = false;
    const child = spawnAsync(process.execPath, ['-e', holder], dir).finally(() => (exited = true));
    while (!exited && !readFileSync(log, 'utf8').includes('holder-start')) await new Promise((r) => setTimeout(r, 5));
    expect(existsSync(lock)).toBe(true);

    withLock(lock, () => appendFileSync(log, 'waiter\n'), 30_000);
    const res = await child;
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('holder-start\nholder-end\nwaiter\n');
    expect(existsSync(lock)).toBe(false);
  });

  it('gives up on a live holder after the timeout with LOCK_TIMEOUT, without running', () => {
    const dir = tempDir();
    const lock = join(dir, 'z.lock');
    writeFileSync(lock, `${process.pid}\n`);
    let ran = false;
    let err: any;
    try {
      withLock(lock, () => (ran = true), 200);
    } catch (e) {
      err = e;
    }
    expect(ran).toBe(false);
    expect(err?.code).toBe('LOCK_TIMEOUT');
    expect(String(err?.message)).toContain(lock);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
  });
});
