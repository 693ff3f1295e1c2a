/**
 * `intent push [remote]`: pushes the current branch together with its notes, in one atomic push
 * (the server's gate sees the commits and their notes at once), fetching and trying again, with a
 * jittered backoff, when the notes ref moved meanwhile.
 *
 * Agents propose, the authority disposes (docs/threat-model.md): on an intent's branch
 * (`intent/<ID>`, its worktree) the notes of the branch's commits go to `refs/notes/intent/<ID>`,
 * a ref only this intent's pushes write, so pushes of different intents never contend; the
 * server's post-receive (or CI) copies the checked records into `refs/notes/intents`
 * (lib/trace/notes-fold.ts), which agents may not write. On any other branch (`main` in the main
 * worktree, after `intent done --merge`: a human's push) the notes go to `refs/notes/intents`,
 * built on the server's own: the records of the commits the push brings, and carried records
 * for the branch's history the server has no note for, nothing else (no other clone's work).
 * `--notes shared` (or `git config intent.pushNotes shared`) pushes an intent branch's notes to
 * `refs/notes/intents` the same way, for a server whose gate predates per-intent refs.
 *
 * An intent branch rewritten after it was pushed (amend, rebase) is pushed with a lease: it
 * replaces the remote branch only when the remote's tip is one this branch had
 * (`--force-with-lease --force-if-includes`), never someone else's work.
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
  if (id !== null) {
    const tracking = `refs/remotes/${remote}/${branch}`;
    if (!gitRaw(['rev-parse', '--verify', '--quiet', tracking], { cwd: repo.root }).stdout.trim()) {
      // No remote-tracking ref: learn whether the remote has the branch, so the lease has something to hold.
      gitRaw(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', remote, `+refs/heads/${branch}:${tracking}`], { cwd: repo.root });
    }
  }
  const retries = opts.retries ?? 8;
  if (!Number.isInteger(retries) || retries < 0) throw new IntentError('INVALID_INPUT', `retries must be a whole number ≥ 0, got ${retries}`, { retries });
  const tip = git(['rev-parse', 'HEAD'], { cwd: repo.root }).trim();
  const notesRef = mode === 'intent' && id !== null ? intentNotesRef(id) : NOTES_REF;
  let last = '';
  let notes = 0;
  let leaseChecked = false;
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    if (attempt > 1) sleepSync(jitterMs(attempt));
    const prepared = pushNotes(repo, remote, branch, tip, mode);
    if (prepared === undefined) { last = 'a concurrent fetch held the remote-tracking ref'; continue; }
    const source = prepared?.commit ?? null;
    notes = prepared?.notes ?? 0;
    const out = pushOnce(repo, remote, branch, tip, source, notesRef, id !== null);
    if (out.ok) return { remote, intent: id, branch, mode, notesRef, attempts: attempt, notes, commit: tip };
    if (!out.retryable && id !== null && !leaseChecked) {
      // The lease holds the remote-tracking ref; a branch the host deleted after merging it leaves
      // that ref stale (git then refuses the branch and sends the notes alone). Once: ask the remote.
      leaseChecked = true;
      if (forgetDeletedBranch(repo, remote, branch)) continue;
    }
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

/**
 * The notes commit `intent push` sends with `branch` at `tip` (and where: refs/notes/intent/<ID>
 * in mode `intent`, else refs/notes/intents), built on the remote's current one, which it
 * fetches. Null: nothing to send; undefined: a concurrent fetch held the remote-tracking ref.
 * Exported for the tests that judge the same push through every tier.
 */
