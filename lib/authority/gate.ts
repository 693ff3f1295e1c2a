import { readBlobs } from '../git/blobs.js';
import { gitRaw } from '../git/process.js';
import { BRANCH_PREFIX } from '../intents/active.js';
import { checkRegistry } from '../intents/registry.js';
import { compileScope } from '../intents/scope.js';
import { checkContent, checkRecords, lazyValidator, type CommitInfo, type Finding } from '../trace/verify.js';
import { checkCarried } from '../trace/carry.js';
import { parseNote } from '../trace/note-records.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import type { TraceRecord } from '../trace/record.js';
import { nextStep, type GateCode } from './codes.js';
import { reachableFrom, unreachedFrom } from '../git/commits.js';
import { isBaseUpdate } from '../git/update-merge.js';
import { listNewCommits, locateNotes, nonNotesCommits, notesChanges, readLocated, readNotesFor, refsContaining, type NewCommit, type NoteRead } from './objects.js';
import { AUTHORITY_FILE as AUTHORITY_NAME, identityKey, readBasePolicy, REGISTRY_FILE, type BasePolicy } from './policy.js';

export type { GateCode } from './codes.js';

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
  code: GateCode;
  message: string;
  /** What to do about it, in one line. */
  next: string;
  path?: string;
}

export interface GateOptions {
  /** The ref updates to judge. */
  updates: RefUpdate[];
  /** The protected base: its registry, `.intentignore` and `authority.yaml` are the only policy. */
  base: string;
  /** How messages name the base (default: `base`); pre-push names the server's branch it stands for. */
  baseLabel?: string;
  /**
   * Revisions whose history was judged before (a ref's new commits are those neither its old tip
   * nor these reach). Default: the protected branches as they are (in pre-receive: before the
   * update). CI: the pull request's base.
   */
  settled?: string[];
  /**
   * What the server has: rev-list arguments selecting its refs (default: every ref but notes).
   * A note for a commit none of them reaches is inert until the commit arrives.
   */
  serverRefs?: string[];
  /** The pusher's identity as the host authenticated it, or null (an empty or blank name is none). */
  pusher: string | null;
  /**
   * 'unknown': a client-side run (pre-push) that cannot know the identity the server will see:
   * the identity rules are left to the server; everything else is judged as the server would.
   */
  identity?: 'known' | 'unknown';
  /**
   * Where this repository keeps a ref of the server's as the server has it (default: the same
   * name; pre-push: `refs/heads/X` as `refs/remotes/<remote>/X`, as last fetched).
   */
  serverRef?: (ref: string) => string;
  /** Where to read notes when the push updates no notes ref (default: refs/notes/intents). */
  notes?: string;
  /**
   * A local check (`intent done --merge`): the status of an intent listed on the base is the
   * caller's to check (the main worktree's registry has it before it is committed).
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

/** What every phase reads: the options, the base's policy and who pushes. */
interface Ctx {
  cwd: string;
  opts: GateOptions;
  policy: BasePolicy;
  pusher: string | null;
  role: 'human' | 'agent';
  /** The intents an agent identity may push (null: a human, or an unknown identity). */
  allowed: string[] | null;
  baseName: string;
  /** The base as messages name it. */
  label: string;
  /** The settled history's tips: the protected branches before the push (CI: the base). */
  protectedTips: string[];
  /** The push's one notes-ref update (refs/notes/intents or refs/notes/intent/<ID>), or null. */
  notesUpdate: RefUpdate | null;
  /** When the check began (ms): the time limit counts from here. */
  started: number;
}

/** Where a commit under check arrived: the refs that newly reach it and the intent they demand. */
interface Arrival {
  ref: string | null;
  onIntentRef: boolean;
  intent: string | null;
}

/**
 * The authority check (server pre-receive, CI, `intent done --merge`, the local pre-push): judges
 * a push using only what the agent cannot write: the objects pushed, the pusher's identity from
 * the host, and the policy on the protected base ref. Never reads a working tree. Named phases,
 * each returning its findings: identity, refs, notes ref, commits, content.
 */
export function gate(cwd: string, opts: GateOptions): GateResult {
  const ctx = context(cwd, opts);
  const findings: GateFinding[] = [...identityPhase(ctx), ...refsPhase(ctx)];
  const codeUpdates = opts.updates.filter((u) => !ZERO.test(u.new) && !isNotesRef(u.ref));
  const commits = listNewCommits(cwd, codeUpdates, ctx.protectedTips);
  const notesPhaseResult = notesRefPhase(ctx, commits);
  findings.push(...notesPhaseResult.findings);
  // Phases 4 and 5 a chunk of commits at a time: what is held (notes, records, diffs) follows the
  // chunk, not the push (50,000 commits at once held 675 MiB).
  const checked = commitsPhase(ctx, commits, notesPhaseResult.late, notesPhaseResult.carried, (chunk) => {
    findings.push(...chunk.findings, ...contentPhase(ctx, chunk.items, chunk.arrivals));
  });
  return { base: opts.base, baseCommit: ctx.policy.commit, pusher: ctx.pusher, role: ctx.role, commits: commits.size, governed: checked.governed, findings };
}

function context(cwd: string, opts: GateOptions): Ctx {
  const before = readBasePolicy(cwd, opts.base);
  const pusher = opts.pusher?.trim() || null;
  const agents = before.authority.agents;
  const key = pusher !== null ? identityKey(before.authority, pusher) : null;
  const role: 'human' | 'agent' = key !== null && agents.has(key) ? 'agent' : 'human';
  const protectedTips = opts.settled ?? before.authority.protectedBranches.map((b) => `refs/heads/${b}`)
    .filter((r) => gitRaw(['rev-parse', '--verify', '--quiet', `${r}^{commit}`], { cwd }).status === 0);
  const advanced = role === 'human' && !opts.local ? baseAdvance(cwd, opts, before) : null;
  // Who is an agent and what is protected stay as the base had them before the push.
  const policy = advanced ? { ...readBasePolicy(cwd, advanced), authority: before.authority, authorityProblem: before.authorityProblem } : before;
  const label = opts.baseLabel ?? opts.base;
  const notesUpdates = opts.updates.filter((u) => isNotesRef(u.ref));
  return {
    cwd, opts, policy, pusher, role, allowed: role === 'agent' ? agents.get(key!)! : null,
    baseName: opts.base.replace(/^refs\/(heads|remotes\/[^/]+)\//, ''), label: advanced ? `${label} as this push leaves it` : label, protectedTips,
    notesUpdate: notesUpdates.length === 1 ? notesUpdates[0] : null,
    started: Date.now(),
  };
}

/**
 * The new tip of the base when a human's push moves the base forward (or creates it), else null.
 * A human may change the registry on the base anyway (push it first, then the rest); judging the
 * push by the base it leaves lets `git push origin main refs/notes/intents` carry the registry and
 * the merged work together. An agent identity may not update the base at all.
 */
function baseAdvance(cwd: string, opts: GateOptions, before: BasePolicy): string | null {
  for (const u of opts.updates) {
    if (ZERO.test(u.new) || !before.authority.protectedBranches.some((b) => u.ref === `refs/heads/${b}`)) continue;
    const isBase = u.ref === opts.base || (before.commit !== null && u.old === before.commit);
    if (!isBase) continue;
    if (ZERO.test(u.old) ? before.commit === null : isAncestor(cwd, u.old, u.new)) return u.new;
  }
  return null;
}

function finding(ctx: Ctx, f: Omit<GateFinding, 'next'>): GateFinding {
  return { ...f, next: nextStep(f.code, { commit: f.commit, ref: f.ref, intent: f.intent, base: ctx.baseName }) };
}

function mayPush(ctx: Ctx, id: string): boolean {
  return ctx.allowed === null || ctx.allowed.includes('*') || ctx.allowed.includes(id);
}

function isProtectedRef(ctx: Ctx, ref: string): boolean {
  return ctx.policy.authority.protectedBranches.some((b) => ref === `refs/heads/${b}`);
}

function refFinding(ctx: Ctx, u: RefUpdate, code: GateCode, message: string): GateFinding {
  return finding(ctx, { commit: ZERO.test(u.new) ? u.old : u.new, ref: u.ref, intent: intentOfRef(u.ref) ?? intentOfNotesRef(u.ref), code, message });
}

/** Phase 1: a usable authority.yaml, and an identity once agents are listed. */
function identityPhase(ctx: Ctx): GateFinding[] {
  const { opts, policy } = ctx;
  const out: GateFinding[] = [];
  if (opts.local) return out;
  if (policy.authorityProblem) {
    for (const u of opts.updates) out.push(refFinding(ctx, u, 'AUTHORITY_INVALID', `${policy.authorityProblem} (on ${ctx.label}).`));
  }
  const a = policy.authority;
  if (opts.identity !== 'unknown' && ctx.pusher !== null && ctx.role === 'human' && a.unlisted === 'refuse' && !a.humans?.has(identityKey(a, ctx.pusher))) {
    for (const u of opts.updates) {
      out.push(refFinding(ctx, u, 'IDENTITY_UNLISTED', `${ctx.pusher} is in neither agents nor humans of ${AUTHORITY_NAME} on ${ctx.label}, and an identity nobody listed may not push (${a.unlistedSetting ? 'unlisted: refuse' : 'the default once agents or humans are listed; list humans under humans:, or set unlisted: human to treat every unlisted identity as a human'}).`));
    }
  }
  if (opts.identity !== 'unknown' && ctx.pusher === null && policy.authority.agents.size > 0) {
    for (const u of opts.updates) {
      out.push(refFinding(ctx, u, 'IDENTITY_REQUIRED', `push to ${u.ref} has no pusher identity (none, or a blank one), and ${ctx.label} lists agent identities.`));
    }
  }
  return out;
}

/** Phase 2: which refs the pusher may move, and how (protected branches and notes append-only). */
function refsPhase(ctx: Ctx): GateFinding[] {
  const { cwd, opts } = ctx;
  const out: GateFinding[] = [];
  const notesUpdates = opts.updates.filter((u) => isNotesRef(u.ref));
  if (notesUpdates.length > 1) {
    for (const u of notesUpdates) {
      out.push(refFinding(ctx, u, 'NOTES_REF_MULTIPLE', `this push updates ${notesUpdates.length} notes refs (${notesUpdates.map((x) => x.ref).join(', ')}): a push may carry one notes ref, so the notes of its commits are read from one place.`));
    }
  }
  for (const u of opts.updates) {
    const deletion = ZERO.test(u.new);
    const created = ZERO.test(u.old);
    if (ctx.role === 'agent') {
      const id = intentOfRef(u.ref) ?? intentOfNotesRef(u.ref);
      const allowedRef = !deletion && id !== null && mayPush(ctx, id);
      if (!allowedRef) {
        const own = ctx.allowed!.flatMap((i) => [`refs/heads/${BRANCH_PREFIX}${i}`, `${INTENT_NOTES_PREFIX}${i}`]);
        const why = u.ref === NOTES_REF ? ` (${NOTES_REF} is the authority's: the server copies each checked record there)` : '';
        out.push(refFinding(ctx, u, 'REF_NOT_ALLOWED', `agent ${ctx.pusher} may not ${deletion ? 'delete' : 'update'} ${u.ref}${why}: it may push only ${own.join(', ')}.`));
      }
    }
    if (isNotesRef(u.ref)) {
      if (deletion) out.push(refFinding(ctx, u, 'NOTES_DELETED', `${u.ref} may not be deleted: the notes are the audit trail.`));
      else if (!created && !isAncestor(cwd, u.old, u.new)) out.push(refFinding(ctx, u, 'NOTES_NOT_FAST_FORWARD', `${u.ref} may only move forward: ${short(u.new)} does not contain ${short(u.old)}.`));
    } else if (isProtectedRef(ctx, u.ref)) {
      if (deletion) out.push(refFinding(ctx, u, 'PROTECTED_DELETED', `${u.ref} is protected and may not be deleted.`));
      else if (!created && !isAncestor(cwd, u.old, u.new)) out.push(refFinding(ctx, u, 'NOT_FAST_FORWARD', `${u.ref} is protected: ${short(u.new)} does not contain ${short(u.old)} (a rewrite of shared history).`));
    }
  }
  return out;
}

/**
 * Phase 3: an update of the push's notes ref (refs/notes/intents, or one intent's
 * refs/notes/intent/<ID>: the same rules). Every commit it newly reaches must be a notes commit;
 * no object may be annotated at two fan-out paths; a note of a commit the server does not have
 * is inert (accepted, vouching for nothing, checked when the commit arrives); a note of a commit
 * on a protected branch is fixed, except that one may be added there when it is carried (every
 * record `carried`, checked in phase 4 against its sources by `checkCarried`); one of a commit the
 * server has elsewhere may be added or changed (then checked as that commit's note, on the refs
 * that hold it), never removed. Returns the commits to check for their changed notes, with those
 * refs, and which of them are carried additions to protected history.
 */
function notesRefPhase(ctx: Ctx, commits: Map<string, NewCommit>): { findings: GateFinding[]; late: Map<string, string[]>; carried: Set<string> } {
  const { cwd, opts } = ctx;
  const out: GateFinding[] = [];
  const late = new Map<string, string[]>();
  const carried = new Set<string>();
  const u = ctx.notesUpdate;
  if (!u || ZERO.test(u.new)) return { findings: out, late, carried };
  const NOTES = u.ref;
  const oldTip = ZERO.test(u.old) ? null : u.old;
  const bad = nonNotesCommits(cwd, oldTip, u.new);
  for (const b of bad) {
    out.push(finding(ctx, { commit: b.commit, ref: NOTES, intent: null, code: 'NOTES_NOT_NOTES_COMMIT', message: `${short(b.commit)} is not a notes commit (${b.problem}): ${NOTES} may hold only notes.` }));
  }
  if (bad.length) return { findings: out, late, carried };
  const changes = notesChanges(cwd, oldTip, u.new);
  const ownIntent = intentOfNotesRef(NOTES);
  if (ownIntent !== null) {
    // An intent's notes ref speaks for that intent's branch: every note it adds or changes is of a
    // commit intent/<ID> reaches once this push is in (no inert notes, none for another branch).
    const branch = `refs/heads/${BRANCH_PREFIX}${ownIntent}`;
    const pushed = opts.updates.find((x) => x.ref === branch);
    const tip = pushed ? (ZERO.test(pushed.new) ? null : pushed.new) : revParse(cwd, (opts.serverRef ?? same)(branch));
    const written = changes.filter((c) => c.kind !== 'removed');
    const onBranch = tip ? reachableFrom(cwd, written.map((c) => c.sha), [tip]) : new Set<string>();
    for (const c of written) {
      if (onBranch.has(c.sha)) continue;
      out.push(finding(ctx, { commit: c.sha, ref: NOTES, intent: ownIntent, code: 'NOTE_NOT_ON_BRANCH', message: `${NOTES} ${c.kind === 'added' ? 'adds' : 'changes'} the note of ${short(c.sha)}, which ${BRANCH_PREFIX}${ownIntent} does not reach${tip ? '' : ' (the server has no such branch)'}: an intent's notes ref holds the notes of its own branch's commits only.` }));
    }
  }
  // Notes of the commits this push brings are read and judged with them (phase 4).
  const elsewhere = changes.filter((c) => !commits.has(c.sha));
  const written = elsewhere.filter((c) => c.kind !== 'removed').map((c) => c.sha);
  for (const [sha, note] of readNotesFor(cwd, u.new, written)) {
    if (note.paths.length > 1) out.push(duplicateFinding(ctx, sha, note.paths, NOTES));
  }
  const absent = unreachedFrom(cwd, elsewhere.map((c) => c.sha), opts.serverRefs ?? ['--exclude=refs/notes/*', '--all']);
  const had = elsewhere.filter((c) => !absent.has(c.sha));
  const onProtected = reachableFrom(cwd, had.map((c) => c.sha), ctx.protectedTips);
  if (ownIntent === null) {
    // The shared ref takes records with their commits, and carried records for protected history;
    // a note of a commit the push does not bring (one the server lacks, or one on an intent's
    // branch) is the authority's to write, from the intent's own notes ref.
    for (const c of elsewhere) {
      if (c.kind === 'removed' || onProtected.has(c.sha)) continue;
      out.push(finding(ctx, { commit: c.sha, ref: NOTES, intent: null, code: 'NOTE_NOT_BROUGHT', message: `${NOTES} ${c.kind === 'added' ? 'adds' : 'changes'} the note of ${short(c.sha)}, a commit this push does not bring${absent.has(c.sha) ? ' and the server does not have' : ' (the server has it on a branch that is not protected)'}: ${NOTES} takes a record only with its commit, or carried onto a protected branch.` }));
    }
  }
  for (const c of had) {
    if (ownIntent === null && !onProtected.has(c.sha) && c.kind !== 'removed') continue; // refused above
    if (onProtected.has(c.sha) && c.kind === 'added') {
      // Only a carried record may be added to protected history (phase 4 judges it).
      carried.add(c.sha);
      late.set(c.sha, refsContaining(cwd, c.sha, 'refs/heads/'));
    } else if (onProtected.has(c.sha)) {
      out.push(finding(ctx, { commit: c.sha, ref: NOTES, intent: null, code: 'NOTE_REWRITTEN', message: `${short(c.sha)} is already on a protected branch: its note may not be ${c.kind}.` }));
    } else if (c.kind === 'removed') {
      out.push(finding(ctx, { commit: c.sha, ref: NOTES, intent: null, code: 'NOTE_REMOVED', message: `${short(c.sha)} is on the server and was checked with its note: the note may not be removed.` }));
    } else late.set(c.sha, refsContaining(cwd, c.sha, 'refs/heads/'));
  }
  return { findings: out, late, carried };
}

function duplicateFinding(ctx: Ctx, sha: string, paths: string[], ref: string | null): GateFinding {
  return finding(ctx, {
    commit: sha, ref, intent: null, code: 'NOTE_DUPLICATE',
    message: `${short(sha)} has ${paths.length} notes (at ${paths.join(' and ')}): git shows them concatenated, so neither is judged alone.`,
  });
}

/**
 * Phase 4: each new commit against the ref it arrives on. On `intent/<ID>` it is ID's work and
 * needs a note naming ID; elsewhere a note or an `Intent-Id:` trailer makes it governed; an agent
 * pushes nothing ungoverned. Every record of a note is checked (a second record cannot vouch for
 * what the first does not).
 */
/** How many commits phases 4 and 5 hold at once. */
const CHUNK = 2000;

type Chunk = { findings: GateFinding[]; items: { commit: CommitInfo; record: TraceRecord }[]; arrivals: Map<string, Arrival> };

function commitsPhase(ctx: Ctx, commits: Map<string, NewCommit>, late: Map<string, string[]>, carried: Set<string>, done: (chunk: Chunk) => void): { governed: number } {
  const { cwd } = ctx;
  const u = ctx.notesUpdate;
  const notesRev = u && !ZERO.test(u.new) ? u.new : ctx.opts.notes ?? ownNotesOf(ctx) ?? NOTES_REF;
  const lateInfo = listNewCommits(cwd, [], [], [...late.keys()]);
  for (const [sha, info] of lateInfo) info.refs = late.get(sha) ?? [];
  const infos = [...commits.values(), ...lateInfo.values()];
  // Where each commit's note is: one listing of the notes tree; the texts are read per chunk.
  const located = locateNotes(cwd, notesRev, infos.map((i) => i.sha));
  const validate = lazyValidator();
  let governed = 0;
  const deadline = ctx.started + ctx.policy.authority.timeLimitSeconds * 1000;
  for (let i = 0; i < infos.length; i += CHUNK) {
    if (i > 0 && Date.now() > deadline) {
      done({
        findings: [finding(ctx, {
          commit: null, ref: null, intent: null, code: 'GATE_TIMEOUT',
          message: `the check ran past its ${ctx.policy.authority.timeLimitSeconds} s (time_limit_seconds): ${i} of ${infos.length} commits judged, the rest not; the push is refused.`,
        })], items: [], arrivals: new Map(),
      });
      break;
    }
    const chunk = infos.slice(i, i + CHUNK);
    const r = commitsChunk(ctx, chunk, commits, readLocated(cwd, located, chunk.map((x) => x.sha)), notesRev, carried, validate);
    governed += r.governed;
    done(r);
  }
  return { governed };
}

function commitsChunk(
  ctx: Ctx, chunk: NewCommit[], pushed: Map<string, NewCommit>, notes: Map<string, NoteRead>, notesRev: string, carried: Set<string>, validate: ReturnType<typeof lazyValidator>,
): Chunk & { governed: number } {
  const { cwd, opts, policy } = ctx;
  const u = ctx.notesUpdate;
  const out: GateFinding[] = [];
  const items: { commit: CommitInfo; record: TraceRecord }[] = [];
  const arrivals = new Map<string, Arrival>();
  let governed = 0;
  for (const info of chunk) {
    const refs = info.refs;
    const intentRefs = refs.filter((r) => intentOfRef(r) !== null);
    const read = notes.get(info.sha);
    const note = read?.text ?? null;
    const c: CommitInfo = { sha: info.sha, parents: info.parents, committed: info.committed, trailer: info.trailer, note };
    if (note === null && c.trailer === null && !intentRefs.length) continue; // ungoverned: phase end
    // "Update branch": a merge into an intent's branch that brings only what the base had is
    // nobody's work and needs no record (lib/git/update-merge.ts).
    if (note === null && c.trailer === null && c.parents.length > 1 && isBaseUpdate(cwd, c.sha, c.parents, ctx.protectedTips)) continue;
    governed++;
    const ref = intentRefs[0] ?? refs[0] ?? NOTES_REF;
    const expected = intentRefs.length ? intentOfRef(intentRefs[0]) : null;
    const at = (code: GateCode, message: string, intent: string | null) => out.push(finding(ctx, { commit: c.sha, ref, intent, code, message }));
    if (read && read.paths.length > 1) {
      out.push(duplicateFinding(ctx, c.sha, read.paths, ref));
      continue;
    }
    if (note === null) {
      at('NOTE_MISSING', `${short(c.sha)} on ${ref} is governed (${expected ? `${BRANCH_PREFIX}${expected}` : `Intent-Id: ${c.trailer}`}) but has no note on ${u && !ZERO.test(u.new) ? u.ref : /^[0-9a-f]{40,64}$/.test(notesRev) ? 'the notes given' : notesRev}.`, expected ?? c.trailer);
      continue;
    }
    const isCarried = carried.has(c.sha);
    if (isCarried) {
      const parsed = parseNote(note);
      const id = typeof parsed === 'string' ? null : parsed.records[0]?.metadata?.[METADATA_KEY]?.intent_id ?? null;
      if (typeof parsed === 'string' || !parsed.records.length || parsed.records.some((r) => !r.metadata?.[METADATA_KEY]?.carried)) {
        at('NOTE_REWRITTEN', `${short(c.sha)} is already on a protected branch: a note may be added for it only when every record in it is carried (intent carry).`, id);
        continue;
      }
      if (ctx.role === 'agent' && opts.identity !== 'unknown') {
        at('CARRY_NOT_ALLOWED', `${short(c.sha)} is already on a protected branch: agent ${ctx.pusher} may not add its carried note (a human, CI or the server's post-receive adds it).`, id);
        continue;
      }
    }
    const sink: Finding[] = [];
    const { valid } = checkRecords(c, expected ?? c.trailer, validate, sink);
    for (const f of sink) out.push(finding(ctx, { ...f, ref }));
    for (const record of valid) {
      const id = record.metadata[METADATA_KEY].intent_id;
      // A carried record is re-derived from its sources wherever it arrives: with its squash
      // commit in the same push as much as added later to protected history.
      if (isCarried || record.metadata[METADATA_KEY].carried) {
        // Its sources' records: on the notes judged, else on the intent's own notes ref.
        for (const p of checkCarried(cwd, c.sha, record, notesRev, [(opts.serverRef ?? same)(`${INTENT_NOTES_PREFIX}${id}`)])) at('CARRY_MISMATCH', p, id);
      }
      for (const r of intentRefs) {
        const want = intentOfRef(r)!;
        if (want !== id) at('NOTE_INTENT_MISMATCH', `${short(c.sha)} arrives on ${r} but its note names ${id}: a commit on ${BRANCH_PREFIX}${want} must be ${want}'s work.`, id);
      }
      if (!mayPush(ctx, id)) at('INTENT_NOT_ALLOWED', `${short(c.sha)}: its note names ${id}, which agent ${ctx.pusher} may not push.`, id);
      const merge = isCarried || (refs.some((r) => isProtectedRef(ctx, r)) && !intentRefs.length);
      const problem = statusProblem(policy, id, merge, ctx.label, !!opts.local);
      if (problem) at('INTENT_NOT_ACTIVE', `${short(c.sha)}: ${problem}`, id);
      if (!arrivals.has(c.sha)) arrivals.set(c.sha, { ref, onIntentRef: intentRefs.length > 0, intent: expected });
      items.push({ commit: c, record });
    }
  }
  if (ctx.role === 'agent' && opts.identity !== 'unknown') {
    // One set, not a scan of the findings per commit (20,000 refused commits made that quadratic).
    const found = new Set(out.map((f) => f.commit));
    for (const info of chunk) {
      if (!pushed.has(info.sha)) continue;
      if (!arrivals.has(info.sha) && !found.has(info.sha) && !(notes.has(info.sha) || info.trailer || info.refs.some((r) => intentOfRef(r)))) {
        out.push(finding(ctx, { commit: info.sha, ref: info.refs[0] ?? null, intent: null, code: 'UNGOVERNED', message: `${short(info.sha)} has no note and no Intent-Id, and agent ${ctx.pusher} pushed it: only a human identity may push ungoverned commits.` }));
      }
    }
  }
  return { findings: out, items, arrivals, governed };
}

/**
 * Phase 5: facts from the objects, judged by the base's scope and .intentignore. `.orchestration/`
 * is off limits to every governed commit, whoever pushes it and whichever merge brings it: only a
 * commit made outside any intent (no note, no trailer: a human's) changes the registry.
 */
function contentPhase(ctx: Ctx, items: { commit: CommitInfo; record: TraceRecord }[], arrivals: Map<string, Arrival>): GateFinding[] {
  const { cwd, policy } = ctx;
  const sink: Finding[] = [];
  checkContent({ root: cwd, mainRoot: null }, items, sink, {
    ignore: policy.ignore,
    baseTips: ctx.protectedTips,
    ...(policy.authority.maxBlobBytes ? { maxBlobBytes: policy.authority.maxBlobBytes } : {}),
    // The ref's intent decides the scope (the note's own intent only where no intent ref brings it).
    scopeOf: (record, commit) => {
      const intent = policy.intents.get(arrivals.get(commit.sha)?.intent ?? record.metadata[METADATA_KEY].intent_id);
      return intent ? { id: intent.id, scope: compileScope(intent.owned_scope), globs: intent.owned_scope, where: `${ctx.label}:${REGISTRY_FILE}` } : null;
    },
  });
  const out = sink.map((f) => finding(ctx, { ...f, ref: arrivals.get(f.commit ?? '')?.ref ?? null }));
  out.push(...scopeHistory(ctx, items, arrivals));
  return out;
}

const INTENT_NOTES_PREFIX = 'refs/notes/intent/';

/** refs/notes/intents or one intent's refs/notes/intent/<ID>: the refs the gate takes notes on. */
export function isNotesRef(ref: string): boolean {
  return ref === NOTES_REF || intentOfNotesRef(ref) !== null;
}

/** `refs/notes/intent/<ID>` → ID, else null. */
export function intentOfNotesRef(ref: string): string | null {
  return ref.startsWith(INTENT_NOTES_PREFIX) && ref.length > INTENT_NOTES_PREFIX.length ? ref.slice(INTENT_NOTES_PREFIX.length) : null;
}

/** `refs/heads/intent/<ID>` → ID, else null. */
export function intentOfRef(ref: string): string | null {
  const p = `refs/heads/${BRANCH_PREFIX}`;
  return ref.startsWith(p) && ref.length > p.length ? ref.slice(p.length) : null;
}

/**
 * Why `id` may not take commits, or null. A local check (`done --merge`) only needs the intent
 * listed on the base (its status there is the caller's to check: the main worktree's registry
 * has the newer one), since the scope comes from there.
 */
function statusProblem(policy: BasePolicy, id: string, merge: boolean, base: string, local: boolean): string | null {
  const intent = policy.intents.get(id);
  if (!intent) {
    const why = policy.commit === null ? `${base} does not exist yet (push it first)` : policy.registryProblems.length ? `its registry has problems: ${policy.registryProblems[0]}` : `its committed registry does not list it`;
    return `${id} is not an intent on ${base}: ${why}.`;
  }
  if (local || intent.status === 'IN_PROGRESS' || (merge && intent.status === 'COMPLETED')) return null;
  return `${id} is ${intent.status} on ${base}, not IN_PROGRESS${merge ? ' or COMPLETED' : ''}.`;
}

/**
 * The scope a note recorded is data: when it differs from the base's scope for the intent, it
 * must at least be one the base's own registry history gave it (a scope from a junk branch, an
 * edited file or a forged note is a finding even where the paths happen to fit).
 */
function scopeHistory(ctx: Ctx, items: { commit: CommitInfo; record: TraceRecord }[], arrivals: Map<string, Arrival>): GateFinding[] {
  const { cwd, policy } = ctx;
  const odd = items.filter(({ record }) => {
    const meta = record.metadata[METADATA_KEY];
    const intent = policy.intents.get(meta.intent_id);
    return intent && JSON.stringify(meta.scope) !== JSON.stringify(intent.owned_scope);
  });
  if (!odd.length || policy.commit === null) return [];
  const given = new Map<string, Set<string>>();
  for (const text of registryVersions(cwd, policy.commit)) {
    try {
      for (const i of (checkRegistry(text).intents)) {
        if (!given.has(i.id)) given.set(i.id, new Set());
        given.get(i.id)!.add(JSON.stringify(i.owned_scope));
      }
    } catch { /* an unreadable old version gives nothing */ }
  }
  const out: GateFinding[] = [];
  for (const { commit, record } of odd) {
    const meta = record.metadata[METADATA_KEY];
    if (given.get(meta.intent_id)?.has(JSON.stringify(meta.scope))) continue;
    out.push(finding(ctx, {
      commit: commit.sha, ref: arrivals.get(commit.sha)?.ref ?? null, intent: meta.intent_id, code: 'SCOPE_NOT_IN_REGISTRY',
      message: `${short(commit.sha)}: the note's scope for ${meta.intent_id} (${meta.scope.join(', ') || 'none'}) is not one ${ctx.label}'s registry ever gave it.`,
    }));
  }
  return out;
}

/** Every version of the registry in the base's history (one log, one cat-file). */
function registryVersions(cwd: string, base: string): string[] {
  const log = gitRaw(['log', '--no-color', '--format=', '--raw', '--no-abbrev', '--no-renames', base, '--', REGISTRY_FILE], { cwd });
  const oids = [...log.stdout.matchAll(/^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) [AMT]/gm)].map((m) => m[1]);
  return [...readBlobs(cwd, oids).values()].map((b) => b.toString('utf8'));
}

/**
 * Where a push that carries no notes ref reads its commits' notes: the intent's own notes ref
 * when every updated code ref is that intent's branch (what `intent push` writes), else null.
 */
function ownNotesOf(ctx: Ctx): string | null {
  const ids = new Set(ctx.opts.updates.filter((u) => !ZERO.test(u.new) && !isNotesRef(u.ref)).map((u) => intentOfRef(u.ref)));
  if (ids.size !== 1) return null;
  const [id] = [...ids];
  if (id === null) return null;
  const ref = (ctx.opts.serverRef ?? same)(`${INTENT_NOTES_PREFIX}${id}`);
  return revParse(ctx.cwd, ref) ? ref : null;
}

function same(ref: string): string {
  return ref;
}

function revParse(cwd: string, ref: string): string | null {
  const r = gitRaw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd });
  return r.status === 0 ? r.stdout.trim() : null;
}

function isAncestor(cwd: string, a: string, b: string): boolean {
  return gitRaw(['merge-base', '--is-ancestor', a, b], { cwd }).status === 0;
}

function short(sha: string): string {
  return sha.slice(0, 12);
}
