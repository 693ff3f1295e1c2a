import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, constants, existsSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, hookServersStoppedAfterEach, intent, noteOf, PKG_ROOT, postCommitLines, run, serverTrace, spawnAsync, tempDir, until, writeFiles } from '../helpers.js';

// The hook server (lib/hooks/server.ts): real `git commit` through the installed hooks and the
// runner (git-hooks/runner.sh); the server reports each request it served in INTENT_HOOK_SERVER_TRACE.

const SERVER = { INTENT_HOOK_SERVER: '1', INTENT_HOOK_SERVER_MS: '60000' };
const children: ChildProcess[] = [];
// Each test's servers leave with its repositories (checked every second); stop them now.
const servers = hookServersStoppedAfterEach();
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function setup(): { repo: string; wt: string; trace: string; env: Record<string, string> } {
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['lib/**'] }], {
    'src/a.ts': 'export const a = 1;\n', 'lib/b.ts': 'export const b = 1;\n', 'README.md': '# t\n',
  });
  const wt = checkoutIntent(repo, 'INT-001');
  const trace = join(tempDir('intent-server-trace-'), 'trace.jsonl');
  return { repo, wt, trace, env: { ...SERVER, INTENT_HOOK_SERVER_TRACE: trace } };
}

/**
 * The hooks the server handled, in order: its requests, and, for a commit whose post-commit hook
 * found it recorded already and did not ask, the record made as soon as git made it (as that
 * post-commit; helpers.ts servedLines).
 */
function served(trace: string): { server: number; hook: string; code: number; runner?: number }[] {
  const lines = serverTrace<{ server: number; code: number; runner?: number }>(trace, servers);
  const posts = new Set(postCommitLines(lines));
  // (`<hook>:after`: what the work after a hook's answer added to its trace, not a request.)
  return lines
    .filter((l) => !l.hook.endsWith(':after') && (l.hook !== 'post-commit:early' || posts.has(l)))
    .map((l) => (l.hook === 'post-commit:early' ? { server: l.server, hook: 'post-commit', code: 0 } : l));
}

/** The hook servers running for `repo` (from their command lines). */
function serversOf(repo: string): number[] {
  if (!existsSync(serverDir(repo))) return [];
  const dir = realpathSync(serverDir(repo));
  return readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p)).filter((p) => {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return argv.includes('serve-hooks') && argv[argv.indexOf('serve-hooks') + 1] === dir;
    } catch {
      return false;
    }
  }).map(Number);
}

/** Waits until `repo`'s own server runs and names itself in its pid file. Returns its pid. */
async function serverUp(repo: string): Promise<number> {
  let pid = 0;
  await until(() => {
    const running = serversOf(repo);
    pid = running[0] ?? 0;
    return running.length === 1 && serverPid(repo) === pid && existsSync(join(serverDir(repo), 'in'));
  }, `one hook server runs for ${repo}, named in its pid file, with its FIFO`);
  return pid;
}

