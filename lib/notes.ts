import { git } from './git.js';
import { NOTES_REF } from './version.js';

/**
 * Attaches `text` as the note of `sha` on refs/notes/intents, replacing any note there. The
 * caller holds the notes lock: parallel `git notes add` on one ref silently loses notes.
 */
export function writeNote(cwd: string, sha: string, text: string): void {
  git(['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', '-', sha], { cwd, input: text });
}

/** The note of `sha`, or null when it has none. */
export function readNote(cwd: string, sha: string): string | null {
  try {
    return git(['notes', `--ref=${NOTES_REF}`, 'show', sha], { cwd });
  } catch {
    return null;
  }
}
