/**
 * Reading a trace note. A note is lines that each stand alone: summary lines (human text) and
 * record lines (one Agent Trace record as a JSON object, starting with `{`). One commit recorded
 * once has `summary\nrecord\n`. Recorded in two clones (e.g. both repaired it) and merged with
 * git's `cat_sort_uniq` strategy (`intent sync`, or a plain `git notes merge` with the
 * `notes.intents.mergeStrategy` that `intent init` sets), its note holds both summaries, then both
 * records, sorted: the same bytes on every clone whatever the merge order. Readers take one record
 * of them, chosen the same way everywhere (`chooseRecord`). Blank lines (an older `union` merge)
 * are skipped. No dependency beyond the record's type: the pre-commit budget check reads notes.
 */
import type { TraceRecord } from './record.js';

export interface ParsedNote {
  /** Every record line, in note order. */
  records: TraceRecord[];
  /** Every summary line, in note order. */
  summaries: string[];
  /** The record readers use: `chooseRecord(records)`. */
  record: TraceRecord;
}

/** The note's records and summaries; or what is wrong with it (a sentence fragment). */
export function parseNote(text: string): ParsedNote | string {
  const records: TraceRecord[] = [];
  const summaries: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    if (!line.startsWith('{')) {
      summaries.push(line);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      return `line ${i + 1} is not JSON (${(e as Error).message})`;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return `line ${i + 1} is not a JSON object`;
    records.push(value as TraceRecord);
  }
  if (!records.length) return 'has no record line (a JSON object)';
  return { records, summaries, record: chooseRecord(records) };
}

/**
 * The one record of several that readers use: the earliest `timestamp`, then the smallest `id`
 * (the first recording of the commit, decided from the records alone, so every clone agrees).
 */
export function chooseRecord(records: TraceRecord[]): TraceRecord {
  const key = (r: TraceRecord) => [typeof r.timestamp === 'string' ? r.timestamp : '\uffff', typeof r.id === 'string' ? r.id : '\uffff'];
  return records.reduce((best, r) => {
    const [a, b] = [key(r), key(best)];
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]) ? r : best;
  });
}

/** The chosen record of a note, or null when there is none or it does not parse. */
export function noteRecord(text: string | null | undefined): TraceRecord | null {
  if (!text) return null;
  const parsed = parseNote(text);
  return typeof parsed === 'string' ? null : parsed.record;
}
