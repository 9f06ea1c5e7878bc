#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms add/build/remove of the tracked sources against every supported
# kernel, as a real machine's "dkms install" would build them.
set -eu
top=$(readlink -f "$(dirname "$0")/..")
# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
src=/usr/src/af_exs-$ver

dkms remove "af_exs/$ver" --all >/dev/null 2>&1 || true
rm -rf "$src"
mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard | grep -v '^build/' | tar -cf - -T - ) |
	tar -xf - -C "$src"
trap 'dkms remove "af_exs/$ver" --all >/dev/null 2>&1; rm -rf "$src"' EXIT
dkms add "af_exs/$ver"
for k in $EXS_KERNELS; do
	dkms build "af_exs/$ver" -k "$(exs_kernel_release "$k")"
done