export function pushNotes(repo: Repo, remote: string, branch: string, tip: string, mode: NotesMode): { commit: string; notes: number; ref: string } | null | undefined {
  const id = branch.startsWith(BRANCH_PREFIX) ? branch.slice(BRANCH_PREFIX.length) : null;
  if (mode === 'intent' && id !== null) {
    const prepared = intentNotesCommit(repo, remote, id, tip);
    return prepared ? { ...prepared, ref: intentNotesRef(id) } : prepared;
  }
  const tracking = trackingRef(remote);
  const remoteTip = fetchNotes(repo, remote, tracking);
  if (remoteTip === undefined) return undefined;
  const merged = new Set<string>();
  if (remoteTip) {
    withLock(join(stateDir(repo), 'record.lock'), () => {
      mergeNotes(repo, tracking, remoteTip, merged);
      // As intent sync does: the ledger holds every record of this clone's notes, merged-in ones too.
      if (merged.size && existsSync(dirname(ledgerPath(repo)))) appendMissingRecords(repo, merged);
    });
  }
  const prepared = sharedNotesCommit(repo, remote, branch, tip, remoteTip);
  return prepared ? { ...prepared, ref: NOTES_REF } : null;
}

/** When the remote has no `branch` and this clone still tracks one: drops the stale remote-tracking ref; true if it did. */
function forgetDeletedBranch(repo: Repo, remote: string, branch: string): boolean {
  const tracking = `refs/remotes/${remote}/${branch}`;
  if (gitRaw(['rev-parse', '--verify', '--quiet', tracking], { cwd: repo.root }).status !== 0) return false;
  const ls = gitRaw(['ls-remote', '--exit-code', remote, `refs/heads/${branch}`], { cwd: repo.root });
  if (ls.status !== 2) return false; // 2: no such ref there
  gitRaw(['update-ref', '-d', tracking], { cwd: repo.root });
  return true;
}

