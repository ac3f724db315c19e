#!/usr/bin/env bash
# The production rehearsal (packages/rehearsal/README.md), as an operator runs
# it by hand and CI runs it (`npm run test:all` includes its tier): the
# committed tree copied to a temporary folder, `npm ci --omit=dev` there, then
# every service started from it with NODE_ENV=production on PostgreSQL, two
# replicas of the rail and of the venue behind a round-robin proxy, paid on
# both rails, restarted one replica at a time under load.
#
#   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test scripts/rehearse.sh
#   REHEARSAL_INSTALL_DIR=/tmp/install scripts/rehearse.sh   # an install made before
set -euo pipefail
cd "$(dirname "$0")/.."

: "${TEST_DATABASE_URL:?a PostgreSQL server the rehearsal may create and drop databases on, e.g. postgres://postgres@127.0.0.1:5432/test}"
if ! node -e 'process.exit(process.features.typescript ? 0 : 1)'; then
  echo "rehearse: $(node --version) cannot run the services' TypeScript; the production install needs Node 22.18 or later (README, \"Node.js\")" >&2
  exit 1
fi
exec npx vitest run --project rehearsal "$@"
