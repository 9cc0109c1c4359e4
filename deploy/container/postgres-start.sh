#!/bin/sh
# The PostgreSQL container's entry point: on the first start (an empty PGDATA) create the cluster, its user
# and database, with password authentication for connections from the network; then run the server as the
# container's main process (it gets the stop signal itself).
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "postgres-start: set POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE)" >&2
        exit 2
    fi
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start >/dev/null
    if [ "$POSTGRES_DB" != postgres ]; then
        createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
    fi
    pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
    echo "postgres-start: created the cluster, user $POSTGRES_USER, database $POSTGRES_DB"
fi
exec postgres -c listen_addresses='*'
