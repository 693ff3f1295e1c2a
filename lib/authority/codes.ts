import type { Finding } from '../trace/verify.js';
import { NOTES_REF } from '../core/version.js';

/** The authority's own refusal codes (the per-commit record and content codes come from trace/verify). */
export type AuthorityCode =
  | 'AUTHORITY_INVALID' | 'IDENTITY_REQUIRED' | 'REF_NOT_ALLOWED'
  | 'PROTECTED_DELETED' | 'NOT_FAST_FORWARD'
  | 'NOTES_DELETED' | 'NOTES_NOT_FAST_FORWARD' | 'NOTES_NOT_NOTES_COMMIT' | 'NOTE_DUPLICATE'
  | 'NOTE_REWRITTEN' | 'NOTE_REMOVED' | 'NOTES_REF_MULTIPLE' | 'CARRY_NOT_ALLOWED' | 'CARRY_MISMATCH'
  | 'NOTE_INTENT_MISMATCH' | 'INTENT_NOT_ALLOWED' | 'INTENT_NOT_ACTIVE' | 'UNGOVERNED'
  | 'NOTE_NOT_BROUGHT' | 'NOTE_NOT_ON_BRANCH' | 'IDENTITY_UNLISTED' | 'GATE_TIMEOUT';

/** Every code `intent gate` can refuse with. */
export type GateCode = AuthorityCode | Finding['code'];

/** What a refusal is about, for the one line that says what to do next. */
export interface NextContext {
  commit: string | null;
  ref: string | null;
  intent: string | null;
  /** The protected base branch, short (e.g. main). */
  base: string;
}

const RECORD = (c: NextContext) =>
  `re-record the note in the intent's worktree (git notes --ref=intents remove ${short(c.commit)}; intent repair), then push the branch with ${NOTES_REF}`;
const RESTORE = (c: NextContext) =>
  `keep the server's note: git fetch origin && git notes --ref=remotes/origin/intents show ${short(c.commit)} | git notes --ref=intents add -f -F - ${short(c.commit)}, then push ${NOTES_REF} again`;

