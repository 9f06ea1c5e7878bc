// SPDX-License-Identifier: GPL-2.0
/*
 * What a link posts on its QP: every stream's requests (tx.c, under the
 * stream's lock), and the link's own messages, for a peer's channel no
 * stream of ours has: a JOIN's or stray OPEN's REFUSE, the ABORT that
 * answers a JOINED come too late (share.c, rx.c).  Those go from
 * EXS_LINK_SQ send slots of the link's own, never a stream's: a peer's
 * burst of JOINs takes no stream's slots, and no stream's ring writes
 * leave the link none.  A REFUSE with no slot free is owed to its
 * channel (one a channel at most, so a peer that keeps to the protocol
 * loses none) and sent as the link's slots complete; on a QP going or
 * being replaced it is lost with the JOIN it answers (the connector's
 * deadline ends its wait, and it goes to TCP).  And the link's fence
 * (link_watch.c), on a slot of its own.
 */
#include "conn.h"
#include "mib.h"

/* Nothing may follow ib_drain_qp()'s marker (a completion handler
 * returning credits while the teardown drains, say): its flush would
 * complete after the drain, on a connection about to be freed.  A ring
 * write's bytes count for the link.
 *
 * The link's PD and device, and a stream's send buffer mapping, go only
 * after the teardown set link->closing (or the stream's own qp_closing)
 * under the locks the caller holds: the link's and the stream's.  So a
 * request takes the PD's key, and a write not inline its bytes synced
 * for the device, only here, past that test; before it, a stream that
 * joined the link could find its PD freed or NULL
 * (exs_conn_hw_release()).  The caller checked its stream's own
 * qp_closing (tx.c; the link's own messages check the link's only).
 * Called under link->lock.
 */
int exs_link_post(struct exs_link *link, struct ib_send_wr *wr)
{
	struct ib_sge *sge;
	int err, i;

	lockdep_assert_held(&link->lock);
	if (link->closing || !link->qp)
		return -ESHUTDOWN;
	for (i = 0; i < wr->num_sge; i++) {
		sge = &wr->sg_list[i];
		sge->lkey = link->pd->local_dma_lkey;
		/* not inline: the send buffer's, mapped (tdma) */
		if (!(wr->send_flags & IB_SEND_INLINE))
			ib_dma_sync_single_for_device(link->dev->ibdev,
						      sge->addr, sge->length,
						      DMA_TO_DEVICE);
	}
	/* bytes the QP's batch holds go first (batch.c) */
	err = exs_batch_post(link);
	if (!err)
		err = ib_post_send(link->qp, wr, NULL);
	if (!err && wr->num_sge && (wr->opcode == IB_WR_RDMA_WRITE ||
				    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM))
		link->tx_bytes += wr->sg_list->length;
	return err;
}

/* A new QP: none of the link's messages in flight, nor its fence, none
 * owed (the JOINs they answered went with the old one).  Called under
 * link->lock.
 */
void exs_link_tx_init(struct exs_link *link)
{
	lockdep_assert_held(&link->lock);
	link->ctrl_inflight = 0;
	link->fence_out = false;
	link->nrefuse_owed = 0;
	memset(link->refuse_owed, 0, sizeof(link->refuse_owed));
}

/* 0; -EAGAIN with no slot free; -ENOTCONN on a QP going, or replaced
 * and not yet resumed (its first message is the holder's RESUME), or
 * not built to share; else the device's error.  Under link->lock.
 */
static int exs_link_post_msg(struct exs_link *link,
			     enum exs_wire_msg_type type, u8 chan, u32 cursor)
{
	struct ib_sge sge = {
		.addr	= (uintptr_t)&link->ctrl_msg,
		.length	= sizeof(link->ctrl_msg),
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &link->ctrl_cqe,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED | IB_SEND_INLINE,
		.sg_list	= &sge,
		.num_sge	= 1,
	};
	int err;

	lockdep_assert_held(&link->lock);
	if (!link->chans || link->resuming)
		return -ENOTCONN;
	if (link->ctrl_inflight >= EXS_LINK_SQ)
		return -EAGAIN;
	exs_wire_build_msg(&link->ctrl_msg, type, 0, cursor, chan);
	err = exs_link_post(link, &wr);
	if (err)
		return err == -ESHUTDOWN ? -ENOTCONN : err;
	link->ctrl_inflight++;
	EXS_INC_STATS(link->net, EXS_MIB_MSGSOUT);
	if (type == EXS_MSG_REFUSE)
		EXS_INC_STATS(link->net, EXS_MIB_RDMAREJECT);
	return 0;
}

/* A post the device refused ends the link, as a stream's would.  Called
 * under the holder's lock.
 */
void exs_link_post_failed(struct exs_link *link, int err)
{
	if (err && err != -EAGAIN && err != -ENOTCONN)
		__exs_link_abort(link->holder, -ECONNRESET, false);
}

/* ABORT the stream on the peer's channel @chan, a JOINED come after our
 * connect gave up on it; lost when no slot is free: the peer's stream
 * then waits, unused, until its own end (it holds no slot of ours).
 * Called under the holder's lock.
 */
void exs_link_abort_chan(struct exs_link *link, u8 chan)
{
	int err;

	lockdep_assert_held(&link->holder->lock);
	spin_lock(&link->lock);
	err = exs_link_post_msg(link, EXS_MSG_ABORT, chan, 0);
	spin_unlock(&link->lock);
	exs_link_post_failed(link, err);
}

