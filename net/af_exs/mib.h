/* SPDX-License-Identifier: GPL-2.0 */
/* Per-namespace AF_EXS counters, in the manner of MPTCP's MIB. */
#ifndef __EXS_MIB_H
#define __EXS_MIB_H

#include <linux/percpu.h>
#include <net/net_namespace.h>
#include <linux/af_exs.h>

#include "netns.h"

enum exs_mib_field {
	EXS_MIB_ACTIVEOPEN,	/* connect() decided a transport */
	EXS_MIB_LISTEN,		/* listen() on an AF_EXS socket */
	EXS_MIB_ACCEPTTCP,	/* accept() handed out a plain TCP socket */
	EXS_MIB_ACCEPTKERN,	/* kernel_accept() wrapped a TCP child */
	EXS_MIB_CONNECTRDMA,	/* connect() ended on RDMA */
	EXS_MIB_ACCEPTRDMA,	/* accept() handed out an RDMA connection */
	EXS_MIB_RDMAREJECT,	/* a listener refused an RDMA request */
	EXS_MIB_RDMAWRITES,	/* data writes posted */
	EXS_MIB_CREDITUPDATES,	/* credit messages sent */
	EXS_MIB_CREDITSTALLS,	/* a sender waited for credits */
	EXS_MIB_PROTOERR,	/* a peer broke the protocol: reset */
	EXS_MIB_DEVREMOVED,	/* a connection ended by device removal */
	EXS_MIB_BUSYPOLLHIT,	/* a busy-polling call found its bytes */
	EXS_MIB_INLINEWRITES,	/* data writes that went inline */
	EXS_MIB_BYTESOUT,	/* bytes sent over RDMA */
	EXS_MIB_BYTESIN,	/* bytes received over RDMA */
	EXS_MIB_MSGSOUT,	/* control messages sent */
	EXS_MIB_MSGSIN,		/* control messages received */
	EXS_MIB_ABORTS,		/* RDMA connections reset or failed */
	EXS_MIB_STALLS,		/* ... of them, a request never acked */
	EXS_MIB_DEVADDED,	/* RDMA devices that came (init_net) */
	EXS_MIB_DEVGONE,	/* RDMA devices that went (init_net) */
	EXS_MIB_LISTENTCPONLY,	/* a listener rdma_cm would not take */
	EXS_MIB_PARKED,		/* connections whose QP was kept for reuse */
	EXS_MIB_CONNECTREUSE,	/* connect() ended on a parked QP */
	EXS_MIB_ACCEPTREUSE,	/* a listener took an OPEN on a parked QP */
	EXS_MIB_PARKEXPIRED,	/* a parked QP idle too long, ended */
	EXS_MIB_RESUMES,	/* connections moved to a new QP, stream kept */
	EXS_MIB_RESUMEFAILS,	/* ...that ended instead */
	EXS_MIB_QPFAILTESTS,	/* QP failures a test made up (debugfs) */
	EXS_MIB_CONNECTSHARED,	/* connect() ended on another's QP (JOIN) */
	EXS_MIB_ACCEPTSHARED,	/* a listener took a JOIN */
	EXS_MIB_LINKRESUMES,	/* QPs moved for their riders only */
	EXS_MIB_BATCHES,	/* BATCH messages sent */
	EXS_MIB_BATCHEDWRITES,	/* small writes that went in one */
	EXS_MIB_CONNECTLINKWAIT, /* connect() waited for a link coming up */
	EXS_MIB_PORTDOWNWAITS,	/* a QP's destroy waited for its port (rxe) */
	EXS_MIB_BADSOURCE,	/* a stream claimed a source its peer is not */
	EXS_MIB_BADDEST,	/* ...or a destination TCP could not reach */
	EXS_MIB_RINGMEMREFUSED,	/* a stream past net.exs.ring_mem(_peer) */
	EXS_MIB_URGSENT,	/* urgent pointers sent (MSG_OOB, oob.c) */
	EXS_MIB_URGRCVD,	/* ...and received */
	EXS_MIB_URGINBAND,	/* MSG_OOB to an older peer: in band */
	EXS_MIB_LINKFENCED,	/* streams that left, released by a fence */
	/* gauges: a value now, never reset */
	EXS_MIB_RINGMEMPAGES,	/* pages accepted streams' rings pin */
	/* one counter per enum exs_fallback_reason, in the same order */
	EXS_MIB_FALLBACK_BASE,
	EXS_MIB_MAX = EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_MAX,
};

struct exs_mib {
	unsigned long mibs[EXS_MIB_MAX];
};

static inline void EXS_INC_STATS(const struct net *net,
				 enum exs_mib_field field)
{
	this_cpu_inc(exs_pernet(net)->mib->mibs[field]);
}

static inline void EXS_ADD_STATS(const struct net *net,
				 enum exs_mib_field field, unsigned long val)
{
	this_cpu_add(exs_pernet(net)->mib->mibs[field], val);
}

static inline enum exs_mib_field
exs_mib_fallback(enum exs_fallback_reason reason)
{
	return EXS_MIB_FALLBACK_BASE + reason - 1;
}

unsigned long exs_mib_read(const struct net *net, enum exs_mib_field field);
const char *exs_mib_name(enum exs_mib_field field);
void exs_mib_reset(const struct net *net);

#endif /* __EXS_MIB_H */
