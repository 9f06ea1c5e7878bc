#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The layering issue 41 asks for, as far as a grep can tell: a stream's
# struct (struct exs_conn, conn.h) holds no RDMA verbs object nor device,
# which are its link's (struct exs_link, link.h); and no file of the
# module is over 800 lines.  Prints what breaks a rule; exit 1 if any.
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
rc=0

# the struct's body, from its opening line to the closing brace at the
# start of a line
body=$(awk '/^struct exs_conn \{/ { on = 1 } on { print FILENAME ":" FNR ": " $0 }
	on && /^\};/ { exit }' net/af_exs/conn.h)
if [ -z "$body" ]; then
	echo "net/af_exs/conn.h: no struct exs_conn"
	rc=1
fi
bad=$(grep -E 'struct (ib_qp|ib_pd|ib_cq|rdma_cm_id|exs_dev)\b' <<< "$body")
if [ -n "$bad" ]; then
	echo "$bad"
	echo "  (a verbs object or device in the stream's struct: the link's)"
	rc=1
fi

for f in $(git ls-files -co --exclude-standard -- 'net/af_exs/*.[ch]' |
	   grep -v '\.mod\.c$'); do
	n=$(wc -l < "$f")
	if [ "$n" -gt 800 ]; then
		echo "$f: $n lines, over 800"
		rc=1
	fi
done
exit $rc
