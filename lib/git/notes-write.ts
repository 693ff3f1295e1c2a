/**
 * Writes a note without `git notes add`: post-commit's one note per commit, as git would write it,
 * in this process (a git process less per commit). The notes commit, its root tree and the fan-out
 * subtrees on the commit's path come from the `git cat-file --batch` post-commit runs anyway (asked
 * by name: `refs/notes/intents`, `…^{tree}`, `…:ab`, `…:ab/cd`, so packed objects are read by
 * git); the new blob, trees and commit are written as loose objects (zlib, SHA-1, a temporary file
 * renamed into place), the ref through git's own lock file (`refs/notes/intents.lock`, created
 * exclusively, the old value checked under it) with a line in its reflog.
 *
 * Only the plain case is taken; anything else returns false and the caller runs `git notes add`:
 * no notes ref yet (git creates it, and its reflog as configured), no reflog file, a SHA-256 or
 * reftable repository, core.sharedRepository (file modes), an object directory given in the
 * environment, a fan-out deeper than two levels, a note found at two depths, the ref moved since it
 * was read, git's lock file held, or a level git would lay out otherwise (gitWouldFanOut). So the
 * layout is git's own: a new note goes into the fan-out subtree of its prefix, and the tree is
 * the one `git notes add` writes. Tested against `git fsck`, `git notes`.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { ownerStamp, stampGone } from '../core/lock.js';
import { dirname, join } from 'node:path';
import type { GitObject } from './blobs.js';
import { refOid } from './repo.js';
import { keepObject } from './object-cache.js';

const SHA1 = /^[0-9a-f]{40}$/;

/** The names post-commit adds to its `cat-file --batch` for a note of `sha` on `ref`. */
export function noteObjectNames(ref: string, sha: string): string[] {
  return [ref, `${ref}^{tree}`, `${ref}:${sha.slice(0, 2)}`, `${ref}:${sha.slice(0, 2)}/${sha.slice(2, 4)}`];
}

interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
  /** Where its id's 20 bytes are in the tree read (parseTree). */
  at?: number;
}

/**
 * Attaches `text` as the note of `sha` on `ref` (replacing one there) in this process, from the
 * objects `noteObjectNames` read; `ident` is the committer of the notes commit (`Name <email>
 * <seconds> <zone>`). Returns false, having written nothing git reads, when the case is not the
 * plain one (the caller then runs `git notes add`). The caller holds the notes lock.
 */
