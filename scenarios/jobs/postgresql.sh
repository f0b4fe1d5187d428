#!/bin/sh
# A throwaway PostgreSQL for one benchmark run: the `db` job of scenarios/jobs/db.yml runs
#
#   sh scenarios/jobs/postgresql.sh SCHEMA.sql [postgres options...]
#
# in its job folder, as the job's `user` (PostgreSQL refuses to run as root). It
#   1. finds the server's programs next to the initdb on PATH (symbolic links followed), else in
#      `pg_config --bindir`;
#   2. creates a cluster in ./pgdata: superuser postgres, trusted on the local socket only,
#      scram-sha-256 passwords over TCP from any address (as TechEmpower's database accepts its
#      application servers);
#   3. creates TechEmpower's role benchmarkdbuser (password benchmarkdbpass) and database
#      hello_world, and loads SCHEMA.sql into it, in single-user mode with exit_on_error, so any
#      SQL error fails the job before the server starts;
#   4. replaces itself (exec, same pid) with the server, TCP only (no Unix socket), with the
#      options given: the agent's process group and parent-death signal reach it directly.
# The server logs to stderr; it prints "database system is ready to accept connections" once
# it accepts them. The agent removes the job folder, data included, after the run.
set -eu

schema=${1:?usage: postgresql.sh SCHEMA.sql [postgres options...]}
shift
[ -r "$schema" ] || { echo "postgresql.sh: cannot read $schema" >&2; exit 1; }

bindir=
if initdb=$(command -v initdb); then
	bindir=$(dirname "$(readlink -f "$initdb")")
elif command -v pg_config >/dev/null; then
	bindir=$(pg_config --bindir)
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/postgres" ]; then
	echo "postgresql.sh: no PostgreSQL server programs (initdb on PATH, or pg_config --bindir)" >&2
	exit 1
fi
echo "postgresql.sh: $("$bindir/postgres" --version) in $bindir"

data=$PWD/pgdata
rm -rf "$data"
"$bindir/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
	-E UTF8 --no-locale --no-sync >initdb.log 2>&1 || { cat initdb.log >&2; exit 1; }
printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >>"$data/pg_hba.conf"

# Single-user mode (-j: a command ends at a semicolon followed by an empty line, or at the end).
single() {
	"$bindir/postgres" --single -j -D "$data" -c exit_on_error=on "$1" >>load.log 2>&1 ||
		{ cat load.log >&2; echo "postgresql.sh: loading into $1 failed" >&2; exit 1; }
}
single postgres <<'SQL'
CREATE ROLE benchmarkdbuser LOGIN PASSWORD 'benchmarkdbpass';

CREATE DATABASE hello_world OWNER benchmarkdbuser ENCODING 'UTF8' TEMPLATE template0;
SQL
single hello_world <"$schema"
single hello_world <<'SQL'
GRANT ALL PRIVILEGES ON ALL TABLES IN SCHEMA public TO benchmarkdbuser;
SQL
echo "postgresql.sh: database hello_world loaded from $schema"

exec "$bindir/postgres" -D "$data" -k "" "$@"
