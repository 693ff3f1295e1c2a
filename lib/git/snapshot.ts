/**
 * What a shell command changed in a worktree: a snapshot before it (HEAD, and the blob of every
 * file `git status` lists as changed or untracked, written into the object store so its bytes can
 * be read back) compared with the worktree after it. A file the command did not touch has the same
 * blob before and after; a clean file's "before" is its blob in the HEAD of the snapshot.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { gitRaw } from './process.js';
import { splitNulBytes } from './paths.js';

/** The worktree's state before a command: HEAD and the blob id of each dirty path (null: absent). */
export interface WorktreeSnapshot {
  head: string | null;
  files: Record<string, string | null>;
  /** Set when the worktree had more dirty paths than a snapshot keeps: nothing can be compared. */
  tooMany?: number;
}

/** Above this many changed or untracked paths a snapshot is not taken (hashing them would slow every command). */
export const MAX_SNAPSHOT_PATHS = 5000;

/** A path whose content differs from the snapshot: its blob before (null: it did not exist). */
export interface WorktreeChange {
  path: string;
  before: string | null;
  /** False when the file is gone now. */
  exists: boolean;
}

/** Paths `git status` lists as changed, staged or untracked (UTF-8 names only; others are skipped). */
function dirtyPaths(root: string): string[] {
  const res = gitRaw(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'], { cwd: root, binary: true });
  if (res.status !== 0) throw new Error(`git status failed in ${root}: ${res.stderr.trim()}`);
  const out: string[] = [];
  for (const f of splitNulBytes(res.stdoutBuf!)) {
    if (f.length < 4 || !isUtf8(f)) continue;
    out.push(f.subarray(3).toString('utf8'));
  }
  return [...new Set(out)];
}

function head(root: string): string | null {
  const res = gitRaw(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: root });
  return res.status === 0 ? res.stdout.trim() : null;
}

/** Blob ids of the files at `paths` (null: absent or not a regular file or symlink); `write` stores them. */
function hashFiles(root: string, paths: string[], write: boolean): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const present: string[] = [];
  for (const p of paths) {
    let ok = false;
    try {
      const st = lstatSync(join(root, p));
      ok = st.isFile();
    } catch { /* absent */ }
    out[p] = null;
    if (ok) present.push(p);
  }
  if (present.length) {
    const res = gitRaw(['hash-object', ...(write ? ['-w'] : []), '--stdin-paths'], { cwd: root, input: present.join('\n') + '\n' });
    if (res.status !== 0) throw new Error(`git hash-object failed in ${root}: ${res.stderr.trim()}`);
    const ids = res.stdout.trim().split('\n');
    present.forEach((p, i) => { out[p] = ids[i] ?? null; });
  }
  return out;
}

/** Blob ids of `paths` in commit `rev` (null: not there, or no commit). */
function treeBlobs(root: string, rev: string | null, paths: string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const p of paths) out[p] = null;
  if (!rev || !paths.length) return out;
  const res = gitRaw(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { cwd: root, input: paths.map((p) => `${rev}:${p}`).join('\n') + '\n' });
  if (res.status !== 0) return out;
  res.stdout.split('\n').slice(0, paths.length).forEach((line, i) => {
    const m = /^([0-9a-f]{40,64}) blob$/.exec(line);
    out[paths[i]] = m ? m[1] : null;
  });
  return out;
}

/** Snapshots the worktree at `root` before a command. */
export function snapshotWorktree(root: string, max = MAX_SNAPSHOT_PATHS): WorktreeSnapshot {
  const dirty = dirtyPaths(root);
  if (dirty.length > max) return { head: head(root), files: {}, tooMany: dirty.length };
  return { head: head(root), files: hashFiles(root, dirty, true) };
}

/** The paths whose content differs from `snap` now. */
export function changesSince(root: string, snap: WorktreeSnapshot): WorktreeChange[] {
  if (snap.tooMany) return [];
  const now = dirtyPaths(root);
  const candidates = [...new Set([...Object.keys(snap.files), ...now])].sort();
  const notInSnap = candidates.filter((p) => !(p in snap.files));
  const beforeClean = treeBlobs(root, snap.head, notInSnap);
  const nowSet = new Set(now);
  const after = hashFiles(root, candidates.filter((p) => nowSet.has(p)), false);
  const afterClean = treeBlobs(root, head(root), candidates.filter((p) => !nowSet.has(p)));
  const changes: WorktreeChange[] = [];
  for (const p of candidates) {
    const before = p in snap.files ? snap.files[p] : beforeClean[p];
    const a = nowSet.has(p) ? after[p] : afterClean[p];
    if (before !== a) changes.push({ path: p, before, exists: a !== null });
  }
  return changes;
}

/** The bytes of a blob id (null for null). */
export function blobBytes(root: string, id: string | null): Buffer | null {
  if (!id) return null;
  const res = gitRaw(['cat-file', 'blob', id], { cwd: root, binary: true });
  return res.status === 0 ? res.stdoutBuf! : null;
}
