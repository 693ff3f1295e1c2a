import { existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { BRANCH_PREFIX } from './active.js';
import { fileIdentity, keptRead, type Kept } from '../core/kept.js';
import { keptMap, keptStore } from '../core/hook-context.js';
import { gitRaw } from '../git/process.js';
import type { Repo } from '../git/repo.js';

// The local `intent/<ID>` branches and their tips. A hook run in its own node reads packed-refs
// and every loose ref file under refs/heads/intent/ (no process). The hook server
// (lib/hooks/server.ts) keeps what it read between hooks:
// - each file's content with the file's identity (core/kept.ts): git writes a loose ref by
//   renaming a lock file into place (a new inode), so a stat tells whether to read it again;
// - and, for the loose refs, a watch (inotify) on refs/heads/intent/: only the files named by an
//   event since the last hook are looked at again, instead of a stat per branch (500 IN_PROGRESS
//   intents: ~4 ms a commit). The server lets the kernel's pending events in before each request
//   (a ref written before the commit started has its event queued before the request). Everything
//   is read again, and the watch made again, when the folder is replaced, when it holds a folder
//   (an ID with a slash), when the watch fails or closes, and every FULL_WALK_MS: the kernel drops
//   events past its queue's limit without telling node.

/** Longest time the server trusts its watch alone before it stats every ref file again. */
const FULL_WALK_MS = 30_000;

/** Ref files' contents by path, kept with their identities. */
type KeptFiles = Map<string, Kept<string | null>>;

/** What the hook server keeps per repository. */
interface Resident {
  /** Per ref file (and packed-refs): its identity and content. */
  files: KeptFiles;
  /** The watch on refs/heads/intent/, while it can be trusted. */
  watch: LooseWatch | null;
}

interface LooseWatch {
  watcher: FSWatcher;
  /** The folder's device and inode when the watch was made. */
  folder: string;
  /** The names events reported since the loose refs were last looked at; null: all of them. */
  dirty: Set<string> | null;
  /** The loose refs as of the last look: name → tip. */
  loose: Map<string, string>;
  since: number;
}


/**
 * The local `intent/<ID>` branches and their tips, read from the ref files (no process) unless the
 * repository uses reftable, then with `git for-each-ref`.
 */
export function intentBranches(repo: Repo): Map<string, string> {
  const common = repo.commonDir;
  if (existsSync(join(common, 'reftable'))) return branchesFromGit(repo);
  const residents = keptMap<string, Resident>('branch-tips');
  if (!residents) return branchesFromFiles(common, null);
  let r = residents.get(common);
  if (!r) residents.set(common, (r = { files: new Map(), watch: null }));
  return residentBranches(common, r);
}

/**
 * Whether any `intent/<ID>` branch other than `selfId`'s may exist, from the ref files alone (true
 * when unsure, e.g. reftable, and in the hook server, where `intentBranches` is as cheap): with one
 * intent branch, pre-commit does no conflict work at all.
 */
export function otherIntentBranchesMayExist(repo: Repo, selfId: string): boolean {
  if (keptStore() || existsSync(join(repo.commonDir, 'reftable'))) return true;
  try {
    if (readdirSync(join(repo.commonDir, 'refs', 'heads', 'intent')).some((n) => n !== selfId)) return true;
  } catch { /* no loose intent branches */ }
  return [...packedBranches(repo.commonDir, null).keys()].some((id) => id !== selfId);
}

function branchesFromGit(repo: Repo): Map<string, string> {
  const res = gitRaw(['for-each-ref', '--format=%(objectname) %(refname)', `refs/heads/${BRANCH_PREFIX}`], { cwd: repo.root });
  return refLines(res.stdout);
}

/** `<sha> refs/heads/intent/<ID>` lines (packed-refs, for-each-ref) as ID → tip; other lines skipped. */
function refLines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40,64}) refs\/heads\/intent\/(.+)$/.exec(line);
    if (m) out.set(m[2], m[1]);
  }
  return out;
}

/** A file's content (null when it cannot be read); with `kept`, read again only when its identity changed. */
function readKept(file: string, kept: KeptFiles | null, seen?: Set<string>): string | null {
  seen?.add(file);
  const read = (): string | null => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  };
  return kept ? keptRead(kept, file, read) : read();
}