const serverDir = (repo: string) => join(repo, '.git', 'intent', 'server');
function serverPid(repo: string): number | null {
  try {
    const pid = Number(readFileSync(join(serverDir(repo), 'pid'), 'utf8').split('\n')[0]);
    if (pid > 0) servers.add(pid);
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function commit(wt: string, env: Record<string, string>, files: Record<string, string>, message: string, extra: string[] = []) {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  return run('git', ['commit', '-q', '-m', message, ...extra], wt, env);
}

/**
 * A commit whose prepare-commit-msg and post-commit the server `pid` answered. Under load a runner may give up on
 * the server (its waits are bounded: 3 s to claim, 5 s to answer) and run the hook in its own node,
 * which is right for the commit but leaves a test that needs the server's work waiting for it: such
 * a commit is followed by another, up to five in all.
 */
function servedCommit(wt: string, env: Record<string, string>, trace: string, pid: number, path: string, message: string): void {
  // Both hooks: its post-commit writes the note (the server's writer is what makes files ahead).
  const answered = () => Math.min(...['prepare-commit-msg', 'post-commit'].map((h) => served(trace).filter((l) => l.server === pid && l.hook === h).length));
  const before = answered();
  for (let i = 0; i < 5; i++) {
    expect(commit(wt, env, { [path]: `export const v = ${JSON.stringify(`${message} ${i}`)};\n` }, `${message} (${i})`).status).toBe(0);
    if (answered() > before) return;
  }
  throw new Error(`five commits went round the hook server ${pid} (the machine is too loaded for its 3 s claim wait)`);
}

/** The parts of a note that do not change between two runs of the same commit. */
function stable(wt: string): unknown {
  const n = noteOf(wt)!;
  const { id, timestamp, vcs, ...rest } = n.record;
  return { summary: n.summary, rest, files: n.record.files };
}

/**
 * A stand-in for the server: holds the repository's `in` FIFO open and names itself in the pid
 * file as a server does. `die`: takes the first request (renames the reply FIFO, as the server
 * claims it) and exits without an answer; `hold`: claims every request, keeps its reply FIFO open
 * and never answers; `never`: never reads. Each request it claims is a line in `took`. `pipe`: it
 * names the pipe protocol in its pid file, as servers do now: the runner's `r.<pid>` is a plain
 * marker and the reply channel the runner's descriptor 4, which `hold` opens through /proc.
 */
async function standIn(repo: string, mode: 'die' | 'hold' | 'never', proto: 'fifo' | 'pipe' = 'fifo'): Promise<ChildProcess> {
  const dir = serverDir(repo);
  writeFiles(dir, { '.keep': '' });
  const phys = realpathSync(dir);
  run('mkfifo', [join(dir, 'in')], repo);
  const tag = `${process.execPath}|${join(PKG_ROOT, 'dist', 'bin', 'hook.cjs')}|${phys}`;
  const script = `const fs = require('fs'); const dir = ${JSON.stringify(phys)}; const mode = ${JSON.stringify(mode)}; const pipe = ${proto === 'pipe'};
    const fd = fs.openSync(dir + '/in', fs.constants.O_RDWR);
    fs.writeFileSync(dir + '/pid', process.pid + '\\n' + ${JSON.stringify(tag)} + '\\n' + fd + '\\n' + (pipe ? '2\\n' : ''));
    const held = [];
    while (mode !== 'never') {
      const b = Buffer.alloc(64); const n = fs.readSync(fd, b);
      for (const line of b.toString('utf8', 0, n).split('\\n').filter(Boolean)) {
        const pid = line.split(' ')[0];
        try {
          fs.renameSync(dir + '/r.' + pid, dir + '/r.' + pid + '.claimed');
          if (mode === 'hold') held.push(pipe ? fs.openSync('/proc/' + pid + '/fd/4', fs.constants.O_WRONLY | fs.constants.O_NONBLOCK) : fs.openSync(dir + '/r.' + pid + '.claimed', 'r+'));
          fs.appendFileSync(dir + '/took', pid + '\\n');
        } catch {}
        if (mode === 'die') process.exit(0);
      }
    }
    setTimeout(() => {}, 120000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  children.push(child);
  await until(() => existsSync(join(dir, 'pid')));
  return child;
}

describe('the hook server', () => {
  it('runs the per-commit hooks after the first commit started it; the notes are those node writes', async () => {
    const { repo, wt, trace, env } = setup();
    const first = commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'one');
    expect(first.status, first.stderr).toBe(0);
    // No server folder yet (the helpers' copies have none): the runner says nothing about it.
    expect(first.stderr).toBe('');
    // The first commit's hooks ran in node and asked for a server.
    await serverUp(repo);
    // (The first commit's post-commit may already have found it.)
    const before = served(trace).length;
    const viaServer: unknown[] = [];
    for (let i = 3; i < 6; i++) {
      const r = commit(wt, env, { 'src/a.ts': `export const a = ${i};\n`, 'src/c.ts': `// ${i}\nexport const c = ${i};\n` }, `round ${i}`);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      viaServer.push(stable(wt));
    }
    const hooks = served(trace).slice(before).map((l) => l.hook);
    expect(hooks).toEqual(['prepare-commit-msg', 'post-commit', 'prepare-commit-msg', 'post-commit', 'prepare-commit-msg', 'post-commit']);
    expect(new Set(served(trace).map((l) => l.server))).toEqual(new Set([serverPid(repo)]));

    // The same three commits again, from the same start, with the server off: the same notes.
    git(wt, 'reset', '-q', '--hard', 'HEAD~3');
    const off = { ...env, INTENT_HOOK_SERVER: '0' };
    const viaNode: unknown[] = [];
    for (let i = 3; i < 6; i++) {
      const r = commit(wt, off, { 'src/a.ts': `export const a = ${i};\n`, 'src/c.ts': `// ${i}\nexport const c = ${i};\n` }, `round ${i}`);
      expect(r.status, r.stderr).toBe(0);
      viaNode.push(stable(wt));
    }
    expect(served(trace)).toHaveLength(before + 6);
    expect(viaServer).toEqual(viaNode);
  });

  it('writes the notes in-process as git would (fsck clean, no lock left); a killed server\'s successor records the next commits', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const first = await serverUp(repo);
    for (let i = 3; i < 6; i++) servedCommit(wt, env, trace, first, 'src/a.ts', `round ${i}`);
    expect(noteOf(wt)?.record.vcs.revision).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    expect(readFileSync(join(repo, '.git', 'refs', 'notes', 'intents'), 'utf8')).toBe(`${git(repo, 'rev-parse', 'refs/notes/intents').trim()}\n`);
    expect(existsSync(join(repo, '.git', 'refs', 'notes', 'intents.lock'))).toBe(false);
    const fsck = run('git', ['fsck', '--strict', '--no-dangling'], repo);
    expect(fsck.status, fsck.stderr).toBe(0);
    process.kill(first, 'SIGKILL');
    await until(() => !alive(first), 'the server gone');
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 8;\n' }, 'round 8').status).toBe(0);
    const second = await serverUp(repo);
    expect(second).not.toBe(first);
    servedCommit(wt, env, trace, second, 'src/a.ts', 'round 9');
    expect(noteOf(wt)?.record.vcs.revision).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    const v = intent(repo, ['verify']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });

  it('refuses through the server with node\'s message and exit code, with git\'s own index for the commit (commit <path>, commit -a)', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    // `git commit <path>` commits from a temporary index (GIT_INDEX_FILE): only the named path.
    writeFiles(wt, { 'README.md': '# changed\n', 'src/a.ts': 'export const a = 3;\n' });
    const named = run('git', ['commit', '-q', '-m', 'readme only', 'README.md'], wt, env);
    expect(named.status).toBe(1);
    expect(named.stderr).toContain('Scope Violation: INT-001 is not authorized to edit README.md');
    expect(named.stderr).toContain('intent: commit blocked.');
    const inScope = run('git', ['commit', '-q', '-m', 'a only', 'src/a.ts'], wt, env);
    expect(inScope.status, inScope.stderr).toBe(0);
    expect(noteOf(wt)!.record.files.map((f: { path: string }) => f.path)).toEqual(['src/a.ts']);
    const all = run('git', ['commit', '-q', '-a', '-m', 'everything'], wt, env);
    expect(all.status).toBe(1);
    expect(all.stderr).toContain('README.md');
    git(wt, 'checkout', '-q', '--', 'README.md');
    const hooks = served(trace);
    expect(hooks.filter((h) => h.hook === 'prepare-commit-msg').map((h) => h.code)).toEqual([1, 0, 1]);
  });

  it('passes the message file to prepare-commit-msg: a claim the change does not bear out is refused, with --no-verify too', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    const r = commit(wt, env, { 'src/a.ts': 'export const a = 42;\n' }, 'not a refactor\n\nIntent-Mutation: AST_REFACTOR');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/AST_REFACTOR/);
    expect(served(trace).map((h) => `${h.hook}:${h.code}`)).toContain('prepare-commit-msg:1');
    const before = served(trace).length;
    const skipped = run('git', ['commit', '-q', '--no-verify', '-m', 'not a refactor\n\nIntent-Mutation: AST_REFACTOR'], wt, env);
    expect(skipped.status).toBe(1);
    expect(skipped.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit');
    expect(served(trace).slice(before).map((h) => `${h.hook}:${h.code}`)).toEqual(['prepare-commit-msg:1']);
  });

  it('sees every edit of the registry between served commits, also one of the same size with its modification time put back', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    const file = join(repo, '.orchestration', 'active_intents.yaml');
    const wide = readFileSync(file, 'utf8');
    expect(wide).toContain('["src/**"]');
    const before = served(trace).length;
    expect(commit(wt, env, { 'src/c.ts': 'export const c = 1;\n' }, 'c, in scope').status).toBe(0);
    // Same length, same modification time to the nanosecond (touch -r): only the change time (and
    // the bytes) differ.
    const stamp = join(tempDir('intent-server-stamp-'), 'stamp');
    run('touch', ['-r', file, stamp], repo);
    const mtimeNs = statSync(file, { bigint: true }).mtimeNs;
    writeFileSync(file, wide.replace('["src/**"]', '["src/a*"]'));
    run('touch', ['-r', stamp, file], repo);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(mtimeNs);
    const narrowed = commit(wt, env, { 'src/c.ts': 'export const c = 2;\n' }, 'c, out of scope now');
    expect(narrowed.status).toBe(1);
    expect(narrowed.stderr).toContain('Scope Violation: INT-001 is not authorized to edit src/c.ts');
    writeFileSync(file, wide);
    const back = run('git', ['commit', '-q', '-m', 'c, in scope again'], wt, env);
    expect(back.status, back.stderr).toBe(0);
    expect(served(trace).slice(before).filter((h) => h.hook === 'prepare-commit-msg').map((h) => h.code)).toEqual([0, 1, 0]);
  });

  it('sees every move of another intent\'s branch between served commits: update-ref, pack-refs, deletion, a folder of branches', async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }, { id: 'INT-002', scope: ['src/**'] }], {
      'src/auth/a.ts': 'export const a = 1;\n', 'src/auth/b.ts': 'export const b = 1;\n', 'README.md': '# t\n',
    });
    const trace = join(tempDir('intent-server-trace-'), 'trace.jsonl');
    const env = { ...SERVER, INTENT_HOOK_SERVER_TRACE: trace };
    const wt1 = checkoutIntent(repo, 'INT-001');
    const wt2 = checkoutIntent(repo, 'INT-002');
    const quiet = git(wt2, 'rev-parse', 'HEAD').trim();
    expect(commit(wt2, env, { 'src/auth/a.ts': 'export const a = 20;\n' }, 'INT-002 changes a.ts').status).toBe(0);
    const touching = git(wt2, 'rev-parse', 'HEAD').trim();
    expect(commit(wt1, env, { 'src/auth/b.ts': 'export const b = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    const warning = 'conflict ahead: src/auth/a.ts is also changed on intent/INT-002';
    let n = 0;
    /** A served commit in INT-001's worktree that changes a.ts: whether it warned about INT-002. */
    const warns = (): boolean => {
      const before = served(trace).length;
      const r = commit(wt1, env, { 'src/auth/a.ts': `export const a = ${100 + n++};\n` }, `a.ts ${n}`);
      expect(r.status, r.stderr).toBe(0);
      expect(served(trace).slice(before).map((h) => h.hook)).toContain('prepare-commit-msg');
      return r.stderr.includes(warning);
    };
    const moveTo = (sha: string) => git(repo, 'update-ref', 'refs/heads/intent/INT-002', sha);
    // Moved by a process that is no hook (the server learns it from the folder's watch), right
    // before each commit.
    const seen: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      moveTo(i % 2 ? quiet : touching);
      seen.push(warns());
    }
    expect(seen).toEqual([true, false, true, false, true, false]);
    // Packed: the loose file goes, packed-refs has the tip.
    moveTo(touching);
    git(repo, 'pack-refs', '--all');
    expect(existsSync(join(repo, '.git', 'refs', 'heads', 'intent', 'INT-002'))).toBe(false);
    expect(warns()).toBe(true);
    // A loose ref over the packed one wins.
    moveTo(quiet);
    expect(warns()).toBe(false);
    // Deleted, then made again.
    git(repo, 'update-ref', '-d', 'refs/heads/intent/INT-002');
    expect(warns()).toBe(false);
    moveTo(touching);
    expect(warns()).toBe(true);
    // A folder inside refs/heads/intent/ (a branch name with a slash): still every move.
    git(repo, 'update-ref', 'refs/heads/intent/by-hand/x', quiet);
    moveTo(quiet);
    expect(warns()).toBe(false);
    moveTo(touching);
    expect(warns()).toBe(true);
  });

  it('commits from four worktrees at once through one server all get their notes', async () => {
    const repo = governedRepo(['A', 'B', 'C', 'D'].map((x) => ({ id: `INT-${x}`, scope: [`${x.toLowerCase()}/**`] })), { 'README.md': '# t\n' });
    const trace = join(tempDir('intent-server-trace-'), 'trace.jsonl');
    const env = { ...SERVER, INTENT_HOOK_SERVER_TRACE: trace };
    const wts = ['A', 'B', 'C', 'D'].map((x) => checkoutIntent(repo, `INT-${x}`));
    const warm = commit(wts[0]!, env, { 'a/0.txt': 'warm\n' }, 'warm');
    expect(warm.status, warm.stderr).toBe(0);
    await serverUp(repo);
    const before = served(trace).length;
    for (const [i, wt] of wts.entries()) writeFiles(wt, { [`${'abcd'[i]}/x.txt`]: `work ${i}\n` });
    for (const wt of wts) git(wt, 'add', '-A');
    Object.assign(process.env, env);
    try {
      const results = await Promise.all(wts.map((wt) => spawnAsync('git', ['commit', '-q', '-m', 'together'], wt)));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
    }
    for (const wt of wts) expect(noteOf(wt)?.summary).toMatch(/^INT-[ABCD] /);
    expect(served(trace).slice(before).filter((h) => h.hook === 'post-commit')).toHaveLength(4);
  });

  it('a server that dies in the middle of a request: the runner runs the hook itself', async () => {
    const { repo, wt, env } = setup();
    await standIn(repo, 'die');
    const r = commit(wt, { ...env, INTENT_HOOK_SERVER_MS: '0' }, { 'src/a.ts': 'export const a = 7;\n' }, 'after a death');
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(serverDir(repo), 'took'))).toBe(true);
    expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
  });

  it('a listener that never takes the request (a stuck server): the runner gives up on it and runs the hook', async () => {
    const { repo, wt, env } = setup();
    const stuck = await standIn(repo, 'never');
    const r = commit(wt, { ...env, INTENT_HOOK_SERVER_MS: '0' }, { 'src/a.ts': 'export const a = 8;\n' }, 'nobody listens');
    expect(r.status, r.stderr).toBe(0);
    expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
    expect(alive(stuck.pid!)).toBe(true);
    // The runner took its request back: nothing is left for the stand-in to claim.
    expect(readdirSync(serverDir(repo)).filter((f) => f.startsWith('r.'))).toEqual([]);
  });

  it('a copy of a repository (cp -a, its server running) gets its own server and leaves the original\'s alone', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const original = await serverUp(repo);
    const byOriginal = () => served(trace).filter((h) => h.server === original).length;
    const before = byOriginal();
    const copyRoot = tempDir('intent-server-copy-');
    run('cp', ['-a', repo, join(copyRoot, 'repo')], copyRoot);
    const copy = join(copyRoot, 'repo');
    // The copy's main worktree: commit there with an intent named (its linked worktrees still point at the original).
    writeFiles(copy, { 'src/a.ts': 'export const a = 9;\n' });
    git(copy, 'add', 'src/a.ts');
    const r = run('git', ['commit', '-q', '-m', 'in the copy'], copy, { ...env, INTENT_ID: 'INT-001' });
    expect(r.status, r.stderr).toBe(0);
    await serverUp(copy);
    expect(alive(original)).toBe(true);
    // (The copy's server reports to the same trace file: the copy's hooks, not the original's.)
    expect(byOriginal()).toBe(before);
    writeFiles(copy, { 'src/a.ts': 'export const a = 10;\n' });
    git(copy, 'add', 'src/a.ts');
    const again = run('git', ['commit', '-q', '-m', 'again in the copy'], copy, { ...env, INTENT_ID: 'INT-001' });
    expect(again.status, again.stderr).toBe(0);
    expect(byOriginal()).toBe(before);
    expect(served(trace).filter((h) => h.server === serverPid(copy)).map((h) => h.hook)).toContain('pre-commit');
  });

  it('no process of a served hook outlives git commit: a pipe the caller passed to git has no writer left when git exits', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const pid = await serverUp(repo);
    // A named pipe: both its ends show its path in /proc/<pid>/fd, so every process holding it is found.
    const fifo = join(tempDir('intent-fifo-'), 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const holders = () => readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p) && Number(p) !== process.pid).filter((p) => {
      try {
        return readdirSync(`/proc/${p}/fd`).some((fd) => {
          try { return readlinkSync(`/proc/${p}/fd/${fd}`) === fifo; } catch { return false; }
        });
      } catch {
        return false;
      }
    }).map((p) => `${p} ${readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    const servedBefore = served(trace).filter((l) => l.server === pid && l.hook === 'prepare-commit-msg').length;
    try {
      for (let i = 3; i < 6; i++) {
        writeFiles(wt, { 'src/a.ts': `export const a = ${i};\n` });
        git(wt, 'add', '-A');
        // A caller that gives git one more descriptor (fd 3), the pipe's writer, and reads it to its end.
        const writer = openSync(fifo, 'w');
        const child = spawn('git', ['commit', '-q', '-m', `piped ${i}`], { cwd: wt, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'ignore', writer] });
        closeSync(writer);
        const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
        expect(code).toBe(0);
        expect(holders(), 'processes still holding the pipe git was given, after git commit exited').toEqual([]);
      }
    } finally {
      closeSync(reader);
    }
    expect(served(trace).filter((l) => l.server === pid && l.hook === 'prepare-commit-msg').length, 'the commits went through the server').toBeGreaterThan(servedBefore);
  });

  it('the note is readable with plain git the moment each commit returns: 200 served commits, each note read right after', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const pid = await serverUp(repo);
    const before = served(trace).filter((l) => l.server === pid && l.hook === 'post-commit').length;
    for (let i = 0; i < 200; i++) {
      const r = commit(wt, env, { 'src/a.ts': `export const a = ${i + 3};\n` }, `round ${i}`);
      expect(r.status, r.stderr).toBe(0);
      const sha = git(wt, 'rev-parse', 'HEAD').trim();
      // What a script, a test or an agent runs right after its commit.
      const note = run('git', ['notes', '--ref=intents', 'show', sha], wt);
      expect(note.status, `commit ${i} (${sha}) has no note yet: ${note.stderr}`).toBe(0);
      expect(JSON.parse(note.stdout.split('\n')[1]).vcs.revision).toBe(sha);
      if (i % 20 === 0) await new Promise((res) => setImmediate(res));
    }
    expect(served(trace).filter((l) => l.server === pid && l.hook === 'post-commit').length - before, 'most commits were recorded by the server').toBeGreaterThan(100);
  });

  it('leaves when intent uninstall removes its folder', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const pid = await serverUp(repo);
    servedCommit(wt, env, trace, pid, 'src/a.ts', 'served');
    const un = intent(repo, ['uninstall', '--json']);
    expect(un.status, un.stderr).toBe(0);
    expect(existsSync(serverDir(repo))).toBe(false);
    await until(() => !alive(pid), `the server (pid ${pid}) left after its folder was removed`);
    // Nothing made again on its way out (its tidy-up after the last answer included).
    expect(existsSync(serverDir(repo))).toBe(false);
  });

  it('is not started with INTENT_HOOK_SERVER=0; leaves when idle and when its repository is removed', async () => {
    const { repo, wt, env } = setup();
    const r = commit(wt, { ...env, INTENT_HOOK_SERVER: '0' }, { 'src/a.ts': 'export const a = 2;\n' }, 'no server');
    expect(r.status, r.stderr).toBe(0);
    // No sleep: a hook starts a server with spawn(), which returns once the child runs, and every
    // hook process has exited when git commit returns; so a server any hook started is in the
    // process table now. (The 'long' commit below checks the same way that one is.)
    expect(serversOf(repo)).toEqual([]);

    // Idle for 10 s: long enough for serverUp to see it on a loaded machine (with 400 ms it could
    // start and leave while git was still finishing the commit), short enough to wait for it to leave.
    expect(commit(wt, { ...env, INTENT_HOOK_SERVER_MS: '10000' }, { 'src/a.ts': 'export const a = 3;\n' }, 'short').status).toBe(0);
    const shortLived = await serverUp(repo);
    await until(() => !alive(shortLived), `the server (pid ${shortLived}) left after 10 s idle`);
    expect(existsSync(join(serverDir(repo), 'pid'))).toBe(false);
    expect(existsSync(join(serverDir(repo), 'in'))).toBe(false);

    expect(commit(wt, env, { 'src/a.ts': 'export const a = 4;\n' }, 'long').status).toBe(0);
    expect(serversOf(repo).length, 'the server a commit started is in the process table when the commit returns').toBeGreaterThan(0);
    const longLived = await serverUp(repo);
    const other = git(repo, 'worktree', 'list', '--porcelain');
    expect(other).toContain('INT-001');
    // Removing the repository (its state folder) sends it away within about a second.
    run('rm', ['-rf', join(repo, '.git', 'intent')], repo);
    await until(() => !alive(longLived), `the server (pid ${longLived}) left after its repository's state folder was removed`);
  });
});

