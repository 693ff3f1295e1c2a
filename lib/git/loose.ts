/**
 * Reads one loose object in this process: a commit `git commit` has just written is always one
 * (git writes loose objects; only `gc`/`repack` pack them, and `git commit` runs its automatic
 * maintenance after post-commit). Null when it is not there as a loose object, is not SHA-1, or
 * does not hash to its name: the caller asks git (`git cat-file`), which reads every other case.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { readObjects, readObjectsResident, type GitObject } from './blobs.js';
import { parseTree } from './notes-write.js';
import { refOid, type Repo } from './repo.js';
import { keepObject, keptObject } from './object-cache.js';

const SHA1 = /^[0-9a-f]{40}$/;

/** The loose object `oid` of the repository whose common git dir is `commonDir`, or null. */
export function readLoose(commonDir: string, oid: string, env: NodeJS.ProcessEnv): GitObject | null {
  if (!SHA1.test(oid) || env.GIT_OBJECT_DIRECTORY || env.GIT_QUARANTINE_PATH) return null;
  const known = keptObject(commonDir, oid);
  if (known) return known;
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(join(commonDir, 'objects', oid.slice(0, 2), oid.slice(2))));
  } catch {
    return null;
  }
  const nul = raw.indexOf(0);
  const header = nul > 0 && nul < 32 ? raw.toString('latin1', 0, nul) : '';
  const m = /^(commit|tree|blob|tag) ([0-9]+)$/.exec(header);
  if (!m || Number(m[2]) !== raw.length - nul - 1) return null;
  if (createHash('sha1').update(raw).digest('hex') !== oid) return null;
  const o = { oid, type: m[1], data: raw.subarray(nul + 1) };
  // Not the objects of a change (blobs) as they are read: the notes' commits and trees, and
  // commits. (The hook server keeps a change's new sides itself: the next commit's old sides.)
  if (o.type !== 'blob') keepObject(commonDir, o);
  return o;
}

/** A commit object's tree and parents (its headers before the first blank line). */
export function commitHeaders(data: Buffer): { tree: string; parents: string[] } | null {
  const end = data.indexOf('\n\n');
  const lines = data.toString('utf8', 0, end === -1 ? data.length : end).split('\n');
  const tree = /^tree ([0-9a-f]{40,64})$/.exec(lines[0] ?? '')?.[1];
  if (!tree) return null;
  const parents: string[] = [];
  for (const l of lines.slice(1)) {
    const p = /^parent ([0-9a-f]{40,64})$/.exec(l)?.[1];
    if (!p) break;
    parents.push(p);
  }
  return { tree, parents };
}

/**
 * Reads `names` (object ids, `<ref>`, `<ref>^{tree}`, `<ref>:<path>`, as `git cat-file --batch`
 * takes them) from loose objects where every step is one; `unknown` holds the names it could not
 * settle (a packed object on the way, another form of name): ask git for those. A name that
 * resolves to nothing (`<ref>:<path>` with no such entry in a loose tree) is neither read nor unknown,
 * as git reports it missing.
 */
export function readLooseObjects(repo: Pick<Repo, 'commonDir'>, names: readonly string[], env: NodeJS.ProcessEnv): { objects: Map<string, GitObject>; unknown: string[] } {
  const objects = new Map<string, GitObject>();
  const unknown: string[] = [];
  const cache = new Map<string, GitObject | null>();
  const loose = (oid: string) => {
    if (!cache.has(oid)) cache.set(oid, readLoose(repo.commonDir, oid, env));
    return cache.get(oid) ?? null;
  };
  // Each ref read once for all the names that start from it (`<ref>`, `<ref>^{tree}`, `<ref>:<path>`).
  const tips = new Map<string, string | null>();
  const tipOf = (ref: string) => {
    if (!tips.has(ref)) tips.set(ref, refOid(repo, ref));
    return tips.get(ref)!;
  };
  for (const name of new Set(names)) {
    if (/^0+$/.test(name)) continue;
    const r = resolveLoose(name, loose, tipOf);
    if (r === undefined) unknown.push(name);
    else if (r) objects.set(name, r);
  }
  return { objects, unknown };
}

/** The object `name` names, null when git would say missing, undefined when only git can tell. */
function resolveLoose(name: string, loose: (oid: string) => GitObject | null, tipOf: (ref: string) => string | null): GitObject | null | undefined {
  if (SHA1.test(name)) return loose(name) ?? undefined;
  const m = /^(refs\/[A-Za-z0-9/_.-]+?)(\^\{tree\}|:(.+))?$/.exec(name);
  if (!m || m[1].includes('..') || m[1].endsWith('.lock')) return undefined;
  const tip = tipOf(m[1]);
  if (!tip || !SHA1.test(tip)) return undefined;
  const top = loose(tip);
  if (!top) return undefined;
  if (m[2] === undefined) return top;
  if (top.type !== 'commit') return undefined;
  const tree = commitHeaders(top.data)?.tree;
  let cur = tree ? loose(tree) : null;
  if (!cur || cur.type !== 'tree') return undefined;
  if (m[3] === undefined) return cur;
  for (const part of m[3].split('/')) {
    if (cur.type !== 'tree') return null;
    const entry = treeEntry(cur.data, part);
    if (entry === undefined) return undefined;
    if (entry === null) return null;
    const next = loose(entry);
    if (!next) return undefined;
    cur = next;
  }
  return cur;
}

/** The id of entry `name` in a tree object's bytes, null when there is none, undefined when the bytes are not a tree. */
function treeEntry(data: Buffer, name: string): string | null | undefined {
  const want = Buffer.from(name, 'utf8').toString('latin1');
  try {
    return parseTree(data).find((e) => e.name === want)?.oid ?? null;
  } catch {
    return undefined;
  }
}

/**
 * `readObjects` that reads loose objects in this process and asks `git cat-file --batch` only for
 * the rest (none, mostly: what a commit and the note before it wrote is loose until `git gc`).
 */
export function readObjectsPreferLoose(repo: Pick<Repo, 'commonDir' | 'root'>, names: readonly string[], env: NodeJS.ProcessEnv): Map<string, GitObject> {
  const { objects, unknown } = readLooseObjects(repo, names, env);
  if (unknown.length) for (const [k, o] of readObjects(repo.root, unknown)) objects.set(k, o);
  return objects;
}

/**
 * `readObjectsPreferLoose` for the hook server: what is not loose is asked of its resident `git
 * cat-file --batch` (no process started; a new one when it cannot answer).
 */
export async function readObjectsPreferLooseAsync(repo: Pick<Repo, 'commonDir' | 'root' | 'gitDir'>, names: readonly string[], env: NodeJS.ProcessEnv): Promise<Map<string, GitObject>> {
  const { objects, unknown } = readLooseObjects(repo, names, env);
  if (!unknown.length) return objects;
  const rest = (await readObjectsResident({ cwd: repo.root, commonDir: repo.commonDir, gitDir: repo.gitDir }, unknown)) ?? readObjects(repo.root, unknown);
  for (const [k, o] of rest) objects.set(k, o);
  return objects;
}
