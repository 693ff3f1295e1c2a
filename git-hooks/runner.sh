#!/bin/sh
# intent hook runner, written by `intent init` into <git-common-dir>/intent/bin/ (`hook` for the
# git hooks, `agent` for the agents' hook programs); it runs intent's entry point with the Node.js
# and the package that ran `intent init`, so hooks work when `intent` is not on PATH.
node=@NODE@
entry=@ENTRY@
if [ ! -x "$node" ]; then
  echo "intent: the Node.js that ran \`intent init\` ($node) is gone. Re-run \`intent init\` with the Node.js you use now." >&2
  exit 1
fi
if [ ! -f "$entry" ]; then
  echo "intent: the hook program $entry is missing (package moved or removed?). Re-run \`intent init\`." >&2
  exit 1
fi
# Node builds its store of root certificates at start-up whenever NODE_EXTRA_CA_CERTS is set (about
# 70 ms on a 2-core machine, more than the rest of node's start-up). intent's hooks make no TLS
# connection: their node starts without it, and the entry puts it back for the processes it
# starts (git, the repository's own hooks).
if [ -n "${NODE_EXTRA_CA_CERTS+set}" ]; then
  INTENT_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export INTENT_NODE_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
else
  unset INTENT_NODE_EXTRA_CA_CERTS
fi
exec "$node" "$entry" "$@"
