import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, checkoutIntent, git, governedRepo, noteOf, registryYaml, run, spawnAsync, tempDir, writeFiles } from '../helpers.js';

/**
 * `intent <args>` with its stdout going through a pipe whose reader starts a second late (as
 * `| jq` on a big input, or a slow terminal): the process must not end before the pipe took it all.
 */
async function throughSlowPipe(cwd: string, args: string[]): Promise<{ status: number; text: string }> {
  const out = join(tempDir(), 'out');
  const r = await spawnAsync('bash', ['-c', `set -o pipefail; "$@" | { sleep 1; cat; } > '${out}'`, '_', process.execPath, CLI, ...args], cwd);
  return { status: r.code, text: readFileSync(out, 'utf8') };
}

describe('output through a slow pipe', () => {
  it('blame, verify, map and status write all of 1 MB of JSON, whatever the reader’s speed', async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    const lines = Array.from({ length: 6000 }, (_, i) => `line ${i + 1} of a file big enough to blame at length\n`).join('');
    writeFiles(wt, { 'big.txt': lines });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'big file');
    // One note range per line, each with a wrong hash: verify reports 6,000 findings, map lists 6,000 ranges.
    const note = noteOf(wt)!;
    const record = note.record;
    record.files[0].conversations[0].ranges = Array.from({ length: 6000 }, (_, i) => ({ start_line: i + 1, end_line: i + 1, content_hash: 'sha256:' + '0'.repeat(64) }));
    const added = run('git', ['notes', '--ref=intents', 'add', '-f', '-F', '-', 'HEAD'], wt, {}, `${note.summary}\n${JSON.stringify(record)}\n`);
    expect(added.status, added.stderr).toBe(0);

    const check = (name: string, r: { status: number; text: string }, status: number, count: number) => {
      expect(r.text.length, `${name}: more than 1 MB`).toBeGreaterThan(1_000_000);
      expect(r.status, name).toBe(status);
      expect(count, name).toBe(name === 'status' ? 101 : 6000);
    };
    // blame, verify and map at once; then status, with a registry the others would have to read too.
    const [b, v, m] = await Promise.all([['blame', 'big.txt', '--json'], ['verify', '--json'], ['map', '--stdout', '--json']].map((a) => throughSlowPipe(wt, a)));
    check('blame', b, 0, JSON.parse(b.text).lines.length);
    check('verify', v, 1, JSON.parse(v.text).findings.filter((f: any) => f.code === 'HASH_MISMATCH').length);
    check('map', m, 0, JSON.parse(m.text).intents.find((i: any) => i.id === 'INT-001').files['big.txt'].length);

    // A registry of 100 intents with long scopes: status prints them all.
    const many = Array.from({ length: 100 }, (_, i) => ({
      id: `INT-${String(i + 2).padStart(3, '0')}`,
      scope: Array.from({ length: 40 }, (_, j) => `packages/component-${i}/src/feature-${j}/${'deeply-nested-folder/'.repeat(10)}**`),
    }));
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['**'] }, ...many]) });
    const st = await throughSlowPipe(repo, ['status', '--json']);
    check('status', st, 0, JSON.parse(st.text).intents.length);
  }, 120_000);
});

describe('output into a pipe nobody reads any more', () => {
  // `intent … | head`: the reader has gone before intent writes. A FIFO that a reader opened and
  // left makes that certain: every write to it fails with EPIPE (node ignores SIGPIPE).
  const intoClosedPipe = (cwd: string, args: string[]): { status: number; stderr: string } => {
    const d = tempDir();
    const r = run('sh', ['-c', `mkfifo "${d}/p"; ( exec 3<"${d}/p" ) & exec 4>"${d}/p"; wait; "$@" >&4; echo "exit $?" >&2`, '_', process.execPath, CLI, ...args], cwd);
    const m = /exit (\d+)\n$/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    return { status: Number(m![1]), stderr: r.stderr.slice(0, m!.index) };
  };

  it('stops printing quietly: no EPIPE crash, the exit code of the command', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    for (const args of [['--help'], ['--version'], ['status'], ['status', '--json'], ['checkout', 'INT-001']]) {
      const r = intoClosedPipe(repo, args);
      expect(r.stderr, args.join(' ')).not.toMatch(/EPIPE|Unhandled|internal error|^\s+at .+:\d+:\d+\)?$/m);
      // checkout reports on stderr what it did; the others print only to stdout.
      if (args[0] === 'checkout') expect(r.stderr).toMatch(/^intent: created worktree of INT-001 on branch intent\/INT-001; marked IN_PROGRESS\n/);
      else expect(r.stderr, args.join(' ')).toBe('');
      expect(r.status, args.join(' ')).toBe(0);
    }
    // The command did its work all the same: checkout made the worktree and marked the intent.
    expect(git(repo, 'worktree', 'list')).toContain('INT-001');
    const st = run(process.execPath, [CLI, 'status', '--json'], repo);
    expect(JSON.parse(st.stdout).intents.find((i: { intent: string }) => i.intent === 'INT-001')).toMatchObject({ status: 'IN_PROGRESS' });
  });
});