/** Runs `git commit` (staged already) with a deadline; the result says whether it was killed at it. */
function commitWithin(wt: string, env: Record<string, string>, message: string, ms: number) {
  const r = spawnSync('git', ['commit', '-q', '-m', message], { cwd: wt, env: { ...process.env, ...env }, encoding: 'utf8', timeout: ms, killSignal: 'SIGKILL' });
  return { status: r.status, signal: r.signal, stderr: r.stderr ?? '' };
}

/** Every process (pid) whose command line names `what`: the resident processes of a repository. */
function processesNaming(what: string): number[] {
  return readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').some((a) => a.includes(what));
    } catch {
      return false;
    }
  }).map(Number).filter((p) => {
    try {
      return !/^[^)]*\) Z/.test(readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^[0-9]+ \(.*\) /, ') '));
    } catch {
      return false;
    }
  });
}

/**
 * A stand-in that claims every request and never answers (`proto`: as servers before the reply pipe
 * did, or with it): the commit is done within 10 s, with its note, and a real server replaces it.
 */
async function pastAStandInThatHolds(proto: 'fifo' | 'pipe'): Promise<void> {
  const { repo, wt, trace, env } = setup();
  const dir = serverDir(repo);
  const standIn_ = await standIn(repo, 'hold', proto);
  writeFiles(wt, { 'src/a.ts': 'export const a = 70;\n' });
  git(wt, 'add', '-A');
  const r = commitWithin(wt, env, 'past a stand-in', 10_000);
  expect(r.signal, 'the commit hung').toBeNull();
  expect(r.status, r.stderr).toBe(0);
  expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
  // It was asked once (and claimed), then dropped: its pid file is gone or names a real server.
  expect(readFileSync(join(dir, 'took'), 'utf8').trim().split('\n')).toHaveLength(1);
  expect(serverPid(repo)).not.toBe(standIn_.pid);
  // The server the commit's hooks asked for serves the next commit.
  const real = await serverUp(repo);
  const before = served(trace).length;
  expect(commit(wt, env, { 'src/a.ts': 'export const a = 71;\n' }, 'served again').status).toBe(0);
  expect(served(trace).slice(before).map((h) => h.server)).toContain(real);
  expect(readFileSync(join(dir, 'took'), 'utf8').trim().split('\n')).toHaveLength(1);
  standIn_.kill('SIGKILL');
}

