#!/bin/sh
# Makes the cluster on the first start (an empty $PGDATA): password authentication for every network
# client, a role and database for the platform from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB,
# then runs the server in this process's place (so `docker stop` shuts it down cleanly).
set -eu
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
user="${POSTGRES_USER:-hindsight}"
db="${POSTGRES_DB:-hindsight}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  "$bin/initdb" -D "$PGDATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "host all all ::/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql -v ON_ERROR_STOP=1 -q -U postgres -d postgres \
    -v user="$user" -v password="$POSTGRES_PASSWORD" -v db="$db" <<'SQL'
CREATE ROLE :"user" LOGIN PASSWORD :'password';
CREATE DATABASE :"db" OWNER :"user";
SQL
  "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres-entrypoint: made the cluster with database $db owned by $user"
fi
exec "$bin/postgres" -D "$PGDATA"
