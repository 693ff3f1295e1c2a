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
# The per-commit hooks go to the repository's hook server when one runs (lib/hooks/server.ts,
# Linux): no node starts for them. We make a reply FIFO and write `<our pid> <argument count>` to
# the server's FIFO; it reads our environment, working directory and arguments from /proc, claims
# the request (renames our FIFO away) and answers `<code> <stderr bytes>` and the bytes, or `-`:
# run it yourself. A background watch answers `-` when the server dies, or has not claimed the
# request after 3 s (busy, or stuck: it then removes our FIFO first, so the server cannot claim it
# any more); a server that has gone holds no FIFO open (nor does a dead one not yet reaped).
# Whatever goes wrong, the hook runs below as it always did, and asks for a server.
case ${INTENT_HOOK_SERVER:-}:$1 in
  0:*) ;;
  *:pre-commit | *:prepare-commit-msg | *:commit-msg | *:post-commit | *:pre-merge-commit | *:post-merge)
    srv=${0%/bin/*}/server
    # The server's folder as the server names it: its physical path (no process: cd -P).
    intent_here=$PWD
    if cd -P -- "$srv" 2>/dev/null; then srv=$PWD; cd -- "$intent_here" || exit 1; fi
    tag="$node|$entry|$srv"
    intent_pid= intent_tag= intent_fd= intent_code=- intent_n=0
    # A server is asked only when the process the pid file names holds this very FIFO open (a
    # repository copied with its server folder, a pid file left behind: not ours).
    # (No pid file yet, the first commit: silent. The shell reports a redirection that fails on the
    # stderr of that moment, so 2>/dev/null comes first.)
    if { read -r intent_pid && read -r intent_tag && read -r intent_fd; } 2>/dev/null <"$srv/pid" &&
      [ "$intent_tag" = "$tag" ] && [ -p "$srv/in" ] && [ "$srv/in" -ef "/proc/$intent_pid/fd/$intent_fd" ] &&
      mkfifo -m 600 "$srv/r.$$" 2>/dev/null; then
      {
        if printf '%s %s\n' "$$" "$#" 1<>"$srv/in"; then
          (
            n=0
            while [ -e "/proc/$intent_pid/fd/$intent_fd" ]; do
              if [ $n -ge 3 ] && rm "$srv/r.$$" 2>/dev/null; then break; fi
              sleep 1
              n=$((n + 1))
            done
            echo '- 0' >&4
          ) </dev/null >/dev/null 2>&1 &
          intent_watch=$!
          read -r intent_code intent_n <&4 || intent_code=-
          kill "$intent_watch" 2>/dev/null
          case $intent_n in '' | *[!0-9]*) intent_code=- ;; 0) ;; *) head -c "$intent_n" <&4 >&2 ;; esac
        fi
      } 4<>"$srv/r.$$"
      case $intent_code in
        - | '' | *[!0-9]*) rm -f "$srv/r.$$" ;;
        *) exit "$intent_code" ;;
      esac
    fi
    INTENT_START_SERVER=$srv INTENT_SERVER_TAG="$node|$entry"
    export INTENT_START_SERVER INTENT_SERVER_TAG
    ;;
esac
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
