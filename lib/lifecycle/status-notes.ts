import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBlobs } from '../git/blobs.js';
import { writeFileAtomic } from '../core/files.js';
import { stateDir, type Repo } from '../git/repo.js';
import { listNotes, parseNote } from '../trace/verify.js';
import { reachableCommits } from '../git/commits.js';
import { METADATA_KEY, NOTES_REF, TOOL_VERSION } from '../core/version.js';

/** A governed commit as `intent status` counts it. */
export interface NoteSummary {
  sha: string;
  /** Added + deleted lines of the commit's files. */
  lines: number;
}

/** Per note blob: [intent id, changed lines], or 0 for a note that names no intent. */
type Cached = Record<string, [string, number] | 0>;

/**
 * The governed commits of every intent (intent id -> its commits with their changed lines), from
 * the notes. A note's summary depends only on its bytes, so the summaries are cached by note blob
 * in `<git-common-dir>/intent/status-notes.json`: a `status` reads only the notes it has not seen
 * (one `ls-tree` always, one `cat-file --batch` for the new ones) instead of parsing every note's
 * JSON again.
 */
export function noteSummaries(repo: Repo): Map<string, NoteSummary[]> {
  // Only the notes of commits a ref reaches: the same count in the author's clone, after gc, and in a teammate's clone.
  const all = listNotes(repo, NOTES_REF);
  const reached = new Set(reachableCommits(repo.root, all.map(([sha]) => sha)));
  const entries = all.filter(([sha]) => reached.has(sha));
  const file = join(stateDir(repo), 'status-notes.json');
  let cached: Cached = {};
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { version?: string; notes?: Cached };
    if (raw.version === TOOL_VERSION && raw.notes && typeof raw.notes === 'object') cached = raw.notes;
  } catch { /* no cache yet, or unreadable: start afresh */ }
  const missing = entries.filter(([, oid]) => !Object.hasOwn(cached, oid)).map(([, oid]) => oid);
  const fresh: Cached = {};
  if (missing.length) {
    for (const [oid, bytes] of readBlobs(repo.root, missing)) fresh[oid] = summarize(bytes.toString('utf8'));
  }
  const out = new Map<string, NoteSummary[]>();
  const kept: Cached = {};
  for (const [sha, oid] of entries) {
    const s = Object.hasOwn(fresh, oid) ? fresh[oid] : cached[oid];
    if (s === undefined) continue; // a blob git could not read
    kept[oid] = s;
    if (s === 0) continue;
    const list = out.get(s[0]);
    if (list) list.push({ sha, lines: s[1] });
    else out.set(s[0], [{ sha, lines: s[1] }]);
  }
  if (missing.length || Object.keys(kept).length !== Object.keys(cached).length) {
    try {
      writeFileAtomic(file, JSON.stringify({ version: TOOL_VERSION, notes: kept }));
    } catch { /* a cache only */ }
  }
  return out;
}

/** The intent and changed lines a note records, or 0 when it records none. */
function summarize(text: string): [string, number] | 0 {
  const parsed = parseNote(text);
  if (typeof parsed === 'string') return 0;
  const meta = parsed.record.metadata?.[METADATA_KEY];
  if (!meta || typeof meta.intent_id !== 'string') return 0;
  let lines = 0;
  for (const f of Object.values(meta.files ?? {})) lines += (Number(f?.added_lines) || 0) + (Number(f?.deleted_lines) || 0);
  return [meta.intent_id, lines];
}
