import { readFileSync } from 'node:fs';
import { recordPath } from './paths.js';

// git's index file, read in-process, and the staged paths computed from it and HEAD's flat tree,
// for a process that already holds that tree (the hook server): no `git diff --cached`. Anything
// this reader does not plainly support gives null, and the caller asks git. The format:
// Documentation/gitformat-index.txt in git's sources; docs/decisions.md ("Reading the index
// in-process") says what is supported, why the rest gives null, and why the entries stay bytes
// (a Map of 100,000 paths costs more to build than git's whole `diff --cached`).

/** A file's mode and object id (40 hex digits) in a tree or the index. */
export interface FlatEntry {
  path: string;
  mode: number;
  oid: string;
}

/**
 * A directory whose tree id is known, with the number of files below it; in HEAD's list also
 * where they start (`start`; -1 in the index's, where the walk finds it).
 */
export interface KnownDir {
  oid: string;
  start: number;
  count: number;
}

/**
 * A flat list of files sorted as git sorts them (by the bytes of their full paths), each with a
 * mode and an object id: HEAD's tree flattened (`parseLsTree`) or the index's entries
 * (`readIndex`). Entry `i`'s path is `paths[pathStart[i] .. pathEnd[i])`, its id the 20 bytes at
 * `oids[oidAt[i]]`: views into the bytes read, so building one allocates no string per file.
 * `dirs` holds the directories (not the root) whose tree id is known, keyed by their path's
 * bytes as latin1: from `ls-tree -t`'s tree lines, or the index's cache tree (its valid nodes);
 * a directory with the same id on both sides holds the same files, and the walk skips it as git
 * does.
 */
export class FlatTree {
  readonly dirs = new Map<string, KnownDir>();

  constructor(
    readonly size: number,
    readonly paths: Buffer,
    readonly pathStart: Uint32Array,
    readonly pathEnd: Uint32Array,
    readonly oids: Buffer,
    readonly oidAt: Uint32Array,
    readonly modes: Uint32Array,
  ) {}

  /** An empty tree (the HEAD of a repository without commits). */
  static empty(): FlatTree {
    const none = new Uint32Array(0);
    return new FlatTree(0, Buffer.alloc(0), none, none, Buffer.alloc(0), none, none);
  }

  /** Entry `i`, its path in its recorded form (lib/git/paths.ts `recordPath`). */
  entry(i: number): FlatEntry {
    const at = this.oidAt[i];
    return { path: this.pathOf(i), mode: this.modes[i], oid: this.oids.toString('hex', at, at + HASH) };
  }

  /** Entry `i`'s path in its recorded form. */
  pathOf(i: number): string {
    return recordPath(this.paths.subarray(this.pathStart[i], this.pathEnd[i]));
  }
}

