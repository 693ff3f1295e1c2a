// Node builds its store of root certificates at start-up whenever NODE_EXTRA_CA_CERTS is set: about
// 70 ms on a 2-core machine, more than the rest of node's start-up. The hooks make no TLS
// connection, so their runner (git-hooks/runner.sh) starts node with the variable parked under
// another name; the entry puts it back, for the processes the hook starts (git, the repository's
// own hooks), and parks it again for a node child that makes no TLS connection either.

/** Where the runner keeps NODE_EXTRA_CA_CERTS while a hook's node starts. */
export const PARKED_CA_CERTS = 'INTENT_NODE_EXTRA_CA_CERTS';

/** Puts back a NODE_EXTRA_CA_CERTS the runner parked (in place). */
export function unparkCaCerts(env: NodeJS.ProcessEnv): void {
  const parked = env[PARKED_CA_CERTS];
  delete env[PARKED_CA_CERTS];
  if (parked !== undefined) env.NODE_EXTRA_CA_CERTS = parked;
}

/** A copy of `env` for a node child that makes no TLS connection: NODE_EXTRA_CA_CERTS parked. */
export function parkCaCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out[PARKED_CA_CERTS];
  if (out.NODE_EXTRA_CA_CERTS !== undefined) {
    out[PARKED_CA_CERTS] = out.NODE_EXTRA_CA_CERTS;
    delete out.NODE_EXTRA_CA_CERTS;
  }
  return out;
}
