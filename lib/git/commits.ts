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

/**
 * Which of `shas` no ref selected by `refArgs` (rev-list arguments such as
 * `--exclude=refs/notes/* --all`) reaches: commits the server does not have yet. Shas that name
 * no commit here are returned as unreached.
 */
export function unreachedFrom(cwd: string, shas: string[], refArgs: string[]): Set<string> {
  const present = new Set(existingCommits(cwd, shas));
  const out = new Set(shas.filter((s) => !present.has(s)));
  if (!present.size) return out;
  const res = gitRaw(['rev-list', '--not', ...refArgs, '--not', '--stdin'], { cwd, input: [...present].join('\n') + '\n' });
  if (res.status !== 0) throw new Error(`git rev-list --not ${refArgs.join(' ')}: ${res.stderr.trim()}`);
  for (const s of res.stdout.split('\n')) if (present.has(s)) out.add(s);
  return out;
}

/** Which of `shas` are reachable from any of `refs` (refs that do not exist are skipped). */
export function reachableFrom(cwd: string, shas: string[], refs: string[]): Set<string> {
  const out = new Set<string>();
  if (!shas.length) return out;
  const tips = refs.filter((r) => gitRaw(['rev-parse', '--verify', '--quiet', `${r}^{commit}`], { cwd }).status === 0);
  if (!tips.length) return out;
  const unreached = unreachedFrom(cwd, shas, tips);
  for (const s of shas) if (!unreached.has(s)) out.add(s);
  return out;
}