/** The stage-0 entries of an index file that holds nothing this reader leaves to git. */
export interface IndexSnapshot {
  version: 2 | 3 | 4;
  entries: FlatTree;
  /**
   * The root's tree id when the cache tree has it (valid): the tree `git commit` writes, since it
   * brings the cache tree up to date before it runs the hooks; else null.
   */
  tree: string | null;
  /**
   * Whether the cache tree holds the root as valid, whatever its count: `git write-tree` and `git
   * commit` then take its id without looking at the entries (see `cacheTreeMatches`).
   */
  rootValid?: boolean;
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
/** The most bytes of full paths a version-4 index is rebuilt into (100,000 paths of 2.5 KB). */
const MAX_V4_PATH_BYTES = 256 * 1024 * 1024;

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
  // Each entry takes at least 62 bytes: a count the file cannot hold is not allocated for.
  if (count > end / 62) return null;
  const pathStart = new Uint32Array(count);
  const pathEnd = new Uint32Array(count);
  const oidAt = new Uint32Array(count);
  const modes = new Uint32Array(count);
  // Version 4 cuts each path from the one before: the full paths are rebuilt into `paths`.
  let paths = version === 4 ? Buffer.allocUnsafe(Math.max(4096, end)) : buf;
  let used = 0;
  let pos = 12;
  for (let i = 0; i < count; i++) {
    if (pos + STAT_BYTES + HASH + 2 > end) return null;
    // Bytes read by hand: readUInt32BE's checks cost a third of the loop at 100,000 entries.
    const mode = ((buf[pos + 24] << 24) | (buf[pos + 25] << 16) | (buf[pos + 26] << 8) | buf[pos + 27]) >>> 0;
    const oid = pos + STAT_BYTES;
    const flags = (buf[oid + HASH] << 8) | buf[oid + HASH + 1];
    if (flags & FLAG_STAGE) return null;
    let name = oid + HASH + 2;
    if (flags & FLAG_EXTENDED) {
      if (version < 3 || name + 2 > end) return null;
      if (buf.readUInt16BE(name) & ~EXT_SKIP_WORKTREE) return null; // intent-to-add (0x2000), or a bit git does not define
      name += 2;
    }
    if (mode !== MODE_FILE && mode !== MODE_EXEC && mode !== MODE_LINK && mode !== MODE_GITLINK) return null;
    modes[i] = mode;
    oidAt[i] = oid;
    if (version === 4) {
      // A varint (git's varint.c: each continuation byte adds one) of bytes to drop from the end
      // of the previous path, then the rest of this path up to a NUL; no padding.
      if (name >= end) return null;
      let c = buf[name++];
      let drop = c & 127;
      while (c & 128) {
        if (name >= end || drop > 0xffffff) return null; // past any path, before it overflows
        c = buf[name++];
        drop = (drop + 1) * 128 + (c & 127);
      }
      const prevLen = i === 0 ? 0 : pathEnd[i - 1] - pathStart[i - 1];
      if (drop > prevLen) return null;
      // Byte loops, not indexOf and copy: a path is short, and a native call per path costs more.
      let nul = name;
      while (nul < end && buf[nul] !== 0) nul++;
      if (nul >= end) return null;
      const keep = prevLen - drop;
      const len = keep + (nul - name);
      if (len === 0 || (flags & NAME_MASK) !== Math.min(len, NAME_MASK)) return null;
      // Each entry may repeat a long prefix: a crafted file of a few MB could ask for many GB.
      if (used + len > MAX_V4_PATH_BYTES) return null;
      if (used + len > paths.length) {
        const grown = Buffer.allocUnsafe(Math.min(Math.max(paths.length * 2, used + len), MAX_V4_PATH_BYTES));
        paths.copy(grown, 0, 0, used);
        paths = grown;
      }
      const from = i === 0 ? 0 : pathStart[i - 1];
      for (let k = 0; k < keep; k++) paths[used + k] = paths[from + k];
      for (let k = name, to = used + keep; k < nul; k++, to++) paths[to] = buf[k];
      pathStart[i] = used;
      used += len;
      pathEnd[i] = used;
      pos = nul + 1;
    } else {
      let nul = name + (flags & NAME_MASK);
      if ((flags & NAME_MASK) === NAME_MASK) nul = buf.indexOf(0, nul);
      if (nul <= name || nul >= end || buf[nul] !== 0) return null;
      pathStart[i] = name;
      pathEnd[i] = nul;
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      pos += (nul - pos + 8) & ~7;
    }
  }
  // Extensions: a 4-byte signature and a 32-bit length each, up to the checksum.
  let tree: [number, number] | null = null;
  while (pos < end) {
    if (pos + 8 > end) return null;
    const first = buf[pos];
    // An upper-case signature is optional (TREE, REUC, UNTR, FSMN, EOIE, IEOT); any other (link:
    // split index, sdir: sparse index) changes what the entries mean.
    if (first < 0x41 || first > 0x5a) return null;
    const size = buf.readUInt32BE(pos + 4);
    if (pos + 8 + size > end) return null;
    if (buf.readUInt32BE(pos) === 0x54524545) tree = [pos + 8, pos + 8 + size]; // "TREE"
    pos += 8 + size;
  }
  if (pos !== end) return null;
  const entries = new FlatTree(count, paths, pathStart, pathEnd, buf, oidAt, modes);
  const valid = { root: false };
  const root = tree ? readCacheTree(buf, tree[0], tree[1], entries, valid) : null;
  return { version, entries, tree: root, rootValid: valid.root };
}

