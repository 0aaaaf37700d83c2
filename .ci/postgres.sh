#!/usr/bin/env bash
# A throwaway PostgreSQL for the storage tests (no mocks of the database).
#   .ci/postgres.sh start   install PostgreSQL from Debian packages if missing, start a cluster in a temp
#                           directory on 127.0.0.1 and a free port (reused while it runs), print its URL
#   .ci/postgres.sh url     print the running cluster's URL (for CONQUEST_TEST_POSTGRES_URL)
#   .ci/postgres.sh stop    stop the cluster and delete its directory
# The cluster trusts local connections and runs with fsync off: test data only, never real data.
set -euo pipefail

STATE="${CONQUEST_TEST_POSTGRES_DIR:-${TMPDIR:-/tmp}/conquest-test-postgres-$(id -u)}"
DATA="$STATE/data"
DATABASE=conquest_test

bindir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$dir" ]; then echo "$dir"; elif command -v initdb >/dev/null; then dirname "$(command -v initdb)"; fi
}

# initdb and the server refuse to run as root: as root, run them as the postgres user.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() {
    [ -f "$STATE/url" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

install() {
    if [ -z "$(bindir)" ]; then
        echo "PostgreSQL not found: installing it from Debian packages" >&2
        [ "$(id -u)" = 0 ] || { echo "installing PostgreSQL needs root (apt-get); install the 'postgresql' package" >&2; exit 1; }
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
    fi
    BIN=$(bindir)
}

start() {
    install
    if running; then cat "$STATE/url"; return; fi
    as_owner "$BIN/pg_ctl" -D "$DATA" stop -m immediate >/dev/null 2>&1 || true
    rm -rf "$STATE" && mkdir -p "$STATE"
    [ "$(id -u)" = 0 ] && chown postgres: "$STATE"
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --no-locale >"$STATE/initdb.log"
    as_owner "$BIN/pg_ctl" -D "$DATA" -l "$STATE/server.log" -w start -o \
        "-c listen_addresses=127.0.0.1 -p $port -k $STATE -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        >/dev/null 9>&- # the server must not inherit (and so keep holding) the start lock
    as_owner "$BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DATABASE"
    echo "postgresql+psycopg://postgres@127.0.0.1:$port/$DATABASE" >"$STATE/url"
    cat "$STATE/url"
}

BIN=$(bindir)
case "${1:-}" in
start)
    mkdir -p "$(dirname "$STATE")"
    exec 9>"$STATE.lock"
    flock 9 # two `make test` runs at once share one cluster
    start
    ;;
url)
    running || { echo "no test PostgreSQL running: run '.ci/postgres.sh start' (make test-db)" >&2; exit 1; }
    cat "$STATE/url"
    ;;
stop)
    [ -n "$BIN" ] && as_owner "$BIN/pg_ctl" -D "$DATA" stop -m fast >/dev/null 2>&1 || true
    rm -rf "$STATE" "$STATE.lock"
    ;;
*)
    echo "usage: $0 start|url|stop" >&2
    exit 2
    ;;
esac
