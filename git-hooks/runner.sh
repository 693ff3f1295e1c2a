#!/bin/sh
# intent hook runner, written by `intent init` into <git-common-dir>/intent/bin/ (`hook` for the
# git hooks, `agent` for the agents' hook programs); it runs intent's entry point with the Node.js
# and the package that ran `intent init`, so hooks work when `intent` is not on PATH. Run as a program
# (`hook <name> [args]`: the main worktree's hooks, the agents' hook programs), or sourced with
# intent_lib set (the intent worktrees' hooks, git-hooks/worktree-hook.sh), which then call
# `intent_hook_run <name> [args]` in their own shell: no runner process per hook.
node=@NODE@
entry=@ENTRY@
# Runs the hook in its own node (no server answered): asks for a server when one was looked for.
intent_exec_node() {
  if [ -n "$intent_start" ]; then
    INTENT_START_SERVER=$intent_start INTENT_SERVER_TAG="$node|$entry"
    export INTENT_START_SERVER INTENT_SERVER_TAG
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
}

# intent_stopped <pid>: whether process <pid> is stopped (SIGSTOP, a debugger: state T or t), from
# the State line of /proc/<pid>/status (the shell's read takes a byte a call: a few dozen bytes
# there, some 300 to field 3 of /proc/<pid>/stat).
intent_stopped() {
  {
    while IFS= read -r intent_l; do
      case $intent_l in State:?[Tt]' '*) return 0 ;; State:*) return 1 ;; esac
    done <"/proc/$1/status"
  } 2>/dev/null
  return 1
}

# The watch (intent_hook_run, below), run in the background while a runner waits for the server:
# answers `x 0` or `- 0` on descriptor 5, a writer of the reply channel the runner reads.
intent_watch() {
  n=0 c=0 intent_sp=
  # Stopped (the runner has its answer and kills us): our sleep goes too, at once, and is reaped.
  # A sleep left to end its second would hold every descriptor the hook inherited (a caller that
  # reads a pipe it passed to git until end of file would wait for it).
  trap 'if [ -n "$intent_sp" ]; then kill "$intent_sp" 2>/dev/null; wait "$intent_sp" 2>/dev/null; fi; exit 0' TERM
  while [ -e "/proc/$intent_pid/fd/$intent_fd" ]; do
    # (The runner found it not stopped a moment before it started us: from the second look on.)
    if [ $n -gt 0 ] && intent_stopped "$intent_pid"; then rm -f "$srv/r.$$"; echo 'x 0' >&5; return; fi
    if [ -e "$srv/r.$$" ]; then
      if [ $n -ge 3 ] && rm "$srv/r.$$" 2>/dev/null; then echo 'x 0' >&5; return; fi
    elif [ $c -ge 5 ]; then
      echo 'x 0' >&5
      return
    else
      c=$((c + 1))
    fi
    # (In the C locale: sleep then reads no locale files as it starts, about a quarter of its start-up.)
    LC_ALL=C sleep 1 5>&- &
    intent_sp=$!
    wait "$intent_sp"
    intent_sp=
    n=$((n + 1))
  done
  echo '- 0' >&5
}

# intent_ask: starts the watch (writing into descriptor 4 through /proc/self/fd/4: the same pipe
# or FIFO), sends the request `$intent_req` (and the watch's pid, for a server of the pipe
# protocol) and reads the answer from descriptor 4, the reply channel; sets intent_code.
intent_ask() {
  intent_wpid=
  { (intent_watch) </dev/null >/dev/null 2>&1 4<&- & intent_wpid=$!; } 5>/proc/self/fd/4
  if [ -n "$intent_wpid" ] && printf '%s\n' "$intent_req${intent_asked:+ $intent_wpid}" 1<>"$srv/in"; then
    # While the server works: what the hook that sourced us has to do after the answer (an
    # intent worktree's hook decides what it passes on to: git-hooks/worktree-hook.sh). Descriptor
    # 4 stays open meanwhile: the server opens it through /proc to answer.
    if [ -n "${intent_while:-}" ]; then
      $intent_while
      intent_while=
    fi
    read -r intent_code intent_n <&4 || intent_code=-
    case $intent_n in '' | *[!0-9]*) intent_code=- ;; 0) ;; *) head -c "$intent_n" <&4 >&2 ;; esac
  fi
  # Stopped and waited for (it stops its sleep first): nothing of ours outlives the hook.
  if [ -n "$intent_wpid" ]; then kill "$intent_wpid" 2>/dev/null && wait "$intent_wpid" 2>/dev/null; fi
  :
}

