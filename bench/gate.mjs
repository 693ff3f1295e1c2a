// Item 9: the authority check, `intent gate`, as a CI job or pre-receive hook runs it: a push of
// 1,000 governed commits (CI mode, and pre-receive mode with the notes ref in the same push: its
// notes commits validated, every note read at every fan-out path), and a push of 1 governed commit
// into a 100,000-commit history. Large hosts give a pre-receive hook about 5 s.
import { join } from 'node:path';
import { REPS, check, checkoutIntent, data, fastImport, git, governRepo, intent, log, stats, writeFiles } from './util.mjs';
import { governedHistory } from './verify.mjs';

/** Times `intent gate --base main --ref refs/heads/intent/VER --new intent/VER --json`; it must accept. */
function timeGate(dir, expectCommits, reps) {
  const times = [];
  const cpu = [];
  for (let r = -1; r < reps; r++) {
    const res = intent(dir, ['gate', '--base', 'main', '--ref', 'refs/heads/intent/VER', '--new', 'intent/VER', '--pusher', 'bench', '--json'], { allowFail: true });
    const out = JSON.parse(res.stdout || '{}');
    check(res.status === 0 && out.ok === true, `intent gate: exit ${res.status}, findings ${JSON.stringify(out.findings?.slice(0, 3))}${res.stderr}`);
    check(out.commits === expectCommits && out.governed === expectCommits, `intent gate saw ${out.commits} new / ${out.governed} governed commits, expected ${expectCommits}`);
    if (r >= 0) {
      times.push(res.ms);
      cpu.push(res.cpu ?? NaN);
    }
  }
  return { time: stats(times), cpu: stats(cpu) };
}

/**
 * Times `intent gate --pre-receive` on the push of intent/VER and refs/notes/intents to a server
 * that has neither: a bare mirror of `dir` without those two refs (the pushed objects are there,
 * as in git's quarantine during pre-receive); it must accept.
 */
export function timePreReceive(dir, expectCommits, reps) {
  const zero = '0'.repeat(40);
  const tip = git(dir, ['rev-parse', 'intent/VER']).stdout.trim();
  const notes = git(dir, ['rev-parse', 'refs/notes/intents']).stdout.trim();
  const server = `${dir}.server.git`;
  git(join(dir, '..'), ['clone', '-q', '--mirror', dir, server]);
  git(server, ['update-ref', '-d', 'refs/heads/intent/VER']);
  git(server, ['update-ref', '-d', 'refs/notes/intents']);
  const input = `${zero} ${tip} refs/heads/intent/VER\n${zero} ${notes} refs/notes/intents\n`;
  const times = [];
  const cpu = [];
  for (let r = -1; r < reps; r++) {
    const res = intent(server, ['gate', '--pre-receive', '--pusher', 'bench', '--json'], { allowFail: true, input });
    const out = JSON.parse(res.stdout || '{}');
    check(res.status === 0 && out.ok === true, `intent gate --pre-receive: exit ${res.status}, findings ${JSON.stringify(out.findings?.slice(0, 3))}${res.stderr}`);
    check(out.commits === expectCommits && out.governed === expectCommits, `intent gate --pre-receive saw ${out.commits} new / ${out.governed} governed commits, expected ${expectCommits}`);
    if (r >= 0) {
      times.push(res.ms);
      cpu.push(res.cpu ?? NaN);
    }
  }
  return { time: stats(times), cpu: stats(cpu) };
}

/** A main branch of `n` commits (one fast-import stream), registry committed, one governed commit on intent/VER. */
async function deepHistory(dir, n) {
  git(join(dir, '..'), ['init', '-q', '-b', 'main', dir]);
  const t0 = Math.floor(Date.now() / 1000) - n - 10;
  await fastImport(dir, async (w) => {
    for (let k = 1; k <= n; k++) {
      await w(`commit refs/heads/main\ncommitter Bench <bench@bench.invalid> ${t0 + k} +0000\n${data(`history ${k}`)}`);
      await w(`M 100644 inline docs/h${k % 50}.txt\n${data(`${k}\n`)}\n`);
    }
  });
  git(dir, ['reset', '-q', '--hard', 'main']);
  governRepo(dir, [{ id: 'VER', scope: ['src/**'], status: 'IN_PROGRESS' }]);
  const wt = checkoutIntent(dir, 'VER');
  writeFiles(wt, { 'src/gate.ts': 'export const gate = 1;\n' });
  git(wt, ['add', '-A']);
  git(wt, ['commit', '-q', '-m', 'one governed commit']);
  return dir;
}

/** Both cases; `sizes` = { push, history }. */
export async function gateSpeed(root, pkg, sizes, reps = REPS) {
  log(`  writing ${sizes.push} governed commits …`);
  const push = await governedHistory(join(root, 'gate-push'), sizes.push, pkg);
  const a = timeGate(push.dir, sizes.push, reps);
  log(`  gate over a push of ${sizes.push} commits: ${a.time.median.toFixed(0)} ms`);
  const p = timePreReceive(push.dir, sizes.push, reps);
  log(`  pre-receive gate over a push of ${sizes.push} commits with their notes: ${p.time.median.toFixed(0)} ms`);
  log(`  writing a ${sizes.history}-commit history …`);
  const deep = await deepHistory(join(root, 'gate-deep'), sizes.history);
  const b = timeGate(deep, 1, reps);
  log(`  gate over 1 commit into ${sizes.history} commits: ${b.time.median.toFixed(0)} ms`);
  return { push: { commits: sizes.push, ...a }, preReceive: { commits: sizes.push, ...p }, deep: { history: sizes.history, ...b } };
}