/**
 * The valid nodes of the index's cache tree (the TREE extension: per directory, depth first, its
 * name, NUL, its entry count (-1: invalidated) and number of subtrees as text, LF, then its tree
 * id when valid) into `entries.dirs`. git reads past a cache tree it cannot parse, and so does
 * this: then no directory is known (every entry is compared).
 */
function readCacheTree(buf: Buffer, pos: number, end: number, entries: FlatTree, valid: { root: boolean }): string | null {
  const stack: { path: string; left: number }[] = [];
  let root = false;
  let rootOid: string | null = null;
  const unusable = () => {
    entries.dirs.clear();
    valid.root = false;
    return null;
  };
  while (pos < end) {
    const nul = buf.indexOf(0, pos);
    const lf = nul === -1 ? -1 : buf.indexOf(0x0a, nul);
    const m = lf === -1 || lf >= end ? null : /^(-1|\d+) (\d+)$/.exec(buf.toString('latin1', nul + 1, lf));
    if (!m) return unusable();
    const name = buf.toString('latin1', pos, nul);
    while (stack.length && stack[stack.length - 1].left === 0) stack.pop();
    const parent = stack[stack.length - 1];
    // One root (named ""), first; every other node is some directory's subtree.
    if (parent === undefined ? root || name !== '' : name === '') return unusable();
    root = true;
    if (parent) parent.left--;
    const path = parent === undefined || parent.path === '' ? name : `${parent.path}/${name}`;
    pos = lf + 1;
    const count = Number(m[1]);
    if (count >= 0) {
      if (pos + HASH > end) return unusable();
      const oid = buf.toString('hex', pos, pos + HASH);
      // git skips by the cache tree below the root only (unpack-trees' traverse_by_cache_tree).
      // Where a directory's entries start is found by the walk, which checks that they line up.
      if (path !== '') entries.dirs.set(path, { oid, start: -1, count });
      else {
        valid.root = true;
        if (count === entries.size) rootOid = oid;
      }
      pos += HASH;
    }
    stack.push({ path, left: Number(m[2]) });
  }
  return rootOid;
}

const HEX = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let d = 0; d < 16; d++) t['0123456789abcdef'.charCodeAt(d)] = d;
  return t;
})();

/**
 * HEAD's flat tree from `git ls-tree -r -z --full-tree <tree>` output, or null when a line is
 * not `<6 octal digits> <type> <40 hex digits>\t<path>` or the paths are not in git's order.
 * With `-t`, the tree lines give the directories' ids, and `stagedPathsFrom` skips a directory
 * whose id the index's cache tree has too, as git does. Modes are as git reads them from the tree
 * (a regular file is 100644 or 100755 whatever the tree holds), as the index compares.
 */
