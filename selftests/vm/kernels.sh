# SPDX-License-Identifier: GPL-2.0
# The kernels the project supports, and where their images and kbuild trees
# live.  A kernel is named by a short name (6.1, 6.12: Debian's stock
# kernels), by a built kernel tree (the debug kernel), or by an image path.
# Sourced by exs-vm and scripts/*.sh.

EXS_KERNELS="6.1 6.12"

# exs_kernel_image KERNEL: the kernel image to boot
exs_kernel_image() {
	local img
	case "$1" in
	6.1|6.12)
		img=$(ls /boot/vmlinuz-"$1".[0-9]*-amd64 /boot/vmlinuz-"$1".[0-9]*+deb12-amd64 \
			2>/dev/null | sort -V | tail -n 1)
		;;
	*)
		img=$1
		[ -d "$1" ] && img=$1/arch/x86/boot/bzImage
		;;
	esac
	if [ -z "$img" ] || [ ! -r "$img" ]; then
		echo "no kernel image for '$1' (scripts/setup.sh installs them)" >&2
		return 1
	fi
	echo "$img"
}

# exs_kernel_release KERNEL: its release string, which keys build/<release>/
exs_kernel_release() {
	local img base
	if [ -d "$1" ]; then
		cat "$1/include/config/kernel.release"
		return
	fi
	img=$(exs_kernel_image "$1") || return 1
	base=$(basename "$img")
	case "$base" in
	vmlinuz-*) echo "${base#vmlinuz-}" ;;
	*) file -bL "$img" | sed -n 's/.*version \([^ ]*\).*/\1/p' ;;
	esac
}

# exs_kernel_kbuild KERNEL: the tree to build modules against
exs_kernel_kbuild() {
	local rel
	if [ -d "$1" ]; then
		echo "$1"
		return
	fi
	rel=$(exs_kernel_release "$1") || return 1
	if [ -d "/usr/src/linux-headers-$rel" ]; then
		echo "/usr/src/linux-headers-$rel"
	elif [ -d "/lib/modules/$rel/build" ]; then
		echo "/lib/modules/$rel/build"
	else
		echo "no kbuild tree for $rel (scripts/setup.sh installs it)" >&2
		return 1
	fi
}

# exs_vng: the virtme-ng runner, also when pip put it off PATH
exs_vng() {
	command -v vng 2>/dev/null && return
	local p
	p=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null)/vng
	[ -x "$p" ] && echo "$p" && return
	echo "virtme-ng (vng) not found: run scripts/setup.sh" >&2
	return 1
}
