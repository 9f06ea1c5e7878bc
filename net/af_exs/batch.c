// SPDX-License-Identifier: GPL-2.0
/*
 * Small writes gathered on a shared queue pair.  rxe acks every message,
 * so a request and its answer cost four packets as ring writes, sixteen
 * connections' requests sixty-four, each a run of the QP's task at both
 * ends and a trip through the link.  While a BATCH awaits its ack, the
 * small writes of every connection on the QP gather in the next one, as
 * TCP's autocork holds small segments while earlier ones sit in the
 * device queue; that ack posts them, in one SEND.
 *
 * A BATCH is records, each bytes for one channel's ring, which the
 * receiver copies there at its producer cursor, as a ring write with the
 * same immediate would have put them: the same checks on the same state
 * (rx.c).  Anything else posted on the QP posts the held batch first, so
 * that each connection's bytes, FIN and LAST keep their order.  A QP
 * that carries no rider writes as before: one connection has no one to
 * share a batch with, and its latency stays that of a write.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "ring.h"

static bool exs_batching = true;
module_param_named(batch, exs_batching, bool, 0644);
MODULE_PARM_DESC(batch,
		 "gather small writes of a shared queue pair's connections in one SEND (0: a ring write each)");

#define EXS_BATCH_HDR	sizeof(struct exs_wire_msg)
#define EXS_REC_HDR	sizeof(struct exs_wire_rec)

/* A new QP: nothing held, nothing in flight.  A resumed QP's batches are
 * lost with the old one: each stream goes on from the cursor its RESUME
 * names (resume.c).  Called under link->lock.
 */
void exs_batch_init(struct exs_link *link)
{
	lockdep_assert_held(&link->lock);
	link->batch_len = 0;
	link->batch_nrec = 0;
	link->batch_inflight = 0;
	/* the held batch, and those in flight, count as done: no
	 * connection awaits an ack for them any more
	 */
	link->batch_posted++;
	WRITE_ONCE(link->batch_acked, link->batch_posted);
	link->batch_cap = link->batch ?
			  min_t(u32, link->inline_cap, EXS_BATCH_MAX) : 0;
	if (link->batch_cap < EXS_BATCH_HDR + EXS_REC_HDR + 1)
		link->batch_cap = 0;
}

/* Post what @link holds, inline (the batch is free again at once) and
 * signaled: its completion posts the next.  Held bytes are dropped with
 * a QP that is going.  Called under link->lock.
 */
int exs_batch_post(struct exs_link *link)
{
	struct ib_sge sge = {
		.addr	= (uintptr_t)link->batch,
		.length	= link->batch_len,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &link->batch_cqe,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED | IB_SEND_INLINE,
		.sg_list	= &sge,
		.num_sge	= 1,
	};
	int err;

	lockdep_assert_held(&link->lock);
	if (!link->batch_len)
		return 0;
	exs_wire_build_msg(link->batch, EXS_MSG_BATCH, 0, link->batch_nrec, 0);
	link->batch_len = 0;
	link->batch_nrec = 0;
	if (link->closing || !link->qp) {
		exs_batch_init(link);
		return 0;
	}
	sge.lkey = link->pd->local_dma_lkey;
	err = ib_post_send(link->qp, &wr, NULL);
	if (err)
		return err;
	/* the QP awaits an ack from now, if it awaited none */
	if (!link->batch_inflight++)
		WRITE_ONCE(link->batch_acked_at, jiffies);
	link->batch_posted++;
	EXS_INC_STATS(link->net, EXS_MIB_BATCHES);
	return 0;
}

/* Bytes of @conn's went in a batch whose ack has not come: it awaits an
 * ack as for a request of its own (keepalive.c).  Batches complete in
 * order.  The link's counter is read without its lock.
 */
bool exs_batch_awaits(const struct exs_conn *conn)
{
	const struct exs_link *link = conn->link;

	return (s32)(conn->batch_gen - READ_ONCE(link->batch_acked)) > 0;
}

/* ...since then: its first such bytes, or the QP's last batch ack after
 * them, as the QP moves on
 */
unsigned long exs_batch_waiting_since(const struct exs_conn *conn)
{
	const struct exs_link *link = conn->link;
	unsigned long acked = READ_ONCE(link->batch_acked_at);

	return time_after(acked, conn->batch_at) ? acked : conn->batch_at;
}

