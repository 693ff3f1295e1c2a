#!/bin/sh
# intent: a hook of intent worktrees. `intent checkout` points each intent worktree's
# core.hooksPath at this folder, inside the git dir where the agent's worktree cannot edit it.
# It checks that this folder still holds intent's hooks (an installer run in the worktree, such as
# `lefthook install`, writes here), runs intent's hook when intent has one of this name, then the
# repository's own hook, found when it runs: the core.hooksPath the main worktree uses. A hook
# intent has none of here (pre-commit and commit-msg among them: prepare-commit-msg makes their
# checks) is here only while the repository's own folder has it (see below).
hook=@HOOK@
dir=@DIR@
common=@COMMON@
main=@MAIN@
runner="$common/intent/bin/hook"
intent_ref="$common/intent/hooks.ref"
intent_bad=
for h in @KEPT@; do
  if [ ! "$dir/$h" -ef "$intent_ref/$h" ]; then intent_bad=1; break; fi
done
# The hooks intent has none of are here only while the repository's own hooks folder has them
# (lib/hooks/worktree-hooks.ts): absent is as it should be (no hook process for an index git writes,
# in every `git add` and commit), present must be ours. intent_have: those here.
intent_have=
for h in @CHAIN_ONLY@; do
  if [ -e "$dir/$h" ] || [ -h "$dir/$h" ]; then
    if [ "$dir/$h" -ef "$intent_ref/$h" ]; then intent_have="$intent_have $h"; else intent_bad=1; fi
  fi
done
# (reference-transaction, the guard, in state prepared: prepare-commit-msg's bytes too.)
@GUARD@if [ -n "$intent_bad" ]; then
  if [ ! -x "$runner" ]; then
    echo "intent: the hooks of intent worktrees were changed and $runner is missing; run \`intent init\` in the main worktree. Blocking." >&2
    exit 1
  fi
  @RESTORE@
fi
# intent_plan: what to pass on to, decided with builtins (and git when the cache does not hold); run
# by the runner while it waits for the hook server's answer (intent_while), else below.
intent_plan() {
  # The repository's own hooks folder: from the chain cache when it holds (lib/hooks/chain-cache.ts:
  # builtins only, no process), else from git. The cache also names the hooks there that are only
  # intent's block (nothing to chain).
  # Settings given on the command line (`git -c`, GIT_CONFIG_COUNT/KEY/VALUE) that name hooksPath or
  # an include: asked of git, as they decide.
  orig= intent_ok= intent_skip= intent_cmd=
  case ${GIT_CONFIG_PARAMETERS:-} in *[Hh][Oo][Oo][Kk][Ss][Pp][Aa][Tt][Hh]* | *[Ii][Nn][Cc][Ll][Uu][Dd][Ee]*) intent_cmd=1 ;; esac
  intent_i=0
  while [ -z "$intent_cmd" ] && [ -n "${GIT_CONFIG_COUNT:-}" ]; do
    case $GIT_CONFIG_COUNT in *[!0-9]* | ?????*) intent_cmd=1; break ;; esac
    [ "$intent_i" -lt "$GIT_CONFIG_COUNT" ] || break
    eval "intent_key=\${GIT_CONFIG_KEY_$intent_i:-}"
    case $intent_key in *[Hh][Oo][Oo][Kk][Ss][Pp][Aa][Tt][Hh]* | *[Ii][Nn][Cc][Ll][Uu][Dd][Ee]*) intent_cmd=1 ;; esac
    intent_i=$((intent_i + 1))
  done
  intent_cache="$common/intent/hooks-chain.sh"
  if [ -z "$intent_cmd" ] && [ -f "$intent_cache" ]; then
    # Sourced (read in blocks; lib/hooks/chain-cache.ts writes it): sets intent_v=2, intent_k, orig
    # and intent_skip, and empties intent_v when a file it depends on is as new as it.
    intent_v= intent_k=
    . "$intent_cache"
    if [ "$intent_v" = 2 ] && [ "$intent_k" = "${GIT_CONFIG_GLOBAL:-}|${GIT_CONFIG_SYSTEM:-}|${GIT_CONFIG_NOSYSTEM:-}|${HOME:-}|${XDG_CONFIG_HOME:-}" ]; then
      intent_ok=1
    fi
  fi
  if [ -z "$intent_ok" ]; then
    orig= intent_skip=
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
  fi
  # Those hooks intent has none of: here exactly when the repository's folder has them, executable
  # (pre-commit and commit-msg, which `intent init` puts there: and more than intent's block, which
  # the chain cache names; without the cache that is not known here, and they are left as they are).
  # Builtins only; when a team has added or removed one since (rare), the runner adds or removes
  # ours (below): from this hook on, git runs the repository's hook in intent worktrees, or no longer.
  intent_sync=
  if [ -z "$intent_cmd" ] && [ "$orig" != "$dir" ]; then
    for h in @CHAIN_ONLY@; do
      intent_there=
      if [ -x "$orig/$h" ]; then intent_there=1; fi
      case $h in
        @REPO_ONLY@)
          [ -n "$intent_ok" ] || continue
          case " $intent_skip " in *" $h "*) intent_there= ;; esac
          ;;
      esac
      case " $intent_have " in *" $h "*) [ -n "$intent_there" ] && continue ;; *) [ -z "$intent_there" ] && continue ;; esac
      intent_sync=$h
      break
    done
  fi
  intent_planned=1
}
if @OURS@; then
  if [ ! -x "$runner" ]; then
    echo "intent: $runner is missing; run \`intent init\` in the main worktree. Blocking." >&2
    exit 1
  fi
  # The runner, sourced: its intent_hook_run runs in this shell (no runner process per hook).
  # Sourced only when a hook of intent's runs (prepare-commit-msg after pre-commit, commit-msg
  # without a claim: nothing to do, and the shell parses the runner in about 0.2 ms); its
  # intent_hook_run replaces this one (a runner that defines none: not found, the hook fails).
  intent_lib=1 intent_srv="$common/intent/server" intent_while=intent_plan
  intent_hook_run() {
    unset -f intent_hook_run
    . "$runner" || exit 1
    intent_hook_run "$@"
  }
  @RUN@
fi
# Planned while the server worked, from a chain cache that did not hold then: the check may have
# brought it up to date meanwhile (lib/hooks/pre-commit.ts), so once more.
if [ -z "${intent_planned:-}" ] || { [ -z "$intent_ok" ] && [ -z "$intent_cmd" ]; }; then intent_plan; fi
if [ -n "$intent_sync" ]; then
  if [ -x "$runner" ]; then
    # (It fails only for a commit the repository's new pre-commit should have run for: refused once.)
    "$runner" sync-worktree-hooks "$hook" </dev/null || exit $?
  else
    echo "intent: $orig/$intent_sync was added or removed and $runner is missing: intent worktrees do not follow it; run \`intent init\` in the main worktree." >&2
  fi
fi
case " $intent_skip " in *" $hook "*) exit 0 ;; esac
if [ "$orig" != "$dir" ] && [ -x "$orig/$hook" ]; then
  n=${GIT_CONFIG_COUNT:-0}
  export "GIT_CONFIG_KEY_$n=core.hooksPath" "GIT_CONFIG_VALUE_$n=$orig" "GIT_CONFIG_COUNT=$((n + 1))"
  INTENT_CHAINED=1 exec "$orig/$hook" "$@"
fi
