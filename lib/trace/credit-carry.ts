/**
 * Keeps line credit through history rewrites (amend, rebase, squash, cherry-pick): the lines a
 * model was credited with in the old commits' notes are found again, by content, among the lines
 * the new commit adds. Same path first, then any path (a block moved to another file).
 */
import { splitLines, authorIndex, type AiAuthor, type LineAuthors } from './line-credit.js';
import { readBlobs } from '../git/blobs.js';
import type { FileChange } from '../git/hunks.js';
import type { TraceRecord } from './record.js';

/** Credited line contents of some old commits: per `path\0line` and per `\0line`, a queue of authors. */
export interface CreditPool {
  authors: AiAuthor[];
  byPath: Map<string, number[]>;
  anyPath: Map<string, number[]>;
}

/** Collects the model-credited lines of old commits' records, reading their bytes in one batch. */
export function creditPool(cwd: string, olds: { sha: string; record: TraceRecord }[]): CreditPool {
  const pool: CreditPool = { authors: [], byPath: new Map(), anyPath: new Map() };
  const wanted = olds.flatMap(({ sha, record }) =>
    record.files.filter((f) => f.conversations.some((c) => c.contributor.type === 'ai' && c.ranges.length)).map((f) => `${sha}:${f.path}`));
  if (!wanted.length) return pool;
  const blobs = readBlobs(cwd, wanted);
  for (const { sha, record } of olds) {
    for (const f of record.files) {
      const content = blobs.get(`${sha}:${f.path}`);
      if (!content) continue;
      const lines = splitLines(content);
      for (const c of f.conversations) {
        if (c.contributor.type !== 'ai' || !c.contributor.model_id) continue;
        const a = authorIndex(pool.authors, { model_id: c.contributor.model_id, ...(c.url ? { url: c.url } : {}) });
        for (const r of c.ranges) {
          for (let l = r.start_line; l <= r.end_line && l <= lines.length; l++) {
            push(pool.byPath, `${f.path}\0${lines[l - 1]}`, a);
            push(pool.anyPath, `\0${lines[l - 1]}`, a);
          }
        }
      }
    }
  }
  return pool;
}

function push(m: Map<string, number[]>, k: string, v: number): void {
  const q = m.get(k);
  if (q) q.push(v);
  else m.set(k, [v]);
}

function take(m: Map<string, number[]>, k: string): number | undefined {
  return m.get(k)?.shift();
}

/**
 * Fills the uncredited added lines of the new commit from the pool. `authorship` (the adapter's
 * fresh credit) wins where it has an author; returns the merged per-path authorship.
 */
export function applyPool(
  pool: CreditPool,
  changes: FileChange[],
  blobs: Map<string, Buffer>,
  authorship: Map<string, { authors: AiAuthor[]; lines: LineAuthors }>,
): Map<string, { authors: AiAuthor[]; lines: LineAuthors }> {
  if (!pool.authors.length) return authorship;
  const out = new Map(authorship);
  for (const c of changes) {
    const content = blobs.get(c.newOid);
    if (!content || c.newMode === '000000') continue;
    const lines = splitLines(content);
    const fresh = out.get(c.path);
    const authors = fresh ? [...fresh.authors] : [];
    const per: LineAuthors = fresh ? Int32Array.from(fresh.lines) : new Int32Array(lines.length).fill(-1);
    let changed = false;
    for (const h of c.hunks) {
      for (let l = h.newStart; l < h.newStart + h.newCount; l++) {
        const line = lines[l - 1];
        const inPath = take(pool.byPath, `${c.path}\0${line}`);
        const a = inPath ?? take(pool.anyPath, `\0${line}`);
        if (inPath !== undefined) take(pool.anyPath, `\0${line}`);
        if (a === undefined || per[l - 1] >= 0) continue;
        per[l - 1] = authorIndex(authors, pool.authors[a]);
        changed = true;
      }
    }
    if (changed) out.set(c.path, { authors, lines: per });
  }
  return out;
}