describe('the hook server under faults: every wait bounded, nothing left behind', () => {
  it('a stand-in that claims every request and never answers: the commit is done within 10 s, with its note, and a real server replaces it', () => pastAStandInThatHolds('fifo'));

  it('a stopped server (SIGSTOP) is not waited for: the commit costs at most twice one in its own node and 1 s more, and a new server takes over', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const stopped = await serverUp(repo);
    // The measure: the same kind of commit with every hook in its own node.
    const t0 = performance.now();
    expect(commit(wt, { ...env, INTENT_HOOK_SERVER: '0' }, { 'src/a.ts': 'export const a = 3;\n' }, 'own node').status).toBe(0);
    const ownNode = performance.now() - t0;
    process.kill(stopped, 'SIGSTOP');
    try {
      const t1 = performance.now();
      const r = commit(wt, env, { 'src/a.ts': 'export const a = 4;\n' }, 'while stopped');
      const whileStopped = performance.now() - t1;
      expect(r.status, r.stderr).toBe(0);
      expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
      // The issue's bound (a stopped server used to cost 3 s a hook, or the whole freeze).
      expect(whileStopped).toBeLessThan(2 * ownNode + 1000);
      // A new server took the folder over; the stopped one is not asked again.
      let next = 0;
      await until(() => {
        next = serverPid(repo) ?? 0;
        return next !== 0 && next !== stopped && serversOf(repo).includes(next);
      });
      const before = served(trace).length;
      expect(commit(wt, env, { 'src/a.ts': 'export const a = 5;\n' }, 'served by the new one').status).toBe(0);
      expect(served(trace).slice(before).map((h) => h.server)).toContain(next);
    } finally {
      process.kill(stopped, 'SIGCONT');
    }
    // Continued, it finds its folder taken and leaves (it was also sent SIGTERM).
    await until(() => !alive(stopped));
  });

  it.runIf(process.getuid?.() === 0)('root committing while another user\'s server runs: that server is never asked, the commit is done with its note', async () => {
    const { repo, wt, env } = setup();
    const dir = serverDir(repo);
    writeFiles(dir, { '.keep': '' });
    run('chmod', ['0777', dir], repo);
    const phys = realpathSync(dir);
    // The other user must reach the folder: the test's temporary folders are 0700.
    for (let d = dirname(phys); d.startsWith(realpathSync(tmpdir())); d = dirname(d)) chmodSync(d, statSync(d).mode | 0o001);
    run('mkfifo', ['-m', '0666', join(dir, 'in')], repo);
    const tag = `${process.execPath}|${join(PKG_ROOT, 'dist', 'bin', 'hook.cjs')}|${phys}`;
    // User 65534's process, holding `in` and named by a pid file of its own, as that user's server
    // would: it would claim a request and never answer.
    const script = `const fs = require('fs'); const dir = ${JSON.stringify(phys)};
      const fd = fs.openSync(dir + '/in', fs.constants.O_RDWR);
      fs.writeFileSync(dir + '/pid', process.pid + '\\n' + ${JSON.stringify(tag)} + '\\n' + fd + '\\n');
      for (;;) { const b = Buffer.alloc(64); const n = fs.readSync(fd, b); fs.appendFileSync(dir + '/took', b.toString('utf8', 0, n)); }`;
    const other = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'], uid: 65534, gid: 65534, cwd: '/' });
    children.push(other);
    let otherErr = '';
    other.stderr!.on('data', (d) => (otherErr += d));
    await until(() => existsSync(join(dir, 'pid')) || other.exitCode !== null);
    expect(other.exitCode, otherErr).toBeNull();
    expect(statSync(`/proc/${other.pid}`).uid).toBe(65534);
    writeFiles(wt, { 'src/a.ts': 'export const a = 80;\n' });
    git(wt, 'add', '-A');
    const r = commitWithin(wt, env, 'as root', 10_000);
    expect(r.signal, 'the commit hung').toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
    expect(existsSync(join(dir, 'took'))).toBe(false);
    other.kill('SIGKILL');
  });

  for (const replaced of ['pid', 'in'] as const) {
    it(`a server whose ${replaced === 'pid' ? '`pid` file names another live process' : '`in` is no longer a FIFO'}: not asked, replaced at once`, async () => {
      const { repo, wt, trace, env } = setup();
      expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
      const old = await serverUp(repo);
      const dir = serverDir(repo);
      if (replaced === 'pid') {
        const other = spawn('sleep', ['120'], { stdio: 'ignore' });
        children.push(other);
        const [, tag, fd] = readFileSync(join(dir, 'pid'), 'utf8').split('\n');
        writeFileSync(join(dir, 'pid'), `${other.pid}\n${tag}\n${fd}\n`);
      } else {
        run('rm', ['-f', join(dir, 'in')], repo);
        writeFileSync(join(dir, 'in'), '');
      }
      const made = commit(wt, env, { 'src/a.ts': 'export const a = 3;\n' }, 'past a replaced server');
      expect(made.status, made.stderr).toBe(0);
      expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
      // The old server leaves and a new one serves: no ten minutes of hooks in their own node.
      await until(() => !alive(old));
      const next = await serverUp(repo);
      const before = served(trace).length;
      expect(commit(wt, env, { 'src/a.ts': 'export const a = 4;\n' }, 'served again').status).toBe(0);
      expect(served(trace).slice(before).map((h) => h.server)).toContain(next);
    });
  }

  it('closes the descriptors the committing process passed down: a pipe\'s reader gets its end while the server runs', async () => {
    const { repo, wt, env } = setup();
    writeFiles(wt, { 'src/a.ts': 'export const a = 90;\n' });
    git(wt, 'add', '-A');
    // fd 100: past the descriptors node marks close-on-exec at start-up (the first contiguous ones).
    const child = spawn('bash', ['-c', 'exec 100>&3 3>&-; exec git commit -q -m "with a pipe"'], {
      cwd: wt, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let ended = false;
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.on('data', () => {});
    pipe.on('end', () => { ended = true; });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((res) => child.on('exit', res));
    expect(code, stderr).toBe(0);
    const server = await serverUp(repo);
    // The server started by that commit holds no inherited descriptor: the pipe ends.
    await until(() => ended);
    expect(alive(server)).toBe(true);
    const fds = readdirSync(`/proc/${server}/fd`).map(Number);
    expect(fds).not.toContain(100);
  });

  it('a refactor is classified in the server itself (no second process); the server leaves on SIGTERM', async () => {
    const { repo, wt, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export function login1(user: string) {\n  return user;\n}\n' }, 'start').status).toBe(0);
    const pid = await serverUp(repo);
    // A rename of a function: refactor-like, the syntax comparison decides (the TypeScript compiler).
    const r = commit(wt, env, { 'src/a.ts': 'export function login2(user: string) {\n  return user;\n}\n' }, 'rename');
    expect(r.status, r.stderr).toBe(0);
    expect(noteOf(wt)!.record.metadata['dev.intent'].mutation_class).toBe('AST_REFACTOR');
    const state = realpathSync(join(repo, '.git', 'intent'));
    // Only the server names the repository's state folder (its resident git children are git).
    expect(processesNaming(state)).toEqual([pid]);
    process.kill(pid, 'SIGTERM');
    await until(() => !alive(pid));
  });

  it('uninstall stops the server before it returns; git worktree remove of the last intent worktree sends it away', async () => {
    const refactor = (n: number) => `export function login${n}(user: string) {\n  return user;\n}\n`;
    for (const ending of ['uninstall', 'worktree remove'] as const) {
      const { repo, wt, env } = setup();
      expect(commit(wt, env, { 'src/a.ts': refactor(1) }, 'start').status).toBe(0);
      await serverUp(repo);
      const r = commit(wt, env, { 'src/a.ts': refactor(2) }, 'rename');
      expect(r.status, r.stderr).toBe(0);
      const state = realpathSync(join(repo, '.git', 'intent'));
      await until(() => processesNaming(state).length === 1);
      if (ending === 'uninstall') {
        const un = intent(repo, ['uninstall', '--json']);
        expect(un.status, un.stderr).toBe(0);
        expect(JSON.parse(un.stdout).stopped).toHaveLength(1);
        // Gone when uninstall returned, not a moment later.
        expect(processesNaming(state)).toEqual([]);
        expect(existsSync(join(repo, '.git', 'intent-pre-commit-ran'))).toBe(false);
        const text = intent(repo, ['uninstall']);
        expect(text.stdout).toContain(`kept     ${wt} (an intent worktree, still open`);
      } else {
        git(repo, 'worktree', 'remove', '--force', wt);
        await until(() => processesNaming(state).length === 0);
      }
    }
  });
});

/**
 * A process that waits for an answer as the runner does: an empty here-document as descriptor 4 (a
 * pipe; it holds a writer itself, so its read waits), a background child (its watch, whose pid is
 * in `watch.<pid>`), its marker `r.<pid>` in the server's folder; what it reads goes to
 * `answer.<pid>` there.
 */
async function waiter(dir: string, cwd: string): Promise<{ child: ChildProcess; pid: number; watch: number }> {
  const script = 'exec 4<<EOF\nEOF\nexec 5>/proc/self/fd/4\nsleep 60 </dev/null >/dev/null 2>&1 4<&- 5>&- &\n' +
    'echo $! >"$1/watch.$$"\n: >"$1/r.$$"\nread -r code n <&4\necho "$code $n" >"$1/answer.$$"\nkill $!\n';
  const child = spawn('/bin/sh', ['-c', script, 'waiter', dir], { cwd, stdio: 'ignore' });
  children.push(child);
  await until(() => existsSync(join(dir, `r.${child.pid}`)), 'the waiter made its marker');
  return { child, pid: child.pid!, watch: Number(readFileSync(join(dir, `watch.${child.pid}`), 'utf8')) };
}

describe('the reply pipe: no FIFO per request', () => {
  it('a served commit leaves nothing in the server folder and names the protocol in the pid file', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    expect(readFileSync(join(serverDir(repo), 'pid'), 'utf8').split('\n')[3]).toBe('2');
    const before = served(trace).length;
    const r = commit(wt, env, { 'src/a.ts': 'export const a = 3;\n' }, 'through the pipe');
    expect(r.status, r.stderr).toBe(0);
    expect(served(trace).slice(before).map((h) => h.hook)).toEqual(['prepare-commit-msg', 'post-commit']);
    // (A claim's marker goes a little after the answer; a record's, `done.<pid>`, a little after its hook read it.)
    await until(() => readdirSync(serverDir(repo)).filter((f) => f.startsWith('r.') || f.startsWith('done.')).length === 0, 'no claim or record marker left in the server folder');
  });

  it('is reached through the pipe, with no mkfifo, from dash, bash in POSIX mode and busybox ash (those installed); the FIFO is seen when used', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const server = await serverUp(repo);
    // A `mkfifo` first on PATH that notes each call, then runs the real one.
    const bin = tempDir('intent-mkfifo-');
    const calls = join(bin, 'calls');
    writeFileSync(join(bin, 'mkfifo'), `#!/bin/sh\necho "$@" >>'${calls}'\nPATH=${JSON.stringify(process.env.PATH)} exec mkfifo "$@"\n`);
    chmodSync(join(bin, 'mkfifo'), 0o755);
    const common = join(repo, '.git');
    // The runner sourced in the shell under test, as the hooks of intent worktrees do.
    const script = 'intent_lib=1 intent_srv="$1/intent/server"; . "$1/intent/bin/hook"; intent_hook_run post-commit; echo "$? $$"';
    const shells = [['dash'], ['bash', '--posix'], ['busybox', 'ash']].filter(([sh]) => spawnSync('/bin/sh', ['-c', `command -v ${sh}`]).status === 0);
    expect(shells.map((sh) => sh[0])).toEqual(expect.arrayContaining(['dash', 'bash']));
    const runOne = (sh: string[]) => {
      const r = spawnSync(sh[0]!, [...sh.slice(1), '-c', script, 'runner', common], { cwd: wt, env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
      const [code, pid] = r.stdout.trim().split(' ').map(Number);
      expect(code, `${sh.join(' ')}: ${r.stderr}`).toBe(0);
      return pid;
    };
    for (const sh of shells) {
      const pid = runOne(sh);
      expect(served(trace).filter((h) => (h as { runner?: number }).runner === pid).map((h) => `${h.hook} ${h.server}`), sh.join(' ')).toEqual([`post-commit ${server}`]);
      expect(existsSync(calls), `${sh.join(' ')} made a FIFO`).toBe(false);
    }
    // The control: a runner that asks through a FIFO is seen making it.
    const runner = join(common, 'intent', 'bin', 'hook');
    writeFileSync(runner, readFileSync(runner, 'utf8').replace('if [ "$intent_proto" = 2 ]; then', 'if false; then'));
    const pid = runOne(['dash']);
    expect(served(trace).filter((h) => (h as { runner?: number }).runner === pid)).toHaveLength(1);
    expect(readFileSync(calls, 'utf8')).toContain(`r.${pid}`);
    await until(() => readdirSync(serverDir(repo)).filter((f) => f.startsWith('r.')).length === 0, 'no claim marker left in the server folder');
  });

  it('a post-commit hook whose commit the server has recorded already does not ask; any other marker, or none, and it asks', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const server = await serverUp(repo);
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 3;\n' }, 'served').status).toBe(0);
    const common = join(repo, '.git');
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir').trim();
    const head = git(wt, 'rev-parse', 'HEAD').trim();
    // The runner sourced as an intent worktree's post-commit sources it; git is its parent (here: this
    // process), and the server's marker for a commit is `done.<git's pid>` holding the commit's id.
    const script = 'intent_lib=1 intent_srv="$1/intent/server"; . "$1/intent/bin/hook"; intent_hook_run post-commit; echo "$? $$"';
    const marker = join(realpathSync(serverDir(repo)), `done.${process.pid}`);
    const runOne = () => {
      const r = spawnSync('dash', ['-c', script, 'runner', common], { cwd: wt, env: { ...process.env, ...env, GIT_DIR: gitDir }, encoding: 'utf8' });
      const [code, pid] = r.stdout.trim().split(' ').map(Number);
      expect(code, r.stderr).toBe(0);
      return served(trace).filter((h) => h.runner === pid).map((h) => `${h.hook} ${h.server}`);
    };
    writeFileSync(marker, `${head}\n`);
    expect(runOne(), 'HEAD recorded: not asked').toEqual([]);
    // HEAD as a branch (a loose ref) or as a commit id (detached): read either way.
    git(wt, 'checkout', '-q', '--detach');
    expect(runOne(), 'detached HEAD recorded: not asked').toEqual([]);
    git(wt, 'checkout', '-q', '-');
    writeFileSync(marker, `${git(wt, 'rev-parse', 'HEAD~1').trim()}\n`);
    expect(runOne(), 'a marker of another commit: asked').toEqual([`post-commit ${server}`]);
    writeFileSync(marker, '');
    expect(runOne(), 'an empty marker: asked').toEqual([`post-commit ${server}`]);
    rmSync(marker);
    expect(runOne(), 'no marker: asked').toEqual([`post-commit ${server}`]);
    expect(noteOf(wt)?.record.vcs.revision).toBe(head);
  });

  it('served commits say once each that the main worktree\'s hooks lost intent, and are recorded', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    rmSync(join(repo, '.git', 'hooks', 'post-commit'));
    const before = served(trace).length;
    for (let i = 3; i < 6; i++) {
      const r = commit(wt, env, { 'src/a.ts': `export const a = ${i};\n` }, `round ${i}`);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.includes("the main worktree's hooks lost intent (post-commit missing)")), r.stderr).toHaveLength(1);
      expect(noteOf(wt)?.record.vcs.revision).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    }
    // Each commit's post-commit asked (the warning is its to print): no record's marker spared it.
    expect(served(trace).slice(before).map((h) => h.hook)).toEqual(Array(3).fill(['prepare-commit-msg', 'post-commit']).flat());
    expect(serverTrace<{ server: number; marker?: boolean }>(trace, servers).filter((l) => l.hook === 'post-commit:early' && l.marker).length).toBe(0);
  });

  it('a runner that speaks the FIFO protocol (every runner written before) is still served', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    const server = await serverUp(repo);
    // The installed runner, made to ask as a runner from before this protocol does: a reply FIFO
    // of its own and a request of three fields.
    const runner = join(repo, '.git', 'intent', 'bin', 'hook');
    const text = readFileSync(runner, 'utf8');
    expect(text).toContain('if [ "$intent_proto" = 2 ]; then');
    writeFileSync(runner, text.replace('if [ "$intent_proto" = 2 ]; then', 'if false; then'));
    const before = served(trace).length;
    for (let i = 3; i < 5; i++) {
      const r = commit(wt, env, { 'src/a.ts': `export const a = ${i};\n` }, `old runner ${i}`);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
    }
    const now = served(trace).slice(before);
    expect(now.map((h) => h.hook)).toEqual(['prepare-commit-msg', 'post-commit', 'prepare-commit-msg', 'post-commit']);
    expect(new Set(now.map((h) => h.server))).toEqual(new Set([server]));
    expect(readdirSync(serverDir(repo)).filter((f) => f.startsWith('r.'))).toEqual([]);
  });

  it('a stand-in that claims every request, holds the runner\'s pipe and never answers: the commit is done within 10 s, with its note, and a real server replaces it', () => pastAStandInThatHolds('pipe'));

  it('a stand-in that dies in the middle of a request: the runner runs the hook itself', async () => {
    const { repo, wt, env } = setup();
    await standIn(repo, 'die', 'pipe');
    writeFiles(wt, { 'src/a.ts': 'export const a = 7;\n' });
    git(wt, 'add', '-A');
    const r = commitWithin(wt, { ...env, INTENT_HOOK_SERVER_MS: '0' }, 'after a death', 10_000);
    expect(r.signal, 'the commit hung').toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(serverDir(repo), 'took'))).toBe(true);
    expect(noteOf(wt)?.summary).toMatch(/^INT-001 /);
  });

  it('a runner killed while it waits leaves nothing behind: its watch takes the request back and goes', async () => {
    const { repo, wt, env } = setup();
    const dir = serverDir(repo);
    // A stand-in that never reads: the request stays unclaimed while the runner waits.
    await standIn(repo, 'never', 'pipe');
    writeFiles(wt, { 'src/a.ts': 'export const a = 9;\n' });
    git(wt, 'add', '-A');
    const committing = spawnAsync('git', ['commit', '-q', '-m', 'killed while waiting'], wt, { ...env });
    let marker = '';
    await until(() => {
      marker = readdirSync(dir).find((f) => /^r\.[0-9]+$/.test(f)) ?? '';
      return marker !== '';
    }, 'the runner made its marker');
    const runner = Number(marker.slice(2));
    const hookFile = readFileSync(`/proc/${runner}/cmdline`, 'utf8').split('\0')[1]!;
    expect(hookFile).toMatch(/intent\/hooks\/prepare-commit-msg$/);
    process.kill(runner, 'SIGKILL');
    const r = await committing;
    expect(r.code).not.toBe(0);
    // The watch (the runner's child, left running) removes the marker after 3 s and leaves.
    await until(() => !existsSync(join(dir, marker)), 'the marker is gone', 10_000);
    await until(() => processesNaming(hookFile).length === 0, 'no process of the hook is left', 10_000);
    expect(readdirSync(dir).filter((f) => f.startsWith('r.'))).toEqual([]);
  });

  it('answers only the very process that asked: a request naming a process that is not its child is not claimed nor written to; a runner that is gone leaves no marker', async () => {
    const { repo, wt, trace, env } = setup();
    expect(commit(wt, env, { 'src/a.ts': 'export const a = 2;\n' }, 'start').status).toBe(0);
    await serverUp(repo);
    const dir = realpathSync(serverDir(repo));
    // Two processes of ours waiting as runners do, each with a pipe as descriptor 4 and a marker.
    const other = await waiter(dir, wt);
    const asked = await waiter(dir, wt);
    // A request of a runner that is gone, its marker left behind.
    const gonePid = Number(spawnSync('/bin/sh', ['-c', 'echo $$']).stdout.toString().trim());
    writeFileSync(join(dir, `r.${gonePid}`), '');
    // `other` named with a watch that is not its child (as a request left by a killed runner whose
    // pid went to another process names a watch that is not that process's child); then the gone
    // runner; then `asked` with its own watch: answered, the positive signal that the two before
    // it were handled (requests are served in order).
    writeFileSync(join(dir, 'in'), `${other.pid} 0 pre-commit ${asked.watch}\n${gonePid} 0 pre-commit ${asked.watch}\n${asked.pid} 0 pre-commit ${asked.watch}\n`);
    const answer = (w: { pid: number }) => join(dir, `answer.${w.pid}`);
    await until(() => existsSync(answer(asked)) && readFileSync(answer(asked), 'utf8').endsWith('\n'), 'the process that asked got its answer');
    expect(readFileSync(answer(asked), 'utf8')).toMatch(/^[0-9]+ [0-9]+\n$/);
    const runners = served(trace).map((h) => (h as { runner?: number }).runner);
    expect(runners).toContain(asked.pid);
    expect(runners).not.toContain(other.pid);
    // The other process: its marker not claimed, nothing written into its pipe.
    expect(existsSync(join(dir, `r.${other.pid}`))).toBe(true);
    expect(existsSync(answer(other))).toBe(false);
    expect(alive(other.pid)).toBe(true);
    // The gone runner's marker is removed.
    expect(existsSync(join(dir, `r.${gonePid}`))).toBe(false);
    other.child.kill('SIGKILL');
    process.kill(other.watch, 'SIGKILL');
  });
});

