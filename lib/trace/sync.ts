import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendMissingRecords } from './repair.js';
import { ledgerPath } from './record-commit.js';
import { IntentError } from '../core/errors.js';
import { sleepSync } from '../core/files.js';
import { git, gitRaw } from '../git/process.js';
import { withLock } from '../core/lock.js';
import { NOTES_LOCK_TIMEOUT } from '../git/notes.js';
import { reachableFrom } from '../git/commits.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import { notesCommit } from './notes-tree.js';
import { NOTES_REF } from '../core/version.js';

/**
 * How `git notes merge` combines two different notes of one commit: `cat_sort_uniq` keeps every
 * line once, sorted. A note's lines stand alone (summaries, then records; trace/note-records reads
 * any number of each), so two records of one commit merge into one valid note, and the same bytes
 * whichever clone merges in which order (`union` put the local note first: clones disagreed).
 * `intent init` sets it as `notes.intents.mergeStrategy`, so a plain `git notes merge` agrees.
 * Identical notes never reach the strategy (git sees the same blob on both sides). See
 * docs/decisions.md, "Notes sync".
 */
export const NOTES_MERGE_STRATEGY = 'cat_sort_uniq';

/** What `intent sync` did. */
export interface SyncResult {
  remote: string;
  /** The remote had notes (refs/notes/intents) to fetch. */
  fetched: boolean;
  /** Commits whose local note the merges added or changed. */
  merged: number;
  /** The remote's refs/notes/intents was moved forward by our push. */
  pushed: boolean;
  /** Fetch-merge-push rounds it took (more than 1 when the remote moved meanwhile). */
  attempts: number;
  /** The remote's attestations (refs/notes/intent-attestations, the server's signed records) were fetched. */
  attestations: boolean;
}

