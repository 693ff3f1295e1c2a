/**
 * trace: the audit trail. The Agent Trace record and its hashes (record, hashing), which model or
 * human wrote each line and how that survives rewrites (line-credit, credit-carry), recording a
 * commit as a note plus a ledger line (record-commit, ledger), and what reads the trail back:
 * verify, repair, sync of the notes between clones, blame by content hash (whole recorded ranges
 * and, block-credit, runs of one that moved without its boundaries), the intent map, and carry:
 * records for the commits a host's squash, rebase or merge made, derived from the ones they replace.
 * Imports: core, git, intents, mutation.
 */
export { blame } from './blame.js';
export { carry, checkCarried, type CarryResult } from './carry.js';
export { buildMap, renderMap, writeMap } from './map.js';
export { foldNotes, INTENT_NOTES_PREFIX, type FoldResult } from './notes-fold.js';
export { intentNotesRef, pushIntent, type NotesMode, type PushResult } from './push.js';
export { repair } from './repair.js';
export { syncNotes } from './sync.js';
export { verify } from './verify.js';