/* REFUSE, for @why, what the peer asked for on its channel @chan (1 to
 * 127: wire.c); owed when no slot is free.  Counted once posted.
 * Called under the holder's lock.
 */
void exs_link_refuse(struct exs_link *link, u8 chan, int why)
{
	int err;

	lockdep_assert_held(&link->holder->lock);
	if (WARN_ON_ONCE(!chan || chan >= EXS_CHAN_MAX))
		return;
	spin_lock(&link->lock);
	err = exs_link_post_msg(link, EXS_MSG_REFUSE, chan, why);
	if (err == -EAGAIN && !link->refuse_owed[chan]) {
		link->refuse_owed[chan] = why;
		link->nrefuse_owed++;
	}
	spin_unlock(&link->lock);
	exs_link_post_failed(link, err);
}

/* The REFUSEs owed, as far as slots free up.  Under link->lock. */
static int exs_link_pay_owed(struct exs_link *link)
{
	int err;
	u8 chan;

	lockdep_assert_held(&link->lock);
	for (chan = 1; chan < EXS_CHAN_MAX && link->nrefuse_owed; chan++) {
		if (!link->refuse_owed[chan])
			continue;
		err = exs_link_post_msg(link, EXS_MSG_REFUSE, chan,
					link->refuse_owed[chan]);
		if (err == -EAGAIN)
			return 0;	/* at the next completion */
		link->refuse_owed[chan] = 0;
		link->nrefuse_owed--;
		if (err && err != -ENOTCONN)
			return err;
	}
	return 0;
}

/* A request of the link's own (a message, a BATCH: batch.c, a fence)
 * completed: flushed with its QP, which the holder resumes or ends as
 * for a request of its own; or acked, the peer there, and @err the error
 * of a post its handler made, which ends the link.  Called under the
 * holder's lock.
 */
void exs_link_req_done(struct exs_link *link, const struct ib_wc *wc,
		       int err)
{
	struct exs_conn *holder = link->holder;

	lockdep_assert_held(&holder->lock);
	if (wc->status != IB_WC_SUCCESS) {
		exs_conn_wc_failed(holder, wc, false);
		return;
	}
	holder->last_heard = jiffies;	/* the peer's device acked it */
	holder->last_acked = holder->last_heard;
	if (err)
		__exs_link_abort(holder, -ECONNRESET, false);
}

/* One of the link's messages completed: acked, or flushed with its QP
 * (which the holder resumes or ends, as for any request of its own).
 */
void exs_link_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_link *link = container_of(wc->wr_cqe, struct exs_link,
					     ctrl_cqe);
	struct exs_conn *holder = link->holder;
	int err = 0;

	spin_lock(&holder->lock);
	spin_lock(&link->lock);
	/* a resume drains the old QP before it builds the new one
	 * (resume.c), so no flush of the old comes after the new one's
	 * init; counted down never below 0 all the same
	 */
	if (link->ctrl_inflight)
		link->ctrl_inflight--;
	if (wc->status == IB_WC_SUCCESS)
		err = exs_link_pay_owed(link);
	spin_unlock(&link->lock);
	exs_link_req_done(link, wc, err);
	spin_unlock(&holder->lock);
}

/* The link's fence (link_watch.c): a zero-length RDMA WRITE, which no
 * software of the peer's sees, signaled, on a slot of its own
 * (EXS_LINK_FENCE).  A zero-length write needs no valid key (IB's
 * C9-88); it names the holder's peer ring all the same, for a device
 * that checks.  The send queue completes in order: its completion says
 * that every request posted before it completed, signaled or not.  0;
 * -EAGAIN with one in flight; -ENOTCONN on a QP going or being replaced;
 * else the device's error.  Under the holder's lock and link->lock.
 */
int exs_link_post_fence(struct exs_link *link)
{
	const struct exs_conn *holder = link->holder;
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe		= &link->fence_cqe,
			.opcode		= IB_WR_RDMA_WRITE,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.remote_addr	= holder->peer.ring_addr,
		.rkey		= holder->peer.ring_rkey,
	};
	int err;

	lockdep_assert_held(&link->lock);
	if (link->resuming)
		return -ENOTCONN;
	if (link->fence_out)
		return -EAGAIN;
	err = exs_link_post(link, &wr.wr);
	if (err)
		return err == -ESHUTDOWN ? -ENOTCONN : err;
	link->fence_out = true;
	link->fences++;
	link->fence_at = jiffies;
	return 0;
}

/* The fence completed: every request before it did (the streams that
 * left are released: link_watch.c); or it was flushed with its QP, which
 * the holder resumes or ends, as for a request of its own.
 */
void exs_link_fence_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_link *link = container_of(wc->wr_cqe, struct exs_link,
					     fence_cqe);
	struct exs_conn *holder = link->holder;

	spin_lock(&holder->lock);
	spin_lock(&link->lock);
	link->fence_out = false;
	if (wc->status == IB_WC_SUCCESS) {
		link->fences_done = link->fences;
		/* not once the teardown stopped the watch */
		if (!link->closing)
			mod_delayed_work(exs_wq, &link->watch_work, 0);
	}
	spin_unlock(&link->lock);
	exs_link_req_done(link, wc, 0);
	spin_unlock(&holder->lock);
}
