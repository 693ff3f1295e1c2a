import { gate, isNotesRef, readBasePolicy, type GateFinding, type RefUpdate } from '../authority/index.js';
import { gitRaw } from '../git/process.js';
import { NOTES_REF } from '../core/version.js';

const ZERO = /^0+$/;
const NONE = '0'.repeat(40);

/**
 * The pre-push check: the authority's own model (`intent gate`) on what this push asks the remote
 * to do, as far as this clone knows the remote: its protected branch as last fetched
 * (refs/remotes/<remote>/main) is the policy and the settled history, its refs as last fetched are
 * what it has, and the identity is left to the server. So the user learns here what the server
 * will say. Without a remote-tracking base (a remote never fetched, a URL) the local main stands in.
 */
export function checkPush(cwd: string, remote: string, stdin: string): { updates: RefUpdate[]; base: string; findings: GateFinding[]; warnings: GateFinding[] } {
  const updates: RefUpdate[] = [];
  // Refs git says the remote does not have (a zero remote id): a protected branch among them is no settled history there.
  const absent = new Set<string>();
  for (const line of stdin.split('\n')) {
    const [localRef, localSha, remoteRef, remoteSha] = line.trim().split(' ');
    if (!localRef || !localSha || !remoteRef) continue;
    if (!remoteSha || ZERO.test(remoteSha)) absent.add(remoteRef);
    const old = remoteSha && !ZERO.test(remoteSha) && known(cwd, remoteSha) ? remoteSha : null;
    if (remoteRef === NOTES_REF && remoteSha && !ZERO.test(remoteSha) && old === null) {
      // The remote's notes moved since the last fetch: git refuses a push that does not contain
      // them, so only a forced one gets here; the server judges it.
      continue;
    }
    updates.push({ old: old ?? NONE, new: ZERO.test(localSha) ? NONE : localSha, ref: remoteRef });
  }
  if (!updates.length) return { updates, base: '', findings: [], warnings: [] };
  const tracking = `refs/remotes/${remote}/`;
  const hasTracking = exists(cwd, `${tracking}main`);
  const branches = readBasePolicy(cwd, hasTracking ? `${tracking}main` : 'refs/heads/main').authority.protectedBranches;
  const base = hasTracking ? `${tracking}${branches[0] ?? 'main'}` : `refs/heads/${branches[0] ?? 'main'}`;
  // Settled history is what the server has on its protected branches: as last fetched, else the
  // local branch stands in, but not for a branch git says the remote lacks (this push creates it:
  // an empty server, whose first push of main brings every commit it names).
  const settled = branches
    .filter((b) => hasTracking || !absent.has(`refs/heads/${b}`))
    .map((b) => (hasTracking ? `${tracking}${b}` : `refs/heads/${b}`))
    .filter((r) => exists(cwd, r));
  const branch = branches[0] ?? 'main';
  const baseLabel = hasTracking ? `refs/heads/${branch} (${remote}'s, as last fetched)` : `refs/heads/${branch} (this clone's: ${remote} has not been fetched)`;
  const opts = {
    // The pushed commits' notes as this clone has them (the server's view is the warning below).
    updates, base, baseLabel, settled, pusher: null, identity: 'unknown' as const, notes: NOTES_REF,
    // Without remote-tracking refs nothing is known to be on the server: no note change is judged here.
    serverRefs: hasTracking ? [`--remotes=${remote}`] : [],
    serverRef: (ref: string) => ref.startsWith('refs/heads/') ? `${tracking}${ref.slice('refs/heads/'.length)}`
      : ref.startsWith('refs/notes/') ? `refs/notes/remotes/${remote}/${ref.slice('refs/notes/'.length)}` : ref,
  };
  const r = gate(cwd, opts);
  // A push without notes: the server reads its own notes, which this clone knows only as last
  // fetched (and that may be stale). Notes missing there are a warning with the way out, not a
  // refusal. A push with a notes ref (refs/notes/intents or an intent's refs/notes/intent/<ID>)
  // was judged above with the notes it carries.
  let warnings: GateFinding[] = [];
  if (!r.findings.length && !updates.some((u) => isNotesRef(u.ref))) {
    const seen = gate(cwd, { ...opts, notes: `refs/notes/remotes/${remote}/intents` });
    // The server folds each per-intent notes ref into refs/notes/intents (post-receive): a note on
    // one of them as last fetched (refs/notes/remotes/<remote>/intent/<ID>) is the server's too.
    const perIntent = gitRaw(['for-each-ref', '--format=%(refname)', `refs/notes/remotes/${remote}/intent/`], { cwd }).stdout.split('\n').filter(Boolean);
    warnings = seen.findings.filter((f) => f.code === 'NOTE_MISSING' && !(f.commit && perIntent.some((ref) => hasNote(cwd, ref, f.commit!))));
  }
  return { updates, base, findings: r.findings, warnings };
}

function hasNote(cwd: string, notesRef: string, commit: string): boolean {
  return gitRaw(['notes', `--ref=${notesRef}`, 'list', commit], { cwd }).status === 0;
}

function known(cwd: string, sha: string): boolean {
  return gitRaw(['cat-file', '-e', `${sha}^{commit}`], { cwd }).status === 0;
}

function exists(cwd: string, ref: string): boolean {
  return gitRaw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd }).status === 0;
}
