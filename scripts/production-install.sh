#!/usr/bin/env bash
# The production install, as an operator (or an image build) does it:
#   scripts/production-install.sh <target-dir>
# copies this checkout's files (tracked and untracked, nothing git ignores: no
# node_modules, no data) into <target-dir>, then `npm ci --omit=dev` there: the
# lockfile's exact versions, no devDependency, install scripts as `allowScripts`
# in package.json decides. Then each service starts from its own folder with
# Node's type stripping, no build step and no tsx:
#   cd <target-dir>/services/swap-rail && NODE_ENV=production node src/main.ts
# (`npm start` there runs the same, with npm's own process in front).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 <target-dir>" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$1"

# Node runs the services' TypeScript itself: 22.18+ or 24 (package.json engines).
if ! node -e 'process.exit(process.features.typescript ? 0 : 1)' 2>/dev/null; then
  echo "production-install: node $(node --version) cannot run TypeScript; use Node 22.18+ or 24" >&2
  exit 1
fi
if [ -e "$target" ] && [ -n "$(ls -A "$target")" ]; then
  echo "production-install: $target is not empty" >&2
  exit 1
fi
mkdir -p "$target"

# What a clone of this checkout would hold, with its uncommitted edits.
(cd "$root" && git ls-files -z --cached --others --exclude-standard |
  tar --null --files-from - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$target"

cd "$target"
npm ci --omit=dev --no-audit --no-fund
echo "production install in $target with node $(node --version), npm $(npm --version)"
