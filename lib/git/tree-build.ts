/**
 * The trees git writes for a flat list of index entries, computed in this process from the entries
 * alone: never from the index's cache tree, whose ids git takes as they are and an agent can
 * write. When the tree a commit names is this root, the commit holds exactly these entries (SHA-1
 * aside): the hook server knows the committed files without asking git (`ls-tree -r`) and without
 * trusting the cache tree (docs/decisions.md, "The read-ahead without forks").
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FlatTree } from './index-file.js';
import { writeLoose } from './notes-write.js';

/** One tree: its directory (bytes as latin1, '' for the root), id, bytes, and the entries below it. */
export interface BuiltTree {
  path: string;
  oid: string;
  content: Buffer;
  /** Index of its first entry in the flat list, and how many entries are below it (all depths). */
  start: number;
  count: number;
}

/** Every tree of `flat`, children before parents; the root last. */
export interface BuiltTrees {
  root: string;
  trees: BuiltTree[];
  /** Directories taken from the parent's flat tree as they are (no entry differs below them), with how far their entries moved. */
  reused: Map<string, number>;
}

/**
 * The parent's flat tree (its directories' ids known) and the directories below which the entries
 * differ from it (`differingDirs`): every other directory of the parent is the same tree, taken
 * by its id without building it.
 */
export interface Reuse {
  base: FlatTree;
  changed: Set<string>;
}

const MODES = new Map<number, Buffer>([
  [0o100644, Buffer.from('100644 ')],
  [0o100755, Buffer.from('100755 ')],
  [0o120000, Buffer.from('120000 ')],
  [0o160000, Buffer.from('160000 ')],
]);
const DIR_MODE = Buffer.from('40000 ');
const HASH = 20;

interface Open {
  /** Where the directory's path ends in its first entry's path bytes (exclusive), and where its name starts. */
  pathFrom: number;
  pathTo: number;
  nameFrom: number;
  start: number;
  parts: Buffer[];
}

/**
 * The trees of a flat list of entries in git's order (`readIndex`: stage 0, the bytes of the full
 * paths), as `git write-tree` writes them when every cache tree node is right. Null when an entry
 * has a mode git does not write, an empty path component, or the list is not in git's order
 * (git's order is the trees' order: a directory sorts as its name and `/`).
 */
export function buildTrees(flat: FlatTree, reuse?: Reuse): BuiltTrees | null {
  const p = flat.paths;
  const trees: BuiltTree[] = [];
  const reused = new Map<string, number>();
  const stack: Open[] = [{ pathFrom: 0, pathTo: 0, nameFrom: 0, start: 0, parts: [] }];
  const close = (end: number): void => {
    const dir = stack.pop()!;
    const content = Buffer.concat(dir.parts);
    const id = createHash('sha1').update(`tree ${content.length}\0`).update(content).digest();
    const oid = id.toString('hex');
    trees.push({ path: p.toString('latin1', dir.pathFrom, dir.pathTo), oid, content, start: dir.start, count: end - dir.start });
    if (stack.length) stack[stack.length - 1].parts.push(entry(DIR_MODE, p, dir.nameFrom, dir.pathTo, id, 0));
  };
  let prevFrom = -1;
  let prevTo = -1;
  for (let i = 0; i < flat.size; i++) {
    const s = flat.pathStart[i];
    const e = flat.pathEnd[i];
    if (prevFrom >= 0 && compare(p, prevFrom, prevTo, s, e) >= 0) return null;
    prevFrom = s;
    prevTo = e;
    // Close the directories this path is not below.
    while (stack.length > 1) {
      const top = stack[stack.length - 1];
      const len = top.pathTo - top.pathFrom;
      if (e - s > len && p[s + len] === 0x2f && p.compare(p, top.pathFrom, top.pathTo, s, s + len) === 0) break;
      close(i);
    }
    // Open the ones it enters; one the parent has with the same entries is its tree as it is.
    const top = stack[stack.length - 1];
    let from = stack.length > 1 ? s + (top.pathTo - top.pathFrom) + 1 : s;
    let skip = 0;
    for (let k = from; k < e; k++) {
      if (p[k] !== 0x2f) continue;
      if (k === from) return null;
      const same = reuse && !reuse.changed.has(p.toString('latin1', s, k)) ? reuse.base.dirs.get(p.toString('latin1', s, k)) : undefined;
      if (same && same.start >= 0 && same.count > 0 && within(flat, i + same.count - 1, s, k) && !within(flat, i + same.count, s, k)) {
        stack[stack.length - 1].parts.push(entry(DIR_MODE, p, from, k, Buffer.from(same.oid, 'hex'), 0));
        reused.set(p.toString('latin1', s, k), i - same.start);
        skip = same.count;
        break;
      }
      stack.push({ pathFrom: s, pathTo: k, nameFrom: from, start: i, parts: [] });
      from = k + 1;
    }
    if (skip) {
      // The last entry skipped is where the next one is compared from.
      i += skip - 1;
      prevFrom = flat.pathStart[i];
      prevTo = flat.pathEnd[i];
      continue;
    }
    const mode = MODES.get(flat.modes[i]);
    if (!mode || from === e) return null;
    stack[stack.length - 1].parts.push(entry(mode, p, from, e, flat.oids, flat.oidAt[i]));
  }
  while (stack.length) close(flat.size);
  return { root: trees[trees.length - 1].oid, trees, reused };
}

