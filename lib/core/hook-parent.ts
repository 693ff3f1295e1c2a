import { readFileSync } from 'node:fs';
import { procStat } from './proc.js';
/**
 * The process a hook runs for: its parent, the hook's shell. A hook run by the hook server
 * (lib/hooks/server.ts) has the server as its parent; the server names the runner's shell instead.
 */
let parent: number | null = null;

/** The pid the hook's parent chain starts from (the runner's shell). */
export function hookParent(): number {
  return parent ?? process.ppid;
}

/** Set by the hook server for the request it serves; null puts back process.ppid. */
export function setHookParent(pid: number | null): void {
  parent = pid;
  gitProcess = undefined;
}

/** hookGitProcess's answer for the hook being run (undefined: not read yet); forgotten with the parent. */
let gitProcess: string | null | undefined;

/**
 * The command line of the git process a hook runs for (/proc: git → the hook's shell → node, or the
 * server, which names the shell), up to its `--`; null where there is no /proc or no git is found.
 */
export function hookGitArgv(): string[] | null {
  try {
    let pid = hookParent();
    for (let i = 0; i < 5 && pid > 1; i++) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
      if (/(^|\/)git$/.test(argv[0] ?? '')) {
        const end = argv.indexOf('--');
        return end === -1 ? argv : argv.slice(0, end);
      }
      pid = Number(procStat(pid)?.[1]);
    }
  } catch { /* no /proc: not known */ }
  return null;
}

/**
 * The git process the hook runs for, as `<pid> <start time>` (its start time tells it from a later
 * process given the same pid): the parent of the hook's shell. Null without /proc. Read once per
 * hook (the check asks for it twice: the record's marker and the main worktree's hooks).
 */
export function hookGitProcess(): string | null {
  if (gitProcess !== undefined) return gitProcess;
  const ppid = Number(procStat(hookParent())?.[1]);
  const start = ppid > 1 ? procStat(ppid)?.[19] : undefined;
  return (gitProcess = start ? `${ppid} ${start}` : null);
}