# intent_ask_pipe <hook> [args]: asks a server that answers into a pipe (pid file's 4th line `2`),
# descriptor 4 being a here-document of one line: a pipe in dash, busybox ash and bash 5.1 or
# later (no process, no file). The claim token is a plain file, `r.<our pid>`, made by a redirection; the
# request names our watch, a child of ours, so a request left by a runner that is gone (its watch
# no longer our child) is never answered into another process that got its pid. Not a pipe (an
# older bash), or not run in the process `$$` names (a subshell): asks nothing, the FIFO below does.
# The watch's `sleep` and `rm` and the stderr's `head` must be there (a PATH of only git and sh:
# a watch without `sleep` would give up at once, and the hook run twice), as the FIFO needs `mkfifo`.
intent_ask_pipe() {
  [ -p /proc/self/fd/4 ] && [ /proc/self -ef "/proc/$$" ] || return 0
  { command -v sleep && command -v rm && command -v head; } >/dev/null 2>&1 || return 0
  # The here-document's one line (bash makes an empty one /dev/null), read first.
  read -r intent_l <&4 || return 0
  { : 1<>"$srv/r.$$"; } 2>/dev/null || return 0
  intent_asked=1
  intent_req="$$ $(($# - 1)) $1"
  intent_ask
}

# intent_recorded: whether the server has recorded the commit git (our parent) has just made, with
# nothing to say: it leaves `done.<git's pid>` in its folder holding the commit's id
# (lib/hooks/prefetch.ts), a file of our own user, and HEAD (GIT_DIR's, read as git wrote it: the
# commit's id, or a branch's loose ref) is that commit. Builtins only.
intent_recorded() {
  intent_m= intent_h=
  [ -O "$srv/done.$PPID" ] || return 1
  { read -r intent_m <"$srv/done.$PPID" && read -r intent_h <"${GIT_DIR:-.git}/HEAD"; } 2>/dev/null || return 1
  case $intent_h in
    'ref: refs/heads/'*) { read -r intent_h <"$srv/../../${intent_h#ref: }"; } 2>/dev/null || return 1 ;;
  esac
  [ -n "$intent_m" ] && [ "$intent_m" = "$intent_h" ]
}

