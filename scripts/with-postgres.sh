#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server, its URL in TOOLSCOPE_TEST_PG, and stops the server after.
# Uses Debian's server binaries (apt-get install postgresql); as root the server runs as the `postgres` user,
# since it refuses to run as root. With TOOLSCOPE_TEST_PG already set, runs the command against that server.
# Without binaries: fails when CI=true, otherwise runs the command without PostgreSQL (its tests then fail
# with a message that says so).
set -euo pipefail

if [ -n "${TOOLSCOPE_TEST_PG:-}" ]; then exec "$@"; fi

bin=""
for d in /usr/lib/postgresql/*/bin; do
  if [ -x "$d/pg_ctl" ]; then bin="$d"; fi
done
if [ -z "$bin" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "with-postgres: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
    exit 1
  fi
  echo "with-postgres: no PostgreSQL server found; running without it (apt-get install postgresql)" >&2
  exec "$@"
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/toolscope-pg.XXXXXX")"
port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_pg=(runuser -u postgres --)
fi
stop() {
  "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
# A signal ends the script through its EXIT trap, so the server never outlives it.
trap 'exit 143' TERM
trap 'exit 130' INT

"${as_pg[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# fsync off unless TOOLSCOPE_TEST_PG_FSYNC=on: the tests kill collectors, never this server; benchmarks
# set it on, so commits are as durable as a real deployment's.
"${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=${TOOLSCOPE_TEST_PG_FSYNC:-off} -c max_connections=200" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }
export TOOLSCOPE_TEST_PG="postgres://postgres@127.0.0.1:$port/postgres"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on port $port" >&2
set +e
"$@"
code=$?
set -e
exit "$code"
