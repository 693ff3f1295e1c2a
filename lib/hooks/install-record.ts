/**
 * The install record, `<git-common-dir>/intent/install.json`: every hook file intent changed and
 * what was there before (a copy of an edited file's bytes and mode, or where a chained original was
 * moved), the git config it set and the files `intent init` created in the work tree. `intent
 * uninstall` restores from it byte for byte; the health check compares the hooks against it.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import type { Repo } from '../git/repo.js';

/** One hook file intent wrote. */
export interface HookRecord {
  hook: string;
  /** Absolute path of the file. */
  file: string;
  /** created: there was no file; inserted: our block went into the user's shell hook; chained: the original was moved to `chainedTo`. */
  action: 'created' | 'inserted' | 'chained';
  /** sha256 of the bytes intent wrote. */
  written: string;
  /** Size and mtime after writing: the health check's stat-only comparison. */
  size: number;
  mtimeMs: number;
  /** inserted: name of the copy of the original bytes in `<state>/originals/`, and its permission bits. */
  backup?: string;
  mode?: number;
  /** chained: where the original (bytes, mode, symlink) now is. */
  chainedTo?: string;
}

/** What `intent init` and `intent checkout` changed outside the hook files. */
export interface ConfigRecord {
  /** Values intent added to notes.rewriteRef. */
  rewriteRef: string[];
  /** `remote.<name>.fetch` values intent added. */
  fetch: { key: string; value: string }[];
  /** Whether intent turned extensions.worktreeConfig on. */
  worktreeConfig: boolean;
  /** The `notes.<ref>.mergeStrategy` key intent set (absent when the user had set it). */
  mergeStrategy?: { key: string; value: string };
}

export interface InstallRecord {
  version: 1;
  /** The main worktree, where hooks paths are resolved. */
  mainRoot: string;
  /** The folder holding intent's hook files (husky: `.husky`). */
  hooksDir: string;
  /** The folder git runs hooks from (husky: `.husky/_`). */
  runDir: string;
  /** Size and mtime of `<common-dir>/config` when `runDir` was last resolved. */
  configSig: { size: number; mtimeMs: number } | null;
  /** Every hook file intent wrote and has not restored, by absolute path. */
  hooks: Record<string, HookRecord>;
  config: ConfigRecord;
  /** Work-tree files `intent init` created (repository-relative). */
  created: string[];
  /** Agent config files `intent init --agent` wrote or merged its entries into (repository-relative). */
  agentFiles?: string[];
}

/** Path of the install record. */
export function recordFile(commonDir: string): string {
  return join(commonDir, 'intent', 'install.json');
}

/** Folder of the copies of edited hooks' original bytes. */
export function originalsDir(commonDir: string): string {
  return join(commonDir, 'intent', 'originals');
}

/** The install record, or null when there is none (never installed, or uninstalled, or unreadable). */
export function readRecord(commonDir: string): InstallRecord | null {
  try {
    const r = JSON.parse(readFileSync(recordFile(commonDir), 'utf8')) as InstallRecord;
    return r && r.version === 1 && r.hooks && r.config ? r : null;
  } catch {
    return null;
  }
}

/** The record to update: the existing one, or an empty one for `repo`. */
export function loadRecord(repo: Repo): InstallRecord {
  return readRecord(repo.commonDir) ?? {
    version: 1,
    mainRoot: repo.mainRoot,
    hooksDir: '',
    runDir: '',
    configSig: null,
    hooks: {},
    config: { rewriteRef: [], fetch: [], worktreeConfig: false },
    created: [],
  };
}

export function saveRecord(commonDir: string, record: InstallRecord): void {
  mkdirSync(join(commonDir, 'intent'), { recursive: true });
  writeFileAtomic(recordFile(commonDir), JSON.stringify(record, null, 2) + '\n');
}

/** Size and mtime of a file, or null when it is missing. */
export function sigOf(file: string): { size: number; mtimeMs: number } | null {
  const st = statSync(file, { throwIfNoEntry: false });
  return st ? { size: st.size, mtimeMs: st.mtimeMs } : null;
}
