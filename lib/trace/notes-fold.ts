/**
 * `intent notes fold`: folds the per-intent notes refs (`refs/notes/intent/<ID>`, what `intent
 * push` writes so that pushes of different intents never contend) into `refs/notes/intents`, the
 * ref every clone reads. Run where nobody races it for long: the server's post-receive after the
 * gate accepted the push (templates/server/post-receive), or CI. `refs/notes/intents` only grows:
 * a note is added where the commit has none, never changed where it has one. A note whose records do not all name
 * the ref's intent is left out (a ref for INT-001 speaks for INT-001 only), and so are a note for
 * a commit `intent/<ID>` does not reach and one for a commit another intent's note already covers. The update is a compare-and-swap: a push that
 * moves `refs/notes/intents` meanwhile makes the fold read again and retry.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { sleepSync } from '../core/files.js';
import { withLock } from '../core/lock.js';
import { NOTES_REF } from '../core/version.js';
import { readBlobs } from '../git/blobs.js';
import { reachableFrom } from '../git/commits.js';
import { git, gitRaw } from '../git/process.js';
import { BRANCH_PREFIX } from '../intents/active.js';
import { notesCommit } from './notes-tree.js';
import { listNotes } from './verify.js';
import { noteIntent } from './push.js';

/** The prefix of the per-intent notes refs. */
export const INTENT_NOTES_PREFIX = 'refs/notes/intent/';

/** What one fold did. */
export interface FoldResult {
  /** refs/notes/intents after the fold (null: there are no notes at all). */
  tip: string | null;
  /** Notes added to commits that had none. */
  added: number;
  /** Notes left out, with why. */
  skipped: { ref: string; commit: string; why: string }[];
  refs: string[];
  attempts: number;
}

/** Folds `refs` (default: every refs/notes/intent/*) into refs/notes/intents of the repository at `cwd` (bare or not). */
export function foldNotes(cwd: string, opts: { refs?: string[]; tip?: string } = {}): FoldResult {
  const commonDir = gitRaw(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd });
  if (commonDir.status !== 0) throw new IntentError('NOT_A_REPOSITORY', `${cwd} is not a git repository: run intent notes fold in the server's repository or a clone.`, { cwd });
  const scratch = join(commonDir.stdout.trim(), 'intent');
  mkdirSync(scratch, { recursive: true });
  const refs = opts.refs ?? git(['for-each-ref', '--format=%(refname)', INTENT_NOTES_PREFIX], { cwd }).split('\n').filter(Boolean);
  for (const r of refs) {
    if (!r.startsWith(INTENT_NOTES_PREFIX) || r.length === INTENT_NOTES_PREFIX.length) {
      throw new IntentError('USAGE', `${r} is not a per-intent notes ref (${INTENT_NOTES_PREFIX}<ID>).`, { ref: r });
    }
  }
  let tip: string | undefined;
  if (opts.tip !== undefined) {
    const r = gitRaw(['rev-parse', '--verify', '--quiet', `${opts.tip}^{commit}`], { cwd });
    if (r.status !== 0) throw new IntentError('USAGE', `--tip ${opts.tip} is not a commit here: fetch it first (a pull request's head: git fetch origin refs/pull/<n>/head).`, { rev: opts.tip });
    tip = r.stdout.trim();
  }
  if (opts.refs === undefined) return foldAllCoalesced(cwd, scratch);
  return withLock(join(scratch, 'fold.lock'), () => foldOnce(cwd, scratch, refs, tip), 300_000);
}

/**
 * Folding every per-intent ref, as a server's post-receive does after each push: with dozens of
 * pushes at once, a fold that finds another one running leaves its work to it instead of
 * queueing. It marks the fold due (the refs it must see were updated before) and goes; the
 * running fold folds again while the mark is there, and, once it let go of the lock, takes it
 * again if a mark came in between. So every ref update is folded by some fold that started
 * reading after it, and at most one process waits.
 */
function foldAllCoalesced(cwd: string, scratch: string): FoldResult {
  const due = join(scratch, 'fold.due');
  writeFileSync(due, '');
  let result: FoldResult | null = null;
  for (;;) {
    try {
      withLock(join(scratch, 'fold.lock'), () => {
        while (existsSync(due)) {
          rmSync(due, { force: true });
          const refs = git(['for-each-ref', '--format=%(refname)', INTENT_NOTES_PREFIX], { cwd }).split('\n').filter(Boolean);
          const r = foldOnce(cwd, scratch, refs);
          result = result ? { ...r, added: result.added + r.added, attempts: result.attempts + r.attempts } : r;
        }
      }, 0);
    } catch (e) {
      if (e instanceof IntentError && e.code === 'LOCK_TIMEOUT') break; // the running fold will see the mark
      throw e;
    }
    if (!existsSync(due)) break;
  }
  return result ?? { tip: gitRaw(['rev-parse', '-q', '--verify', `${NOTES_REF}^{commit}`], { cwd }).stdout.trim() || null, added: 0, skipped: [], refs: [], attempts: 0 };
}

