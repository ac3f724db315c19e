#!/bin/sh
# Run once by the postgres image, on an empty data volume
# (/docker-entrypoint-initdb.d): one database and one login role per service,
# each role owning its database (the services run their own migrations at
# start-up and create their tables there). The passwords come from the
# environment compose.yaml passes; changing them later is ALTER ROLE (see
# docs/operations.md, "Secrets").
set -eu

create() {
  role="$1" database="$2" password="$3"
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v role="$role" -v database="$database" -v password="$password" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password';
CREATE DATABASE :"database" OWNER :"role";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
SQL
}

create swap_rail swap_rail "$RAIL_DB_PASSWORD"
create dating_venue dating_venue "$VENUE_DB_PASSWORD"
# The router keeps only its request-limit counters (RATE_LIMIT_DATABASE_URL).
create launch_router launch_router "$ROUTER_DB_PASSWORD"
