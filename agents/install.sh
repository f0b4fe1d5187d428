#!/bin/sh
# Installs crank-agent on a benchmark machine as a systemd service, or updates an installed one.
# Run it as root from a checkout after `make agents` (or give --binary). Running it again is safe:
# it replaces the binary and the unit, keeps the installed settings (URL, token, hardware label,
# flags) unless given new ones, and restarts the service.
#
#   sudo agents/install.sh --url http://10.0.0.2:5010 [--token TOKEN] [--hardware "label"]
#                          [--binary PATH] [--args "more crank-agent flags"] [--no-start]
#
# It creates the system user crank-agent (home /var/lib/crank-agent), installs the binary as
# /usr/local/bin/crank-agent, writes /etc/crank-agent/env (mode 0600, root: systemd reads it, the jobs cannot) with the
# URL and the token, installs /etc/systemd/system/crank-agent.service, enables and (re)starts it.
# Without --token it keeps the token already in /etc/crank-agent/env, else takes $CRANK_AGENT_TOKEN,
# else generates one and prints it once.
#
# CRANK_AGENT_ROOT=/some/dir installs under that folder instead of / and leaves the users and
# systemd alone (for packaging and for tests).
set -eu

root=${CRANK_AGENT_ROOT:-}
here=$(cd "$(dirname "$0")" && pwd)
url=
token=
hardware=
args=
binary=
start=yes

die() {
	echo "install.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case $1 in
	--url) url=${2:?--url needs a value}; shift 2 ;;
	--token) token=${2:?--token needs a value}; shift 2 ;;
	--hardware) hardware=${2:?--hardware needs a value}; shift 2 ;;
	--binary) binary=${2:?--binary needs a value}; shift 2 ;;
	--args) args=${2?--args needs a value}; shift 2 ;;
	--no-start) start=no; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done

if [ -z "$binary" ]; then
	case $(uname -m) in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) die "no prebuilt agent for $(uname -m): give --binary" ;;
	esac
	binary=$here/../bin/crank-agent-linux-$arch
fi
[ -x "$binary" ] || die "$binary is not an executable: run 'make agents' first, or give --binary"

if [ -z "$root" ]; then
	[ "$(id -u)" = 0 ] || die "run as root (or set CRANK_AGENT_ROOT to install into a folder)"
	command -v systemctl >/dev/null || die "systemctl not found: this script installs a systemd service"
fi

envfile=$root/etc/crank-agent/env

# installed NAME prints the value of NAME in the installed settings (nothing when there are none).
installed() {
	[ -f "$envfile" ] || return 0
	sed -n "s/^$1=//p" "$envfile" | tail -n 1 | sed 's/^"\(.*\)"$/\1/'
}

# Each setting: given, else the installed one, else its default. The token's default is
# $CRANK_AGENT_TOKEN, else a new one.
[ -n "$url" ] || url=$(installed CRANK_AGENT_URL)
[ -n "$url" ] || url=http://0.0.0.0:5010
[ -n "$hardware" ] || hardware=$(installed CRANK_AGENT_HARDWARE)
[ -n "$args" ] || args=$(installed CRANK_AGENT_ARGS)
[ -n "$token" ] || token=$(installed CRANK_AGENT_TOKEN)
generated=no
if [ -z "$token" ]; then
	token=${CRANK_AGENT_TOKEN:-}
fi
if [ -z "$token" ]; then
	token=$(head -c 32 /dev/urandom | base64 | tr -d '/+=\n')
	generated=yes
fi
case $url in
http://*:[0-9]* | https://*:[0-9]*) ;;
*) die "--url $url: want http(s)://host:port" ;;
esac
case $token in
*[!A-Za-z0-9._~-]*) die "the token may hold only letters, digits and . _ ~ -" ;;
esac
case $hardware in
*[\"\'\\\$\`]*) die "--hardware: no quotes, backslashes, \$ or backquotes" ;;
esac

# The user and group (none when installing into a folder).
owner=
if [ -z "$root" ]; then
	if ! getent passwd crank-agent >/dev/null; then
		useradd --system --user-group --home-dir /var/lib/crank-agent --no-create-home \
			--shell /usr/sbin/nologin --comment "crank benchmark agent" crank-agent
		echo "created the system user crank-agent"
	fi
	owner=root:crank-agent
fi

# The binary: written beside the old one, then renamed over it (a running agent keeps its file).
mkdir -p "$root/usr/local/bin"
install -m 0755 "$binary" "$root/usr/local/bin/.crank-agent.new"
mv -f "$root/usr/local/bin/.crank-agent.new" "$root/usr/local/bin/crank-agent"

# The settings, readable by the service's group only.
mkdir -p "$root/etc/crank-agent"
chmod 0750 "$root/etc/crank-agent"
[ -z "$owner" ] || chown "$owner" "$root/etc/crank-agent"
tmp=$(mktemp "$root/etc/crank-agent/.env.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
	echo "# Written by agents/install.sh; run it again to change these."
	echo "CRANK_AGENT_URL=$url"
	echo "CRANK_AGENT_TOKEN=$token"
	echo "CRANK_AGENT_HARDWARE=\"$hardware\""
	echo "CRANK_AGENT_ARGS=$args"
} >"$tmp"
chmod 0600 "$tmp" # systemd reads it as root; the jobs (run as crank-agent) must not read the token
mv -f "$tmp" "$envfile"
trap - EXIT

# The unit and the documentation it points to.
mkdir -p "$root/etc/systemd/system" "$root/usr/local/share/doc/crank-agent"
install -m 0644 "$here/crank-agent.service" "$root/etc/systemd/system/crank-agent.service"
install -m 0644 "$here/README.md" "$root/usr/local/share/doc/crank-agent/README.md"

if [ -z "$root" ]; then
	systemctl daemon-reload
	systemctl enable crank-agent.service >/dev/null
	if [ "$start" = yes ]; then
		systemctl restart crank-agent.service
		echo "crank-agent is running: systemctl status crank-agent; journalctl -u crank-agent"
	fi
fi

echo "crank-agent installed, listening on $url"
if [ "$generated" = yes ]; then
	echo "its token (give it to crank with CRANK_AGENT_TOKEN or --agent-token): $token"
fi
