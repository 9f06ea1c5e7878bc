/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A link's send queue, and how it is shared out: every stream on it may
 * have EXS_SQ_DEPTH requests in flight, the link's batch and its own
 * messages theirs.  A stream counted out of its link (it posts nothing
 * more: share.c) may still have requests in flight, which its peer's
 * device need never complete (a peer that stops posting receives stalls
 * the whole send queue): those count against the link, and no stream
 * joins while they would leave it less than a stream's EXS_SQ_DEPTH.  So
 * a peer that JOINs and ABORTs streams while it lets nothing through
 * gets refusals, never a post the queue has no room for.  Pure
 * arithmetic, for KUnit (link_sq_test.c).
 */
#ifndef __EXS_LINK_SQ_H
#define __EXS_LINK_SQ_H

#include <linux/types.h>

#define EXS_SQ_DEPTH		64	/* a stream's send requests in flight */
/* ...of which a stream's ring writes leave these to its control messages
 * (CREDIT, FIN), which a queue full of writes would otherwise turn away
 */
#define EXS_SQ_CTRL		4
/* A QP that carries other streams (share.c): the send slots it may
 * take, and how many streams it carries besides its first.  Devices
 * round a queue up to a power of two, rxe after adding a slot of its
 * own, so the streams' EXS_SQ_DEPTH each, the QP's BATCH messages
 * (batch.c), the link's own messages (link_tx.c) and fence, the
 * requests of streams counted out (EXS_SQ_QUIET, beyond what a stream's
 * leaving frees: above) and ib_drain_qp()'s marker stay within it: 31 streams,
 * where 32 would take 4,096 slots (2 MB of rxe's memory a QP).
 */
#define EXS_SHARE_SQ_SLOTS	2048
#define EXS_BATCH_INFLIGHT	8
#define EXS_LINK_SQ		8
#define EXS_SQ_QUIET		32
/* the link's fence (link_watch.c): one in flight, on a slot of its own,
 * so that no burst of the link's messages can keep it out
 */
#define EXS_LINK_FENCE		1
#define EXS_SHARE_RIDERS	((EXS_SHARE_SQ_SLOTS - 2 - EXS_BATCH_INFLIGHT - \
				  EXS_LINK_SQ - EXS_LINK_FENCE - \
				  EXS_SQ_QUIET) / EXS_SQ_DEPTH - 1)
/* ...the QP's send requests: all of the above but the marker */
#define EXS_SHARE_SQ_ROOM	(EXS_SQ_DEPTH * (EXS_SHARE_RIDERS + 1) + \
				 EXS_BATCH_INFLIGHT + EXS_LINK_SQ + \
				 EXS_LINK_FENCE + EXS_SQ_QUIET)

/* Room on a shared link for one more stream counted in, with @nchans
 * counted (its first stream's apart) and @quiet requests in flight of
 * streams counted out: the streams' EXS_SQ_DEPTH each, and what is
 * quiet, still within the slots the streams have.
 */
static inline bool exs_link_sq_fits(unsigned int nchans, unsigned int quiet)
{
	return nchans < EXS_SHARE_RIDERS &&
	       (nchans + 2) * EXS_SQ_DEPTH + quiet <=
	       (EXS_SHARE_RIDERS + 1) * EXS_SQ_DEPTH + EXS_SQ_QUIET;
}

#endif /* __EXS_LINK_SQ_H */
