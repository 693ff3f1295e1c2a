#!/usr/bin/env bash
# Checks integrations/roo-code/roo-code.patch against a clone of Roo Code (RooCodeInc/Roo-Code).
# Our CI has no network to GitHub, so this runs on a developer's machine; docs/roo-code.md records
# what it printed for the pinned commit.
#
#   scripts/check-roo-patch.sh <roo-clone>          git apply --check (needs nothing installed)
#   scripts/check-roo-patch.sh --full <roo-clone>   also: applies the patch, links this package
#       into the clone's src/node_modules, runs Roo's type-check (tsc --noEmit in src/), the
#       patch's own test of Roo's real tools (vitest core/intent/__tests__/intent.spec.ts in src/),
#       Roo's esbuild bundle (node esbuild.mjs in src/), and loads src/dist/extension.js with a
#       stub `vscode` module to see its `activate` export; then reverts the patch.
#       Needs: `pnpm install` done in the clone, and `npm run build` done here.
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

link="$roo/src/node_modules/intent-governance"
cleanup() {
  git -C "$roo" apply -R "$patch" 2>/dev/null || true
  git -C "$roo" clean -fdq -- src/core/intent src/core/tools/SelectActiveIntentTool.ts src/core/prompts/tools/native-tools/select_active_intent.ts 2>/dev/null || true
  [[ -L "$link" ]] && rm -f "$link"
  return 0
}
trap cleanup EXIT

step "apply the patch and link intent-governance into src/node_modules"
git -C "$roo" apply "$patch"
rm -rf "$link"
ln -s "$here" "$link"
git apply --stat "$patch" | tail -1

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

step "all checks passed"