/** The server's attestations (lib/attest/attest.ts: it alone writes them, each signed): mirrored, never pushed. */
const ATTEST_REF = 'refs/notes/intent-attestations';
function fetchAttestations(repo: Repo, remote: string): boolean {
  return gitRaw(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', remote, `+${ATTEST_REF}:${ATTEST_REF}`], { cwd: repo.root }).status === 0;
}

/** The remote-tracking notes ref of `remote`. */
export function trackingRef(remote: string): string {
  return `refs/notes/remotes/${remote}/intents`;
}

/**
 * The fetch refspec `intent init` adds per remote. A glob on purpose: a configured exact refspec
 * makes every plain `git fetch` fail ("couldn't find remote ref refs/notes/intents") while the
 * remote has no notes yet; the glob matches nothing then, and this one ref afterwards.
 */
export function notesFetchRefspec(remote: string): string {
  return `+${NOTES_REF}*:${trackingRef(remote)}*`;
}

/**
 * Exchanges refs/notes/intents with `remote`: fetches the remote's notes into
 * refs/notes/remotes/<remote>/intents, merges them into the local notes (strategy `cat_sort_uniq`), and
 * offers the remote the records it lacks for commits it holds (`notesToOffer`), without force.
 * When the push is refused because the remote moved meanwhile,
 * fetches, merges and pushes again, up to `retries` more times with a short random backoff.
 * Only the merge holds the notes lock (the one the post-commit hook writes notes under), never
 * the network.
 */
export function syncNotes(cwd: string, opts: { remote?: string; retries?: number } = {}): SyncResult {
  const repo = openRepo(cwd);
  const remotes = listRemotes(repo);
  const remote = opts.remote ?? defaultRemote(repo, remotes);
  if (!remotes.includes(remote)) {
    throw new IntentError(
      'SYNC_FAILED',
      `no remote named "${remote}" in ${repo.mainRoot}` +
        (remotes.length ? ` (remotes: ${remotes.join(', ')}). Name one: intent sync <remote>.` : '; it has no remotes. Add one with `git remote add origin <url>`.'),
      { remote, remotes, reason: 'unknown-remote' },
    );
  }
  const retries = opts.retries ?? 5;
  if (!Number.isInteger(retries) || retries < 0) throw new IntentError('INVALID_INPUT', `retries must be a whole number ≥ 0, got ${retries}`, { retries });

  const tracking = trackingRef(remote);
  const attestations = fetchAttestations(repo, remote);
  const lock = join(stateDir(repo), 'record.lock');
  const merged = new Set<string>();
  let fetched = false;
  let last = '';
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    if (attempt > 1) sleepSync(backoffMs(attempt));
    const remoteTip = fetchNotes(repo, remote, tracking);
    if (remoteTip === undefined) { // a local ref lock held by a concurrent fetch: try again
      last = 'the remote-tracking notes ref was locked by another fetch';
      continue;
    }
    if (remoteTip) fetched = true;
    const localTip = remoteTip ? withLock(lock, () => {
      const tip = mergeNotes(repo, tracking, remoteTip, merged);
      // The ledger holds every record of this clone's notes: the merged-in ones too.
      if (merged.size && existsSync(dirname(ledgerPath(repo)))) appendMissingRecords(repo, merged);
      return tip;
    }) : revParse(repo, NOTES_REF);
    if (!localTip || localTip === remoteTip) return { remote, fetched, merged: merged.size, pushed: false, attempts: attempt, attestations };
    const offer = notesToOffer(repo, remote, remoteTip ? tracking : null, remoteTip);
    if (!offer) return { remote, fetched, merged: merged.size, pushed: false, attempts: attempt, attestations };
    const push = pushNotes(repo, remote, offer);
    if (push.ok) return { remote, fetched, merged: merged.size, pushed: push.updated, attempts: attempt, attestations };
    if (!push.retryable) {
      throw new IntentError(
        'SYNC_FAILED',
        `could not push ${NOTES_REF} to ${remote}: ${push.message}. Your notes are merged locally; fix that and run \`intent sync ${remote}\` again.`,
        { remote, attempts: attempt, reason: 'push-refused', stderr: push.stderr },
      );
    }
    last = `the remote's ${NOTES_REF} moved while we merged (${push.message})`;
  }
  throw new IntentError(
    'SYNC_FAILED',
    `gave up after ${retries + 1} attempt${retries ? 's' : ''}: ${last}. Nothing was lost (your notes are merged locally); ` +
      `run \`intent sync ${remote}\` again, or with --retries N when many clones push notes at once.`,
    { remote, attempts: retries + 1, reason: 'retries-exhausted' },
  );
}

/**
 * Adds the notes fetch refspec (`notesFetchRefspec`) to every remote that fetches anything, so a
 * plain `git fetch` brings the remote's notes into refs/notes/remotes/<remote>/intents. Never a
 * push refspec: any `remote.<name>.push` changes what a bare `git push` pushes. Skips a remote
 * whose refspecs already cover the notes; returns the config lines it set.
 */
export function addNotesFetchRefspecs(repo: Repo): string[] {
  return missingNotesFetchRefspecs(repo).map(({ key, value }) => {
    git(['config', '--add', key, value], { cwd: repo.mainRoot });
    return `${key} += ${value}`;
  });
}

/** The notes fetch refspecs `addNotesFetchRefspecs` would add (none when every remote has them). */
export function missingNotesFetchRefspecs(repo: Repo): { key: string; value: string }[] {
  const cwd = repo.mainRoot;
  const missing: { key: string; value: string }[] = [];
  for (const remote of listRemotes(repo)) {
    const key = `remote.${remote}.fetch`;
    const specs = gitRaw(['config', '--get-all', key], { cwd }).stdout.split('\n').filter(Boolean);
    // A remote without fetch refspecs fetches its HEAD: adding one would change what it fetches.
    if (!specs.length) continue;
    const sources = new Set(specs.map((s) => s.replace(/^\+/, '').split(':')[0]));
    if (sources.has(NOTES_REF) || sources.has(`${NOTES_REF}*`) || sources.has('refs/notes/*')) continue;
    missing.push({ key, value: notesFetchRefspec(remote) });
  }
  return missing;
}