export function parseLsTree(buf: Buffer): FlatTree | null {
  let n = 0;
  for (let p = buf.indexOf(0); p !== -1; p = buf.indexOf(0, p + 1)) n++;
  if (buf.length && buf[buf.length - 1] !== 0) n++;
  const pathStart = new Uint32Array(n);
  const pathEnd = new Uint32Array(n);
  const oidAt = new Uint32Array(n);
  const modes = new Uint32Array(n);
  const oids = Buffer.allocUnsafe(n * HASH);
  const dirs = new Map<string, KnownDir>();
  // The directories (tree lines) not yet closed, innermost last: a tree line comes before the
  // files below it, and they end at the first line not below it.
  const open: { from: number; to: number; oid: string; start: number }[] = [];
  let files = 0;
  const close = (keep: number) => {
    while (open.length > keep) {
      const d = open.pop()!;
      dirs.set(buf.toString('latin1', d.from, d.to), { oid: d.oid, start: d.start, count: files - d.start });
    }
  };
  let pos = 0;
  for (let line = 0; line < n; line++) {
    let mode = 0;
    let p = pos;
    for (; p < pos + 6; p++) {
      const d = buf[p] - 0x30;
      if (!(d >= 0 && d <= 7)) return null;
      mode = mode * 8 + d;
    }
    if (buf[p] !== 0x20) return null;
    const sp = buf.indexOf(0x20, p + 1);
    if (sp === -1 || sp - p > 10 || buf[sp + 1 + HASH * 2] !== 0x09) return null;
    const at = files * HASH;
    for (let k = 0; k < HASH; k++) {
      const hi = HEX[buf[sp + 1 + 2 * k]] ?? -1;
      const lo = HEX[buf[sp + 2 + 2 * k]] ?? -1;
      if (hi < 0 || lo < 0) return null;
      oids[at + k] = (hi << 4) | lo;
    }
    const start = sp + 2 + HASH * 2;
    let stop = buf.indexOf(0, start);
    if (stop === -1) stop = buf.length;
    if (stop === start) return null;
    pos = stop + 1;
    let inside = open.length;
    while (inside > 0 && !isBelow(buf, start, stop, open[inside - 1].from, open[inside - 1].to)) inside--;
    close(inside);
    if (mode === 0o040000) {
      open.push({ from: start, to: stop, oid: oids.toString('hex', at, at + HASH), start: files });
      continue;
    }
    modes[files] = mode;
    oidAt[files] = at;
    pathStart[files] = start;
    pathEnd[files] = stop;
    files++;
  }
  close(0);
  const flat = new FlatTree(files, buf, pathStart, pathEnd, oids, oidAt, modes);
  for (const [path, d] of dirs) flat.dirs.set(path, d);
  // The staged-paths walk relies on git's order; a listing out of it is not git's.
  for (let i = 1; i < files; i++) if (comparePaths(flat, i - 1, flat, i) >= 0) return null;
  return flat;
}

/** Whether the path `buf[from, to)` is below the directory `buf[dirFrom, dirTo)`. */
function isBelow(buf: Buffer, from: number, to: number, dirFrom: number, dirTo: number): boolean {
  const len = dirTo - dirFrom;
  if (to - from <= len + 1 || buf[from + len] !== 0x2f) return false;
  for (let k = 0; k < len; k++) if (buf[from + k] !== buf[dirFrom + k]) return false;
  return true;
}

/**
 * Every path that differs between HEAD's flat tree `head` and the index (added, deleted, or a
 * new id or mode), as `stagedPaths` in lib/git/diff.ts gives it (`git diff --cached --name-only
 * --no-renames --ignore-submodules=none`): each once, in git's order (the bytes of the paths),
 * in the recorded form. A repository without commits has an empty `head` (`FlatTree.empty()`).
 * Null when the index is not in git's order (git never writes one so; ask git). With `at`, each
 * path's index entry is pushed to it (-1: deleted).
 */
