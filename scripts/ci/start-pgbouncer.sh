#!/usr/bin/env bash
# Starts PgBouncer in transaction mode on 127.0.0.1:6432 in front of the local
# PostgreSQL (127.0.0.1:5432, trust auth), as hosted PostgreSQL puts one in
# front by default, for the pooler tests (TEST_PGBOUNCER_URL). Installs
# Debian's package when it is missing and apt is there; otherwise says so and
# exits 0, and those tests skip. Prints the URL on its last line of stdout:
#
#   export TEST_PGBOUNCER_URL="$(scripts/ci/start-pgbouncer.sh)"
#
# Every database name is passed through (`* =`), so a test's fresh database
# (`createTestDatabase`) is reachable through the pooler by the same name.
# Settings: PGBOUNCER_PORT (6432), PGBOUNCER_UPSTREAM_PORT (5432).
set -euo pipefail

port="${PGBOUNCER_PORT:-6432}"
upstream_port="${PGBOUNCER_UPSTREAM_PORT:-5432}"
url="postgres://postgres@127.0.0.1:${port}/test"

note() { echo "start-pgbouncer: $*" >&2; }

bin="$(command -v pgbouncer || true)"
if [ -z "$bin" ] && [ -x /usr/sbin/pgbouncer ]; then bin=/usr/sbin/pgbouncer; fi
if [ -z "$bin" ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    note "installing pgbouncer from the distribution's packages"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null 2>&1; then
      apt-get update -qq >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null 2>&1 || true
    fi
  fi
  bin="$(command -v pgbouncer || true)"
  if [ -z "$bin" ] && [ -x /usr/sbin/pgbouncer ]; then bin=/usr/sbin/pgbouncer; fi
fi
if [ -z "$bin" ]; then
  note "pgbouncer unavailable (no package, no apt or not root): pooler tests will skip"
  exit 0
fi

# Already answering on the port (an earlier run): reuse it.
if (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; then
  note "something already listens on 127.0.0.1:${port}: using it"
  echo "$url"
  exit 0
fi

dir="$(mktemp -d -t pgbouncer.XXXXXX)"
cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=${upstream_port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
# Idle server connections go after 10 s, as node-postgres pools let theirs go:
# the shared test server's max_connections is not held by an idle pooler.
server_idle_timeout = 10
ignore_startup_parameters = extra_float_digits
server_reset_query =
logfile = ${dir}/pgbouncer.log
pidfile = ${dir}/pgbouncer.pid
admin_users = postgres
EOF
echo '"postgres" ""' >"$dir/userlist.txt"

# PgBouncer refuses to run as root; run it as the postgres system user then.
args=(-d)
if [ "$(id -u)" = 0 ]; then
  user="$(id -un postgres 2>/dev/null || echo nobody)"
  chown -R "$user" "$dir"
  args+=(-u "$user")
fi
"$bin" "${args[@]}" "$dir/pgbouncer.ini"

for _ in $(seq 1 50); do
  if (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; then
    note "transaction pooling on 127.0.0.1:${port} (config and log in ${dir}; stop: kill \$(cat ${dir}/pgbouncer.pid))"
    echo "$url"
    exit 0
  fi
  sleep 0.1
done
note "pgbouncer did not start; its log:"
cat "$dir/pgbouncer.log" >&2 || true
exit 1
