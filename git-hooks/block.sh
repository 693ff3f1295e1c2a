# >>> intent >>> (managed by `intent init`; edits between these markers are replaced)
if [ -z "${INTENT_CHAINED:-}" ]; then
  intent_hook="$(git rev-parse --git-common-dir)/intent/bin/hook"
  if [ -x "$intent_hook" ]; then
    @RUN@
  else
    @MISSING@
  fi
fi
# <<< intent <<<
