import { gitBuffer } from './process.js';

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
  const out = new Map<string, GitObject>();
  const unique = [...new Set(names)].filter((o) => !/^0+$/.test(o) && !/[\n\r]/.test(o));
  if (!unique.length) return out;
  const buf = gitBuffer(['cat-file', '--batch'], { cwd, input: unique.join('\n') + '\n' });
  let pos = 0;
  for (const name of unique) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) break;
    const header = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    const parts = header.split(' ');
    if (parts[1] === 'missing' || parts[1] === 'ambiguous' || parts.length < 3) continue;
    const size = Number(parts[2]);
    out.set(name, { oid: parts[0], type: parts[1], data: buf.subarray(pos, pos + size) });
    pos += size + 1;
  }
  return out;
}

/** Git's own test for binary content: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer | undefined): boolean {
  if (!content) return false;
  return content.subarray(0, 8000).includes(0);
}
