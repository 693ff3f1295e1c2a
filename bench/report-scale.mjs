// Item 6: `intent report` on a long history: `total` commits of which `governed` carry notes.
import { join } from 'node:path';
import { REPS, check, data, fastImport, git, intent, log, stats } from './util.mjs';
import { governedHistory } from './verify.mjs';

/**
 * The verify benchmark's repository (`governed` commits with notes on intent/VER, see
 * governedHistory) plus ungoverned commits on main, one fast-import stream, up to `total` commits.
 */
export async function reportHistory(dir, total, governed, pkgDir) {
  const h = await governedHistory(dir, governed, pkgDir);
  const have = Number(git(dir, ['rev-list', '--count', '--branches']).stdout.trim());
  const extra = total - have;
  const base = git(dir, ['rev-parse', 'main']).stdout.trim();
  // Dated after their parent: git's walks trust commit dates (skewed dates make rev-list --not stop early).
  const t0 = Number(git(dir, ['log', '-1', '--format=%ct', 'main']).stdout.trim());
  await fastImport(dir, async (w) => {
    for (let k = 1; k <= extra; k++) {
      await w(`commit refs/heads/main\ncommitter Human <human@bench.invalid> ${t0 + k} +0000\n${data(`ungoverned commit ${k}`)}`);
      if (k === 1) await w(`from ${base}\n`);
      await w(`M 100644 inline docs/n${k % 50}.md\n${data(`note ${k}\n`)}`);
    }
  });
  git(dir, ['reset', '-q', '--hard', 'main']);
  const commits = Number(git(dir, ['rev-list', '--count', '--branches']).stdout.trim());
  check(commits >= total, `the report history has ${commits} commits, expected ${total}`);
  log(`  ${commits} commits, ${governed} governed`);
  return { ...h, commits };
}

/** Times `intent report --json` (warm-up + reps) with lines now at intent/VER; every run must see every governed commit and 0 findings. */
export function reportSpeed(h, reps = REPS) {
  const times = [];
  const cpu = [];
  let last;
  for (let r = -1; r < reps; r++) {
    const res = intent(h.dir, ['report', '--at', 'intent/VER', '--out', join(h.dir, '..', 'report.html'), '--json'], { allowFail: true });
    last = JSON.parse(res.stdout || '{}');
    check(res.status === 0 && last.findings?.length === 0, `report: exit ${res.status}, findings ${JSON.stringify(last.findings?.slice(0, 3))}${res.stderr}`);
    check(last.commits?.length === h.count && last.verify?.commits === h.commits, `report saw ${last.commits?.length} governed of ${last.verify?.commits} commits, expected ${h.count} of ${h.commits}`);
    check(last.totals.lines_now.total > 0, 'report: no lines now');
    if (r >= 0) {
      times.push(res.ms);
      cpu.push(res.cpu ?? NaN);
    }
  }
  return { commits: h.commits, governed: h.count, time: stats(times), cpu: stats(cpu), files: last.files.length, linesNow: last.totals.lines_now.total, bytes: last.bytes };
}
