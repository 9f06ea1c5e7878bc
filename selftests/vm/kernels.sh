# SPDX-License-Identifier: GPL-2.0
# The kernels the project supports, by short name, and where they live.
# Sourced by exs-vm and scripts/*.sh.

EXS_KERNELS="6.1 6.12"

# exs_kernel_image NAME|PATH: the kernel image to boot
exs_kernel_image() {
	local img
	case "$1" in
	6.1|6.12)
		img=$(ls /boot/vmlinuz-"$1".[0-9]*-amd64 /boot/vmlinuz-"$1".[0-9]*+deb12-amd64 \
			2>/dev/null | sort -V | tail -n 1)
		;;
	*)
		img=$1 ;;
	esac
	if [ -z "$img" ] || [ ! -r "$img" ]; then
		echo "no kernel image for '$1' (scripts/setup.sh installs them)" >&2
		return 1
	fi
	echo "$img"
}

# exs_kernel_release IMAGE: its release string (modules and headers key)
exs_kernel_release() {
	local base
	base=$(basename "$1")
	case "$base" in
	vmlinuz-*) echo "${base#vmlinuz-}" ;;
	*) file -bL "$1" | sed -n 's/.*version \([^ ]*\).*/\1/p' ;;
	esac
}

# exs_kernel_headers RELEASE: its kbuild tree
exs_kernel_headers() {
	if [ -d "/usr/src/linux-headers-$1" ]; then
		echo "/usr/src/linux-headers-$1"
	elif [ -d "/lib/modules/$1/build" ]; then
		echo "/lib/modules/$1/build"
	else
		return 1
	fi
}
