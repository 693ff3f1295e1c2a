/**
 * `intent push [remote]`: pushes the current branch together with its notes, in one atomic push
 * (the server's gate sees the commits and their notes at once), fetching and merging and trying
 * again, with a jittered backoff, when the notes ref moved meanwhile. On an intent's branch
 * (`intent/<ID>`, its worktree) either way below carries the notes; on any other branch (`main`
 * in the main worktree, after `intent done --merge`) the shared ref does.
 *
 * Two ways to carry the notes (docs/decisions.md, "Notes that scale with the number of agents"):
 * - `intent` (per-intent): the notes of the branch's commits go to `refs/notes/intent/<ID>`, a
 *   ref only this intent's pushes write, so pushes of different intents never contend; the
 *   server's post-receive (or CI) folds it into `refs/notes/intents` (lib/trace/notes-fold.ts).
 * - `shared`: every push moves `refs/notes/intents` itself (fetch, `cat_sort_uniq` merge, push):
 *   what `git push origin intent/<ID> refs/notes/intents` did by hand; every push contends.
 * The mode comes from `--notes`, else `git config intent.pushNotes`, else `shared`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IntentError, type ErrorData } from '../core/errors.js';
import { sleepSync } from '../core/files.js';
import { withLock } from '../core/lock.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import { readBlobs } from '../git/blobs.js';
import { git, gitRaw } from '../git/process.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import { BRANCH_PREFIX } from '../intents/active.js';
import { parseNote } from './note-records.js';
import { ledgerPath } from './record-commit.js';
import { appendMissingRecords } from './repair.js';
import { defaultRemote, fetchNotes, listRemotes, mergeNotes, remoteLines, trackingRef } from './sync.js';
import { listNotes } from './verify.js';
import { catSortUniq, notesCommit } from './notes-tree.js';

/** How the notes travel: a ref per intent (no contention between intents) or the one shared ref. */
export type NotesMode = 'intent' | 'shared';

/** The notes ref of one intent on the server, folded into refs/notes/intents there. */
export function intentNotesRef(id: string): string {
  return `refs/notes/intent/${id}`;
}

/** What `intent push` did. */
export interface PushResult {
  remote: string;
  /** The intent of the branch pushed, or null for another branch (e.g. main). */
  intent: string | null;
  branch: string;
  mode: NotesMode;
  /** The notes ref it pushed to. */
  notesRef: string;
  /** Push commands it took: 1 unless another push moved the notes ref meanwhile. */
  attempts: number;
  /** Notes of the branch's commits the push carried (per-intent), or merged in from the remote (shared). */
  notes: number;
  /** The branch's tip as pushed. */
  commit: string;
}

/** Pushes the branch checked out at `cwd` (an intent's, or e.g. main) and its notes to `remote`. */
export function pushIntent(cwd: string, opts: { remote?: string; mode?: NotesMode; retries?: number } = {}): PushResult {
  const repo = openRepo(cwd);
  const branch = repo.branch;
  if (!branch || branch === BRANCH_PREFIX) {
    throw new IntentError('USAGE', `intent push pushes the current branch with its notes, and ${repo.root} is on ${branch ? `branch ${branch}` : 'a detached HEAD'}: check out a branch (an intent's worktree is on intent/<ID>; the main worktree on main), then run it again.`, { branch });
  }
  const id = branch.startsWith(BRANCH_PREFIX) ? branch.slice(BRANCH_PREFIX.length) : null;
  if (id === null && opts.mode === 'intent') {
    throw new IntentError('USAGE', `--notes intent pushes an intent's notes to refs/notes/intent/<ID>, and ${branch} is not an intent's branch: push it with the shared notes (intent push without --notes intent).`, { branch });
  }
  const remotes = listRemotes(repo);
  const remote = opts.remote ?? defaultRemote(repo, remotes);
  if (!remotes.includes(remote)) {
    throw new IntentError('PUSH_FAILED', `no remote named "${remote}" in ${repo.mainRoot}${remotes.length ? ` (remotes: ${remotes.join(', ')}). Name one: intent push <remote>.` : '; it has no remotes. Add one with `git remote add origin <url>`.'}`, { remote, remotes, reason: 'unknown-remote' });
  }
  const mode: NotesMode = id === null ? 'shared' : (opts.mode ?? configuredMode(repo));
  const retries = opts.retries ?? 8;
  if (!Number.isInteger(retries) || retries < 0) throw new IntentError('INVALID_INPUT', `retries must be a whole number ≥ 0, got ${retries}`, { retries });
  const tip = git(['rev-parse', 'HEAD'], { cwd: repo.root }).trim();
  const notesRef = mode === 'intent' && id !== null ? intentNotesRef(id) : NOTES_REF;
  let last = '';
  let notes = 0;
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    if (attempt > 1) sleepSync(jitterMs(attempt));
    let source: string | null;
    if (mode === 'intent' && id !== null) {
      const prepared = intentNotesCommit(repo, remote, id, tip);
      if (prepared === undefined) { last = 'a concurrent fetch held the remote-tracking ref'; continue; }
      source = prepared?.commit ?? null;
      notes = prepared?.notes ?? 0;
    } else {
      const tracking = trackingRef(remote);
      const remoteTip = fetchNotes(repo, remote, tracking);
      if (remoteTip === undefined) { last = 'a concurrent fetch held the remote-tracking ref'; continue; }
      const merged = new Set<string>();
      if (remoteTip) {
        withLock(join(stateDir(repo), 'record.lock'), () => {
          mergeNotes(repo, tracking, remoteTip, merged);
          // As intent sync does: the ledger holds every record of this clone's notes, merged-in ones too.
          if (merged.size && existsSync(dirname(ledgerPath(repo)))) appendMissingRecords(repo, merged);
        });
      }
      notes = merged.size;
      source = gitRaw(['rev-parse', '-q', '--verify', `${NOTES_REF}^{commit}`], { cwd: repo.root }).stdout.trim() || null;
    }
    const out = pushOnce(repo, remote, branch, tip, source, notesRef);
    if (out.ok) return { remote, intent: id, branch, mode, notesRef, attempts: attempt, notes, commit: tip };
    if (!out.retryable) {
      throw new IntentError('PUSH_FAILED', `could not push ${branch} and ${notesRef} to ${remote}: ${out.message}${out.hint ? `${out.message.includes('\n') ? '\n' : ' '}${out.hint}` : ''}`, { remote, attempts: attempt, reason: out.reason, stderr: out.stderr });
    }
    last = `${notesRef} on ${remote} moved while we merged (${out.message})`;
  }
  throw new IntentError(
    'PUSH_FAILED',
    `gave up after ${retries + 1} attempt${retries ? 's' : ''}: ${last}. Nothing was lost; run \`intent push ${remote}\` again${mode === 'shared' ? ', or push notes per intent (intent push --notes intent) so that other intents\' pushes do not contend' : ''}.`,
    { remote, attempts: retries + 1, reason: 'retries-exhausted' },
  );
}

