// Preloaded with `node --import` into a hook or CLI process: times every child process it runs
// (spawnSync and execFileSync, which is how lib/git/process.ts runs git, and spawn, from its start
// to its 'close': checkout's `git worktree add` runs beside other work) and, at exit, writes a JSON
// report to $BENCH_PROBE_OUT: when user code started, each child's command and duration, when
// the process finished its work. No strace, no change to the code under test.
import { writeFileSync } from 'node:fs';
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const started = performance.now(); // ms since the process started (node's time origin)
const spawns = [];
/** A short name for a child process: `git <subcommand>` plus what tells two of them apart. */
function label(cmd, args) {
  const prog = String(cmd).split('/').pop();
  if (prog !== 'git') return prog;
  let i = 0;
  while (i < args.length && (args[i] === '-c' || args[i].startsWith('-'))) i += args[i] === '-c' ? 2 : 1;
  const sub = args[i] ?? '';
  const next = args.slice(i + 1).find((a) => !a.startsWith('-'));
  const flags = args.filter((a) => ['--cached', '--batch', '--stdin', '--parents', '--is-bare-repository'].includes(a));
  return ['git', sub, ...(['notes', 'worktree'].includes(sub) && next ? [next] : []), ...flags].join(' ');
}
for (const name of ['spawnSync', 'execFileSync']) {
  const orig = childProcess[name];
  childProcess[name] = function probed(cmd, args, ...rest) {
    const t0 = performance.now();
    try {
      return orig.call(this, cmd, args, ...rest);
    } finally {
      spawns.push({ cmd: label(cmd, Array.isArray(args) ? args : []), start: t0, ms: performance.now() - t0 });
    }
  };
}
const origSpawn = childProcess.spawn;
childProcess.spawn = function probed(cmd, args, ...rest) {
  const t0 = performance.now();
  const child = origSpawn.call(this, cmd, args, ...rest);
  child.once('close', () => spawns.push({ cmd: label(cmd, Array.isArray(args) ? args : []), start: t0, ms: performance.now() - t0 }));
  return child;
};
syncBuiltinESMExports();

process.on('exit', () => {
  const out = process.env.BENCH_PROBE_OUT;
  if (!out) return;
  writeFileSync(out, JSON.stringify({ started, end: performance.now(), spawns }));
});
