import { readBlobs } from '../git/blobs.js';
import { gitRaw } from '../git/process.js';
import { BRANCH_PREFIX } from '../intents/active.js';
import { checkRegistry } from '../intents/registry.js';
import { compileScope } from '../intents/scope.js';
import { checkContent, checkRecords, lazyValidator, type CommitInfo, type Finding } from '../trace/verify.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import type { TraceRecord } from '../trace/record.js';
import { listNewCommits, notesChanges, readNotesFor, reachableFrom } from './objects.js';
import { readBasePolicy, REGISTRY_FILE, type BasePolicy } from './policy.js';

/** One ref update as a pre-receive hook gets it: `<old> <new> <ref>` (all-zero: none). */
export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}

/** One reason the authority refuses a push; `commit` names the commit (or the ref's new tip). */
export interface GateFinding {
  commit: string | null;
  ref: string | null;
  intent: string | null;
  code: string;
  message: string;
  path?: string;
}

export interface GateOptions {
  /** The ref updates to judge. */
  updates: RefUpdate[];
  /** The protected base: its registry, `.intentignore` and `authority.yaml` are the only policy. */
  base: string;
  /**
   * What the server already has: 'all' (every existing ref: a pre-receive hook, before the
   * update), or revisions (CI: the pull request's base).
   */
  known: 'all' | string[];
  /** The pusher's identity as the host authenticated it, or null. */
  pusher: string | null;
  /** Where to read notes when the push does not update refs/notes/intents (default: that ref). */
  notes?: string;
  /**
   * A local check (`intent done --merge`): the intent's status is the caller's to check (the
   * main worktree's registry has it before it is committed).
   */
  local?: boolean;
}

export interface GateResult {
  base: string;
  baseCommit: string | null;
  pusher: string | null;
  role: 'human' | 'agent';
  /** Commits newly reachable from the updated refs (each checked once). */
  commits: number;
  governed: number;
  findings: GateFinding[];
}

const ZERO = /^0+$/;

/**
 * The authority check (server pre-receive and CI): judges a push using only what the agent
 * cannot write: the objects pushed, the pusher's identity from the host, and the policy on the
 * protected base ref. Never reads a working tree.
 */
