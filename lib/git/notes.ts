import { git } from './process.js';
import { NOTES_REF } from '../core/version.js';

/**
 * How long a note write waits for git's lock on the notes ref. Our own writers are serialised by
 * the record lock; this covers a git process that outlives its caller (a hook killed while its
 * `git notes add` runs: the next writer would otherwise fail on `refs/notes/intents.lock`).
 */
export const NOTES_LOCK_TIMEOUT = ['-c', 'core.filesRefLockTimeout=10000', '-c', 'core.packedRefsTimeout=10000'];

/**
 * Attaches `text` as the note of `sha` on refs/notes/intents, replacing any note there. The
 * caller holds the notes lock: parallel `git notes add` on one ref silently loses notes.
 */
export function writeNote(cwd: string, sha: string, text: string): void {
  git([...NOTES_LOCK_TIMEOUT, 'notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', '-', sha], { cwd, input: text });
}

/** The note of `sha`, or null when it has none. */
export function readNote(cwd: string, sha: string): string | null {
  try {
    return git(['notes', `--ref=${NOTES_REF}`, 'show', sha], { cwd });
  } catch {
    return null;
  }
}