export function writeNoteInProcess(
  commonDir: string,
  env: NodeJS.ProcessEnv,
  ref: string,
  sha: string,
  text: string,
  objects: Map<string, GitObject>,
  ident: { author: string; committer: string },
): boolean {
  if (!SHA1.test(sha) || env.GIT_OBJECT_DIRECTORY || env.GIT_QUARANTINE_PATH) return false;
  const head = objects.get(ref);
  const root = objects.get(`${ref}^{tree}`);
  if (!head || head.type !== 'commit' || !SHA1.test(head.oid) || !root || root.type !== 'tree') return false;
  const logFile = join(commonDir, 'logs', ref);
  if (!existsSync(logFile) || sharedRepository(commonDir)) return false;
  // The ref as read still names that commit (refOid: null for reftable, symbolic, none).
  if (refOid({ commonDir }, ref) !== head.oid) return false;

  // Down the fan-out: at each level the note's remaining name, or the subtree of its next two digits.
  const levels: TreeEntry[][] = [parseTree(root.data)];
  // Each level's bytes (a new level: none): an entry replaced in place is a copy with its id changed.
  const raw: (Buffer | null)[] = [root.data];
  const subtrees = [`${ref}:${sha.slice(0, 2)}`, `${ref}:${sha.slice(0, 2)}/${sha.slice(2, 4)}`];
  let found = -1;
  for (let depth = 0; ; depth++) {
    const entries = levels[depth];
    const rest = sha.slice(2 * depth);
    const file = entries.some((e) => e.name === rest && e.mode !== '40000');
    const dir = entries.find((e) => e.name === rest.slice(0, 2) && e.mode === '40000');
    if (file && (found !== -1 || dir)) return false;
    if (file) found = depth;
    if (!dir) break;
    if (depth === subtrees.length) return false;
    const sub = objects.get(subtrees[depth]);
    if (!sub || sub.type !== 'tree' || sub.oid !== dir.oid) return false;
    levels.push(parseTree(sub.data));
    raw.push(sub.data);
  }
  // A fanned-out level without the subtree of this note's prefix: git makes that subtree.
  const deepest = levels[levels.length - 1];
  if (found === -1 && deepest.length && deepest.every((e) => e.mode === '40000') && levels.length <= subtrees.length) {
    levels.push([]);
    raw.push(null);
  }
  if (gitWouldFanOut(levels[levels.length - 1], sha.slice(2 * (levels.length - 1)))) return false;
  const objectsDir = join(commonDir, 'objects');
  const blob = writeLoose(objectsDir, 'blob', Buffer.from(text, 'utf8'));
  // The deepest level gets the note; each level above gets its subtree's new id.
  let child = blob;
  for (let depth = levels.length - 1; depth >= 0; depth--) {
    const name = depth === levels.length - 1 ? sha.slice(2 * depth) : sha.slice(2 * depth, 2 * depth + 2);
    const mode = depth === levels.length - 1 ? '100644' : '40000';
    // The level's entries are in git's order already: the note or subtree replaces its entry in
    // place (a fanned-out root changes one subtree's id), or goes where it sorts.
    const entries = levels[depth];
    const at = entries.findIndex((e) => e.name === name);
    const entry = { mode, name, oid: child };
    const bytes = raw[depth];
    if (at !== -1 && entries[at].mode === mode && bytes && entries[at].at !== undefined) {
      const copy = Buffer.from(bytes);
      copy.write(child, entries[at].at!, 'hex');
      child = writeLoose(objectsDir, 'tree', copy);
      continue;
    }
    if (at === -1 && bytes) {
      // A new name: its entry's bytes go where it sorts, the level's bytes around it as read.
      child = writeLoose(objectsDir, 'tree', insertEntry(bytes, entries, entry));
      continue;
    }
    const next = at !== -1 && entries[at].mode === mode ? entries.map((e, i) => (i === at ? entry : e)) : [...entries.filter((e) => e.name !== name), entry];
    child = writeLoose(objectsDir, 'tree', serializeTree(next, at !== -1 && entries[at].mode === mode));
  }
  const commit = writeLoose(objectsDir, 'commit', Buffer.from(
    `tree ${child}\nparent ${head.oid}\nauthor ${ident.author}\ncommitter ${ident.committer}\n\nNotes added by 'git notes add'\n`, 'utf8'));

  // git's ref lock: created exclusively; the ref checked again under it. A mark says whose lock
  // it is and what it holds, so that one a killed writer left is recognised and removed (git would
  // refuse every later note until someone did).
  const refFile = join(commonDir, ref);
  const lock = `${refFile}.lock`;
  const mark = join(commonDir, 'intent', 'notes-lock-owner');
  let fd: number;
  try {
    mkdirSync(dirname(refFile), { recursive: true });
    mkdirSync(dirname(mark), { recursive: true });
    removeOrphanedLock(lock, mark);
    writeMark(mark, `${ownerStamp()}${lock}\n${commit}\n`);
    fd = openLock(lock);
  } catch {
    return false;
  }
  let moved = false;
  try {
    try {
      writeSync(fd, `${commit}\n`);
    } finally {
      closeSync(fd);
    }
    if (refOid({ commonDir }, ref) !== head.oid) return false;
    appendFileSync(logFile, `${head.oid} ${commit} ${ident.committer}\tnotes: Notes added by 'git notes add'\n`);
    renameSync(lock, refFile);
    moved = true;
    return true;
  } finally {
    if (!moved) {
      try {
        unlinkSync(lock);
      } catch { /* gone */ }
    }
    try {
      // Blanked, not removed: the same file next time (creating one costs more than rewriting it).
      writeMark(mark, '');
    } catch { /* gone */ }
  }
}

