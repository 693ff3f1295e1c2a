#!/bin/sh
# intent: a hook of intent worktrees. `intent checkout` points each intent worktree's
# core.hooksPath at this folder, inside the git dir where the agent's worktree cannot edit it.
# It runs intent's hook (when intent has one of this name), then the repository's own hook.
hook=@HOOK@
runner=@RUNNER@
if @OURS@; then
  if [ ! -x "$runner" ]; then
    echo "intent: $runner is missing; run \`intent init\` in the main worktree. Blocking." >&2
    exit 1
  fi
  @RUN@
fi
orig=@ORIG@/$hook
if [ -x "$orig" ]; then INTENT_CHAINED=1 exec "$orig" "$@"; fi
