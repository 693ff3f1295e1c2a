/**
 * Objects the hook server read or wrote as loose objects, kept by repository and id (an object's
 * bytes never change): post-commit reads the notes commit and trees the note before it wrote, and
 * writes the next ones from them; a commit's old sides are, as a rule, the new sides of the commit
 * before (lib/hooks/prefetch.ts keeps those). Only in the hook server (its store, core/kept.ts);
 * within a budget, the least recently used going first.
 */
import { keptStore } from '../core/hook-context.js';
import type { GitObject } from './blobs.js';

const BUDGET = 4 * 1024 * 1024;
const cache = () => keptStore()?.get('objects', () => ({ kept: new Map<string, GitObject>(), bytes: 0 })) ?? null;

/** The object `oid` of the repository at `commonDir` when this process kept it. */
export function keptObject(commonDir: string, oid: string): GitObject | undefined {
  const kept = cache()?.kept;
  const key = `${commonDir}\0${oid}`;
  const o = kept?.get(key);
  if (kept && o) {
    kept.delete(key);
    kept.set(key, o);
  }
  return o;
}

/** Keeps `o`, just read from or written to the repository at `commonDir` (a resident process only). */
export function keepObject(commonDir: string, o: GitObject): void {
  const c = cache();
  if (!c || o.data.length > BUDGET / 8) return;
  const key = `${commonDir}\0${o.oid}`;
  if (c.kept.has(key)) return;
  c.kept.set(key, o);
  c.bytes += o.data.length;
  for (const [k, v] of c.kept) {
    if (c.bytes <= BUDGET) break;
    c.kept.delete(k);
    c.bytes -= v.data.length;
  }
}
