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
import { closeSync, existsSync, fdatasync, linkSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
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

/**
 * By objects folder: the files ready, whether the folder was swept of those a killed process left,
 * and the file made ahead for the next ref lock (refFile: null while none is ready, `making`
 * while its bytes are being written to the disk).
 */
interface Pool {
  files: Ready[];
  swept: boolean;
  ref: string | null;
  making: boolean;
}

const pools = new Map<string, Pool>();

/** What a ref lock made ahead holds until it is taken: a placeholder id (the real one is written over it). */
export const REF_PLACEHOLDER = `${'0'.repeat(40)}\n`;

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
  // (A pool short of files, the first note's included, is filled a little later.)
  refillSoon();
  return poolOf(objectsDir).files.pop() ?? null;
}

/** How long after files were taken they are made again, when no answer's tidy-up came since. */
const REFILL_MS = 50;
let refill: NodeJS.Timeout | null = null;
/**
 * Files taken (or found missing) outside a hook's answer (a commit recorded as soon as git made
 * it, its post-commit not asking: lib/hooks/prefetch.ts) are made a little later too; the answer's
 * tidy-up (makeObjectFiles) usually comes first and this finds nothing to do.
 */
function refillSoon(): void {
  if (refill || leaving) return;
  refill = setTimeout(() => {
    refill = null;
    if (!leaving) makeObjectFiles();
  }, REFILL_MS);
  refill.unref();
}

function poolOf(objectsDir: string): Pool {
  let pool = pools.get(objectsDir);
  if (!pool) pools.set(objectsDir, (pool = { files: [], swept: false, ref: null, making: false }));
  return pool;
}

/**
 * A file made ahead for a ref's lock in the repository of `objectsDir` (the caller links it to
 * `<ref>.lock`, which takes the lock as an exclusive create does, removes this name, and writes the
 * id over the placeholder), or null (the caller creates the lock). Its bytes are on the disk
 * already: ext4 then has no delayed allocation to carry out when the lock is renamed over the ref
 * (auto_da_alloc writes a renamed file's new data back first: half a millisecond alone, one or two
 * while git writes too). Made at the next `makeObjectFiles` (resident only).
 */
export function takeRefFile(objectsDir: string): string | null {
  if (!isResident()) return null;
  const pool = poolOf(objectsDir);
  const ref = pool.ref;
  pool.ref = null;
  refillSoon();
  return ref;
}

/**
 * Makes the files the repositories that took some need again, and frees the ref files replaced
 * since (the hook server, once a hook has its answer).
 */
export function makeObjectFiles(): void {
  releaseReplaced();
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
      if (!pool.ref && !pool.making) makeRefFile(folder, pool);
    } catch {
      // Not made (a read-only repository, a folder gone): the objects are created in place.
    }
  }
}

/** Makes the next ref lock's file: written, then its data synced (in the background) before it is offered. */
function makeRefFile(folder: string, pool: Pool): void {
  const path = join(folder, `tmp_ref_${process.pid}_${Date.now()}_${made++}`);
  // git's mode for a ref file (the umask applies).
  const fd = openSync(path, 'wx', 0o666);
  pool.making = true;
  try {
    writeSync(fd, REF_PLACEHOLDER);
  } catch {
    closeSync(fd);
    rmSync(path, { force: true });
    pool.making = false;
    return;
  }
  fdatasync(fd, (err) => {
    closeSync(fd);
    pool.making = false;
    if (err || leaving || !existsSync(folder)) rmSync(path, { force: true });
    else pool.ref = path;
  });
}

/** Whether a ref lock's file made ahead is ready for the repository of `objectsDir` (for the tests). */
export function refFileReady(objectsDir: string): boolean {
  return !!pools.get(objectsDir)?.ref;
}

/** Set once the process is leaving: nothing made ahead is offered any more. */
let leaving = false;

/** Second names given to replaced ref files (keepReplaced), removed at the next `makeObjectFiles`. */
const replaced: string[] = [];

/**
 * Gives the ref file `refFile` of the repository of `objectsDir` a second name in the folder,
 * just before a lock is renamed over it (resident only; nothing when it cannot). Renaming over a
 * file whose inode then has no name left frees its data on the spot (a quarter of a millisecond,
 * and one or two while its bytes are still being written back); with a second name, the rename
 * only moves a name, and the inode is freed when that name goes, later, when nothing waits.
 */
export function keepReplaced(objectsDir: string, refFile: string): void {
  if (!isResident() || leaving) return;
  const path = join(folderOf(objectsDir), `old_ref_${process.pid}_${Date.now()}_${made++}`);
  try {
    linkSync(refFile, path);
    replaced.push(path);
  } catch { /* none there yet, or no folder: the rename frees it */ }
}

function releaseReplaced(): void {
  for (const path of replaced.splice(0)) rmSync(path, { force: true });
}

/** Closes and removes every file made ahead (the process is leaving). */
export function dropObjectFiles(): void {
  leaving = true;
  if (refill) clearTimeout(refill);
  refill = null;
  releaseReplaced();
  for (const pool of pools.values()) {
    if (pool.ref) rmSync(pool.ref, { force: true });
    pool.ref = null;
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
    const pid = Number(/^(?:tmp_obj|tmp_ref|old_ref)_([0-9]+)_/.exec(name)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(folder, name), { force: true });
  }
}