void exs_batch_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_link *link = container_of(wc->wr_cqe, struct exs_link,
					     batch_cqe);
	struct exs_conn *holder = link->holder;
	int err = 0;

	spin_lock(&holder->lock);
	spin_lock(&link->lock);
	/* an old QP's flush may come after a resume's reset */
	if (link->batch_inflight)
		link->batch_inflight--;
	if (wc->status == IB_WC_SUCCESS) {
		WRITE_ONCE(link->batch_acked, link->batch_acked + 1);
		WRITE_ONCE(link->batch_acked_at, jiffies);
		if (!link->batch_inflight)
			err = exs_batch_post(link);
	}
	spin_unlock(&link->lock);
	exs_link_req_done(link, wc, err);
	spin_unlock(&holder->lock);
}

/* Into @link's batch, @len bytes of @conn's from its tposted cursor.
 * Called under conn->lock and link->lock.
 */
static bool __exs_batch_add(struct exs_link *link, struct exs_conn *conn,
			    u32 len, bool low, int *err)
{
	struct exs_wire_rec *rec = link->batch + link->batch_rec;
	u8 flags = low ? EXS_REC_LOW_WINDOW : 0;
	u32 held = link->batch_len ?: EXS_BATCH_HDR;
	bool merge;

	lockdep_assert_held(&link->lock);
	/* room for a full batch's post and the next one's, at most; the
	 * channel count and the link's error are the holder's (a hint:
	 * a batch lost with its QP is lost as any request on it)
	 */
	if (!link->batch_cap || !READ_ONCE(link->nchans) || link->closing ||
	    link->version < EXS_WIRE_V_BATCH ||
	    !link->qp || link->resuming || READ_ONCE(link->err) ||
	    link->batch_inflight + 2 > EXS_BATCH_INFLIGHT ||
	    EXS_BATCH_HDR + EXS_REC_HDR + len > link->batch_cap)
		return false;
	merge = link->batch_len && rec->chan == conn->peer_chan;
	if (held + (merge ? 0 : EXS_REC_HDR) + len > link->batch_cap) {
		*err = exs_batch_post(link);
		if (*err)
			return false;
		held = EXS_BATCH_HDR;
		merge = false;
	}
	if (merge) {
		exs_wire_build_rec(rec, rec->chan, rec->flags | flags,
				   be16_to_cpu(rec->len) + len);
	} else {
		link->batch_rec = held;
		exs_wire_build_rec(link->batch + held, conn->peer_chan,
				   flags, len);
		held += EXS_REC_HDR;
		link->batch_nrec++;
	}
	exs_ring_read(link->batch + held, conn->tbuf, conn->tsize,
		      conn->tposted, len);
	link->batch_len = held + len;
	link->tx_bytes += len;
	/* in the next batch posted: the connection awaits its ack */
	if (!exs_batch_awaits(conn))
		conn->batch_at = jiffies;
	conn->batch_gen = link->batch_posted + 1;
	EXS_INC_STATS(conn->net, EXS_MIB_BATCHEDWRITES);
	if (!link->batch_inflight)
		*err = exs_batch_post(link);
	return true;
}

/* Gather @len bytes of @conn's, from conn->tposted, in its QP's batch:
 * true when taken.  The batch holds a copy, so their send buffer space
 * is done with as soon as the caller counts them posted.  Small writes
 * only, and none while a ring write of the connection's is still out
 * (tdone would skip it), nor in urgent mode: its end needs a completion
 * that proves the byte in the peer's ring (oob.c), which a batch, done
 * with here, never gives.  Called under conn->lock.
 */
bool exs_batch_add(struct exs_conn *conn, u32 len, bool low)
{
	bool taken;
	int err = 0;

	if (!conn->link->batch || !READ_ONCE(exs_batching) ||
	    len > EXS_BATCH_MAX || conn->tdone != conn->tposted ||
	    conn->urg.push)
		return false;
	/* under the link's lock, whichever stream built the link */
	spin_lock(&conn->link->lock);
	taken = __exs_batch_add(conn->link, conn, len, low, &err);
	spin_unlock(&conn->link->lock);
	if (taken)
		exs_watch_await(conn);
	/* held bytes are lost: the QP's end, as for any failed post */
	if (err)
		__exs_link_abort(conn, -ECONNRESET, false);
	return taken || err;
}