# intent_hook_run <hook> [args]: runs intent's hook; returns its exit status.
intent_hook_run() {
  intent_start=
  if [ ! -x "$node" ]; then
    echo "intent: the Node.js that ran \`intent init\` ($node) is gone. Re-run \`intent init\` with the Node.js you use now." >&2
    return 1
  fi
  if [ ! -f "$entry" ]; then
    # A rebuild renames the new dist/bin/ into place (scripts/bundle.mjs): the program is missing
    # only between two renames. Look again for up to about 2 s before giving up.
    intent_try=0
    while [ ! -f "$entry" ] && [ $intent_try -lt 20 ]; do
      sleep 0.1 2>/dev/null || sleep 1
      intent_try=$((intent_try + 1))
    done
  fi
  if [ ! -f "$entry" ]; then
    case $1 in
      post-commit | post-merge | post-rewrite | post-checkout)
        echo "intent: WARNING: the hook program $entry is missing (package moved, removed or being rebuilt): this $1 hook did NOT run; the commit has no trace note. Rebuild or reinstall the package (or re-run \`intent init\` with the one you use now), then \`intent repair\` records it (\`intent verify\` reports commits without a note)." >&2
        return 0
        ;;
    esac
    echo "intent: the hook program $entry is missing (package moved, removed or being rebuilt): $1 refused, nothing was committed. Rebuild or reinstall the package (npm run build in it), or re-run \`intent init\` with the one you use now, then commit again." >&2
    return 1
  fi
  # The per-commit hooks go to the repository's hook server when one runs (lib/hooks/server.ts,
  # Linux): no node starts for them. We write `<our pid> <argument count> <hook> <our watch's pid>`
  # to the server's FIFO `in` (the arguments after the hook's name, which are the last ones of our
  # command line, in either mode); it reads our environment, working directory and arguments from
  # /proc, claims the request (renames our marker `r.<our pid>` away), opens our descriptor 4 (a
  # here-document: a pipe) through /proc and answers there `<code> <stderr bytes>` and the
  # bytes, or `-`: run it yourself. (A server that names no protocol in its pid file, from before,
  # or a shell whose here-documents are files: the reply channel is a FIFO we make, `r.<our pid>`,
  # which the server claims, opens and removes, and the request names no watch.) Every wait is
  # bounded, whoever is on the other end: a background watch answers `-` when the server dies (a
  # server that has gone holds no FIFO open, nor does a dead one not yet reaped), and `x` (give up
  # on it) when it is stopped, has not claimed the request after 3 s (busy, or stuck: it then
  # removes our marker first, so the server cannot claim it any more) or has claimed it and not
  # answered within 5 s of the claim. On `x` we remove its `pid` file: no runner asks it again, it
  # leaves when it notices, and the server our hook asks for replaces it at once.
  # Whatever goes wrong, the hook runs below as it always did, and asks for a server.
  case ${INTENT_HOOK_SERVER:-}:$1 in
    0:*) ;;
    *:pre-commit | *:prepare-commit-msg | *:commit-msg | *:post-commit | *:pre-merge-commit | *:post-merge)
      srv=${intent_srv:-${0%/bin/*}/server}
      # The server's folder as the server names it: its physical path (no process: cd -P).
      intent_here=$PWD
      if cd -P -- "$srv" 2>/dev/null; then srv=$PWD; cd -- "$intent_here" || return 1; fi
      tag="$node|$entry|$srv"
      intent_pid= intent_tag= intent_fd= intent_proto= intent_code=- intent_n=0 intent_st=
      # A server is asked only when it runs as our user (/proc/<pid> belongs to the process's user:
      # root committing in someone else's repository does not ask theirs), is not stopped (SIGSTOP,
      # a debugger: state T or t), and the process the pid file names holds this very FIFO open (a
      # repository copied with its server folder, a pid file left behind: not ours).
      # (No pid file yet, the first commit: silent. The shell reports a redirection that fails on the
      # stderr of that moment, so 2>/dev/null comes first.)
      if { read -r intent_pid && read -r intent_tag && read -r intent_fd && { read -r intent_proto || :; }; } 2>/dev/null <"$srv/pid" &&
        [ "$intent_tag" = "$tag" ] && [ -O "/proc/$intent_pid" ]; then
        if intent_stopped "$intent_pid"; then intent_st=T; fi
        case $intent_st in
          T) intent_code=x ;;
          *)
            if [ -p "$srv/in" ] && [ "$srv/in" -ef "/proc/$intent_pid/fd/$intent_fd" ]; then
              # An intent worktree's post-commit (sourced: git is our parent) whose commit this
              # server has recorded already, with nothing to say: nothing to ask.
              if [ "$1" = post-commit ] && [ -n "${intent_lib:-}" ] && intent_recorded; then return 0; fi
              intent_asked=
              if [ "$intent_proto" = 2 ]; then
                intent_ask_pipe "$@" 4<<INTENT_EOF
intent
INTENT_EOF
              fi
              if [ -z "$intent_asked" ] && mkfifo -m 600 "$srv/r.$$" 2>/dev/null; then
                intent_req="$$ $(($# - 1)) $1"
                intent_ask 4<>"$srv/r.$$"
              fi
            else
              # It no longer holds `in` (replaced, removed): unreachable.
              intent_code=x
            fi
            ;;
        esac
        case $intent_code in
          x)
            # Unreachable: no runner asks it again (only a pid file of our own user is removed).
            rm -f "$srv/r.$$"
            if [ -O "$srv/pid" ]; then rm -f "$srv/pid"; fi
            ;;
          - | '' | *[!0-9]*) rm -f "$srv/r.$$" ;;
          *) return "$intent_code" ;;
        esac
      fi
      intent_start=$srv
      ;;
  esac
  if [ -n "${intent_lib:-}" ]; then
    (intent_exec_node "$@")
  else
    intent_exec_node "$@"
  fi
}

if [ -n "${intent_lib:-}" ]; then return 0; fi
intent_hook_run "$@"
exit $?
