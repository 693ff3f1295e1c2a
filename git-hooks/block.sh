# >>> intent >>> (managed by `intent init`; edits between these markers are replaced)
intent_hook="$(git rev-parse --git-common-dir)/intent/bin/hook"
if [ -x "$intent_hook" ]; then "$intent_hook" @HOOK@ "$@" || exit $?
else echo "intent: $intent_hook is missing; run \`intent init\` in this clone.@MISSING_HINT@" >&2; @MISSING_ACTION@
fi
# <<< intent <<<