function foldOnce(cwd: string, scratch: string, refs: string[], tip?: string): FoldResult {
  {
    for (let attempt = 1; attempt <= 20; attempt++) {
      if (attempt > 1) sleepSync(5 + Math.random() * 20 * attempt);
      const base = gitRaw(['rev-parse', '-q', '--verify', `${NOTES_REF}^{commit}`], { cwd }).stdout.trim() || null;
      const planned = plan(cwd, base, refs, tip);
      if (!planned.changes.length) return { tip: base, added: 0, skipped: planned.skipped, refs, attempts: attempt };
      const commit = notesCommit(cwd, scratch, base, planned.changes, `intent notes fold: ${refs.map((r) => r.slice(INTENT_NOTES_PREFIX.length)).join(', ')}`);
      const cas = gitRaw(['update-ref', '-m', 'intent notes fold', NOTES_REF, commit, base ?? '0'.repeat(commit.length)], { cwd });
      if (cas.status === 0) return { tip: commit, added: planned.added, skipped: planned.skipped, refs, attempts: attempt };
    }
    throw new IntentError('WRITE_FAILED', `${NOTES_REF} kept moving while the fold wrote it (20 attempts): run intent notes fold again.`, { refs });
  }
}

/** What folding `refs` onto `base` adds; each ref's notes only of commits its branch (or `tip`) reaches. */
function plan(cwd: string, base: string | null, refs: string[], tip?: string): { changes: [string, string][]; added: number; skipped: FoldResult['skipped'] } {
  const existing = new Map(base ? listNotes({ root: cwd, mainRoot: null }, base) : []);
  const incoming = refs.map((ref) => ({ ref, id: ref.slice(INTENT_NOTES_PREFIX.length), notes: listNotes({ root: cwd, mainRoot: null }, ref) }));
  const skipped: FoldResult['skipped'] = [];
  // A ref for INT-001 speaks for intent/INT-001's commits only (the gate refuses any other note
  // there; this holds on a server whose notes were written before it did).
  const fresh = incoming.flatMap((i) => {
    const candidates = i.notes.filter(([c, blob]) => existing.get(c) !== blob);
    const onBranch = reachableFrom(cwd, candidates.map(([c]) => c), [tip ?? `refs/heads/${BRANCH_PREFIX}${i.id}`]);
    return candidates.filter(([c]) => {
      if (onBranch.has(c)) return true;
      skipped.push({ ref: i.ref, commit: c, why: `${tip ? tip.slice(0, 12) : `${BRANCH_PREFIX}${i.id}`} does not reach it` });
      return false;
    }).map(([c, blob]) => ({ ...i, c, blob }));
  });
  const texts = readBlobs(cwd, [...new Set(fresh.flatMap((f) => [f.blob, existing.get(f.c) ?? '']).filter(Boolean))]);
  const text = (oid: string) => texts.get(oid)?.toString('utf8') ?? '';
  const out = new Map<string, string>(); // commit → new note text or blob
  let added = 0;
  for (const f of fresh) {
    const mine = text(f.blob);
    if (noteIntent(mine) !== f.id) {
      skipped.push({ ref: f.ref, commit: f.c, why: `its note is not (only) ${f.id}'s` });
      continue;
    }
    const before = out.get(f.c) ?? (existing.has(f.c) ? text(existing.get(f.c)!) : null);
    if (before === null) {
      out.set(f.c, mine);
      added++;
    } else if (noteIntent(before) !== f.id) {
      skipped.push({ ref: f.ref, commit: f.c, why: `${NOTES_REF} has a note of another intent for it` });
    } else {
      // A record once copied is the one readers got: the fold adds, it never rewrites (a changed
      // record reaches refs/notes/intents only with its commit, judged, in a human's push).
      skipped.push({ ref: f.ref, commit: f.c, why: `${NOTES_REF} has another note of ${f.id} for it` });
    }
  }
  // One process per changed note: a fold after a push adds a handful.
  const changes = [...out.entries()].map(([c, t]): [string, string] => [c, git(['hash-object', '-w', '--stdin'], { cwd, input: t }).trim()]);
  return { changes, added, skipped };
}