function configuredMode(repo: Repo): NotesMode {
  const v = gitRaw(['config', '--get', 'intent.pushNotes'], { cwd: repo.root }).stdout.trim();
  if (v === '' || v === 'shared') return 'shared';
  if (v === 'intent') return 'intent';
  throw new IntentError('CONFIG_INVALID', `git config intent.pushNotes is "${v}": it takes "intent" (a notes ref per intent) or "shared" (refs/notes/intents). Fix it with git config intent.pushNotes intent.`, { value: v });
}

/**
 * The notes commit to push to refs/notes/intent/<ID>: the remote's current one (fetched) with the
 * local notes of the branch's commits the remote's other refs do not have added (a note both
 * have and that differs: their lines merged as `cat_sort_uniq` merges them). Null when there is
 * nothing to push (no notes, nothing new); undefined when a concurrent fetch held the ref.
 */
function intentNotesCommit(repo: Repo, remote: string, id: string, tip: string): { commit: string; notes: number } | null | undefined {
  const cwd = repo.root;
  const ref = intentNotesRef(id);
  const tracking = `refs/notes/remotes/${remote}/intent/${id}`;
  const f = gitRaw(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', remote, `+${ref}:${tracking}`], { cwd });
  let parent: string | null = null;
  if (f.status !== 0) {
    if (/cannot lock ref|unable to create .*\.lock/i.test(f.stderr)) return undefined;
    if (!/couldn't find remote ref/i.test(f.stderr)) {
      throw new IntentError('PUSH_FAILED', `could not fetch ${ref} from ${remote}: ${f.stderr.trim() || `git fetch exited ${f.status}`}. Check that \`git fetch ${remote}\` works, then run \`intent push ${remote}\` again.`, { remote, reason: 'fetch-failed', stderr: f.stderr });
    }
    gitRaw(['update-ref', '-d', tracking], { cwd });
  } else parent = git(['rev-parse', `${tracking}^{commit}`], { cwd }).trim();

  // The branch's commits the remote does not have on another branch (its intent branch's own
  // copy does not count: notes of commits pushed before are carried again, unchanged).
  const commits = git(['rev-list', tip, '--not', `--exclude=${remote}/${BRANCH_PREFIX}${id}`, `--remotes=${remote}`, '--'], { cwd }).split('\n').filter(Boolean);
  const local = new Map(listNotes({ root: cwd, mainRoot: null }, NOTES_REF));
  const wanted = commits.filter((c) => local.has(c));
  const theirs = parent ? new Map(listNotes({ root: cwd, mainRoot: null }, parent)) : new Map<string, string>();
  const changes: [string, string][] = [];
  const differing = wanted.filter((c) => theirs.has(c) && theirs.get(c) !== local.get(c));
  const texts = readBlobs(cwd, differing.flatMap((c) => [theirs.get(c)!, local.get(c)!]));
  for (const c of wanted) {
    const mine = local.get(c)!;
    const had = theirs.get(c);
    if (had === mine) continue;
    if (had === undefined) changes.push([c, mine]);
    else {
      const merged = catSortUniq(texts.get(had)?.toString('utf8') ?? '', texts.get(mine)?.toString('utf8') ?? '');
      changes.push([c, git(['hash-object', '-w', '--stdin'], { cwd, input: merged }).trim()]);
    }
  }
  if (!changes.length) return null;
  return { commit: notesCommit(cwd, stateDir(repo), parent, changes, `intent push: notes of ${id}`), notes: changes.length };
}

/** Why a single push failed for good: PUSH_FAILED's data.reason, but for the reasons of the whole command. */
type PushRefusal = Exclude<ErrorData['PUSH_FAILED']['reason'], 'unknown-remote' | 'fetch-failed' | 'retries-exhausted'>;

/** A push that went through, one to retry (the notes ref moved), or one that failed for a reason. */
type PushOutcome =
  | { ok: true; retryable: false; message: string; stderr: string }
  | { ok: false; retryable: true; message: string; stderr: string }
  | { ok: false; retryable: false; reason: PushRefusal; message: string; hint?: string; stderr: string };

/** One atomic push of the branch and (when there is one) the notes commit; reads --porcelain. */
function pushOnce(repo: Repo, remote: string, branch: string, tip: string, notes: string | null, notesRef: string): PushOutcome {
  const specs = [`${tip}:refs/heads/${branch}`, ...(notes ? [`${notes}:${notesRef}`] : [])];
  const r = gitRaw(['push', '--atomic', '--porcelain', remote, ...specs], { cwd: repo.root });
  const rows = r.stdout.split('\n').filter((l) => l.includes('\t')).map((l) => l.split('\t'));
  const row = (dst: string) => rows.find((x) => x[1]?.endsWith(`:${dst}`));
  const b = row(`refs/heads/${branch}`);
  const n = notes ? row(notesRef) : undefined;
  if (r.status === 0 && b && b[0] !== '!' && (!notes || (n && n[0] !== '!'))) return { ok: true, retryable: false, message: '', stderr: r.stderr };
  const why = remoteLines(r.stderr);
  const notesSummary = n?.[2] ?? '';
  const branchSummary = b?.[2] ?? '';
  // The notes ref moved under us (a push of the same ref won): fetch, merge, try again. With
  // --atomic the branch is then reported as refused too ("atomic push failed"): not its fault.
  const notesMoved = /^\[rejected\] \((fetch first|non-fast-forward|stale info)\)/.test(notesSummary)
    || /^\[remote rejected\] \((failed to (update|lock)|cannot lock|incorrect old value)/.test(notesSummary)
    // --atomic: the transaction failed as a whole; git says which ref it could not lock.
    || (/atomic transaction failed/.test(notesSummary) && r.stderr.includes(`cannot lock ref '${notesRef}'`));
  const branchRefused = b && b[0] === '!' && !/atomic/.test(branchSummary);
  if (notesMoved && !(branchRefused && /^\[rejected\]/.test(branchSummary))) return { ok: false, retryable: true, message: notesSummary, stderr: r.stderr };
  if (/pre-receive hook declined|hook declined/.test(r.stdout + r.stderr)) {
    return { ok: false, retryable: false, reason: 'refused-by-server', message: `the server's gate refused it${why ? `:${why}` : ''}`, hint: 'Fix what it names, then push again.', stderr: r.stderr };
  }
  if (branchRefused && /^\[rejected\]/.test(branchSummary)) {
    return { ok: false, retryable: false, reason: 'branch-behind', message: `${branch} ${branchSummary}`, hint: `The remote's ${branch} has commits yours does not: fetch and rebase (or merge) them, then push again.`, stderr: r.stderr };
  }
  if (!rows.length && /^intent: push refused/m.test(r.stderr)) {
    return { ok: false, retryable: false, reason: 'refused-by-pre-push', message: `this clone's pre-push check refused it:${r.stderr.split('\n').filter((l) => l.trim() && !l.startsWith('error:')).map((l) => `\n  ${l}`).join('')}`, stderr: r.stderr };
  }
  const first = r.stderr.trim().split('\n').filter((l) => l && !l.startsWith('hint:')).join(' ');
  return { ok: false, retryable: false, reason: 'push-failed', message: [branchSummary, notesSummary].filter(Boolean).join('; ') || first || `git push exited ${r.status}`, stderr: r.stderr };
}

/** 25–75 ms on the second attempt, doubling after, at most about 1.5 s: spread, so racing pushes do not meet again. */
function jitterMs(attempt: number): number {
  const base = Math.min(50 * 2 ** (attempt - 2), 1000);
  return base / 2 + Math.random() * base;
}

/** The intent a note's records name, when they all name one. */
export function noteIntent(text: string): string | null {
  const parsed = parseNote(text);
  if (typeof parsed === 'string') return null;
  const ids = new Set(parsed.records.map((r) => r.metadata?.[METADATA_KEY]?.intent_id));
  return ids.size === 1 ? ([...ids][0] ?? null) : null;
}
