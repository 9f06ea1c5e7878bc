#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing AF_EXS needs on a Debian 12 machine:
# both supported kernels with their headers, QEMU, virtme-ng, sparse, the
# checkpatch script and the programs the tests drive.  Idempotent: it only
# installs what is missing.  Run as root.
set -eu

top=$(readlink -f "$(dirname "$0")/..")
cache=${EXS_CACHE:-$HOME/.cache/af-exs}
mkdir -p "$cache"

have_pkg() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"
}

export DEBIAN_FRONTEND=noninteractive
if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		> /etc/apt/sources.list.d/bookworm-backports.list
	rm -f "$cache/apt-updated"
fi
if [ ! -e "$cache/apt-updated" ] ||
   [ -n "$(find "$cache/apt-updated" -mmin +720 2>/dev/null)" ]; then
	apt-get update -qq
	touch "$cache/apt-updated"
fi

# The 6.12 LTS: Debian 12's own (bookworm-security's linux-6.12), which
# carries stable fixes that bookworm-backports' lags behind on (rxe's
# responder reprocessed a packet when its QP failed under it, CVE-2026-93107,
# fixed in 6.12.111); else bookworm-backports'.  Exact packages, so the 6.1
# metapackages from bookworm stay as they are.
k612=()
if [ -n "$(apt-cache madison linux-image-6.12-amd64 2>/dev/null)" ]; then
	k612=(linux-image-6.12-amd64 linux-headers-6.12-amd64)
else
	bpo=$(apt-cache madison linux-image-amd64 | awk '/bookworm-backports/ { print $3; exit }')
	if [ -n "$bpo" ]; then
		img=$(apt-cache show "linux-image-amd64=$bpo" | sed -n 's/^Depends: \([^ ,]*\).*/\1/p' | head -n 1)
		hdr=$(apt-cache show "linux-headers-amd64=$bpo" | sed -n 's/^Depends: \([^ ,]*\).*/\1/p' | head -n 1)
		k612=("$img" "$hdr")
	fi
fi

pkgs=(build-essential kmod file bc flex bison libelf-dev libssl-dev
      qemu-system-x86 linux-image-amd64 linux-headers-amd64 "${k612[@]}"
      linux-source-6.1 sparse iproute2 rdma-core ibverbs-utils perftest
      iperf3 sockperf redis-server redis-tools nginx wrk curl iputils-ping nbd-client
      nbd-server python3 python3-pip dkms
      libmnl-dev libjansson-dev librdmacm-dev libibverbs-dev pkg-config xz-utils
      busybox-static clang libbpf-dev bpftool)
# Go (a selftest's static program): Debian's, unless one is installed
command -v go >/dev/null || pkgs+=(golang-go)
missing=()
for p in "${pkgs[@]}"; do
	have_pkg "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# virtme-ng: the kernel developers' VM runner (PyPI)
# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"
VNG_VERSION=1.42
vng=$(exs_vng 2>/dev/null) || vng=false
if [ "$("$vng" --version 2>/dev/null | awk '{print $NF}')" != "$VNG_VERSION" ]; then
	echo "setup: installing virtme-ng $VNG_VERSION"
	python3 -m pip install -q "virtme-ng==$VNG_VERSION" 2>/dev/null ||
		python3 -m pip install -q --break-system-packages "virtme-ng==$VNG_VERSION"
	hash -r
fi

# checkpatch.pl and its data, from Debian's linux-source package
cp_dir=$cache/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	echo "setup: extracting checkpatch.pl"
	mkdir -p "$cp_dir"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
echo "setup: ready (cache in $cache)"
