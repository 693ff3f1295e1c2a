#!/usr/bin/env node
// Notes that scale with the number of agents (issue 26): N agents, each in its own clone of a
// server repository, commit K times and `intent push` after each commit, all at once, through a
// real transport (git http-backend behind test/fixtures/git-http-server.mjs on 127.0.0.1) with the
// real gate in pre-receive. Two designs:
//   shared  every push moves refs/notes/intents (fetch, cat_sort_uniq merge, atomic push, jittered retry)
//   intent  every push moves refs/notes/intent/<ID> (only that intent's pushes write it); the server's
//           post-receive folds it into refs/notes/intents (templates/server/post-receive)
//   default no configuration at all: what `intent push` does by itself (per intent since issue 39)
// With --one-clone every agent works in a worktree of one clone (the docs' recommended layout),
// each pushing through its own identity's remote. At the end a human merges every intent branch
// into main and runs `intent push`. Prints one JSON line: attempts per push (mean, max), pushes that
// gave up, wall time, and whether every commit's note is in the server's refs/notes/intents after
// that merge.
//
//   node bench/notes-push.mjs <agents> <commits> <shared|intent|default> [retries] [--one-clone]
// Needs `npm run build` first (it runs dist/bin/intent.js).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotPackage } from './util.mjs';

const SOURCE = fileURLToPath(new URL('..', import.meta.url));
const oneClone = process.argv.includes('--one-clone');
const argv = process.argv.slice(2).filter((a) => a !== '--one-clone');
const [agents = 6, commits = 4] = argv.slice(0, 2).map(Number);
const mode = argv[2] ?? 'intent';
const retries = Number(argv[3] ?? (mode === 'shared' ? 100 : 8));
if (!['shared', 'intent', 'default'].includes(mode) || !(agents > 0) || !(commits > 0)) {
  process.stderr.write('usage: node bench/notes-push.mjs <agents> <commits> <shared|intent|default> [retries] [--one-clone]\n');
  process.exit(2);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-notes-')));
// A copy of the package: a rebuild while the benchmark runs cannot change what it measures.
const PKG = snapshotPackage(join(root, 'pkg'));
const CLI = join(PKG, 'dist', 'bin', 'intent.js');
cpSync(join(SOURCE, 'test', 'fixtures', 'git-http-server.mjs'), join(PKG, 'git-http-server.mjs'));
const env = {
  ...process.env, INTENT_BIN: `${process.execPath} ${CLI}`, GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com',
};

function sh(cmd, args, cwd, input) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', input });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${cwd} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const git = (cwd, ...args) => sh('git', args, cwd);
const intent = (cwd, ...args) => sh(process.execPath, [CLI, ...args], cwd);
function spawnAsync(cmd, args, cwd) {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
}
/** Runs `fns` with at most `n` at once. */
async function pool(n, items, fn) {
  const queue = [...items.entries()];
  await Promise.all(Array.from({ length: n }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await fn(next[1], next[0]);
  }));
}

