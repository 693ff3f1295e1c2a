import { readBlobs } from '../git/blobs.js';
import { existingCommits } from '../git/commits.js';
import { gitRaw } from '../git/process.js';

/**
 * What a push means in git's terms: the commits each ref newly reaches, what a notes commit is,
 * and a note as `git notes show` reads it. Every function here asks git; none decides.
 */

/** A commit the push brings, with the updated refs that newly reach it. */
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
const ZERO = /^0+$/;

/**
 * Per update, the commits its new tip reaches that neither its old tip nor any of `settled`
 * (the protected branches as they were before the push) reaches: what that ref newly reaches.
 * Nothing counts as known for being reachable from some other ref. Each commit is listed once,
 * with every ref that newly reaches it; `extra` adds existing commits with no ref.
 */
export function listNewCommits(cwd: string, updates: { old: string; new: string; ref: string }[], settled: string[], extra: string[] = []): Map<string, NewCommit> {
  const refsOf = new Map<string, string[]>();
  for (const u of updates) {
    const not = [...(ZERO.test(u.old) ? [] : [u.old]), ...settled];
    const res = gitRaw(['rev-list', '--stdin'], { cwd, input: [u.new, ...not.map((n) => `^${n}`)].join('\n') + '\n' });
    if (res.status !== 0) throw new Error(`git rev-list ${u.new} (${u.ref}): ${res.stderr.trim()}`);
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

/** The type of object `rev` names (commit, tree, blob, tag), or null when there is none. */
export function objectType(cwd: string, rev: string): string | null {
  const r = gitRaw(['cat-file', '-t', rev], { cwd });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Why `path` (mode `mode`) cannot be an entry of a notes tree, or null when it is a note. */
export function notePathProblem(path: string, mode: string): string | null {
  const parts = path.split('/');
  const name = parts.join('');
  if (mode !== '100644') return `${path} is not a plain file (mode ${mode})`;
  if (!parts.slice(0, -1).every((p) => /^[0-9a-f]{2}$/.test(p))) return `${path} is not under two-hex-digit fan-out directories`;
  if (!/^[0-9a-f]+$/.test(name) || (name.length !== 40 && name.length !== 64)) return `${path} does not name an object id`;
  return null;
}

/**
 * The commits newly reachable from the notes tip `newTip` (not from `oldTip`) that are not notes
 * commits: each must have a tree of notes only (plain files at fan-out paths that spell an object
 * id). Its parents are then notes commits too, each being either one of these or one the old tip
 * reaches. Only what a commit changes against its parents is looked at (the rest it shares with
 * a parent already judged), so the cost follows the push, not the number of notes.
 */
export function nonNotesCommits(cwd: string, oldTip: string | null, newTip: string): { commit: string; problem: string }[] {
  const type = objectType(cwd, newTip);
  if (type !== 'commit') return [{ commit: newTip, problem: `the notes ref would point at a ${type ?? 'missing object'}, not a commit` }];
  const list = gitRaw(['rev-list', '--stdin'], { cwd, input: [newTip, ...(oldTip ? [`^${oldTip}`] : [])].join('\n') + '\n' });
  if (list.status !== 0) throw new Error(`git rev-list ${newTip}: ${list.stderr.trim()}`);
  const shas = list.stdout.split('\n').filter(Boolean);
  if (!shas.length) return [];
  const out = gitRaw(['diff-tree', '--stdin', '-r', '-z', '--root', '-m', '--no-renames', '--no-abbrev'], { cwd, input: shas.join('\n') + '\n' });
  if (out.status !== 0) throw new Error(`git diff-tree --stdin: ${out.stderr.trim()}`);
  const problems = new Map<string, string>();
  const tokens = out.stdout.split('\0');
  let commit = '';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t) continue;
    const m = /^:(\d+) (\d+) [0-9a-f]+ [0-9a-f]+ ([A-Z])\d*$/.exec(t);
    if (!m) {
      commit = t.split(' ')[0];
      continue;
    }
    const path = tokens[++i] ?? '';
    if (m[3] === 'D' || problems.has(commit)) continue;
    const problem = notePathProblem(path, m[2]);
    if (problem) problems.set(commit, problem);
  }
  return [...problems].map(([c, problem]) => ({ commit: c, problem }));
}

/** One note a notes update adds, changes or removes, by annotated object. */
export interface NoteChange {
  sha: string;
  kind: 'added' | 'changed' | 'removed';
}

/**
 * The notes `newNotes` adds, changes or removes against `oldNotes` (null: every note is new),
 * by annotated object, whatever fan-out path holds them: a note moved to another fan-out path
 * with the same bytes is no change.
 */
export function notesChanges(cwd: string, oldNotes: string | null, newNotes: string): NoteChange[] {
  const before = new Map<string, string[]>();
  const after = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, sha: string, blob: string) => {
    const list = m.get(sha);
    if (list) list.push(blob);
    else m.set(sha, [blob]);
  };
  if (oldNotes) {
    const out = gitRaw(['diff-tree', '-r', '-z', '--no-renames', '--no-abbrev', oldNotes, newNotes], { cwd }).stdout.split('\0');
    for (let i = 0; i + 1 < out.length; i += 2) {
      const m = /^:\d+ \d+ ([0-9a-f]+) ([0-9a-f]+) ([AMDT])/.exec(out[i]);
      if (!m) continue;
      const sha = out[i + 1].replace(/\//g, '');
      if (m[3] !== 'A') add(before, sha, m[1]);
      if (m[3] !== 'D') add(after, sha, m[2]);
    }
  } else {
    for (const rec of gitRaw(['ls-tree', '-r', '-z', '--full-tree', newNotes], { cwd }).stdout.split('\0')) {
      const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(rec);
      if (m) add(after, m[2].replace(/\//g, ''), m[1]);
    }
  }
  const changes: NoteChange[] = [];
  for (const sha of new Set([...before.keys(), ...after.keys()])) {
    const a = (before.get(sha) ?? []).sort().join(' ');
    const b = (after.get(sha) ?? []).sort().join(' ');
    if (a === b) continue;
    changes.push({ sha, kind: a === '' ? 'added' : b === '' ? 'removed' : 'changed' });
  }
  return changes;
}

/** A note as the notes tree holds it: its text, and every path it was found at. */
export interface NoteRead {
  text: string;
  /** More than one: the same object is annotated at several fan-out paths (git would concatenate them). */
  paths: string[];
}

/**
 * The notes of `shas` in the notes commit `notes`, read at every fan-out path git reads a note
 * from (`abcd…`, `ab/cd…`, `ab/cd/ef…`, …): one listing of the notes tree, one `cat-file --batch`
 * for the wanted blobs. (Asking git for each possible path instead costs a tree walk per path:
 * 3 s for 1,000 commits.) An object annotated at more than one path is returned with all of
 * them: `git notes show` concatenates such notes, so the caller refuses them rather than judging
 * one and letting git show another.
 */
export function readNotesFor(cwd: string, notes: string, shas: string[]): Map<string, NoteRead> {
  return readLocated(cwd, locateNotes(cwd, notes, shas), shas);
}

/** Where the notes of `shas` are in the notes commit `notes`: each one's blobs and paths (one `ls-tree`). */
export function locateNotes(cwd: string, notes: string, shas: string[]): Map<string, { blobs: string[]; paths: string[] }> {
  const out = new Map<string, { blobs: string[]; paths: string[] }>();
  const tree = gitRaw(['rev-parse', '--verify', '--quiet', `${notes}^{tree}`], { cwd });
  if (tree.status !== 0 || !shas.length) return out;
  const wanted = new Set(shas);
  for (const rec of gitRaw(['ls-tree', '-r', '-z', '--full-tree', tree.stdout.trim()], { cwd }).stdout.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(rec);
    if (!m) continue;
    const sha = m[2].replace(/\//g, '');
    if (!wanted.has(sha)) continue;
    const seen = out.get(sha);
    if (seen) {
      seen.blobs.push(m[1]);
      seen.paths.push(m[2]);
    } else out.set(sha, { blobs: [m[1]], paths: [m[2]] });
  }
  return out;
}

/** The notes of `shas` from where `locateNotes` found them (one `cat-file --batch`). */
export function readLocated(cwd: string, located: Map<string, { blobs: string[]; paths: string[] }>, shas: string[]): Map<string, NoteRead> {
  const out = new Map<string, NoteRead>();
  const mine = shas.flatMap((s) => (located.has(s) ? [[s, located.get(s)!] as const] : []));
  if (!mine.length) return out;
  const texts = readBlobs(cwd, [...new Set(mine.flatMap(([, l]) => l.blobs))]);
  for (const [sha, l] of mine) {
    out.set(sha, { text: l.blobs.map((b) => texts.get(b)?.toString('utf8') ?? '').join('\n'), paths: [...l.paths] });
  }
  return out;
}

/** The refs under `prefix` (e.g. refs/heads/) whose history contains `sha`. */
export function refsContaining(cwd: string, sha: string, prefix: string): string[] {
  return gitRaw(['for-each-ref', '--format=%(refname)', '--contains', sha, prefix], { cwd }).stdout.split('\n').filter(Boolean);
}
