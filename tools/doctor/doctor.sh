#!/bin/sh
# make doctor: checks what `make run` and `make test` need (README, "Two commands") and says, for each
# missing or too old tool, what to install. Exit status 1 when something is missing.
# The Go version is read from go.mod's go directive, so this script and the README cannot disagree with it.
cd "$(dirname "$0")/../.." || exit 2
missing=0
ok()   { printf '  ok       %-8s %s\n' "$1" "$2"; }
miss() { printf '  MISSING  %-8s %s\n' "$1" "$2"; missing=1; }

# version_ge A B: A >= B for dotted versions (1.26.8 >= 1.26.0)
version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -t. -k1,1n -k2,2n -k3,3n | head -n1)" = "$2" ]
}

want_go=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)
echo "make run and make test need:"
if command -v go >/dev/null 2>&1; then
	have_go=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
	if version_ge "$have_go" "$want_go"; then ok go "$have_go (go.mod: go $want_go)"
	else miss go "$have_go is older than go $want_go (go.mod's go directive): install Go $want_go or later from the Go downloads page"; fi
else
	miss go "not found: install Go $want_go or later (go.mod's go directive) and put it on PATH"
fi
for tool in make git; do
	if command -v $tool >/dev/null 2>&1; then ok $tool "$(command -v $tool)"
	else miss $tool "not found: install it with your system's package manager (apt-get install $tool)"; fi
done
if command -v python3 >/dev/null 2>&1; then
	have_py=$(python3 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	if ! version_ge "$have_py" 3.11; then
		miss python3 "$have_py is older than 3.11 (the venv's pinned numpy needs 3.11): install Python 3.11 or later"
	elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
		miss python3 "$have_py without its venv module: apt-get install python3-venv (make venv does it when run as root)"
	else ok python3 "$have_py"; fi
else
	miss python3 "not found: install Python 3.11 or later with its venv module (apt-get install python3 python3-venv)"
fi
echo "make test also needs:"
if command -v node >/dev/null 2>&1; then
	have_node=$(node --version | sed 's/^v//')
	if version_ge "$have_node" 20; then ok node "$have_node"
	else miss node "$have_node is older than 20: install Node.js 20 or later"; fi
else
	miss node "not found: install Node.js 20 or later (it brings npm)"
fi
if command -v npm >/dev/null 2>&1; then ok npm "$(npm --version)"
else miss npm "not found: install npm (it comes with Node.js; apt-get install npm)"; fi
if [ "$(id -u)" = 0 ]; then echo "  running as root: not needed (only make image-test needs it)"
else echo "  not root: fine (only make image-test needs root)"; fi
if [ $missing = 1 ]; then echo "something is missing: install it as said above, then run make doctor again"; exit 1; fi
echo "all there"
