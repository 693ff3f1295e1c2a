/**
 * `intent repair`: puts back what a crash (a killed hook, a full disk, a power cut) can leave
 * behind: governed commits without a note get one (recorded from the commit itself, as
 * post-commit would have); damage anywhere in the ledger is healed (trace/ledger-heal: the
 * damaged lines, a second copy of a record among them, kept in a side file, the chain re-linked
 * behind a repair entry; a torn last line just cut off); notes missing from the ledger are appended to it. A read-only ledger is refused
 * with a clear error before anything changes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendLedger, ledgerLine } from './ledger.js';
import { assertWritable, healLedger } from './ledger-heal.js';
import { withLock } from '../core/lock.js';
import { ledgerPath, recordCommit } from './record-commit.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import type { TraceRecord } from './record.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import { commitTimes, parseNote, readNotes, verify } from './verify.js';
import { hostEnv } from '../core/settings.js';

/** The side file (in `<git-common-dir>/intent/`) where repair keeps the ledger lines it took out. */
export const QUARANTINE_FILE = 'ledger-quarantine.txt';

export interface RepairResult {
  /** Commits that got their missing note. */
  recorded: string[];
  /** Governed commits left without a note because no intent could be told for them. */
  unknown: string[];
  /** Notes appended to the ledger because it lacked them. */
  ledgerAppended: number;
  /** Bytes of a torn last ledger line that were cut off. */
  tornBytes: number;
  /** Ledger lines that were not records (or repeated one), moved to the quarantine file. */
  quarantined: number;
  /** Of those, second copies of a record the ledger has. */
  duplicates: number;
  /** Records after a break in the ledger that were re-chained behind a repair entry. */
  rechained: number;
  /** The 1-based ledger line where the first break was, or null when the chain was whole. */
  brokeAt: number | null;
  /** The quarantine side file, when anything was put there. */
  quarantineFile: string | null;
}

/** Repairs the commits of `range` (default: every local branch) and the ledger. */
export function repair(cwd: string, range: string[] = ['--branches'], env: NodeJS.ProcessEnv = hostEnv()): RepairResult {
  const repo = openRepo(cwd);
  const lock = join(stateDir(repo), 'record.lock');
  const ledger = ledgerPath(repo);
  if (existsSync(ledger)) assertWritable(ledger, 'intent repair cannot heal it or append to it');
  const quarantine = join(stateDir(repo), QUARANTINE_FILE);
  const healed = withLock(lock, () => healLedger(ledger, quarantine));

  const recorded: string[] = [];
  const unknown: string[] = [];
  const missing = verify(cwd, range, { ledger: false, eachMissing: true }).findings.filter((f) => f.code === 'NOTE_MISSING' && f.commit);
  const times = commitTimes(repo.root, missing.map((f) => f.commit!));
  missing.sort((a, b) => (times.get(a.commit!) ?? 0) - (times.get(b.commit!) ?? 0));
  for (const f of missing) {
    if (!f.intent) {
      unknown.push(f.commit!);
      continue;
    }
    if (recordCommit(repo.root, env, { rev: f.commit!, intentId: f.intent })) recorded.push(f.commit!);
  }

  // Notes whose record never reached the ledger (killed between the note and the ledger line).
  const ledgerAppended = withLock(lock, () => appendMissingRecords(repo));
  return {
    recorded, unknown, ledgerAppended, tornBytes: healed.tornBytes, quarantined: healed.quarantined, duplicates: healed.duplicates, rechained: healed.rechained,
    brokeAt: healed.brokeAt, quarantineFile: healed.quarantined || healed.rechained ? quarantine : null,
  };
}

/**
 * Appends to the ledger every record of the notes (of `only`, else all) that it lacks, oldest
 * commit first; the caller holds the record lock. Returns how many lines it appended.
 */
export function appendMissingRecords(repo: Repo, only?: Iterable<string>): number {
  const ledger = ledgerPath(repo);
  const have = new Set<string>();
  /** Commits the ledger has a record of already: a note of theirs with other records was replaced or merged, not lost. */
  const known = new Set<string>();
  if (existsSync(ledger)) {
    for (const line of readFileSync(ledger, 'utf8').split('\n')) {
      try {
        const rec = JSON.parse(line) as TraceRecord;
        if (rec.id) have.add(rec.id);
        if (typeof rec.vcs?.revision === 'string') known.add(rec.vcs.revision);
      } catch { /* a torn or foreign line: verify reports it */ }
    }
  }
  const all = readNotes(repo, NOTES_REF);
  const notes = only ? new Map([...only].flatMap((sha) => (all.has(sha) ? [[sha, all.get(sha)!] as const] : []))) : all;
  const order = commitTimes(repo.root, [...notes.keys()]);
  let n = 0;
  for (const sha of [...notes.keys()].filter((s) => order.has(s)).sort((a, b) => order.get(a)! - order.get(b)! || (a < b ? -1 : 1))) {
    const parsed = parseNote(notes.get(sha)!);
    if (typeof parsed === 'string' || known.has(sha)) continue;
    // Every record of the note (several when clones each recorded the commit), in a fixed order.
    for (const record of [...parsed.records].sort((x, y) => (x.timestamp < y.timestamp ? -1 : x.timestamp > y.timestamp ? 1 : x.id < y.id ? -1 : 1))) {
      if (record.vcs?.revision !== sha || !record.metadata?.[METADATA_KEY] || !record.id || have.has(record.id)) continue;
      appendLedger(ledger, (prev) => ledgerLine(record, prev));
      have.add(record.id);
      n++;
    }
  }
  return n;
}