/** Takes the ref's lock, `lock`, created exclusively as git does (throws when it is held). */
function openLock(lock: string): number {
  return openSync(lock, 'wx', 0o666);
}

/**
 * Writes the lock's mark over what the file held, blanks (spaces) after it, never truncating it:
 * ext4 writes back a file truncated to nothing and written again at once (auto_da_alloc), about
 * half a millisecond per note here; the same bytes written over in place cost a write.
 */
function writeMark(mark: string, text: string): void {
  const fd = openSync(mark, constants.O_RDWR | constants.O_CREAT, 0o666);
  try {
    const size = fstatSync(fd).size;
    writeSync(fd, text.length < size ? text.padEnd(size, ' ') : text, 0, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the notes ref's lock when an in-process writer that was killed left it: the mark names a
 * process that is gone, and the lock holds exactly the commit that writer was about to set (a git
 * process's lock, or a later writer's, holds another). Every other lock stays (the caller then asks
 * git, which waits for it). The caller holds the record lock: no other writer of ours runs.
 */
function removeOrphanedLock(lock: string, mark: string): void {
  let text: string;
  try {
    text = readFileSync(mark, 'utf8');
  } catch {
    return;
  }
  const [pid, start, lockPath, commit] = text.split(/[ \n]/);
  if (lockPath !== lock || !SHA1.test(commit ?? '') || !stampGone(`${pid} ${start}\n`)) return;
  try {
    if (readFileSync(lock, 'utf8') === `${commit}\n`) unlinkSync(lock);
  } catch { /* no lock */ }
}

/**
 * Whether git, writing this level with note `name` in it, would lay it out differently: it would
 * fan it out (notes.c determine_fanout: every one of the 16 first hex digits starts two notes or
 * more, about 100 notes at the root, then per subtree), or the level mixes notes and subtrees.
 * Then `git notes add` writes it (and re-balances the whole tree, once): otherwise a tree written
 * only in-process would stay flat and grow by every note, and every later note rewrite all of it.
 */
function gitWouldFanOut(entries: TreeEntry[], name: string): boolean {
  if (entries.some((e) => e.mode === '40000')) return true;
  const count = new Array<number>(16).fill(0);
  for (const e of entries) if (e.name !== name && e.name.length === name.length && /^[0-9a-f]+$/.test(e.name)) count[parseInt(e.name[0], 16)]++;
  count[parseInt(name[0], 16)]++;
  return count.every((c) => c >= 2);
}

/** Whether the repository's own config sets core.sharedRepository (group or world file modes). */
export function sharedRepository(commonDir: string): boolean {
  try {
    return /sharedrepository/i.test(readFileSync(join(commonDir, 'config'), 'utf8'));
  } catch {
    return true;
  }
}

/** One entry of a tree read: its id in hex only when asked (most entries of a level are only passed over). */
class ReadEntry implements TreeEntry {
  private hex: string | undefined;
  constructor(private readonly data: Buffer, readonly mode: string, readonly name: string, readonly at: number) {}
  get oid(): string {
    return (this.hex ??= this.data.toString('hex', this.at, this.at + 20));
  }
}

/**
 * A tree object's entries. The bytes are read as one latin1 string (a name's bytes as they are,
 * as git compares them), each name a slice of it: no Buffer view per entry (a notes root of some
 * hundreds of subtrees is read for every note).
 */
export function parseTree(data: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  const s = data.toString('latin1');
  let pos = 0;
  while (pos < s.length) {
    const sp = s.indexOf(' ', pos);
    const nul = sp === -1 ? -1 : s.indexOf('\0', sp);
    if (sp === -1 || nul === -1 || nul + 21 > data.length) throw new Error('malformed tree object');
    out.push(new ReadEntry(data, s.slice(pos, sp), s.slice(sp + 1, nul), nul + 1));
    pos = nul + 21;
  }
  return out;
}

/** git's order of tree entries: a directory sorts as if its name ended in `/`. */
function treeKey(e: TreeEntry): string {
  return e.name + (e.mode === '40000' ? '/' : '\0');
}

/** A tree's bytes with `entry` (a name not there) inserted where git's order puts it; `entries`: the tree's, read from `bytes`. */
function insertEntry(bytes: Buffer, entries: TreeEntry[], entry: TreeEntry): Buffer {
  const key = treeKey(entry);
  const after = entries.find((e) => treeKey(e) > key);
  // An entry read starts its mode, a space and its name before the NUL ahead of its id.
  const start = after ? after.at! - 2 - after.mode.length - after.name.length : bytes.length;
  return Buffer.concat([bytes.subarray(0, start), Buffer.from(`${entry.mode} ${entry.name}\0`, 'latin1'), Buffer.from(entry.oid, 'hex'), bytes.subarray(start)]);
}

/**
 * A tree object's bytes, its entries in git's order (a directory sorts as if its name ended in
 * `/`); `ordered`: they are in that order already (read from a tree, one entry's id replaced).
 */
export function serializeTree(entries: TreeEntry[], ordered = false): Buffer {
  const sorted = ordered ? entries : [...entries].sort((a, b) => (treeKey(a) < treeKey(b) ? -1 : treeKey(a) > treeKey(b) ? 1 : 0));
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`, 'latin1'), Buffer.from(e.oid, 'hex')]));
}

/**
 * Writes one loose object and returns its id. Not looked for first (a `stat` per object costs more
 * than it spares here): one already there is replaced by the same bytes, in one rename.
 */
export function writeLoose(objectsDir: string, type: string, content: Buffer): string {
  const oid = writeLooseObject(objectsDir, type, content);
  if (type !== 'blob') keepObject(dirname(objectsDir), { oid, type, data: content });
  return oid;
}

function writeLooseObject(objectsDir: string, type: string, content: Buffer): string {
  const data = Buffer.concat([Buffer.from(`${type} ${content.length}\0`, 'latin1'), content]);
  const oid = createHash('sha1').update(data).digest('hex');
  const dir = join(objectsDir, oid.slice(0, 2));
  const file = join(dir, oid.slice(2));
  const bytes = zlibStored(data);
  const tmp = join(dir, `tmp_obj_intent_${process.pid}_${oid.slice(2, 10)}`);
  let fd: number;
  try {
    fd = openSync(tmp, 'w', 0o444);
  } catch {
    mkdirSync(dir, { recursive: true });
    fd = openSync(tmp, 'w', 0o444);
  }
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return oid;
}

/**
 * `data` as a zlib stream of stored (uncompressed) deflate blocks. git inflates a loose object
 * whatever the level it was written at; a note and its trees are a few KiB, written on every
 * commit's path, where zlib's own deflate (a stream set up per object, then compressed) took a
 * quarter of a millisecond each. `git gc` packs them compressed, as any loose object.
 */
export function zlibStored(data: Buffer): Buffer {
  const MAX = 65535;
  const blocks = Math.max(1, Math.ceil(data.length / MAX));
  const out = Buffer.allocUnsafe(2 + blocks * 5 + data.length + 4);
  // CMF 0x78 (deflate, 32 KiB window), FLG 0x01: the header's check bits, no dictionary, level 0.
  out[0] = 0x78;
  out[1] = 0x01;
  let o = 2;
  for (let i = 0; i < blocks; i++) {
    const chunk = data.subarray(i * MAX, (i + 1) * MAX);
    out[o] = i === blocks - 1 ? 1 : 0;
    out.writeUInt16LE(chunk.length, o + 1);
    out.writeUInt16LE(~chunk.length & 0xffff, o + 3);
    o += 5;
    o += chunk.copy(out, o);
  }
  out.writeUInt32BE(adler32(data), o);
  return out;
}

/** zlib's checksum of `data` (RFC 1950). */
function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; ) {
    const end = Math.min(i + 5552, data.length);
    for (; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}
