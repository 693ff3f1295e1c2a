import { gitBuffer } from './process.js';
import { askResident } from './resident.js';

/** Reads many objects with one `git cat-file --batch` process; missing objects are left out. */
export function readBlobs(cwd: string, oids: readonly string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [name, o] of readObjects(cwd, oids)) out.set(name, o.data);
  return out;
}

/** One object `git cat-file --batch` read: its id, type and bytes. */
export interface GitObject {
  oid: string;
  type: string;
  data: Buffer;
}

/**
 * Reads many objects with one `git cat-file --batch` process, by any name git resolves (an id,
 * `ref^{tree}`, `ref:path`); keyed by the name asked; missing ones are left out.
 */
export function readObjects(cwd: string, names: readonly string[]): Map<string, GitObject> {
  const unique = batchNames(names);
  if (!unique.length) return new Map();
  return parseBatch(gitBuffer(['cat-file', '--batch'], { cwd, input: unique.join('\n') + '\n' }), unique).objects;
}

/**
 * `readObjects` asked of the hook server's resident `git cat-file --batch` (lib/git/resident.ts):
 * no process started; null when it cannot answer (the caller runs `readObjects`).
 */
export async function readObjectsResident(where: { cwd: string; commonDir: string; gitDir: string }, names: readonly string[]): Promise<Map<string, GitObject> | null> {
  const unique = batchNames(names);
  if (!unique.length) return new Map();
  const out = await askResident(['cat-file', '--batch'], where, {}, unique.join('\n') + '\n', (buf) => parseBatch(buf, unique).end);
  return out ? parseBatch(out, unique).objects : null;
}

function batchNames(names: readonly string[]): string[] {
  return [...new Set(names)].filter((o) => !/^0+$/.test(o) && !/[\n\r]/.test(o));
}

/** `cat-file --batch` output for `names`, in order; `end`: where the last answer ends, -1 while one is still incomplete. */
function parseBatch(buf: Buffer, names: readonly string[]): { objects: Map<string, GitObject>; end: number } {
  const objects = new Map<string, GitObject>();
  let pos = 0;
  for (const name of names) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) return { objects, end: -1 };
    const parts = buf.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (parts[1] === 'missing' || parts[1] === 'ambiguous' || parts.length < 3) continue;
    const size = Number(parts[2]);
    if (pos + size + 1 > buf.length) return { objects, end: -1 };
    objects.set(name, { oid: parts[0], type: parts[1], data: buf.subarray(pos, pos + size) });
    pos += size + 1;
  }
  return { objects, end: pos };
}

/** Git's own test for binary content: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer | undefined): boolean {
  if (!content) return false;
  return content.subarray(0, 8000).includes(0);
}
