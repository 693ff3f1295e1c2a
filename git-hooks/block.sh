# >>> intent >>> (managed by `intent init`; edits between these markers are replaced)
intent_hook="$(git rev-parse --git-common-dir)/intent/bin/hook"
if [ -x "$intent_hook" ]; then "$intent_hook" @HOOK@ "$@" || exit $?
else @MISSING@
fi
# <<< intent <<<
