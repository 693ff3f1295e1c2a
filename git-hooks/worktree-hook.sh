#!/bin/sh
# intent: a hook of intent worktrees. `intent checkout` points each intent worktree's
# core.hooksPath at this folder, inside the git dir where the agent's worktree cannot edit it.
# It checks that this folder still holds intent's hooks (an installer run in the worktree, such as
# `lefthook install`, writes here), runs intent's hook when intent has one of this name, then the
# repository's own hook, found when it runs: the core.hooksPath the main worktree uses.
hook=@HOOK@
dir=@DIR@
common=@COMMON@
main=@MAIN@
runner="$common/intent/bin/hook"
for h in @ALL@; do
  if [ ! "$dir/$h" -ef "$common/intent/hooks.ref/$h" ]; then
    if [ ! -x "$runner" ]; then
      echo "intent: the hooks of intent worktrees were changed and $runner is missing; run \`intent init\` in the main worktree. Blocking." >&2
      exit 1
    fi
    "$runner" restore-worktree-hooks "$hook" || exit $?
    break
  fi
done
if @OURS@; then
  if [ ! -x "$runner" ]; then
    echo "intent: $runner is missing; run \`intent init\` in the main worktree. Blocking." >&2
    exit 1
  fi
  @RUN@
fi
orig=
while IFS= read -r line; do
  case $line in worktree*) ;; *) orig=${line#*	} ;; esac
done <<INTENT_EOF
$(git config --show-scope --type=path --get-all core.hooksPath 2>/dev/null)
INTENT_EOF
case $orig in
  '') orig="$common/hooks" ;;
  /*) ;;
  *) orig="$main/$orig" ;;
esac
if [ "$orig" != "$dir" ] && [ -x "$orig/$hook" ]; then
  n=${GIT_CONFIG_COUNT:-0}
  export "GIT_CONFIG_KEY_$n=core.hooksPath" "GIT_CONFIG_VALUE_$n=$orig" "GIT_CONFIG_COUNT=$((n + 1))"
  INTENT_CHAINED=1 exec "$orig/$hook" "$@"
fi