describe('rebuilding the package while commits run', () => {
  it('every commit made during two rebuilds (scripts/bundle.mjs) has its note; any other was refused before it existed, saying how to fix it', async () => {
    // A copy of the package (its own dist/, the same node_modules), so the rebuild replaces only its programs.
    const pkg = tempDir('intent-rebuild-pkg-');
    for (const d of ['dist', 'scripts', 'git-hooks', 'schemas', 'templates', 'cli']) run('cp', ['-a', join(PKG_ROOT, d), join(pkg, d)], PKG_ROOT);
    run('cp', [join(PKG_ROOT, 'package.json'), join(pkg, 'package.json')], PKG_ROOT);
    run('ln', ['-s', join(PKG_ROOT, 'node_modules'), join(pkg, 'node_modules')], PKG_ROOT);
    const cli = join(pkg, 'dist', 'bin', 'intent.js');
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# t\n' });
    const init = run(process.execPath, [cli, 'init'], repo);
    expect(init.status, init.stderr).toBe(0);
    expect(readFileSync(join(repo, '.git', 'intent', 'bin', 'hook'), 'utf8')).toContain(join(pkg, 'dist', 'bin', 'hook.cjs'));
    const co = run(process.execPath, [cli, 'checkout', 'INT-001', '--json'], repo);
    expect(co.status, co.stderr).toBe(0);
    const wt = JSON.parse(co.stdout).path as string;
    const env = { INTENT_HOOK_SERVER_MS: '60000' };
    let rebuilding = true;
    const rebuilds = (async () => {
      for (let i = 0; i < 2; i++) {
        const b = await spawnAsync(process.execPath, [join(pkg, 'scripts', 'bundle.mjs')], pkg);
        expect(b.code, b.stderr).toBe(0);
      }
      rebuilding = false;
    })();
    const outcomes: { made: boolean; noted: boolean; stderr: string }[] = [];
    let i = 0;
    while (rebuilding || outcomes.length < 3) {
      const before = git(wt, 'rev-parse', 'HEAD').trim();
      writeFiles(wt, { 'src/a.ts': `export const a = ${100 + i++};\n` });
      git(wt, 'add', '-A');
      Object.assign(process.env, env);
      const r = await spawnAsync('git', ['commit', '-q', '-m', `during a rebuild ${i}`], wt);
      for (const k of Object.keys(env)) delete process.env[k];
      const after = git(wt, 'rev-parse', 'HEAD').trim();
      const made = after !== before;
      expect(made).toBe(r.code === 0);
      outcomes.push({ made, noted: made && noteOf(wt) !== null, stderr: r.stderr });
      if (!made) git(wt, 'reset', '-q', '--hard');
    }
    await rebuilds;
    expect(outcomes.filter((o) => o.made).length).toBeGreaterThan(0);
    for (const o of outcomes) {
      if (o.made) expect(o.noted, o.stderr).toBe(true);
      else expect(o.stderr).toMatch(/hook program .* is missing .* refused, nothing was committed/);
    }
  });
});
