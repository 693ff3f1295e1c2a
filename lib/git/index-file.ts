import { readFileSync } from 'node:fs';
import { recordPath, unquoteBytes } from './paths.js';

// git's index file, read in-process, and the staged paths computed from it and HEAD's flat tree,
// for a process that already holds that tree (the hook server): no `git diff --cached`. Anything
// this reader does not plainly support gives null, and the caller asks git. The format:
// Documentation/gitformat-index.txt in git's sources; docs/decisions.md ("Reading the index
// in-process") says what is supported and why the rest gives null.

/** A file's mode and object id (40 hex digits) in a tree or the index. */
export interface FlatEntry {
  mode: number;
  oid: string;
}

/**
 * Path (its recorded form, lib/git/paths.ts `recordPath`) → mode and id, in git's order (the
 * bytes of the full paths): HEAD's tree flattened, or the index's entries.
 */
export type FlatTree = Map<string, FlatEntry>;

/** The stage-0 entries of an index file that holds nothing this reader leaves to git. */
export interface IndexSnapshot {
  version: 2 | 3 | 4;
  entries: FlatTree;
}

const MODE_FILE = 0o100644;
const MODE_EXEC = 0o100755;
const MODE_LINK = 0o120000;
const MODE_GITLINK = 0o160000;
const HASH = 20;
/** ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size: 32-bit each. */
const STAT_BYTES = 40;
const FLAG_EXTENDED = 0x4000;
const FLAG_STAGE = 0x3000;
const NAME_MASK = 0x0fff;
const EXT_SKIP_WORKTREE = 0x4000;

/**
 * The index file `file` (the repository's, or the one `GIT_INDEX_FILE` names: `commit -a` and
 * `commit -- path` use a temporary one), or null when git must be asked instead: the file cannot
 * be read; it is not an index of version 2, 3 or 4 with SHA-1 ids; it is truncated or malformed;
 * it is a split index (`link` extension) or a sparse one (`sdir` extension, or a directory entry);
 * it has any other extension git requires readers to understand (a lower-case signature); an
 * entry is intent-to-add (`git add -N`), unmerged (stage 1-3) or has a mode git does not write.
 * Skip-worktree entries are kept (they are committed like any other). The trailing checksum is
 * not verified: git replaces the file by a rename, so a reader never sees one half written.
 * Only for SHA-1 repositories: the caller checks `extensions.objectFormat`.
 */
export function readIndex(file: string): IndexSnapshot | null {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return null;
  }
  return parseIndex(buf);
}

/** `readIndex` of the bytes of an index file. */
export function parseIndex(buf: Buffer): IndexSnapshot | null {
  const end = buf.length - HASH;
  if (end < 12 || buf.readUInt32BE(0) !== 0x44495243) return null; // "DIRC"
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3 && version !== 4) return null;
  const count = buf.readUInt32BE(8);
  const entries: FlatTree = new Map();
  let pos = 12;
  // Version 4's path of the entry before, which each path is cut from and appended to.
  let prev = Buffer.alloc(version === 4 ? 256 : 0);
  let prevLen = 0;
  for (let i = 0; i < count; i++) {
    if (pos + STAT_BYTES + HASH + 2 > end) return null;
    const mode = buf.readUInt32BE(pos + 24);
    const oidAt = pos + STAT_BYTES;
    const flags = buf.readUInt16BE(oidAt + HASH);
    if (flags & FLAG_STAGE) return null;
    let nameAt = oidAt + HASH + 2;
    if (flags & FLAG_EXTENDED) {
      if (version < 3 || nameAt + 2 > end) return null;
      const ext = buf.readUInt16BE(nameAt);
      if (ext & ~EXT_SKIP_WORKTREE) return null; // intent-to-add (0x2000), or a bit git does not define
      nameAt += 2;
    }
    if (mode !== MODE_FILE && mode !== MODE_EXEC && mode !== MODE_LINK && mode !== MODE_GITLINK) return null;
    let path: string;
    if (version === 4) {
      // A varint (git's varint.c: each continuation adds one) of bytes to drop from the end of
      // the previous path, then the rest of this path up to a NUL; no padding.
      if (nameAt >= end) return null;
      let c = buf[nameAt++];
      let drop = c & 127;
      while (c & 128) {
        if (nameAt >= end || drop > 0xffffff) return null;
        c = buf[nameAt++];
        drop = ((drop + 1) << 7) | (c & 127);
      }
      if (drop > prevLen) return null;
      const nul = buf.indexOf(0, nameAt);
      if (nul === -1 || nul >= end) return null;
      const len = prevLen - drop + (nul - nameAt);
      if (len > prev.length) {
        const grown = Buffer.alloc(len * 2);
        prev.copy(grown, 0, 0, prevLen);
        prev = grown;
      }
      buf.copy(prev, prevLen - drop, nameAt, nul);
      prevLen = len;
      if ((flags & NAME_MASK) !== Math.min(len, NAME_MASK)) return null;
      path = pathString(prev, 0, len);
      pos = nul + 1;
    } else {
      let nul = nameAt + (flags & NAME_MASK);
      if ((flags & NAME_MASK) === NAME_MASK) nul = buf.indexOf(0, nameAt + NAME_MASK);
      if (nul < 0 || nul >= end || buf[nul] !== 0) return null;
      path = pathString(buf, nameAt, nul);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      pos += (nul - pos + 8) & ~7;
    }
    if (path === '') return null;
    entries.set(path, { mode, oid: buf.toString('hex', oidAt, oidAt + HASH) });
  }
  if (entries.size !== count) return null; // a path twice
  // Extensions: a 4-byte signature and a 32-bit length each, up to the checksum.
  while (pos < end) {
    if (pos + 8 > end) return null;
    const first = buf[pos];
    const size = buf.readUInt32BE(pos + 4);
    // An upper-case signature is optional (TREE, REUC, UNTR, FSMN, EOIE, IEOT); any other (link:
    // split index, sdir: sparse index) changes what the entries mean.
    if (first < 0x41 || first > 0x5a) return null;
    pos += 8 + size;
  }
  if (pos !== end) return null;
  return { version, entries };
}

