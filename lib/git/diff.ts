import { splitNulPaths } from './paths.js';
import { git, gitBuffer, gitRawAsync } from './process.js';
import { parseRawPatch, type FileChange } from './hunks.js';
import { askResident, sentinel } from './resident.js';

/**
 * Pinned diff options: the hunks (and so the hashes) must not depend on the user's diff config
 * (algorithm, heuristics, prefixes, order files, external drivers, textconv, relative mode).
 * `--text` keeps a `-diff` attribute from hiding text; binaries are detected from the bytes.
 */
const DIFF_FLAGS = [
  '-r', '--raw', '-p', '-U0', '--inter-hunk-context=0', '--find-renames=50%', '--text',
  '--no-color', '--no-ext-diff', '--no-textconv', '--diff-algorithm=myers', '--indent-heuristic',
  '--src-prefix=a/', '--dst-prefix=b/', '--no-relative', '-O/dev/null', '--ignore-submodules=none',
];
const CONFIG = ['-c', 'core.quotePath=true', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false'];
/**
 * Tree-to-tree diffs run with no index: git otherwise reads the whole index (an 8.8 MB index of
 * 100,000 files: 24 ms of a 6 ms diff-tree) only to look for `.gitattributes` files missing from
 * the work tree, and with the pinned flags (`--text`, `--no-textconv`, `--no-ext-diff`, the
 * algorithm) attributes change no hunk (docs/decisions.md). A path that does not exist is an
 * empty index to git.
 */
const NO_INDEX = { GIT_INDEX_FILE: '/nonexistent/intent-no-index' };

/** A commit's identity and its changes against its first parent (or the empty tree). */
export interface CommitDiff {
  sha: string;
  parents: string[];
  changes: FileChange[];
}

/**
 * Resolves `rev` and diffs it against its first parent (a root commit: the empty tree) with
 * git's own diff, in one process: `--always --parents` print the commit and its parents first,
 * even when the diff is empty; `--diff-merges=first-parent` gives a merge its first-parent diff,
 * as `diffCommits` does.
 */
export function commitDiff(cwd: string, rev: string): CommitDiff {
  const out = git([...CONFIG, 'diff-tree', '--root', '--always', '--parents', '--diff-merges=first-parent', ...DIFF_FLAGS, rev, '--'], { cwd, env: NO_INDEX });
  const nl = out.indexOf('\n');
  const [sha, ...parents] = (nl === -1 ? out : out.slice(0, nl)).trim().split(' ');
  if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new Error(`git diff-tree ${rev}: unexpected output ${JSON.stringify(out.slice(0, 200))}`);
  return { sha, parents, changes: parseRawPatch(nl === -1 ? '' : out.slice(nl + 1).replace(/^\n+/, '')) };
}

/**
 * The changes from tree (or commit) `from` to tree `to`, with the same pinned options as
 * `commitDiff`: for a commit made from `to` on `from`, the same change list.
 */
export function treeDiff(cwd: string, from: string, to: string): FileChange[] {
  const out = git([...CONFIG, 'diff-tree', ...DIFF_FLAGS, from, to, '--'], { cwd, env: NO_INDEX });
  return parseRawPatch(out.replace(/^\n+/, ''));
}

/** `treeDiff` without blocking: the git process runs while the caller does other work. */
export async function treeDiffAsync(cwd: string, from: string, to: string): Promise<FileChange[]> {
  const args = [...CONFIG, 'diff-tree', ...DIFF_FLAGS, from, to, '--'];
  const res = await gitRawAsync(args, { cwd, env: NO_INDEX });
  if (res.status !== 0) throw new Error(`git diff-tree ${from} ${to} failed (exit ${res.status}): ${res.stderr.trim()}`);
  return parseRawPatch(res.stdout.replace(/^\n+/, ''));
}

/**
 * Every path the commit being prepared adds, modifies or deletes, both sides of a rename
 * included (renames are not detected, so they appear as a deletion and an addition). Reads the
 * index named by the hook's own environment (`commit -a` and `commit -- path` use a temporary one).
 */
export function stagedPaths(cwd: string): string[] {
  const out = gitBuffer(
    [...CONFIG, 'diff', '--cached', '--name-only', '-z', '--no-renames', '--no-relative', '--ignore-submodules=none', '--no-ext-diff'],
    { cwd, inheritRepoEnv: true },
  );
  return splitNulPaths(out);
}

/**
 * Diffs many commits against their first parents (or the empty tree) with one `git diff-tree
 * --stdin` process and the same pinned options as `commitDiff`. Returns sha → changes.
 */
export function diffCommits(cwd: string, commits: { sha: string; parent: string | null }[]): Map<string, FileChange[]> {
  const out = new Map<string, FileChange[]>();
  if (!commits.length) return out;
  const input = commits.map((c) => (c.parent ? `${c.sha} ${c.parent}` : c.sha)).join('\n') + '\n';
  const text = git([...CONFIG, 'diff-tree', '--stdin', '--root', ...DIFF_FLAGS], { cwd, input, env: NO_INDEX });
  // Each commit's output starts with the line it was given (or its sha); patch lines never
  // consist of hex digits alone.
  const header = /^([0-9a-f]{40,64})(?: [0-9a-f]{40,64})*$/;
  let current: string | null = null;
  let lines: string[] = [];
  const flush = () => {
    if (current) out.set(current, parseRawPatch(lines.join('\n').replace(/^\n+/, '')));
  };
  // Only the raw records, the `diff --git` lines and the hunk headers are read (parseRawPatch):
  // with -U0 every line of a patch's body starts with + or -, and those are skipped without being
  // cut out of the text, so a change of millions of lines costs its text, not millions of strings.
  for (let pos = 0; pos < text.length;) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    const c = text.charCodeAt(pos);
    if (c !== 0x2b && c !== 0x2d) {
      const line = text.slice(pos, nl);
      const m = header.exec(line);
      if (m) {
        flush();
        current = m[1];
        lines = [];
      } else lines.push(line);
    }
    pos = nl + 1;
  }
  flush();
  for (const c of commits) if (!out.has(c.sha)) out.set(c.sha, []);
  return out;
}

