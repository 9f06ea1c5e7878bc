#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build af_exs.ko (with af_exs_kunit.ko where the kernel has KUnit, and the
# selftests' exs_kern.ko) for each kernel into build/<release>/, each in its
# own copy of the sources so the builds share no objects.
#   build-modules.sh [KERNEL...]   (default: every supported kernel; a
#                                   KERNEL may also be a built kernel tree)
set -eu
top=$(readlink -f "$(dirname "$0")/..")
# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"

for k in ${*:-$EXS_KERNELS}; do
	rel=$(exs_kernel_release "$k")
	kdir=$(exs_kernel_kbuild "$k")
	dst="$top/build/$rel"
	mkdir -p "$dst"
	# sources only: an in-tree build (make module, make sparse) leaves
	# its kernel's generated *.mod.c beside them, which would stand in
	# for this kernel's own
	(cd "$top" && cp -u --parents Kbuild include/uapi/linux/*.h \
		$(ls net/af_exs/*.[ch] selftests/kmod/*.c | grep -v '\.mod\.c$') \
		selftests/kmod/Kbuild net/af_exs/Kbuild "$dst/")
	echo "  MODULE  $rel"
	make -s -C "$kdir" M="$dst" W=1 modules 2>&1 | grep -v '^Skipping BTF generation' || true
	[ -r "$dst/net/af_exs/af_exs.ko" ]
done
