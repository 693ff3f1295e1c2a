/**
 * Which of many commits this clone has, and which of those a ref still reaches: the notes name
 * commits a clone may lack (reset away and gc'ed, or never fetched), and readers that credit or
 * count by the notes must skip those the same way in every clone.
 */
import { gitRaw } from './process.js';

/** Which of `shas` name commits in the object store (one `cat-file --batch-check`), in their order. */
export function existingCommits(cwd: string, shas: readonly string[]): string[] {
  if (!shas.length) return [];
  const out = gitRaw(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { cwd, input: shas.join('\n') + '\n' }).stdout;
  return out.split('\n').map((l) => l.split(' ')).filter((p) => p[1] === 'commit').map((p) => p[0]);
}

/**
 * The commits of `shas` that a branch, remote-tracking branch, tag or HEAD reaches (two git
 * processes): a commit reset away is left out before gc as after it, so the author's clone counts
 * what a teammate's fresh clone counts. The walk is `git rev-list <shas> --not <refs>`, which
 * visits only what the refs do not reach.
 */
export function reachableCommits(cwd: string, shas: readonly string[]): string[] {
  const present = existingCommits(cwd, shas);
  if (!present.length) return [];
  const r = gitRaw(['rev-list', '--stdin', '--not', '--branches', '--remotes', '--tags', 'HEAD'], { cwd, input: present.join('\n') + '\n' });
  if (r.status !== 0) {
    // An unborn HEAD: ask again without it.
    const again = gitRaw(['rev-list', '--stdin', '--not', '--branches', '--remotes', '--tags'], { cwd, input: present.join('\n') + '\n' });
    if (again.status !== 0) return present;
    const lost = new Set(again.stdout.split('\n'));
    return present.filter((s) => !lost.has(s));
  }
  const lost = new Set(r.stdout.split('\n'));
  return present.filter((s) => !lost.has(s));
}
