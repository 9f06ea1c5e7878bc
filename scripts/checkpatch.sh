#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over every C source and header of the project.
set -u
top=$(readlink -f "$(dirname "$0")/..")
cp=${EXS_CACHE:-$HOME/.cache/af-exs}/checkpatch/scripts/checkpatch.pl
if [ ! -x "$cp" ]; then
	echo "checkpatch.pl missing: run scripts/setup.sh" >&2
	exit 2
fi
cd "$top" || exit 2
rc=0
opts=(--strict --no-tree --quiet --terse --show-types)

# The module, the selftests' test module and the uapi header.  The
# proto_ops of the family and of IPPROTO_EXS are writable on purpose
# (family.c, inet.c: their family and protocol are module parameters,
# written once at init, then read-only); checkpatch cannot be told so per
# line, so CONST_STRUCT is checked here instead, for those only.
kfiles=$(git ls-files -co --exclude-standard -- 'net/*.[ch]' 'include/*.h' \
	'selftests/kmod/*.[ch]' |
	grep -v '/trace\.h$')
"$cp" "${opts[@]}" --ignore CONST_STRUCT -f $kfiles || rc=1
# TRACE_EVENT()'s macro layout is the kernel's own convention, which
# checkpatch's line rules do not know
"$cp" "${opts[@]}" --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
	-f net/af_exs/trace.h || rc=1
bad=$(grep -n 'struct proto_ops\b' $kfiles | grep -v '\bconst\b' |
	grep -Ev '^net/af_exs/(family|inet).c:.*written once')
if [ -n "$bad" ]; then
	echo "$bad: CONST_STRUCT: struct proto_ops should be const"
	rc=1
fi

# Userspace: the same style, but with the C library's types and attributes.
ufiles=$(git ls-files -co --exclude-standard -- 'tools/*.[ch]' 'selftests/*.[ch]' |
	grep -v '^selftests/kmod/')
# (VOLATILE: C's own rule for what a signal handler reads is volatile
# sig_atomic_t)
"$cp" "${opts[@]}" --ignore PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO,VOLATILE \
	-f $ufiles || rc=1
exit $rc
