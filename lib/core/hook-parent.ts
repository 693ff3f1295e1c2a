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
}
