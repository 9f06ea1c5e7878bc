#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the debug kernel: Debian's linux-source-6.1 with virtme-ng's
# minimal config plus kernel/debug.config (KUnit, KASAN, lockdep, kmemleak,
# rxe, siw, SMC); "debug-kernel.sh kcsan" builds its KCSAN variant
# (kernel/kcsan.config over it: KCSAN excludes KASAN).  The build is cached
# under ~/.cache/af-exs/, keyed by the source version and the config
# fragments, so it is rebuilt only when one of them changes.  Prints the
# build tree's path.
set -eu
top=$(readlink -f "$(dirname "$0")/..")
# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"
cache=${EXS_CACHE:-$HOME/.cache/af-exs}
tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
variant=${1:-}
frags=("$top/kernel/debug.config")
case $variant in
"") ;;
kcsan) frags+=("$top/kernel/kcsan.config") ;;
*) echo "usage: $0 [kcsan]" >&2; exit 2 ;;
esac
key=$( (echo "$srcver"; cat "${frags[@]}") | sha256sum | cut -c1-16)
tree=$cache/debug-kernel${variant:+-$variant}-$key

# What booting it and building modules against it read.  A stamp alone is
# not trusted: an interrupted make in the tree deletes the target it was
# remaking (include/generated/autoconf.h, for one), and the cache outlives
# the checkout that built it.
needs="arch/x86/boot/bzImage Module.symvers include/config/auto.conf
	include/config/kernel.release include/generated/autoconf.h"
complete() {
	local f
	[ -e "$tree/.exs-built" ] || return 1
	for f in $needs; do
		[ -s "$tree/$f" ] || return 1
	done
}

# One builder per tree: make check and make stress may start together.
mkdir -p "$cache"
exec 9> "$tree.lock"
flock 9
# A fresh tree: Debian's source, configured as the fragments want
configure() {
	local missing
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	cd "$tree"
	"$(exs_vng)" --kconfig >/dev/null
	./scripts/kconfig/merge_config.sh -m .config "${frags[@]}" >/dev/null
	make olddefconfig >/dev/null
	# every option as the last fragment that names it wants must have
	# survived olddefconfig
	missing=$(awk '/^CONFIG_[A-Z0-9_]+=/ { split($0, a, "="); want[a[1]] = $0 }
		       /^# CONFIG_[A-Z0-9_]+ is not set/ { want[$2] = "n" }
		       END { for (k in want) print k, want[k] }' "${frags[@]}" |
		while read -r opt val; do
			if [ "$val" = n ]; then
				if grep -qx "$opt=[ym]" .config; then echo "$opt=n"; fi
			elif ! grep -qx "$val" .config; then
				echo "$val"
			fi
		done)
	if [ -n "$missing" ]; then
		echo "debug-kernel: options not accepted: $missing" >&2
		exit 1
	fi
}

if complete; then
	echo "$tree"
	exit 0
fi
if [ -e "$tree/.exs-built" ] && [ -s "$tree/.config" ]; then
	# built once: make remakes only what went missing (the stamp stays,
	# so an interrupted repair is retried as one)
	echo "debug-kernel: $tree is incomplete; finishing its build" >&2
	cd "$tree"
else
	echo "debug-kernel: building linux-source $srcver in $tree (about 15-20 minutes)" >&2
	configure
fi
make -j"$(nproc)" -s bzImage modules >&2
touch .exs-built
complete || { echo "debug-kernel: $tree is missing files after its build" >&2; exit 1; }
echo "$tree"