const server = spawn(process.execPath, [join(PKG, 'git-http-server.mjs'), root], { env, stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const port = await new Promise((resolve, reject) => {
    server.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    server.once('exit', (c) => reject(new Error(`git-http-server exited ${c}`)));
  });
  const url = (who) => `http://127.0.0.1:${port}/as/${who}/srv.git`;
  const ids = Array.from({ length: agents }, (_, i) => `INT-${String(i + 1).padStart(3, '0')}`);

  const srv = join(root, 'srv.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', srv);
  git(srv, 'config', 'http.receivepack', 'true');
  copyFileSync(join(PKG, 'templates', 'server', 'pre-receive'), join(srv, 'hooks', 'pre-receive'));
  copyFileSync(join(PKG, 'templates', 'server', 'post-receive'), join(srv, 'hooks', 'post-receive'));
  chmodSync(join(srv, 'hooks', 'pre-receive'), 0o755);
  chmodSync(join(srv, 'hooks', 'post-receive'), 0o755);

  const human = join(root, 'human');
  mkdirSync(human);
  git(human, 'init', '-q', '-b', 'main');
  writeFileSync(join(human, 'README.md'), '# bench\n');
  git(human, 'add', '-A');
  git(human, 'commit', '-q', '-m', 'initial');
  intent(human, 'init');
  writeFileSync(join(human, '.orchestration', 'active_intents.yaml'), `active_intents:\n${ids.map((id, i) =>
    `  - id: "${id}"\n    name: "Work ${i + 1}"\n    status: "IN_PROGRESS"\n    owned_scope: ["src/a${i + 1}/**"]\n`).join('')}`);
  writeFileSync(join(human, '.orchestration', 'authority.yaml'), `agents:\n${ids.map((id, i) => `  agent-${i + 1}: ["${id}"]\n`).join('')}humans: ["alice"]\n`);
  git(human, 'add', '.orchestration');
  git(human, 'commit', '-q', '-m', 'register');
  git(human, 'push', '-q', url('alice'), 'main');

  // Each agent: its own clone (or, --one-clone, a worktree of one clone with a remote per
  // identity), intent init, its intent's worktree (set up 4 at a time).
  const t0 = performance.now();
  const wts = new Array(agents);
  const shared = join(root, 'team');
  if (oneClone) {
    git(root, 'clone', '-q', url('alice'), shared);
    intent(shared, 'init');
    for (let i = 0; i < agents; i++) git(shared, 'remote', 'add', `agent-${i + 1}`, url(`agent-${i + 1}`));
    if (mode !== 'default') git(shared, 'config', 'intent.pushNotes', mode);
  }
  await pool(oneClone ? 1 : 4, ids, async (id, i) => {
    const dir = oneClone ? shared : join(root, `agent-${i + 1}`);
    const steps = [
      ...(oneClone ? [] : [['git', ['clone', '-q', url(`agent-${i + 1}`), dir], root], [process.execPath, [CLI, 'init'], dir]]),
      ...(oneClone || mode === 'default' ? [] : [['git', ['config', 'intent.pushNotes', mode], dir]]),
      [process.execPath, [CLI, 'checkout', id, '--json'], dir],
    ];
    let out = '';
    for (const [cmd, args, cwd] of steps) {
      const r = await spawnAsync(cmd, args, cwd);
      if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.err}`);
      out = r.out;
    }
    wts[i] = JSON.parse(out).path;
  });
  const setup = performance.now() - t0;

  // All agents at once: commit, push, K times each.
  const script = (i) => `set -e\nmkdir -p src/a${i + 1}\nk=1\nwhile [ $k -le ${commits} ]; do\n` +
    `  printf 'export const v%s = %s;\\n' $k $k >> src/a${i + 1}/f.ts\n  git add -A\n  git commit -q -m "agent ${i + 1} commit $k"\n` +
    `  s=$(date +%s%N)\n  "${process.execPath}" "${CLI}" push ${oneClone ? `agent-${i + 1} ` : ''}--retries ${retries} --json > "${root}/push-${i + 1}-$k.json" || true\n` +
    `  e=$(date +%s%N)\n  echo $(( (e - s) / 1000000 )) >> "${root}/push-${i + 1}.ms"\n  k=$((k+1))\ndone\n`;
  const t1 = performance.now();
  const runs = await Promise.all(wts.map((wt, i) => spawnAsync('sh', ['-c', script(i)], wt)));
  const wall = performance.now() - t1;
  for (const [i, r] of runs.entries()) if (r.code !== 0) throw new Error(`agent ${i + 1}: ${r.err}`);

  const attempts = [];
  let gaveUp = 0;
  for (let i = 0; i < agents; i++) {
    for (let k = 1; k <= commits; k++) {
      const out = JSON.parse(readFileSync(join(root, `push-${i + 1}-${k}.json`), 'utf8'));
      if (out.error) {
        gaveUp++;
        attempts.push(out.error.data?.attempts ?? retries + 1);
      } else attempts.push(out.attempts);
    }
  }
  const pushMs = wts.flatMap((wt, i) => readFileSync(join(root, `push-${i + 1}.ms`), 'utf8').split('\n').filter(Boolean).map(Number)).sort((a, b) => a - b);
  // The merge to main: a human merges every intent branch and pushes main with intent push.
  git(human, 'fetch', '-q', url('alice'), '+refs/heads/intent/*:refs/remotes/origin/intent/*', '+refs/notes/intents:refs/notes/intents');
  git(human, 'remote', 'add', 'origin', url('alice'));
  for (const id of ids) git(human, 'merge', '-q', '--no-ff', '--no-edit', `origin/intent/${id}`);
  intent(human, 'push', 'origin');
  // Every agent commit's note in the server's refs/notes/intents.
  const noted = new Set(spawnSync('git', ['notes', '--ref=intents', 'list'], { cwd: srv, encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map((l) => l.split(' ')[1]));
  const made = wts.flatMap((wt) => git(wt, 'rev-list', 'HEAD', '--not', 'origin/main').split('\n').filter(Boolean));
  const landed = made.filter((c) => noted.has(c)).length;
  const result = {
    mode, layout: oneClone ? 'one clone' : 'a clone each', agents, commits, pushes: attempts.length, retries,
    attempts_mean: +(attempts.reduce((a, b) => a + b, 0) / attempts.length).toFixed(2), attempts_max: Math.max(...attempts),
    gave_up: gaveUp, notes_landed: `${landed}/${made.length}`,
    push_ms_median: pushMs[Math.floor(pushMs.length / 2)], push_ms_p95: pushMs[Math.floor(pushMs.length * 0.95)],
    wall_s: +(wall / 1000).toFixed(1), setup_s: +(setup / 1000).toFixed(1),
  };
  process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  server.kill('SIGTERM');
  // The clones' resident hook servers may still be writing their state as they stop: retry.
  if (process.env.BENCH_KEEP !== '1') rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
