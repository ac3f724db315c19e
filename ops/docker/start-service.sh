#!/bin/sh
# The image's entry point: runs one service, named by the first argument or by
# SERVICE (`docker run IMAGE swap-rail`, or `SERVICE=swap-rail`).
set -eu

service="${1:-${SERVICE:-}}"
case "$service" in
  launch-router | dating-venue | swap-rail) ;;
  *)
    echo "start-service: name the service to run (launch-router, dating-venue or swap-rail) as the argument or in SERVICE; got '${service}'" >&2
    exit 64
    ;;
esac

# From the service's own folder (in the image /app/services/<name>), as
# `npm start -w` runs it, so relative settings resolve the same way. `exec`:
# node is the process the container's stop signal reaches; on SIGTERM the
# service stops accepting, drains in-flight requests and closes its pool
# (service-kit's serve.ts).
cd "$(dirname "$0")/../../services/$service"
exec node src/main.ts
