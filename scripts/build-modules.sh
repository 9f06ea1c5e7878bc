#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build af_exs.ko for every supported kernel into build/<release>/, each in
# its own copy of the sources so the builds do not share objects.
#   build-modules.sh [KERNEL...]   (default: every supported kernel)
set -eu
top=$(readlink -f "$(dirname "$0")/..")
# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"

for k in ${*:-$EXS_KERNELS}; do
	img=$(exs_kernel_image "$k")
	rel=$(exs_kernel_release "$img")
	kdir=$(exs_kernel_headers "$rel") || {
		echo "build-modules: no headers for $rel" >&2
		exit 1
	}
	dst="$top/build/$rel"
	mkdir -p "$dst"
	(cd "$top" && cp -u --parents Kbuild include/uapi/linux/*.h net/af_exs/*.[ch] \
		net/af_exs/Kbuild "$dst/")
	echo "  MODULE  $rel"
	make -s -C "$kdir" M="$dst" W=1 modules
done