const NEXT: Record<GateCode, (c: NextContext) => string> = {
  AUTHORITY_INVALID: (c) => `an administrator fixes .orchestration/authority.yaml on ${c.base}`,
  IDENTITY_REQUIRED: () => 'push through the server\'s authentication (it sets REMOTE_USER); in CI pass --pusher with the authenticated actor',
  GATE_TIMEOUT: (c) => `push fewer commits at a time (intent push after each few), or an administrator raises time_limit_seconds in .orchestration/authority.yaml on ${c.base}`,
  IDENTITY_UNLISTED: (c) => `an administrator lists the identity in .orchestration/authority.yaml on ${c.base}: under agents (with its intents) or humans`,
  REF_NOT_ALLOWED: () => `push only refs/heads/intent/<your intent> with refs/notes/intent/<your intent> (intent push does); ${NOTES_REF} is written by the server, and a human identity pushes other refs`,
  PROTECTED_DELETED: (c) => `protected branches are kept: push a new commit on ${c.ref ?? c.base} instead`,
  NOT_FAST_FORWARD: (c) => `protected history is append-only: git pull --no-rebase origin ${branchOf(c.ref) ?? c.base}, then push again`,
  NOTES_DELETED: () => `keep ${NOTES_REF}: push it, never delete it (intent sync merges it with the server's)`,
  NOTES_NOT_FAST_FORWARD: () => `push with intent push, which builds on the server's notes (intent sync fetches and merges them here)`,
  NOTES_NOT_NOTES_COMMIT: () => `${NOTES_REF} takes notes commits only: git fetch origin, reset it with git update-ref ${NOTES_REF} refs/notes/remotes/origin/intents, re-record your notes (intent repair) and push code on its branch`,
  NOTE_DUPLICATE: (c) => `keep one note for ${short(c.commit)}: git notes --ref=intents show ${short(c.commit)} > note.txt, keep one record in it, git notes --ref=intents add -f -F note.txt ${short(c.commit)}, then push ${NOTES_REF}`,
  NOTE_REWRITTEN: RESTORE,
  NOTE_REMOVED: RESTORE,
  NOTES_REF_MULTIPLE: () => `push one notes ref at a time: ${NOTES_REF} or refs/notes/intent/<ID> with its branch, the other in a second push (intent push does)`,
  CARRY_NOT_ALLOWED: (c) => `leave ${short(c.commit)}'s note to the server's post-receive or CI (intent carry), or have a human run intent carry and push ${NOTES_REF}`,
  CARRY_MISMATCH: (c) => `drop this note and let intent carry derive it: git notes --ref=intents remove ${short(c.commit)}; intent carry ${short(c.commit)} --from <the replaced commits>, then push ${NOTES_REF}`,
  NOTE_INTENT_MISMATCH: (c) => `keep only ${c.intent ?? 'this intent'}'s own commits on ${branchOf(c.ref) ?? 'its branch'}: git rebase -i origin/${c.base} there dropping the others, then push with --force-with-lease`,
  INTENT_NOT_ALLOWED: () => 'push only commits of the intents authority.yaml gives your identity',
  INTENT_NOT_ACTIVE: (c) => `a human marks ${c.intent ?? 'the intent'} IN_PROGRESS in .orchestration/active_intents.yaml on ${c.base} (intent checkout, commit, push ${c.base}), then push again; for an abandoned intent, drop its branch instead (git branch -D ${branchOf(c.ref) ?? 'intent/<ID>'})`,
  UNGOVERNED: () => 'commit in the intent\'s worktree so the hooks record a note (or intent repair), or have a human push it',
  NOTE_MISSING: (c) => `push the branch with its notes: intent push, from ${branchOf(c.ref) ?? 'the branch'}'s worktree (git notes --ref=intents list ${short(c.commit)} shows nothing? the commit was made with the hooks off: intent repair there first)`,
  NOTES_ABSENT: (c) => `push the branch with its notes: intent push, from ${branchOf(c.ref) ?? 'the branch'}'s worktree`,
  NOTE_NOT_BROUGHT: (c) => `push notes only with their commits (intent push builds that push); ${short(c.commit)}'s record reaches ${NOTES_REF} when its own branch is pushed, or when the server carries it`,
  NOTE_NOT_ON_BRANCH: (c) => `refs/notes/intent/<ID> takes notes of intent/<ID>'s own commits only: push ${short(c.commit)}'s note with the branch that holds it (intent push from that worktree)`,
  NOTE_UNPARSABLE: RECORD,
  NOTE_INVALID: RECORD,
  NOTE_MISPLACED: RECORD,
  SUMMARY_MISMATCH: RECORD,
  RANGE_MISMATCH: RECORD,
  HASH_MISMATCH: RECORD,
  FILES_MISMATCH: RECORD,
  SCOPE_VIOLATION: (c) => `take the change out of ${branchOf(c.ref) ?? 'the branch'} (git rebase -i origin/${c.base}), or have a human widen ${c.intent ?? 'the intent'}'s scope on ${c.base} (intent expand, intent approve, commit, push ${c.base}) and push again`,
  SCOPE_NOT_IN_REGISTRY: (c) => `commit .orchestration/active_intents.yaml on ${c.base} and push it, then re-record the note (git notes --ref=intents remove ${short(c.commit)}; intent repair) and push again`,
  LEDGER_BROKEN: () => 'intent repair rebuilds the ledger from the notes',
  LEDGER_MISMATCH: () => 'intent repair rebuilds the ledger from the notes',
  SHALLOW: () => 'fetch the whole history (git fetch --unshallow; actions/checkout: fetch-depth: 0)',
  BLOB_TOO_LARGE: (c) => `keep files this large out of governed commits (git LFS), or an administrator raises max_blob_bytes in .orchestration/authority.yaml on ${c.base}`,
};

/** The one line that says what to do about a finding with `code`. */
export function nextStep(code: GateCode, c: NextContext): string {
  return NEXT[code](c);
}

function branchOf(ref: string | null): string | null {
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}

function short(sha: string | null): string {
  return sha ? sha.slice(0, 12) : '<commit>';
}