export function stagedPathsFrom(index: IndexSnapshot, head: FlatTree, at?: number[]): string[] | null {
  const a = index.entries;
  const out: string[] = [];
  let i = 0;
  let j = 0;
  // Both lists are sorted the same way: one merge walk, comparing bytes, no string per file.
  // `head` is in strict order (parseLsTree checks it), so two index entries in a row that both
  // match head entries are in order too; every other index entry is checked against the one
  // before it.
  let prevMatched = true;
  const inOrder = (matched: boolean): boolean => {
    const ok = i === 0 || (prevMatched && matched) || comparePaths(a, i - 1, a, i) < 0;
    prevMatched = matched;
    return ok;
  };
  const skips = sameDirs(a, head);
  while (i < a.size && j < head.size) {
    const c = comparePaths(a, i, head, j);
    const same = c === 0 && skips.size ? skips.get(j) : undefined;
    if (same !== undefined) {
      // A directory with the same tree id on both sides, whose first file is here on both: the
      // same files, if its last one lines up too.
      const count = same.find((k) => i + k <= a.size && comparePaths(a, i + k - 1, head, j + k - 1) === 0);
      if (count !== undefined) {
        if (!inOrder(true)) return null;
        i += count;
        j += count;
        continue;
      }
    }
    if (c > 0) {
      at?.push(-1);
      out.push(head.pathOf(j++));
      continue;
    }
    if (!inOrder(c === 0)) return null;
    if (c < 0) {
      at?.push(i);
      out.push(a.pathOf(i));
    } else {
      if (a.modes[i] !== head.modes[j] || !sameOid(a, i, head, j)) {
        at?.push(i);
        out.push(a.pathOf(i));
      }
      j++;
    }
    i++;
  }
  for (; i < a.size; i++) {
    if (!inOrder(false)) return null;
    at?.push(i);
    out.push(a.pathOf(i));
  }
  while (j < head.size) {
    at?.push(-1);
    out.push(head.pathOf(j++));
  }
  return out;
}

/**
 * The directories with the same tree id and number of files in the index `a` and HEAD `b`, by
 * where their files start in `b`: their counts, outermost first. Where the walk may skip.
 */
function sameDirs(a: FlatTree, b: FlatTree): Map<number, number[]> {
  const out = new Map<number, number[]>();
  if (!a.dirs.size || !b.dirs.size) return out;
  for (const [path, d] of a.dirs) {
    const h = b.dirs.get(path);
    if (h === undefined || h.start < 0 || h.oid !== d.oid || h.count !== d.count || d.count === 0) continue;
    const list = out.get(h.start) ?? [];
    list.push(d.count);
    out.set(h.start, list);
  }
  for (const list of out.values()) list.sort((x, y) => y - x);
  return out;
}

/** Orders entry `i` of `a` and entry `j` of `b` by the bytes of their paths. */
function comparePaths(a: FlatTree, i: number, b: FlatTree, j: number): number {
  const ap = a.paths;
  const bp = b.paths;
  let x = a.pathStart[i];
  let y = b.pathStart[j];
  const xl = a.pathEnd[i] - x;
  const yl = b.pathEnd[j] - y;
  const stop = x + Math.min(xl, yl);
  for (; x < stop; x++, y++) if (ap[x] !== bp[y]) return ap[x] - bp[y];
  return xl - yl;
}

function sameOid(a: FlatTree, i: number, b: FlatTree, j: number): boolean {
  const ao = a.oids;
  const bo = b.oids;
  const x = a.oidAt[i];
  const y = b.oidAt[j];
  for (let k = 0; k < HASH; k++) if (ao[x + k] !== bo[y + k]) return false;
  return true;
}

/**
 * The directories (bytes as latin1, not the root) below which `a` and `b` differ: a path on one
 * side only, or with another mode or id. Every entry is compared (no directory skipped by an id
 * either side claims: the caller builds trees from this). Null when `a` is not in git's order.
 */
export function differingDirs(a: FlatTree, b: FlatTree): Set<string> | null {
  const out = new Set<string>();
  const mark = (t: FlatTree, k: number) => {
    const p = t.paths;
    const s = t.pathStart[k];
    for (let x = t.pathEnd[k] - 1; x > s; x--) {
      if (p[x] !== 0x2f) continue;
      const key = p.toString('latin1', s, x);
      if (out.has(key)) return;
      out.add(key);
    }
  };
  let i = 0;
  let j = 0;
  while (i < a.size || j < b.size) {
    if (i > 0 && i < a.size && comparePaths(a, i - 1, a, i) >= 0) return null;
    const c = i === a.size ? 1 : j === b.size ? -1 : comparePaths(a, i, b, j);
    if (c < 0) mark(a, i++);
    else if (c > 0) mark(b, j++);
    else {
      if (a.modes[i] !== b.modes[j] || !sameOid(a, i, b, j)) mark(a, i);
      i++;
      j++;
    }
  }
  return out;
}
