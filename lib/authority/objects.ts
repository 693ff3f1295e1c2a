import { gitBuffer, gitRaw } from '../git/process.js';

/** A commit the push brings, with the updated refs that reach it. */
export interface NewCommit {
  sha: string;
  parents: string[];
  committed: number;
  /** The first `Intent-Id:` trailer value, or null. */
  trailer: string | null;
  refs: string[];
}

const SEP = '\x1e';
const FS = '\x1f';

/**
 * The commits each update's new tip reaches that `known` (rev-list arguments, e.g. `--all`)
 * does not, each listed once with every ref that brings it; plus the given existing commits
 * (`extra`) with no refs. One rev-list per update and one log for all.
 */
export function listNewCommits(cwd: string, updates: { new: string; ref: string }[], known: string[], extra: string[] = []): Map<string, NewCommit> {
  const refsOf = new Map<string, string[]>();
  for (const u of updates) {
    const res = gitRaw(['rev-list', u.new, ...(known.length ? ['--not', ...known] : []), '--'], { cwd });
    if (res.status !== 0) throw new Error(`git rev-list ${u.new}: ${res.stderr.trim()}`);
    for (const sha of res.stdout.split('\n')) {
      if (!sha) continue;
      const refs = refsOf.get(sha);
      if (refs) refs.push(u.ref);
      else refsOf.set(sha, [u.ref]);
    }
  }
  for (const sha of existingCommits(cwd, extra)) if (!refsOf.has(sha)) refsOf.set(sha, []);
  const out = new Map<string, NewCommit>();
  if (!refsOf.size) return out;
  const res = gitRaw(
    ['log', '--no-walk=unsorted', '--stdin', '--no-color', '--no-notes', `--format=${SEP}%H${FS}%P${FS}%ct${FS}%(trailers:key=Intent-Id,valueonly,separator=%x2C)`],
    { cwd, input: [...refsOf.keys()].join('\n') + '\n' },
  );
  if (res.status !== 0) throw new Error(`git log --stdin: ${res.stderr.trim()}`);
  for (const chunk of res.stdout.split(SEP)) {
    if (!chunk) continue;
    const [sha, parents, ct, trailer] = chunk.split(FS);
    out.set(sha, {
      sha,
      parents: parents ? parents.split(' ') : [],
      committed: Number(ct),
      trailer: trailer.trim().split(',')[0]?.trim() || null,
      refs: refsOf.get(sha) ?? [],
    });
  }
  return out;
}

/** Which of `shas` name commits in the object store (one `cat-file --batch-check`). */
export function existingCommits(cwd: string, shas: string[]): string[] {
  if (!shas.length) return [];
  const out = gitRaw(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { cwd, input: shas.join('\n') + '\n' }).stdout;
  return out.split('\n').map((l) => l.split(' ')).filter((p) => p[1] === 'commit').map((p) => p[0]);
}

/** One note a notes update adds, changes or removes. */
export interface NoteChange {
  sha: string;
  kind: 'added' | 'changed' | 'removed';
}

/**
 * The notes `newNotes` adds, changes or removes against `oldNotes` (null: every note is new),
 * by annotated commit: a note moved to another fan-out path is no change.
 */
export function notesChanges(cwd: string, oldNotes: string | null, newNotes: string): NoteChange[] {
  const before = new Map<string, string>();
  const after = new Map<string, string>();
  const args = oldNotes ? ['diff-tree', '-r', '-z', '--no-renames', '--no-abbrev', oldNotes, newNotes] : ['ls-tree', '-r', '-z', '--full-tree', newNotes];
  const out = gitRaw(args, { cwd }).stdout.split('\0');
  if (oldNotes) {
    for (let i = 0; i + 1 < out.length; i += 2) {
      const m = /^:\d+ \d+ ([0-9a-f]+) ([0-9a-f]+) ([AMDT])/.exec(out[i]);
      if (!m) continue;
      const sha = out[i + 1].replace(/\//g, '');
      if (m[3] !== 'A') before.set(sha, m[1]);
      if (m[3] !== 'D') after.set(sha, m[2]);
    }
  } else {
    for (const rec of out) {
      const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(rec);
      if (m) after.set(m[2].replace(/\//g, ''), m[1]);
    }
  }
  const changes: NoteChange[] = [];
  for (const sha of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(sha);
    const b = after.get(sha);
    if (a === b) continue;
    changes.push({ sha, kind: a === undefined ? 'added' : b === undefined ? 'removed' : 'changed' });
  }
  return changes;
}

/**
 * The notes of `shas` in the notes commit `notes` (sha → text), whatever the fan-out: one
 * `cat-file --batch` asking each of the three paths git uses for a note.
 */
export function readNotesFor(cwd: string, notes: string, shas: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const tree = gitRaw(['rev-parse', '--verify', '--quiet', `${notes}^{tree}`], { cwd });
  if (tree.status !== 0 || !shas.length) return out;
  const t = tree.stdout.trim();
  const asks: [string, string][] = [];
  for (const s of shas) {
    asks.push([s, `${t}:${s}`], [s, `${t}:${s.slice(0, 2)}/${s.slice(2)}`], [s, `${t}:${s.slice(0, 2)}/${s.slice(2, 4)}/${s.slice(4)}`]);
  }
  const buf = gitBuffer(['cat-file', '--batch'], { cwd, input: asks.map((a) => a[1]).join('\n') + '\n' });
  let pos = 0;
  for (const [sha] of asks) {
    const nl = buf.indexOf(0x0a, pos);
    const header = buf.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (header.length < 3) continue;
    const size = Number(header[2]);
    if (header[1] === 'blob' && !out.has(sha)) out.set(sha, buf.subarray(pos, pos + size).toString('utf8'));
    pos += size + 1;
  }
  return out;
}

/** Which of `shas` are reachable from any of `refs` (refs that do not exist are skipped). */
export function reachableFrom(cwd: string, shas: string[], refs: string[]): Set<string> {
  const out = new Set<string>();
  if (!shas.length) return out;
  const tips = refs.filter((r) => gitRaw(['rev-parse', '--verify', '--quiet', `${r}^{commit}`], { cwd }).status === 0);
  if (!tips.length) return out;
  if (shas.length <= 16) {
    for (const s of shas) if (tips.some((t) => gitRaw(['merge-base', '--is-ancestor', s, t], { cwd }).status === 0)) out.add(s);
    return out;
  }
  const wanted = new Set(shas);
  for (const s of gitRaw(['rev-list', ...tips, '--'], { cwd }).stdout.split('\n')) if (wanted.has(s)) out.add(s);
  return out;
}
