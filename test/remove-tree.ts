import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';

/**
 * Removes a test's temporary folder. A hook's background process may still run there when the
 * test ends (a hook server): when
 * the folder does not go at once, the processes that run in it or name it are stopped first.
 */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    stopProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

/** SIGKILLs the processes (not this one) whose working folder is in `dir` or whose command line names it. */
export function stopProcessesIn(dir: string): number[] {
  const stopped: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(p) || Number(p) === process.pid) continue;
    try {
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${p}/cwd`);
      } catch { /* another user's */ }
      if (cwd === dir || cwd.startsWith(`${dir}/`) || readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir)) {
        process.kill(Number(p), 'SIGKILL');
        stopped.push(Number(p));
      }
    } catch { /* gone */ }
  }
  return stopped;
}
