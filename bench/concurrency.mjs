// Item 5: 8 intent worktrees committing at the same time; nothing may be lost.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { check, checkoutIntent, git, governRepo, intent, log, median, spawnAsync, syntheticRepo } from './util.mjs';

/** A worker: `commits` real commits in a row, each adding a 5-line file and appending to a log. */
function workerScript(dir, k, commits, gitArgs) {
  return `set -e
mkdir -p ${dir}
i=1
while [ $i -le ${commits} ]; do
  printf 'export const a%s = %s;\\nexport const b%s = %s;\\nexport const c%s = %s;\\nexport const d%s = %s;\\nexport const e%s = %s;\\n' $i $i $i $i $i $i $i $i $i $i > ${dir}/c$i.ts
  echo "commit $i" >> ${dir}/log.txt
  git add -- ${dir}/c$i.ts ${dir}/log.txt
  git ${gitArgs} commit -q -m "worker ${k} commit $i"
  i=$((i+1))
done
`;
}

/** Runs `workers` scripts at once (one per worktree); resolves with the wall time and results. */
async function together(wts, scriptOf) {
  const t0 = performance.now();
  const results = await Promise.all(wts.map((wt, k) => spawnAsync('sh', ['-c', scriptOf(k)], { cwd: wt })));
  return { wall: performance.now() - t0, results };
}

export async function concurrentCommits(dir, workers, commits) {
  await syntheticRepo(dir, 100);
  const ids = Array.from({ length: workers }, (_, k) => `W${k + 1}`);
  governRepo(dir, ids.map((id, k) => ({ id, scope: [`src/w${k + 1}/**`] })));
  const wts = ids.map((id) => checkoutIntent(dir, id));
  const plain = ids.map((_, k) => {
    const p = join(dir, '..', 'plain-worktrees', `p${k + 1}`);
    git(dir, ['worktree', 'add', '-q', '-b', `plain/p${k + 1}`, p, 'main']);
    return p;
  });

  // The same load with hooks disabled, in plain worktrees (ungoverned branches): git's own rate.
  log(`  ${workers} plain worktrees × ${commits} commits with hooks disabled …`);
  const base = await together(plain, (k) => workerScript(`src/w${k + 1}`, k + 1, commits, '-c core.hooksPath=/dev/null'));
  for (const [k, r] of base.results.entries()) check(r.status === 0, `plain worker ${k + 1} failed: ${r.stderr}`);

  log(`  ${workers} intent worktrees × ${commits} governed commits …`);
  const gov = await together(wts, (k) => workerScript(`src/w${k + 1}`, k + 1, commits, ''));
  for (const [k, r] of gov.results.entries()) {
    check(r.status === 0, `worker ${ids[k]} failed (exit ${r.status}): ${r.stderr}`);
    check(!/WARNING|NOT recorded|internal error/.test(r.stderr), `worker ${ids[k]} reported: ${r.stderr}`);
  }

  // Every commit has its note and its ledger line, each once; verify agrees.
  const total = workers * commits;
  const shas = wts.flatMap((wt) => git(wt, ['rev-list', 'main..HEAD']).stdout.trim().split('\n').filter(Boolean));
  check(shas.length === total && new Set(shas).size === total, `${shas.length} governed commits made, expected ${total}`);
  const noted = new Set(git(dir, ['notes', '--ref=intents', 'list']).stdout.trim().split('\n').filter(Boolean).map((l) => l.split(' ')[1]));
  const missingNotes = shas.filter((s) => !noted.has(s));
  const ledgerFile = join(dir, '.orchestration', 'agent_trace.jsonl');
  const ledger = existsSync(ledgerFile) ? readFileSync(ledgerFile, 'utf8').split('\n').filter(Boolean) : [];
  const perSha = new Map();
  for (const line of ledger) {
    const sha = JSON.parse(line).vcs.revision;
    perSha.set(sha, (perSha.get(sha) ?? 0) + 1);
  }
  const missingLines = shas.filter((s) => perSha.get(s) !== 1);
  const v = JSON.parse(intent(dir, ['verify', '--all', '--json'], { allowFail: true }).stdout);
  const locks = readdirSync(join(dir, '.git', 'intent')).filter((f) => f.includes('lock'));
  const counts = { commits: shas.length, notes: shas.length - missingNotes.length, noteTotal: noted.size, ledgerLines: ledger.length, verifyGoverned: v.governed, verifyFindings: v.findings.length, locksLeft: locks.length };
  check(missingNotes.length === 0 && noted.size === total, `notes missing for ${missingNotes.length} commits (${noted.size} notes in all)`);
  check(missingLines.length === 0 && ledger.length === total, `ledger: ${ledger.length} lines, ${missingLines.length} commits without exactly one line`);
  check(v.findings.length === 0 && v.governed === total, `verify --all: ${v.governed} governed, findings ${JSON.stringify(v.findings.slice(0, 3))}`);
  check(locks.length === 0, `lock files left behind: ${locks.join(', ')}`);
  const perWorker = (res) => median(res.results.map((r) => commits / (r.ms / 1000)));
  return {
    workers, commits, total, counts,
    governed: { wall: gov.wall, perSecond: total / (gov.wall / 1000), perWorker: perWorker(gov) },
    plain: { wall: base.wall, perSecond: total / (base.wall / 1000), perWorker: perWorker(base) },
  };
}