function configuredMode(repo: Repo): NotesMode {
  const v = gitRaw(['config', '--get', 'intent.pushNotes'], { cwd: repo.root }).stdout.trim();
  if (v === '' || v === 'intent') return 'intent';
  if (v === 'shared') return 'shared';
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

/**
 * The notes commit to push to refs/notes/intents from `branch`: the remote's (`remoteTip`, null
 * when it has none) with the local records of the commits this push brings (those the remote's
 * `branch` does not reach; a note both have and that differs: merged as `cat_sort_uniq` merges),
 * and the carried records of the branch's history the remote has no note for (`intent carry`
 * run here). Nothing of another branch: the server takes a record only with its commit. Null
 * when there is nothing to add.
 */
function sharedNotesCommit(repo: Repo, remote: string, branch: string, tip: string, remoteTip: string | null): { commit: string; notes: number } | null {
  const cwd = repo.root;
  const tracking = `refs/remotes/${remote}/${branch}`;
  gitRaw(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', remote, `+refs/heads/${branch}:${tracking}`], { cwd });
  const theirTip = gitRaw(['rev-parse', '--verify', '--quiet', `${tracking}^{commit}`], { cwd }).stdout.trim() || null;
  const local = new Map(listNotes({ root: cwd, mainRoot: null }, NOTES_REF));
  if (!local.size) return null;
  const theirs = remoteTip ? new Map(listNotes({ root: cwd, mainRoot: null }, remoteTip)) : new Map<string, string>();
  const revs = (args: string[]) => new Set(git(['rev-list', ...args, '--'], { cwd }).split('\n').filter(Boolean));
  const brought = revs([tip, ...(theirTip ? [`^${theirTip}`] : [])]);
  const had = theirTip ? revs([theirTip]) : new Set<string>();
  const wanted = [...local.keys()].filter((c) => local.get(c) !== theirs.get(c) && (brought.has(c) || (had.has(c) && !theirs.has(c))));
  const texts = readBlobs(cwd, wanted.flatMap((c) => [local.get(c)!, ...(theirs.has(c) ? [theirs.get(c)!] : [])]));
  const text = (oid: string) => texts.get(oid)?.toString('utf8') ?? '';
  const changes: [string, string][] = [];
  for (const c of wanted) {
    const mine = local.get(c)!;
    if (!brought.has(c)) {
      // History the server has: only a carried record may be added there.
      const parsed = parseNote(text(mine));
      if (typeof parsed === 'string' || !parsed.records.length || parsed.records.some((r) => !r.metadata?.[METADATA_KEY]?.carried)) continue;
      changes.push([c, mine]);
    } else if (!theirs.has(c)) changes.push([c, mine]);
    else changes.push([c, git(['hash-object', '-w', '--stdin'], { cwd, input: catSortUniq(text(theirs.get(c)!), text(mine)) }).trim()]);
  }
  if (!changes.length) return null;
  return { commit: notesCommit(cwd, stateDir(repo), remoteTip, changes, `intent push: notes of ${branch}`), notes: changes.length };
}

/** Why a single push failed for good: PUSH_FAILED's data.reason, but for the reasons of the whole command. */
type PushRefusal = Exclude<ErrorData['PUSH_FAILED']['reason'], 'unknown-remote' | 'fetch-failed' | 'retries-exhausted'>;

/** A push that went through, one to retry (the notes ref moved), or one that failed for a reason. */
type PushOutcome =
  | { ok: true; retryable: false; message: string; stderr: string }
  | { ok: false; retryable: true; message: string; stderr: string }
  | { ok: false; retryable: false; reason: PushRefusal; message: string; hint?: string; stderr: string };

/** One atomic push of the branch and (when there is one) the notes commit; reads --porcelain. */
function pushOnce(repo: Repo, remote: string, branch: string, tip: string, notes: string | null, notesRef: string, leased: boolean): PushOutcome {
  const specs = [`${tip}:refs/heads/${branch}`, ...(notes ? [`${notes}:${notesRef}`] : [])];
  // An intent branch may be replaced by its own rewrite (amend, rebase), never over work it never had.
  const lease = leased ? [`--force-with-lease=refs/heads/${branch}`, '--force-if-includes'] : [];
  const r = gitRaw(['push', '--atomic', '--porcelain', ...lease, remote, ...specs], { cwd: repo.root });
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
    const hint = leased ? leaseHint(remote, branch) : `The remote's ${branch} has commits yours does not: fetch and rebase (or merge) them, then push again.`;
    return { ok: false, retryable: false, reason: 'branch-behind', message: `${branch} ${branchSummary}`, hint, stderr: r.stderr };
  }
  if (!rows.length && leased && leaseRefused(repo, remote, branch, tip)) {
    // git refuses a branch whose lease fails before the pre-push hook runs, and hands the hook
    // the notes alone: what it refused is a symptom; the branch is the cause.
    return { ok: false, retryable: false, reason: 'branch-behind', message: `${branch} [rejected] (the remote's branch is not one this branch had)`, hint: leaseHint(remote, branch), stderr: r.stderr };
  }
  if (!rows.length && /^intent: push refused/m.test(r.stderr)) {
    return { ok: false, retryable: false, reason: 'refused-by-pre-push', message: `this clone's pre-push check refused it:${r.stderr.split('\n').filter((l) => l.trim() && !l.startsWith('error:')).map((l) => `\n  ${l}`).join('')}`, stderr: r.stderr };
  }
  const first = r.stderr.trim().split('\n').filter((l) => l && !l.startsWith('hint:')).join(' ');
  return { ok: false, retryable: false, reason: 'push-failed', message: [branchSummary, notesSummary].filter(Boolean).join('; ') || first || `git push exited ${r.status}`, stderr: r.stderr };
}

function leaseHint(remote: string, branch: string): string {
  return `The remote's ${branch} has commits this branch never had (someone else pushed to it): look at them (git fetch ${remote}; git log ${branch}..${remote}/${branch}), merge or rebase onto them, then push again. A rewrite of what you pushed yourself (amend, rebase) is pushed as it is.`;
}

/** Whether git refuses `tip` for `branch` on its lease (a dry run of the branch alone, no hooks). */
function leaseRefused(repo: Repo, remote: string, branch: string, tip: string): boolean {
  const r = gitRaw(['push', '--dry-run', '--porcelain', '--no-verify', `--force-with-lease=refs/heads/${branch}`, '--force-if-includes', remote, `${tip}:refs/heads/${branch}`], { cwd: repo.root });
  return r.stdout.split('\n').some((l) => l.startsWith('!\t') && /\[rejected\]/.test(l));
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
