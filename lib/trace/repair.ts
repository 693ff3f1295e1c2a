/**
 * `intent repair`: puts back what a crash (a killed hook, a full disk, a power cut) can leave
 * behind: governed commits without a note get one (recorded from the commit itself, as
 * post-commit would have), notes missing from the ledger are appended to it, and a torn last
 * ledger line is cut off. Earlier ledger lines are never touched.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { appendLedger } from './ledger.js';
import { withLock } from '../core/lock.js';
import { ledgerPath, recordCommit } from './record-commit.js';
import { openRepo, stateDir } from '../git/repo.js';
import type { TraceRecord } from './record.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import { commitTimes, parseNote, readNotes, verify } from './verify.js';

export interface RepairResult {
  /** Commits that got their missing note. */
  recorded: string[];
  /** Governed commits left without a note because no intent could be told for them. */
  unknown: string[];
  /** Notes appended to the ledger because it lacked them. */
  ledgerAppended: number;
  /** Bytes of a torn last ledger line that were cut off. */
  tornBytes: number;
}

/** Repairs the commits of `range` (default: every local branch) and the ledger. */
export function repair(cwd: string, range: string[] = ['--branches'], env: NodeJS.ProcessEnv = process.env): RepairResult {
  const repo = openRepo(cwd);
  const lock = join(stateDir(repo), 'record.lock');
  const ledger = ledgerPath(repo);
  const tornBytes = withLock(lock, () => cutTornLine(ledger));

  const recorded: string[] = [];
  const unknown: string[] = [];
  const missing = verify(cwd, range, { ledger: false }).findings.filter((f) => f.code === 'NOTE_MISSING' && f.commit);
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
  const ledgerAppended = withLock(lock, () => {
    const have = new Set<string>();
    if (existsSync(ledger)) {
      for (const line of readFileSync(ledger, 'utf8').split('\n')) {
        try {
          const id = (JSON.parse(line) as TraceRecord).id;
          if (id) have.add(id);
        } catch { /* a torn or foreign line: verify reports it */ }
      }
    }
    const notes = readNotes(repo, NOTES_REF);
    const order = commitTimes(repo.root, [...notes.keys()]);
    let n = 0;
    for (const sha of [...notes.keys()].filter((s) => order.has(s)).sort((a, b) => order.get(a)! - order.get(b)! || (a < b ? -1 : 1))) {
      const parsed = parseNote(notes.get(sha)!);
      if (typeof parsed === 'string' || parsed.record.vcs?.revision !== sha || !parsed.record.metadata?.[METADATA_KEY]) continue;
      if (have.has(parsed.record.id)) continue;
      appendLedger(ledger, (prev) => {
        const line = structuredClone(parsed.record);
        line.metadata[METADATA_KEY].prev_line_sha256 = prev;
        return JSON.stringify(line);
      });
      n++;
    }
    return n;
  });
  return { recorded, unknown, ledgerAppended, tornBytes };
}

/** Cuts an unterminated, unparsable last line off the ledger; returns how many bytes went. */
function cutTornLine(path: string): number {
  if (!existsSync(path)) return 0;
  const buf = readFileSync(path);
  if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return 0;
  const start = buf.lastIndexOf(0x0a) + 1;
  try {
    JSON.parse(buf.subarray(start).toString('utf8'));
    return 0; // a complete record missing only its newline: appendLedger closes it off
  } catch { /* torn */ }
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, start);
    fsyncSync(fd);
  } catch (e) {
    throw new IntentError('WRITE_FAILED', `could not cut the torn last line off ${path}: ${(e as Error).message}`, { path });
  } finally {
    closeSync(fd);
  }
  return buf.length - start;
}
