/**
 * Where the suite's temporary folders go. Nearly every test builds git repositories and worktrees
 * in `os.tmpdir()` and removes them afterwards; on a disk file system creating and removing small
 * files is most of the kernel's part of the suite (on the 2-core machine of BENCHMARKS.md, ext4:
 * `cp -a` of a governed repository with its worktree 113 ms of system time against 13 ms on tmpfs,
 * `git init` + one commit 90 ms against 9 ms; the whole suite 248 s of system time against 148 s).
 * What a test asserts does not depend on the file system: the folders only hold the repositories
 * under test. The benchmarks (bench/) keep their repositories on disk, where users have theirs.
 *
 * So `vitest.config.ts` gives the run (and, by inheritance, every process it starts) a private
 * TMPDIR: the folder INTENT_TEST_TMPDIR names, when set (kept afterwards); otherwise a new folder
 * in /dev/shm when that is a tmpfs with at least MIN_FREE bytes free (removed by the global
 * teardown, with whatever a test left there); otherwise TMPDIR stays as it is.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { removeTree } from './remove-tree.js';

const SHM = '/dev/shm';
const PREFIX = 'intent-tmp-';
/** Room to spare for the suite's repositories; a small /dev/shm (Docker's default is 64 MB) is not used. */
const MIN_FREE = 2 * 1024 ** 3;

export interface TempRoot {
  dir: string;
  /** Whether the run made it (and so removes it when it ends). */
  made: boolean;
}

/** The folder the run's TMPDIR should be, or null to leave TMPDIR alone. */
export function chooseTempRoot(env: NodeJS.ProcessEnv): TempRoot | null {
  const given = env.INTENT_TEST_TMPDIR;
  if (given) {
    if (!existsSync(given)) throw new Error(`INTENT_TEST_TMPDIR names ${given}, which does not exist: create it or unset INTENT_TEST_TMPDIR.`);
    return { dir: realpathSync(given), made: false };
  }
  if (!isRoomyTmpfs(SHM)) return null;
  removeStale();
  // The pid in the name lets a later run remove what a killed run left (removeStale).
  return { dir: realpathSync(mkdtempSync(join(SHM, `${PREFIX}${process.pid}-`))), made: true };
}

function isRoomyTmpfs(dir: string): boolean {
  try {
    const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' '));
    if (!mounts.some((m) => m[1] === dir && m[2] === 'tmpfs')) return false;
    const s = statfsSync(dir);
    return s.bavail * s.bsize >= MIN_FREE;
  } catch {
    return false;
  }
}

/** Removes the folders of earlier runs whose process is gone (a run killed before its teardown). */
function removeStale(): void {
  let names: string[];
  try {
    names = readdirSync(SHM);
  } catch {
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!m || existsSync(`/proc/${m[1]}`)) continue;
    removeTree(join(SHM, name));
  }
}