export function gate(cwd: string, opts: GateOptions): GateResult {
  const policy = readBasePolicy(cwd, opts.base);
  const findings: GateFinding[] = [];
  const agents = policy.authority.agents;
  const role: 'human' | 'agent' = opts.pusher !== null && agents.has(opts.pusher) ? 'agent' : 'human';
  const allowed = role === 'agent' ? agents.get(opts.pusher!)! : null;
  const mayPush = (id: string) => allowed === null || allowed.includes('*') || allowed.includes(id);
  const tipOf = (u: RefUpdate) => (ZERO.test(u.new) ? u.old : u.new);
  const refFinding = (u: RefUpdate, code: string, message: string) => findings.push({ commit: tipOf(u), ref: u.ref, intent: intentOfRef(u.ref), code, message });

  if (policy.authorityProblem && !opts.local) {
    for (const u of opts.updates) refFinding(u, 'AUTHORITY_INVALID', `${policy.authorityProblem} (on ${opts.base}); an administrator must fix it on the server.`);
  }
  if (opts.pusher === null && agents.size > 0 && !opts.local) {
    for (const u of opts.updates) refFinding(u, 'IDENTITY_REQUIRED', `push to ${u.ref} has no pusher identity, and ${opts.base} lists agent identities: the server must authenticate pushes.`);
  }

  const notesUpdate = opts.updates.find((u) => u.ref === NOTES_REF);
  const protectedRef = (ref: string) => policy.authority.protectedBranches.some((b) => ref === `refs/heads/${b}`);
  for (const u of opts.updates) {
    const deletion = ZERO.test(u.new);
    const created = ZERO.test(u.old);
    if (role === 'agent') {
      const id = intentOfRef(u.ref);
      const ok = !deletion && (u.ref === NOTES_REF || (id !== null && mayPush(id)));
      if (!ok) {
        refFinding(u, 'REF_NOT_ALLOWED', `agent ${opts.pusher} may not ${deletion ? 'delete' : 'update'} ${u.ref}: it may push only ${allowed!.map((i) => `refs/heads/${BRANCH_PREFIX}${i}`).join(', ')} and ${NOTES_REF}.`);
      }
    }
    if (u.ref === NOTES_REF) {
      if (deletion) refFinding(u, 'NOTES_DELETED', `${NOTES_REF} may not be deleted: the notes are the audit trail.`);
      else if (!created && !isAncestor(cwd, u.old, u.new)) refFinding(u, 'NOTES_NOT_FAST_FORWARD', `${NOTES_REF} may only move forward: ${short(u.new)} does not contain ${short(u.old)} (fetch, merge with \`intent sync\`, push again).`);
    } else if (protectedRef(u.ref)) {
      if (deletion) refFinding(u, 'PROTECTED_DELETED', `${u.ref} is protected and may not be deleted.`);
      else if (!created && !isAncestor(cwd, u.old, u.new)) refFinding(u, 'NOT_FAST_FORWARD', `${u.ref} is protected: ${short(u.new)} does not contain ${short(u.old)} (a rewrite of shared history).`);
    }
  }

  // Every commit the push makes reachable, once, with the refs that bring it.
  const codeUpdates = opts.updates.filter((u) => !ZERO.test(u.new) && !u.ref.startsWith('refs/notes/'));
  const known = opts.known === 'all' ? ['--all'] : opts.known.filter((r) => !ZERO.test(r));
  const commits = listNewCommits(cwd, codeUpdates, known);
  const notesRev = notesUpdate && !ZERO.test(notesUpdate.new) ? notesUpdate.new : opts.notes ?? NOTES_REF;

  // Notes the push adds, changes or removes for commits it does not bring.
  const late = new Map<string, string>(); // sha → why it is checked
  if (notesUpdate && !ZERO.test(notesUpdate.new)) {
    const changed = notesChanges(cwd, ZERO.test(notesUpdate.old) ? null : notesUpdate.old, notesUpdate.new).filter((c) => !commits.has(c.sha));
    const onProtected = reachableFrom(cwd, changed.map((c) => c.sha), policy.authority.protectedBranches.map((b) => `refs/heads/${b}`));
    for (const c of changed) {
      if (onProtected.has(c.sha)) {
        findings.push({ commit: c.sha, ref: NOTES_REF, intent: null, code: 'NOTE_REWRITTEN', message: `${short(c.sha)} is already on a protected branch: its note may not be ${c.kind === 'added' ? 'added after the fact' : c.kind}.` });
      } else if (c.kind === 'removed') {
        findings.push({ commit: c.sha, ref: NOTES_REF, intent: null, code: 'NOTE_REMOVED', message: `${short(c.sha)}: its note may not be removed (the server checked the commit with it).` });
      } else late.set(c.sha, c.kind);
    }
  }
  const lateInfo = listNewCommits(cwd, [], [], [...late.keys()]);
  for (const sha of late.keys()) {
    if (!lateInfo.has(sha)) findings.push({ commit: sha, ref: NOTES_REF, intent: null, code: 'NOTE_UNVERIFIED', message: `${short(sha)}: the push adds a note for a commit the server does not have.` });
  }
  const notes = readNotesFor(cwd, notesRev, [...commits.keys(), ...lateInfo.keys()]);

  const validate = lazyValidator();
  const items: { commit: CommitInfo; record: TraceRecord }[] = [];
  const context = new Map<string, { ref: string | null; onIntentRef: boolean; intent: string | null }>();
  let governed = 0;
  const all = [...commits.values(), ...lateInfo.values()];
  for (const info of all) {
    const refs = commits.get(info.sha)?.refs ?? [];
    const intentRefs = refs.filter((r) => intentOfRef(r) !== null);
    const note = notes.get(info.sha) ?? null;
    const c: CommitInfo = { sha: info.sha, parents: info.parents, committed: info.committed, trailer: info.trailer, note };
    if (note === null && c.trailer === null && !intentRefs.length) continue; // ungoverned: policy below
    governed++;
    const ref = intentRefs[0] ?? refs[0] ?? NOTES_REF;
    const expected = intentRefs.length ? intentOfRef(intentRefs[0]) : null;
    const at = (code: string, message: string, intent: string | null) => findings.push({ commit: c.sha, ref, intent, code, message });
    if (note === null) {
      at('NOTE_MISSING', `${short(c.sha)} on ${ref} is governed (${expected ? `${BRANCH_PREFIX}${expected}` : `Intent-Id: ${c.trailer}`}) but has no note on ${NOTES_REF}: push the notes with it (git push origin <branch> ${NOTES_REF}).`, expected ?? c.trailer);
      continue;
    }
    // Every record of the note is checked (merged notes hold one per clone that recorded the
    // commit): a second record cannot vouch for what the first does not.
    const sink: Finding[] = [];
    const { valid } = checkRecords(c, expected ?? c.trailer, validate, sink);
    for (const f of sink) findings.push({ ...f, ref });
    for (const record of valid) {
      const id = record.metadata[METADATA_KEY].intent_id;
      for (const r of intentRefs) {
        const want = intentOfRef(r)!;
        if (want !== id) at('NOTE_INTENT_MISMATCH', `${short(c.sha)} arrives on ${r} but its note names ${id}: a commit on ${BRANCH_PREFIX}${want} must be ${want}'s work.`, id);
      }
      if (!mayPush(id)) at('INTENT_NOT_ALLOWED', `${short(c.sha)}: its note names ${id}, which agent ${opts.pusher} may not push.`, id);
      const onProtected = refs.some(protectedRef);
      const ok = opts.local ? null : statusFinding(policy, id, onProtected && !intentRefs.length, opts.base);
      if (ok) at('INTENT_NOT_ACTIVE', `${short(c.sha)}: ${ok}`, id);
      if (!context.has(c.sha)) context.set(c.sha, { ref, onIntentRef: intentRefs.length > 0, intent: expected });
      items.push({ commit: c, record });
    }
  }
  if (role === 'agent') {
    for (const info of commits.values()) {
      if (!context.has(info.sha) && !findings.some((f) => f.commit === info.sha) && !(notes.has(info.sha) || info.trailer || info.refs.some((r) => intentOfRef(r)))) {
        findings.push({ commit: info.sha, ref: info.refs[0] ?? null, intent: null, code: 'UNGOVERNED', message: `${short(info.sha)} has no note and no Intent-Id, and agent ${opts.pusher} pushed it: only a human identity may push ungoverned commits.` });
      }
    }
  }

  // Facts from the objects, judged by the base's scope and .intentignore.
  const sink: Finding[] = [];
  checkContent({ root: cwd, mainRoot: null }, items, sink, {
    ignore: policy.ignore,
    // The ref's intent decides the scope (the note's own intent only where no intent ref brings it).
    scopeOf: (record, commit) => {
      const intent = policy.intents.get(context.get(commit.sha)?.intent ?? record.metadata[METADATA_KEY].intent_id);
      return intent ? { id: intent.id, scope: compileScope(intent.owned_scope), globs: intent.owned_scope, where: `${opts.base}:${REGISTRY_FILE}` } : null;
    },
    protectOrchestration: (sha) => role === 'agent' || !!context.get(sha)?.onIntentRef,
  });
  for (const f of sink) findings.push({ ...f, ref: context.get(f.commit ?? '')?.ref ?? null });
  scopeHistory(cwd, policy, opts.base, items, findings, context);
  return { base: opts.base, baseCommit: policy.commit, pusher: opts.pusher, role, commits: commits.size, governed, findings };
}

