/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_EXS tracepoints (events/af_exs/): how connections start, fall back
 * and end.  Addresses are printed as IPv6, IPv4 as IPv4-mapped.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM af_exs

#if !defined(_EXS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EXS_TRACE_H

#include <linux/tracepoint.h>
#include <linux/in6.h>

#include "wire.h"

#define exs_show_reason(r)						\
	__print_symbolic(r,						\
			 { EXS_FALLBACK_NO_RDMA, "no_rdma" },		\
			 { EXS_FALLBACK_NO_DEVICE, "no_device" },	\
			 { EXS_FALLBACK_PEER_REJECT, "peer_reject" },	\
			 { EXS_FALLBACK_TIMEOUT, "timeout" },		\
			 { EXS_FALLBACK_VERSION, "version" },		\
			 { EXS_FALLBACK_NOMEM, "nomem" },		\
			 { EXS_FALLBACK_POLICY, "policy" },		\
			 { EXS_FALLBACK_NEG_CACHE, "neg_cache" },	\
			 { EXS_FALLBACK_NO_ANSWER, "no_answer" },	\
			 { EXS_FALLBACK_GATEWAY, "gateway" })

/* One RDMA connection, by its TCP-level four-tuple. */
DECLARE_EVENT_CLASS(exs_conn_class,
	TP_PROTO(const struct exs_wire_peer *self, int err),
	TP_ARGS(self, err),
	TP_STRUCT__entry(
		__array(u8, saddr, sizeof(struct in6_addr))
		__array(u8, daddr, sizeof(struct in6_addr))
		__field(u16, sport)
		__field(u16, dport)
		__field(int, err)
	),
	TP_fast_assign(
		memcpy(__entry->saddr, &self->saddr, sizeof(__entry->saddr));
		memcpy(__entry->daddr, &self->daddr, sizeof(__entry->daddr));
		__entry->sport = ntohs(self->sport);
		__entry->dport = ntohs(self->dport);
		__entry->err = err;
	),
	TP_printk("[%pI6c]:%u -> [%pI6c]:%u err=%d",
		  __entry->saddr, __entry->sport, __entry->daddr,
		  __entry->dport, __entry->err)
);

/* connect() ended on RDMA */
DEFINE_EVENT(exs_conn_class, exs_connect,
	TP_PROTO(const struct exs_wire_peer *self, int err),
	TP_ARGS(self, err));

/* accept() handed out an RDMA connection */
DEFINE_EVENT(exs_conn_class, exs_accept,
	TP_PROTO(const struct exs_wire_peer *self, int err),
	TP_ARGS(self, err));

/* an established RDMA connection was reset or failed */
DEFINE_EVENT(exs_conn_class, exs_abort,
	TP_PROTO(const struct exs_wire_peer *self, int err),
	TP_ARGS(self, err));

/* a socket merged into TCP, and why: its peer's address */
TRACE_EVENT(exs_fallback,
	TP_PROTO(const struct in6_addr *daddr, __be16 dport, int reason),
	TP_ARGS(daddr, dport, reason),
	TP_STRUCT__entry(
		__array(u8, daddr, sizeof(struct in6_addr))
		__field(u16, dport)
		__field(int, reason)
	),
	TP_fast_assign(
		memcpy(__entry->daddr, daddr, sizeof(__entry->daddr));
		__entry->dport = ntohs(dport);
		__entry->reason = reason;
	),
	TP_printk("[%pI6c]:%u reason=%s", __entry->daddr, __entry->dport,
		  exs_show_reason(__entry->reason))
);

#endif /* _EXS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
