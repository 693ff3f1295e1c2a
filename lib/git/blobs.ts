import { gitBuffer } from './process.js';

/** Reads many objects with one `git cat-file --batch` process; missing objects are left out. */
export function readBlobs(cwd: string, oids: readonly string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const unique = [...new Set(oids)].filter((o) => !/^0+$/.test(o));
  if (!unique.length) return out;
  const buf = gitBuffer(['cat-file', '--batch'], { cwd, input: unique.join('\n') + '\n' });
  let pos = 0;
  for (const oid of unique) {
    const nl = buf.indexOf(0x0a, pos);
    const header = buf.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    const parts = header.split(' ');
    if (parts[1] === 'missing' || parts.length < 3) continue;
    const size = Number(parts[2]);
    out.set(oid, buf.subarray(pos, pos + size));
    pos += size + 1;
  }
  return out;
}

/** Git's own test for binary content: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer | undefined): boolean {
  if (!content) return false;
  return content.subarray(0, 8000).includes(0);
}
