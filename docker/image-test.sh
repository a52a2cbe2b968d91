#!/usr/bin/env bash
# image-test: build docker/Dockerfile with podman and run it as
# docker/compose.yaml describes (make image-test; a CI step that needs root,
# Debian's apt and podman, which it installs).
#
#  1. podman, runc, debootstrap from Debian's packages (apt-get), when missing;
#  2. a containers.conf named by CONTAINERS_CONF (no system file changed):
#     runc and cgroupfs (crun 1.8 refuses a hybrid cgroup layout), explicit
#     rlimits (some VMs refuse podman's defaults);
#  3. the Dockerfile's base images (its FROM lines): pulled when the
#     machine can, else made here under the same names - the slim Debian by
#     `debootstrap --variant=minbase` from the machine's own apt sources,
#     the Go image from it plus this machine's Go toolchain, git, make, gcc
#     and the CA certificates added locally (update-ca-certificates), since
#     outbound TLS may go through a proxy with its own CA;
#  4. `podman build --format docker` (keeps HEALTHCHECK) of the Dockerfile as
#     Docker users build it, with this machine's Go caches mounted into its
#     RUN steps (a warm cache turns the 6-minute Weaviate compile into a
#     link);
#  5. tools/imagetest: starts the image as compose.yaml describes, checks it
#     and removes its containers.
#
# Kept between runs on the same machine, never assumed: the base images and
# the built image in podman's storage, the Go caches. IMAGE_TEST_FRESH=1
# removes the base images and the image first (a cold run).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-weaviate-diverse-select}
DOCKERFILE=docker/Dockerfile
CACHE=${IMAGE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/diverse-select-image}
GO=${GO:-go}

say() { printf '== image-test: %s\n' "$*"; }
die() { printf 'image-test: %s\n' "$*" >&2; exit 1; }
now() { date +%s; }

[ "$(id -u)" = 0 ] || die "needs root (apt-get, podman's rootful storage and networks); run it as root or in CI"
command -v "$GO" >/dev/null || die "needs Go ($GO) for the Go image stand-in and tools/imagetest"

# 1. Debian packages.
need=()
for p in podman runc catatonit debootstrap containernetworking-plugins iptables; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	command -v apt-get >/dev/null || die "needs podman, runc and debootstrap, and this machine has no apt-get to install them"
	say "installing ${need[*]} (apt-get)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
say "$(podman --version), $(runc --version | head -n 1)"

# 2. containers.conf of this run.
mkdir -p "$CACHE"
export CONTAINERS_CONF="$CACHE/containers.conf"
cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF

if [ "${IMAGE_TEST_FRESH:-}" = 1 ]; then
	say "IMAGE_TEST_FRESH=1: removing the image and the base images"
	podman rmi -f "$IMAGE" $(sed -n 's/^FROM \([^ ]*\).*/\1/p' "$DOCKERFILE") >/dev/null 2>&1 || true
fi

# 3. Base images.
apt_mirror() { # the first Debian mirror of this machine's apt sources
	local u
	u=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v -- '-security' | head -n 1)
	[ -n "$u" ] || u=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}' | grep -v -- '-security' | head -n 1)
	[ -n "$u" ] || die "no Debian mirror in this machine's apt sources"
	echo "$u"
}

make_debian() { # $1 image name: debootstrap minbase of the suite named in its tag
	local name=$1 suite tmp
	suite=${name#*:}
	suite=${suite%%-*}
	tmp=$(mktemp -d)
	say "making $name: debootstrap --variant=minbase $suite from this machine's apt mirror"
	debootstrap --variant=minbase "$suite" "$tmp/root" "$(apt_mirror)" >"$CACHE/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$CACHE/debootstrap.log"; die "debootstrap failed (log: $CACHE/debootstrap.log)"; }
	rm -rf "$tmp"/root/var/cache/apt/archives/*.deb "$tmp"/root/var/lib/apt/lists/*
	tar -C "$tmp/root" -c . | podman import -q --change 'CMD ["bash"]' - "$name" >/dev/null
	rm -rf "$tmp"
}

make_golang() { # $1 image name: the slim Debian plus this machine's Go, git, make, gcc and local CAs
	local name=$1 base=$2 tmp goroot want have
	want=${name#*:}
	want=${want%%-*}
	have=$("$GO" env GOVERSION)
	case "$have" in go"$want" | go"$want".*) ;; *) die "$name is wanted and this machine's Go is $have" ;; esac
	goroot=$("$GO" env GOROOT)
	tmp=$(mktemp -d)
	say "making $name from $base, this machine's $have and its local CA certificates"
	mkdir -p "$tmp/ca"
	cp -L /usr/local/share/ca-certificates/*.crt "$tmp/ca/" 2>/dev/null || true
	tar -C "$goroot" -c --exclude=./test . | (mkdir -p "$tmp/go" && tar -C "$tmp/go" -x)
	cat >"$tmp/Containerfile" <<EOF
FROM $base
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git make gcc libc6-dev \\
 && rm -rf /var/lib/apt/lists/*
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates
COPY go/ /usr/local/go/
ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    GOPROXY=$("$GO" env GOPROXY) GOSUMDB=$("$GO" env GOSUMDB) GOTOOLCHAIN=local
WORKDIR /go
EOF
	podman build --format docker --pull=never --network=host -t "$name" "$tmp" >"$CACHE/golang-build.log" 2>&1 ||
		{ tail -n 20 "$CACHE/golang-build.log"; die "building $name failed (log: $CACHE/golang-build.log)"; }
	rm -rf "$tmp"
}

t0=$(now)
froms=$(sed -n 's/^FROM \([^ ]*\).*/\1/p' "$DOCKERFILE")
debian=$(echo "$froms" | grep '^debian:' | head -n 1)
[ -n "$debian" ] || die "$DOCKERFILE has no debian: base image"
for img in $debian $(echo "$froms" | grep -v '^debian:'); do
	if podman image exists "$img"; then
		say "base image $img: present"
		continue
	fi
	if timeout 120 podman pull -q "$img" >/dev/null 2>&1; then
		say "base image $img: pulled"
		continue
	fi
	case "$img" in
	debian:*) make_debian "$img" ;;
	golang:*) make_golang "$img" "$debian" ;;
	*) die "cannot pull or make the base image $img" ;;
	esac
done
t1=$(now)
say "base images ready in $((t1 - t0)) s"

# 4. The image, as Docker users build it; the Go caches of this machine in
# its RUN steps (the golang image's GOPATH is /go, its GOCACHE /root/.cache/go-build).
gocache=$("$GO" env GOCACHE)
gomodcache=$("$GO" env GOMODCACHE)
mkdir -p "$gocache" "$gomodcache"
say "building $IMAGE from $DOCKERFILE"
podman build --format docker --pull=never --network=host \
	-v "$gocache:/root/.cache/go-build" -v "$gomodcache:/go/pkg/mod" \
	-f "$DOCKERFILE" -t "$IMAGE" . >"$CACHE/build.log" 2>&1 ||
	{ tail -n 30 "$CACHE/build.log"; die "podman build failed (log: $CACHE/build.log)"; }
t2=$(now)
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
say "built $IMAGE in $((t2 - t1)) s, $((size / 1000000)) MB"
podman image prune -f >/dev/null 2>&1 || true

# 5. Run and check.
"$GO" run ./tools/imagetest -image "$IMAGE" -compose docker/compose.yaml
say "done in $(($(now) - t0)) s (base images $((t1 - t0)) s, build $((t2 - t1)) s, image $((size / 1000000)) MB)"