/** Whether entry `i` of `flat` is below the directory `flat.paths[from, to)` (false past the end). */
function within(flat: FlatTree, i: number, from: number, to: number): boolean {
  if (i >= flat.size) return false;
  const s = flat.pathStart[i];
  const len = to - from;
  return flat.pathEnd[i] - s > len + 1 && flat.paths[s + len] === 0x2f && flat.paths.compare(flat.paths, from, to, s, s + len) === 0;
}

/** A tree entry's bytes: `<mode> <name>\0<20-byte id>`. */
function entry(mode: Buffer, p: Buffer, nameFrom: number, nameTo: number, ids: Buffer, at: number): Buffer {
  const nameLen = nameTo - nameFrom;
  const out = Buffer.allocUnsafe(mode.length + nameLen + 1 + HASH);
  mode.copy(out, 0);
  p.copy(out, mode.length, nameFrom, nameTo);
  out[mode.length + nameLen] = 0;
  ids.copy(out, mode.length + nameLen + 1, at, at + HASH);
  return out;
}

function compare(p: Buffer, aFrom: number, aTo: number, bFrom: number, bTo: number): number {
  return p.compare(p, bFrom, bTo, aFrom, aTo);
}

/**
 * `flat` as HEAD's flat tree once a commit of `built.root` is made: the same entries, and every
 * directory with its tree id and where its entries start (the next staged-paths walk skips a
 * directory the next index's cache tree gives the same id and count).
 */
export function flatWithTrees(flat: FlatTree, built: BuiltTrees, base?: FlatTree): FlatTree {
  const out = new FlatTree(flat.size, flat.paths, flat.pathStart, flat.pathEnd, flat.oids, flat.oidAt, flat.modes);
  for (const t of built.trees) if (t.path !== '') out.dirs.set(t.path, { oid: t.oid, start: t.start, count: t.count });
  if (base && built.reused.size) {
    // A directory taken as it is, and those below it: the parent's, their entries moved as far.
    for (const [path, d] of base.dirs) {
      for (let k = path.length; k > 0; k = path.lastIndexOf('/', k - 1)) {
        const moved = built.reused.get(k === path.length ? path : path.slice(0, k));
        if (moved === undefined) continue;
        if (d.start >= 0) out.dirs.set(path, { oid: d.oid, start: d.start + moved, count: d.count });
        break;
      }
    }
  }
  return out;
}

/**
 * Writes the trees of `built` that are not already there as loose objects, as `git write-tree`
 * would: a tree whose id `known` (the parent's flat tree, with its directories) has at that path
 * exists; any other is looked for as a loose object (one packed is written loose again, which
 * git reads the same). Returns how many were written.
 */
export function writeMissingTrees(objectsDir: string, built: BuiltTrees, known: FlatTree, knownRoot: string | null): number {
  let wrote = 0;
  for (const t of built.trees) {
    if (t.path === '' ? t.oid === knownRoot : known.dirs.get(t.path)?.oid === t.oid) continue;
    if (existsSync(join(objectsDir, t.oid.slice(0, 2), t.oid.slice(2)))) continue;
    writeLoose(objectsDir, 'tree', t.content);
    wrote++;
  }
  return wrote;
}