/** `refs/heads/intent/<ID>` → ID, else null. */
export function intentOfRef(ref: string): string | null {
  const p = `refs/heads/${BRANCH_PREFIX}`;
  return ref.startsWith(p) && ref.length > p.length ? ref.slice(p.length) : null;
}

function statusFinding(policy: BasePolicy, id: string, merge: boolean, base: string): string | null {
  const intent = policy.intents.get(id);
  if (!intent) {
    const why = policy.commit === null ? `${base} does not exist yet (push it first)` : policy.registryProblems.length ? `its registry has problems: ${policy.registryProblems[0]}` : `its registry does not list it`;
    return `${id} is not an intent on ${base}: ${why}.`;
  }
  if (intent.status === 'IN_PROGRESS' || (merge && intent.status === 'COMPLETED')) return null;
  return `${id} is ${intent.status} on ${base}, not IN_PROGRESS${merge ? ' or COMPLETED' : ''}: a human marks it in progress (intent checkout) and pushes ${base} first.`;
}

/**
 * The scope a note recorded is data: when it differs from the base's scope for the intent, it
 * must at least be one the base's own registry history gave it (a scope from a junk branch, an
 * edited file or a forged note is a finding even where the paths happen to fit).
 */
function scopeHistory(
  cwd: string, policy: BasePolicy, base: string, items: { commit: CommitInfo; record: TraceRecord }[], findings: GateFinding[],
  context: Map<string, { ref: string | null }>,
): void {
  const odd = items.filter(({ record }) => {
    const meta = record.metadata[METADATA_KEY];
    const intent = policy.intents.get(meta.intent_id);
    return intent && JSON.stringify(meta.scope) !== JSON.stringify(intent.owned_scope);
  });
  if (!odd.length || policy.commit === null) return;
  const given = new Map<string, Set<string>>();
  for (const text of registryVersions(cwd, policy.commit)) {
    try {
      for (const i of (checkRegistry(text).intents)) {
        if (!given.has(i.id)) given.set(i.id, new Set());
        given.get(i.id)!.add(JSON.stringify(i.owned_scope));
      }
    } catch { /* an unreadable old version gives nothing */ }
  }
  for (const { commit, record } of odd) {
    const meta = record.metadata[METADATA_KEY];
    if (given.get(meta.intent_id)?.has(JSON.stringify(meta.scope))) continue;
    findings.push({
      commit: commit.sha, ref: context.get(commit.sha)?.ref ?? null, intent: meta.intent_id, code: 'SCOPE_NOT_IN_REGISTRY',
      message: `${short(commit.sha)}: the note's scope for ${meta.intent_id} (${meta.scope.join(', ') || 'none'}) is not one ${base}'s registry ever gave it.`,
    });
  }
}


/** Every version of the registry in the base's history (one log, one cat-file). */
function registryVersions(cwd: string, base: string): string[] {
  const log = gitRaw(['log', '--no-color', '--format=', '--raw', '--no-abbrev', '--no-renames', base, '--', REGISTRY_FILE], { cwd });
  const oids = [...log.stdout.matchAll(/^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) [AMT]/gm)].map((m) => m[1]);
  return [...readBlobs(cwd, oids).values()].map((b) => b.toString('utf8'));
}

function isAncestor(cwd: string, a: string, b: string): boolean {
  return gitRaw(['merge-base', '--is-ancestor', a, b], { cwd }).status === 0;
}

function short(sha: string): string {
  return sha.slice(0, 12);
}