/**
 * `treeDiffAsync` asked of the hook server's resident `git diff-tree --stdin` (lib/git/resident.ts):
 * the same pinned options and output, with no process started. `--stdin` prints `<from> <to>`
 * before each diff and echoes back a line that is not an object id, flushed: the end of the answer.
 * Null when the resident cannot answer (the caller runs `treeDiffAsync`).
 */
export async function residentTreeDiff(where: { cwd: string; commonDir: string; gitDir: string }, from: string, to: string): Promise<FileChange[] | null> {
  if (!/^[0-9a-f]{40}$/.test(from) || !/^[0-9a-f]{40}$/.test(to)) return null;
  const end = sentinel();
  const tail = Buffer.from(`\n${end}\n`);
  const alone = Buffer.from(`${end}\n`);
  const out = await askResident([...CONFIG, 'diff-tree', '--stdin', ...DIFF_FLAGS], where, NO_INDEX, `${from} ${to}\n${end}\n`, (buf, from) => {
    if (buf.length >= alone.length && buf.subarray(0, alone.length).equals(alone)) return alone.length;
    const at = buf.indexOf(tail, Math.max(0, from - tail.length));
    return at === -1 ? -1 : at + tail.length;
  });
  if (!out) return null;
  const text = out.toString('utf8');
  const header = `${from} ${to}\n`;
  // No header: git could not read a tree (it says so on stderr and goes on).
  if (!text.startsWith(header)) return null;
  return parseRawPatch(text.slice(header.length, text.length - tail.length + 1).replace(/^\n+/, ''));
}
