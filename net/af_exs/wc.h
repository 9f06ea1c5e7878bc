/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a failed work completion means for its connection (conn.c): pure
 * logic, tested by KUnit (wc_test.c).
 */
#ifndef __EXS_WC_H
#define __EXS_WC_H

#include <rdma/ib_verbs.h>

enum exs_wc_verdict {
	EXS_WC_IGNORE,		/* nothing to do (yet) */
	EXS_WC_TIMEDOUT,	/* the peer's device never answered */
	EXS_WC_RESET,		/* our side failed (its link went down, say) */
	EXS_WC_PEER_FAULT,	/* the device refused what the peer did */
};

/* A failed work request, a receive if @recv, on a connection that
 * @stands (established; before wire version 7 no FIN from the peer,
 * from 7 none or ours not yet out, and no LAST from it; no teardown of
 * ours began)
 * and has @sends_out (sends not yet completed).
 *
 * A flush is our own teardown's, or comes after the connection ended,
 * unless it stands: then its queue pair died under it.  Sends still out
 * then complete too, the first with the cause (RETRY_EXC: a dead peer),
 * but on the send CQ, which the device serves in no set order with the
 * receive CQ: a flushed receive leaves the verdict to them.  A flushed
 * send with no cause before it is a QP our own device ended: 6.12's rxe
 * errors a QP whose packet its qdisc refused (one being replaced, say)
 * and flushes every request.  With no send out, a device that reports
 * its own faults as QP events was refusing a peer's plain write (outside
 * the ring, a key not ours), with no receive to report it on.
 *
 * Otherwise, on a receive the device refused what the peer sent (longer
 * than a receive, an opcode or key not allowed), on a send the peer's
 * device refused what we wrote into the ring it advertised; a local
 * error on a send is our own side's.
 */
static inline enum exs_wc_verdict
exs_wc_verdict(enum ib_wc_status status, bool recv, bool stands,
	       bool sends_out)
{
	switch (status) {
	case IB_WC_WR_FLUSH_ERR:
		if (!stands || (recv && sends_out))
			return EXS_WC_IGNORE;
		return recv ? EXS_WC_PEER_FAULT : EXS_WC_RESET;
	case IB_WC_RETRY_EXC_ERR:
		return EXS_WC_TIMEDOUT;
	case IB_WC_LOC_LEN_ERR:
	case IB_WC_LOC_QP_OP_ERR:
	case IB_WC_LOC_PROT_ERR:
		return recv ? EXS_WC_PEER_FAULT : EXS_WC_RESET;
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_OP_ERR:
		return recv ? EXS_WC_RESET : EXS_WC_PEER_FAULT;
	default:
		return EXS_WC_RESET;
	}
}

#endif /* __EXS_WC_H */
