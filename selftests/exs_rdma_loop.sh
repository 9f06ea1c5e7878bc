#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The socket API and the data path over RDMA on one host: a Soft-RoCE
# device on a dummy link loops every AF_EXS connection to the host's own
# address back over RDMA, and exs_sockapi and exs_stream (-R) require that
# every AF_EXS pair stayed on RDMA and answered as TCP would.  make check
# runs it on the debug kernel, where it puts the RDMA data path under KASAN,
# lockdep and kmemleak in one boot (exs_pair.sh does the same between two
# hosts on the stock kernels).  EXS_PAIR_SCALE=N: 1/N of the bulk bytes.

. "$(dirname "$0")/lib.sh"

addr4=10.0.9.1
addr6=fd09::1

exs_tap_begin "AF_EXS over a looped-back RDMA device"
exs_loaded || exs_skip_all af_exs "module not loaded"
exs_rxe_loop exsrl0 $addr4 || exs_skip_all "RDMA loop" "no Soft-RoCE device"
ip -6 addr add $addr6/64 dev exsrl0 nodad
exs_blackhole
sysctl -qw net.exs.connect_timeout_ms=30000

rdma=$(exs_stat ConnectRdma)
api=0
echo "# exs_sockapi over RDMA ($addr4, $addr6)"
exs_explained exs_sockapi -4 $addr4 -6 $addr6 -R || api=1
echo "# exs_stream over RDMA ($addr4, $addr6)"
exs_explained exs_stream -4 $addr4 -6 $addr6 -R -S "${EXS_PAIR_SCALE:-1}" || api=1
# A peer that refused RDMA stays on TCP for the negative cache's TTL; a
# listener on this host at that port ends its entry at once: the next
# connect there uses RDMA (negcache.c).  -t 0: a refusal is final
port=24901
exs_connect -x -a $addr4 -p $port -n 1 -t 0 >/dev/null 2>&1
neg=$(exs_stat FallbackNegCache)
exs_connect -x -a $addr4 -p $port -n 1 -t 0 >/dev/null 2>&1
exs_check "a refused port is in the negative cache" \
	[ $(($(exs_stat FallbackNegCache) - neg)) -eq 1 ]
neg=$(exs_stat FallbackNegCache)
exs_bg exs_connect -l -x -p $port -e exs -n 65536 >/dev/null
exs_wait_listen $port 10
exs_run "a listener here takes its port out of the negative cache" \
	exs_connect -x -a $addr4 -p $port -e exs -n 65536
exs_check "... and its server side stayed on RDMA" wait "${EXS_PIDS[-1]}"
exs_check "... with no FallbackNegCache" [ "$(exs_stat FallbackNegCache)" = "$neg" ]

exs_check "the RDMA connections were counted ($(($(exs_stat ConnectRdma) - rdma)))" \
	[ $(($(exs_stat ConnectRdma) - rdma)) -gt 0 ]

exs_rxe_loop_del exsrl0
exs_check "the module unloads after the RDMA connections" \
	exs_wait_until 60 rmmod af_exs
exs_check "the module loads again" insmod "$EXS_MODULE"

exs_tap_end && [ "$api" = 0 ]