function packedBranches(common: string, kept: KeptFiles | null): Map<string, string> {
  return refLines(readKept(join(common, 'packed-refs'), kept) ?? '');
}

function tipOf(text: string | null): string | null {
  const sha = text?.trim() ?? '';
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}

/**
 * The loose refs under `dir` (name → tip), every file looked at; `folders` tells whether it holds
 * a folder (names with a slash).
 */
function walkLoose(dir: string, kept: KeptFiles | null, seen?: Set<string>): { loose: Map<string, string>; folders: boolean } {
  const loose = new Map<string, string>();
  let folders = false;
  const walk = (at: string, prefix: string): void => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        folders = true;
        walk(join(at, e.name), `${prefix}${e.name}/`);
      } else if (e.isFile() && !e.name.endsWith('.lock')) {
        const tip = tipOf(readKept(join(at, e.name), kept, seen));
        if (tip) loose.set(prefix + e.name, tip);
      }
    }
  };
  walk(dir, '');
  return { loose, folders };
}

/** Packed refs, then the loose ones over them (a loose ref wins). */
function merged(packed: Map<string, string>, loose: Map<string, string>): Map<string, string> {
  for (const [name, tip] of loose) packed.set(name, tip);
  return packed;
}

/** Every ref file read (a hook in its own node). */
function branchesFromFiles(common: string, kept: KeptFiles | null): Map<string, string> {
  return merged(packedBranches(common, kept), walkLoose(join(common, 'refs', 'heads', 'intent'), kept).loose);
}

function folderId(dir: string): string | null {
  const id = fileIdentity(dir);
  return id === null ? null : id.split(':').slice(0, 2).join(':');
}

function residentBranches(common: string, r: Resident): Map<string, string> {
  const dir = join(common, 'refs', 'heads', 'intent');
  const packed = packedBranches(common, r.files);
  let w = r.watch;
  if (w && (w.folder !== folderId(dir) || Date.now() - w.since > FULL_WALK_MS)) {
    closeWatch(r);
    w = null;
  }
  // A folder made since (an ID with a slash): its files are not watched.
  if (w && w.dirty?.size && [...w.dirty].some((name) => statSync(join(dir, name), { throwIfNoEntry: false })?.isDirectory())) w.dirty = null;
  if (w && w.dirty !== null) {
    const names = w.dirty;
    w.dirty = new Set();
    for (const name of names) {
      if (name.endsWith('.lock')) continue;
      const tip = tipOf(readKept(join(dir, name), r.files));
      if (tip) w.loose.set(name, tip);
      else w.loose.delete(name);
    }
    return merged(packed, w.loose);
  }
  closeWatch(r);
  // Every file: the watch goes on first, so that nothing written during the walk is missed.
  const made = watchFolder(dir, r);
  const seen = new Set<string>();
  const { loose, folders } = walkLoose(dir, r.files, seen);
  for (const file of r.files.keys()) if (file !== join(common, 'packed-refs') && !seen.has(file)) r.files.delete(file);
  if (made && !folders && made.dirty !== null) {
    made.loose = loose;
    r.watch = made;
  } else if (made) {
    made.watcher.close();
  }
  return merged(packed, loose);
}

/** A watch on `dir` that marks the names it reports (all of them when it cannot tell); null when none can be made. */
function watchFolder(dir: string, r: Resident): LooseWatch | null {
  const folder = folderId(dir);
  if (folder === null) return null;
  let w: LooseWatch;
  try {
    const watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (w.dirty === null) return;
      if (typeof name === 'string' && name && !name.includes('/')) w.dirty.add(name);
      else w.dirty = null;
    });
    w = { watcher, folder, dirty: new Set(), loose: new Map(), since: Date.now() };
    watcher.on('error', () => {
      w.dirty = null;
      if (r.watch === w) closeWatch(r);
    });
    watcher.on('close', () => {
      w.dirty = null;
    });
  } catch {
    return null;
  }
  // The folder may have been replaced between the stat and the watch.
  if (folderId(dir) !== folder) {
    w.watcher.close();
    return null;
  }
  return w;
}

function closeWatch(r: Resident): void {
  const w = r.watch;
  r.watch = null;
  if (w) {
    w.dirty = null;
    w.watcher.close();
  }
}