/**
 * The recorded form of the path bytes `buf[start, end)`, as `recordPath` gives it. Decoding first
 * is the fast way for the usual name: bytes that are not UTF-8 always decode to U+FFFD, and UTF-8
 * never does unless it spells U+FFFD, so only those names (and names starting with a double
 * quote) go through `recordPath`.
 */
function pathString(buf: Buffer, start: number, end: number): string {
  const s = buf.toString('utf8', start, end);
  return s.charCodeAt(0) === 0x22 || s.includes('\ufffd') ? recordPath(buf.subarray(start, end)) : s;
}

/**
 * HEAD's flat tree from `git ls-tree -r -z --full-tree <tree>` output (in the same form as
 * `readIndex`'s entries), or null when a line is not `<mode> <type> <40-hex id>\t<path>`.
 */
export function parseLsTree(buf: Buffer): FlatTree | null {
  const tree: FlatTree = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const nul = buf.indexOf(0, pos);
    const stop = nul === -1 ? buf.length : nul;
    const sp = buf.indexOf(0x20, pos);
    const tab = buf.indexOf(0x09, pos);
    if (sp === -1 || tab === -1 || sp > tab || tab > stop || tab < HASH * 2 + 1 || buf[tab - HASH * 2 - 1] !== 0x20) return null;
    const mode = buf.toString('latin1', pos, sp);
    const oid = buf.toString('latin1', tab - HASH * 2, tab);
    if (!/^[0-7]{6}$/.test(mode) || !/^[0-9a-f]{40}$/.test(oid) || tab + 1 === stop) return null;
    tree.set(pathString(buf, tab + 1, stop), { mode: Number.parseInt(mode, 8), oid });
    pos = stop + 1;
  }
  return tree;
}

/**
 * Every path that differs between HEAD's flat tree `head` and the index (added, deleted, or a
 * new id or mode), as `stagedPaths` in lib/git/diff.ts gives it (`git diff --cached --name-only
 * --no-renames --ignore-submodules=none`): each once, in git's order (the bytes of the paths).
 * A repository without commits has an empty `head`.
 */
export function stagedPathsFrom(index: IndexSnapshot, head: FlatTree): string[] {
  const changed: string[] = [];
  let kept = 0;
  for (const [path, e] of index.entries) {
    const h = head.get(path);
    if (h === undefined) changed.push(path);
    else {
      kept++;
      if (h.oid !== e.oid || h.mode !== e.mode) changed.push(path);
    }
  }
  if (kept === head.size) return changed;
  const deleted: string[] = [];
  for (const path of head.keys()) if (!index.entries.has(path)) deleted.push(path);
  // Both lists are in git's order already; the sort (a merge of two runs) puts them together.
  return changed.concat(deleted).sort(comparePaths);
}

/** Orders recorded paths as git orders their bytes. */
export function comparePaths(a: string, b: string): number {
  if (a.charCodeAt(0) === 0x22 || b.charCodeAt(0) === 0x22) return Buffer.compare(unquoteBytes(a), unquoteBytes(b));
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    // UTF-16 units sort surrogates (code points above U+FFFF) before U+E000-U+FFFF; UTF-8 bytes
    // sort by code point.
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}
