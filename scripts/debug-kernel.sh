#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the debug kernel: Debian's linux-source-6.1 with virtme-ng's
# minimal config plus kernel/debug.config (KUnit, KASAN, lockdep, kmemleak,
# rxe, siw, SMC).  The build is cached under ~/.cache/af-exs/, keyed by the
# source version and the config fragment, so it is rebuilt only when one of
# them changes.  Prints the build tree's path.
set -eu
top=$(readlink -f "$(dirname "$0")/..")
# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"
cache=${EXS_CACHE:-$HOME/.cache/af-exs}
tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( (echo "$srcver"; cat "$top/kernel/debug.config") | sha256sum | cut -c1-16)
tree=$cache/debug-kernel-$key

if [ -e "$tree/.exs-built" ]; then
	echo "$tree"
	exit 0
fi
echo "debug-kernel: building linux-source $srcver in $tree (about 15-20 minutes)" >&2
rm -rf "$tree"
mkdir -p "$tree"
tar -xJf "$tarball" -C "$tree" --strip-components=1
cd "$tree"
"$(exs_vng)" --kconfig >/dev/null
./scripts/kconfig/merge_config.sh -m .config "$top/kernel/debug.config" >/dev/null
make olddefconfig >/dev/null
# every requested option must have survived olddefconfig
missing=$(grep '^CONFIG_.*=y' "$top/kernel/debug.config" | while read -r opt; do
	grep -qx "$opt" .config || echo "$opt"
done)
if [ -n "$missing" ]; then
	echo "debug-kernel: options not accepted: $missing" >&2
	exit 1
fi
make -j"$(nproc)" -s bzImage modules >&2
touch .exs-built
echo "$tree"
