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
exec "$node" "$entry" "$@"
