#!/usr/bin/env bash
# Checks integrations/roo-code/roo-code.patch against a clone of Roo Code (RooCodeInc/Roo-Code).
# Our CI has no network to GitHub, so this runs on a developer's machine; docs/roo-code.md records
# what it printed for the pinned commit.
#
#   scripts/check-roo-patch.sh <roo-clone>          git apply --check (needs nothing installed)
#   scripts/check-roo-patch.sh --full <roo-clone>   also: applies the patch, packs this package
#       (npm pack) and installs the tarball in the clone's src/ with `pnpm add` (as docs/roo-code.md
#       says: under Roo's pnpm overrides, not a link), runs Roo's type-check (tsc --noEmit in src/),
#       the patch's own test of Roo's real tools (vitest core/intent/__tests__/intent.spec.ts in
#       src/), Roo's esbuild bundle (node esbuild.mjs in src/), and loads src/dist/extension.js
#       with a stub `vscode` module to see its `activate` export, and Roo's translation check; then reverts the patch and the
#       install (src/package.json, pnpm-lock.yaml). ROO_TESTS=1 also runs all of Roo's tests as
#       its CI does (`turbo test` in every package, one at a time) and prints the counts.
#       Needs: `pnpm install` done in the clone, and `npm run build` done here; pnpm on PATH.
#
# Exit 0 when every step passed; 1 when one failed (the step is printed); 2 on bad usage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
patch="$here/integrations/roo-code/roo-code.patch"
pinned="$(sed -n 's/^Pinned commit: *`\([0-9a-f]\{40\}\)`.*/\1/p' "$here/integrations/roo-code/README.md")"

full=0
if [[ "${1:-}" == "--full" ]]; then full=1; shift; fi
if [[ $# -ne 1 || ! -d "$1/.git" && ! -f "$1/.git" ]]; then
  echo "usage: scripts/check-roo-patch.sh [--full] <path to a Roo-Code clone>" >&2
  exit 2
fi
roo="$(cd "$1" && pwd)"

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

step "Roo Code commit"
head="$(git -C "$roo" rev-parse HEAD)"
echo "clone at $head; the patch is pinned to $pinned"
[[ "$head" == "$pinned" ]] || echo "warning: not the pinned commit (git -C $roo checkout $pinned)"

step "git apply --check"
git -C "$roo" apply --check "$patch" || fail "the patch does not apply to $head"
echo "ok: the patch applies ($(grep -c '^diff --git' "$patch") files)"

[[ $full -eq 1 ]] || exit 0

[[ -d "$roo/src/node_modules" ]] || fail "run \`pnpm install\` in $roo first"
[[ -f "$here/dist/roo-code.cjs" ]] || fail "run \`npm run build\` in $here first"
[[ -z "$(git -C "$roo" status --porcelain -- src packages)" ]] || fail "$roo has local changes under src/ or packages/: start from a clean checkout"

pack="$(mktemp -d)"
cp "$roo/src/package.json" "$pack/src-package.json"
cp "$roo/pnpm-lock.yaml" "$pack/pnpm-lock.yaml"
cleanup() {
  git -C "$roo" apply -R "$patch" 2>/dev/null || true
  git -C "$roo" clean -fdq -- src/core/intent src/core/tools/SelectActiveIntentTool.ts src/core/prompts/tools/native-tools/select_active_intent.ts 2>/dev/null || true
  cp "$pack/src-package.json" "$roo/src/package.json" 2>/dev/null || true
  cp "$pack/pnpm-lock.yaml" "$roo/pnpm-lock.yaml" 2>/dev/null || true
  rm -rf "$pack"
  return 0
}
trap cleanup EXIT

step "apply the patch; pack intent-governance and pnpm add the tarball in src/"
git -C "$roo" apply "$patch"
git apply --stat "$patch" | tail -1
( cd "$here" && npm pack --ignore-scripts --pack-destination "$pack" ) >/dev/null || fail "npm pack"
tgz="$(ls "$pack"/intent-governance-*.tgz)"
( cd "$roo/src" && pnpm add --ignore-scripts "$tgz" ) >/dev/null || fail "pnpm add $tgz in src/"
ls -l "$roo/src/node_modules/intent-governance/dist/roo-code.cjs"

step "Roo's type-check (src: tsc --noEmit)"
( cd "$roo/src" && npx tsc --noEmit -p . ) || fail "Roo's type-check"
echo "ok: no type errors"

step "Roo's tools with the patch (src: vitest run core/intent/__tests__/intent.spec.ts)"
( cd "$roo/src" && npx vitest run core/intent/__tests__/intent.spec.ts ) || fail "the patch's test of Roo's tools"

step "Roo's esbuild bundle (src: node esbuild.mjs)"
( cd "$roo/src" && node esbuild.mjs ) >/dev/null || fail "Roo's esbuild bundle"
ls -l "$roo/src/dist/extension.js"

step "load dist/extension.js with a stub vscode module"
node "$here/scripts/roo-load-check.cjs" "$roo/src/dist/extension.js" || fail "loading the bundle"

step "Roo's translation check (node scripts/find-missing-translations.js, a job of Roo's CI)"
( cd "$roo" && node scripts/find-missing-translations.js ) | tail -1 || fail "a key of the patch is missing in a locale"

if [[ "${ROO_TESTS:-}" == 1 ]]; then
  # What Roo's CI runs (`pnpm test`: turbo test in every package), one package and
  # ROO_TEST_WORKERS vitest workers (default 1) at a time; --force: no cached results.
  step "all of Roo's tests with the patch (turbo test, as pnpm test)"
  ( cd "$roo" && TURBO_TELEMETRY_DISABLED=1 npx turbo test --concurrency=1 --force --log-order grouped --output-logs full \
      -- --maxWorkers="${ROO_TEST_WORKERS:-1}" ) > "$pack/roo-tests.log" 2>&1 || { grep -E ':test: +(Test Files|Tests|FAIL) ' "$pack/roo-tests.log"; fail "Roo's tests"; }
  sed 's/\x1b\[[0-9;]*m//g' "$pack/roo-tests.log" | grep -E ':test: +(Test Files|Tests) '
fi

step "all checks passed"
