/**
 * Files made ahead for the loose objects a resident process (the hook server) writes on a commit's
 * path: the note's blob, trees and commit. Creating a file there, while git is renaming its index
 * and moving the branch, took about a third of a millisecond each; one made earlier, when nothing
 * waits, is only written and renamed into place (`objects/xx/…`) then. Each is created exclusively
 * with git's mode for a loose object (0444), kept open for writing, in the repository's own
 * `intent/object-files/` (the same file system as `objects/`; a rename that cannot cross answers
 * EXDEV and the caller creates the file in place, as before). Files a killed process left are
 * removed by the next one. Only in a resident process: elsewhere nothing is made ahead.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { processAlive } from '../core/lock.js';
import { isResident } from '../core/resident.js';

/** How many files each repository keeps ready: a note in a fanned-out tree writes four objects. */
const READY = 4;

interface Ready {
  fd: number;
  path: string;
}

let made = 0;

/** By objects folder: the files ready, and whether the folder was swept of those a killed process left. */
const pools = new Map<string, { files: Ready[]; swept: boolean }>();

function folderOf(objectsDir: string): string {
  return join(dirname(objectsDir), 'intent', 'object-files');
}

/**
 * A file made ahead for a loose object of `objectsDir`, open for writing (the caller writes,
 * closes and renames it), or null: none ready (the caller creates one). Asks for files to be
 * made, in a resident process, at the next `makeObjectFiles`.
 */
export function takeObjectFile(objectsDir: string): Ready | null {
  if (!isResident()) return null;
  let pool = pools.get(objectsDir);
  if (!pool) pools.set(objectsDir, (pool = { files: [], swept: false }));
  return pool.files.pop() ?? null;
}

/** Makes the files the repositories that took some need again (the hook server, once a hook has its answer). */
export function makeObjectFiles(): void {
  for (const [objectsDir, pool] of pools) {
    if (pool.files.length >= READY) continue;
    const folder = folderOf(objectsDir);
    try {
      // Not the state folder itself: one that uninstall removed stays removed.
      if (!existsSync(folder)) mkdirSync(folder);
      if (!pool.swept) {
        sweep(folder);
        pool.swept = true;
      }
      while (pool.files.length < READY) {
        const path = join(folder, `tmp_obj_${process.pid}_${Date.now()}_${made++}`);
        pool.files.push({ fd: openSync(path, 'wx', 0o444), path });
      }
    } catch {
      // Not made (a read-only repository, a folder gone): the objects are created in place.
    }
  }
}

/** Closes and removes every file made ahead (the process is leaving). */
export function dropObjectFiles(): void {
  for (const pool of pools.values()) {
    for (const f of pool.files.splice(0)) {
      try {
        closeSync(f.fd);
      } catch { /* closed */ }
      rmSync(f.path, { force: true });
    }
  }
}

/** Removes the files of processes that are gone (killed before they could). */
function sweep(folder: string): void {
  for (const name of readdirSync(folder)) {
    const pid = Number(/^tmp_obj_([0-9]+)_/.exec(name)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(folder, name), { force: true });
  }
}