export function listRemotes(repo: Repo): string[] {
  return git(['remote'], { cwd: repo.root }).split('\n').filter(Boolean);
}

/** The current branch's upstream remote, else origin. */
export function defaultRemote(repo: Repo, remotes: string[]): string {
  if (repo.branch) {
    const up = gitRaw(['config', '--get', `branch.${repo.branch}.remote`], { cwd: repo.root }).stdout.trim();
    if (up && up !== '.' && remotes.includes(up)) return up;
  }
  return 'origin';
}

function revParse(repo: Repo, ref: string): string | null {
  const r = gitRaw(['rev-parse', '-q', '--verify', `${ref}^{commit}`], { cwd: repo.root });
  return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * Fetches the remote's notes into the tracking ref (force-updated: it mirrors the remote).
 * Returns the fetched tip, null when the remote has no notes (the tracking ref is then removed),
 * undefined when a concurrent fetch held the tracking ref's lock.
 */
export function fetchNotes(repo: Repo, remote: string, tracking: string): string | null | undefined {
  const r = gitRaw(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', remote, `+${NOTES_REF}:${tracking}`], { cwd: repo.root });
  if (r.status !== 0) {
    if (/couldn't find remote ref/i.test(r.stderr)) {
      gitRaw(['update-ref', '-d', tracking], { cwd: repo.root });
      return null;
    }
    if (/cannot lock ref|unable to create .*\.lock/i.test(r.stderr)) return undefined;
    throw new IntentError(
      'SYNC_FAILED',
      `could not fetch ${NOTES_REF} from ${remote}: ${r.stderr.trim() || `git fetch exited ${r.status}`}. Check that \`git fetch ${remote}\` works, then run \`intent sync ${remote}\` again.`,
      { remote, reason: 'fetch-failed', stderr: r.stderr },
    );
  }
  const tip = revParse(repo, tracking);
  if (!tip) throw new IntentError('GIT_FAILED', `git fetch succeeded but ${tracking} does not resolve to a commit`, { remote });
  return tip;
}

/** Note blob per annotated object of a notes ref (`git notes list`). */
function listNotes(repo: Repo, ref: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of git(['notes', `--ref=${ref}`, 'list'], { cwd: repo.root }).split('\n')) {
    const [blob, object] = line.split(' ');
    if (blob && object) out.set(object, blob);
  }
  return out;
}

/**
 * Merges the fetched notes into refs/notes/intents; the caller holds the notes lock (git notes
 * merge updates the ref without checking its old value, so a note written meanwhile would be
 * lost). Adds every commit whose note changed to `merged`; returns the local tip afterwards.
 */
export function mergeNotes(repo: Repo, tracking: string, remoteTip: string, merged: Set<string>): string {
  const cwd = repo.root;
  const localTip = revParse(repo, NOTES_REF);
  if (!localTip) {
    // Nothing local yet: take the remote's notes as they are (create-only: '' = must not exist).
    for (const object of listNotes(repo, tracking).keys()) merged.add(object);
    git([...NOTES_LOCK_TIMEOUT, 'update-ref', '-m', `intent sync: notes from ${tracking}`, NOTES_REF, remoteTip, ''], { cwd });
    return remoteTip;
  }
  if (localTip === remoteTip || gitRaw(['merge-base', '--is-ancestor', remoteTip, localTip], { cwd }).status === 0) return localTip;
  const before = listNotes(repo, NOTES_REF);
  git([...NOTES_LOCK_TIMEOUT, 'notes', `--ref=${NOTES_REF}`, 'merge', '-q', '-s', NOTES_MERGE_STRATEGY, tracking], { cwd });
  for (const [object, blob] of listNotes(repo, NOTES_REF)) if (before.get(object) !== blob) merged.add(object);
  return revParse(repo, NOTES_REF)!;
}

interface PushOutcome {
  ok: boolean;
  /** The remote ref moved (false: it was already up to date). */
  updated: boolean;
  /** Refused because the remote moved meanwhile: fetch, merge and push again. */
  retryable: boolean;
  message: string;
  stderr: string;
}

/**
 * The notes commit sync offers the remote: its own notes (`remoteTip`, fetched to `tracking`) with
 * the local notes that differ from its own (records it lacks, merged as `cat_sort_uniq` merges),
 * of commits it holds on a branch as last fetched: a carried record `intent carry` made here, a
 * note of a branch pushed without it. Nothing of a commit the remote lacks: a gate takes a record
 * only with its commit (it travels with its branch, by `intent push`). Null: nothing to offer.
 */
function notesToOffer(repo: Repo, remote: string, tracking: string | null, remoteTip: string | null): string | null {
  const cwd = repo.root;
  const theirs = tracking ? listNotes(repo, tracking) : new Map<string, string>();
  const mine = [...listNotes(repo, NOTES_REF)].filter(([c, blob]) => theirs.get(c) !== blob);
  if (!mine.length) return null;
  const refs = git(['for-each-ref', '--format=%(refname)', `refs/remotes/${remote}/`], { cwd }).split('\n').filter(Boolean);
  const held = reachableFrom(cwd, mine.map(([c]) => c), refs);
  const changes = mine.filter(([c]) => held.has(c));
  if (!changes.length) return null;
  return notesCommit(cwd, stateDir(repo), remoteTip, changes, `intent sync: ${changes.length} note${changes.length === 1 ? '' : 's'}`);
}

/**
 * `git push <remote> <offer>:refs/notes/intents`, never forced; reads --porcelain.
 * `--no-verify`: a notes-only push carries no commits for pre-push checks (the notes commits a
 * merge makes are judged by the server), and a pre-push hook that syncs notes must not re-enter itself.
 */
function pushNotes(repo: Repo, remote: string, offer: string): PushOutcome {
  const r = gitRaw(['push', '--porcelain', '--no-verify', remote, `${offer}:${NOTES_REF}`], { cwd: repo.root });
  const status = r.stdout.split('\n').find((l) => l.split('\t')[1]?.endsWith(`:${NOTES_REF}`));
  const [flag, , summary = ''] = status?.split('\t') ?? [];
  if (r.status === 0 && flag !== undefined && flag !== '!') {
    return { ok: true, updated: flag !== '=', retryable: false, message: summary, stderr: r.stderr };
  }
  // `[rejected] (fetch first|non-fast-forward|stale info)`: the remote has notes we have not merged.
  // `[remote rejected] (failed to update ref|failed to lock|…)`: another push won the race.
  const retryable = flag === '!' && (/^\[rejected\]/.test(summary)
    || /^\[remote rejected\] \((failed to (update|lock)|cannot lock|incorrect old value)/.test(summary));
  const why = remoteLines(r.stderr);
  const message = summary ? (why && !retryable ? `${summary}:${why}` : summary)
    : r.stderr.trim().split('\n').filter((l) => l && !l.startsWith('hint:')).join(' ') || `git push exited ${r.status}`;
  return { ok: false, updated: false, retryable, message, stderr: r.stderr };
}

/**
 * The remote's own messages (`remote: …`), e.g. why a server hook refused the push, one line each
 * as the server wrote them (a finding and its `next:` line stay apart), each after a newline and
 * two spaces, to follow a `…: ` in a message; '' when there are none.
 */
export function remoteLines(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.startsWith('remote:')).map((l) => l.slice('remote:'.length).trimEnd()).filter((l) => l.trim());
  return lines.map((l) => `\n  ${l.replace(/^ /, '')}`).join('');
}

/** 25–50 ms, doubling per attempt, at most about a second. */
function backoffMs(attempt: number): number {
  const base = Math.min(25 * 2 ** (attempt - 2), 600);
  return base + Math.random() * base;
}
