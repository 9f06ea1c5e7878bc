// SPDX-License-Identifier: GPL-2.0
/*
 * The sending side of an RDMA connection: everything posted on its send
 * queue, and the send completions.
 *
 * Data moves as RDMA WRITE WITH IMMEDIATE into the peer's ring, at the
 * offset the bytes have in our send buffer, which mirrors that ring; the
 * immediate gives the length.  Bytes are credit controlled: the peer
 * returns its consumer cursor (CREDIT).  Control messages go as inline
 * SENDs.  Only some requests are signaled; a completion also completes
 * the unsignaled ones posted before it.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "ring.h"

/* Devices without immediate data (iWARP) would follow each ring write with
 * a DATA message instead.  AF_EXS skips those devices for now (device.c),
 * so this only lets the tests run that path on RoCE.
 */
static bool exs_imm_data = true;
module_param_named(imm_data, exs_imm_data, bool, 0644);
MODULE_PARM_DESC(imm_data,
		 "announce ring writes with immediate data (0: with a SEND after each write, as devices without it must)");

static struct exs_tx_slot *exs_tx_slot_get(struct exs_conn *conn)
{
	struct exs_tx_slot *slot;

	if (conn->sq_head - conn->sq_tail >= EXS_SQ_DEPTH)
		return NULL;
	slot = &conn->tx[conn->sq_head % EXS_SQ_DEPTH];
	slot->seq = conn->sq_head++;
	slot->end = conn->tposted;
	slot->posted_ns = ktime_get_ns();
	return slot;
}

/* An ack @us after its request was posted: TCP's estimator (RFC 6298's
 * gains, 1/8 and 1/4), as tcpi_rtt and tcpi_rttvar read.  Called under
 * conn->lock.
 */
static void exs_rtt_sample(struct exs_conn *conn, u32 us)
{
	us = max(us, 1U);
	if (!conn->srtt_us) {
		conn->srtt_us = us;
		conn->rttvar_us = us / 2;
		conn->min_rtt_us = us;
		return;
	}
	/* abs_diff() is 6.2's */
	conn->rttvar_us = conn->rttvar_us - conn->rttvar_us / 4 +
			  (conn->srtt_us > us ? conn->srtt_us - us :
						us - conn->srtt_us) / 4;
	conn->srtt_us = conn->srtt_us - conn->srtt_us / 8 + us / 8;
	conn->min_rtt_us = min(conn->min_rtt_us, us);
}

/* A signaled request is posted and not yet completed: the peer's device
 * owes an ack (unsignaled ones complete with the signaled after them).
 * Called under conn->lock.
 */
bool exs_conn_awaits_ack(const struct exs_conn *conn)
{
	return (s32)(conn->sq_signaled - conn->sq_tail) > 0 ||
	       exs_batch_awaits(conn);
}

/* Since when its oldest request, or batched bytes, awaited an ack.
 * Called under conn->lock.
 */
unsigned long exs_conn_unacked_since(const struct exs_conn *conn)
{
	unsigned long batched;

	if (!exs_batch_awaits(conn))
		return conn->last_acked;
	batched = exs_batch_waiting_since(conn);
	if ((s32)(conn->sq_signaled - conn->sq_tail) <= 0 ||
	    time_after(conn->last_acked, batched))
		return batched;
	return conn->last_acked;
}

/* Sends are posted under conn->lock, so a failed post can give back the
 * slot it just took, and under the link's, which every stream on it
 * takes to post, whichever built it: the link's teardown and resume take
 * it to close the QP to them.
 */
static int exs_post_send(struct exs_conn *conn, struct ib_send_wr *wr)
{
	struct exs_link *link = conn->link;
	int err;

	/* unless the stream is closed to its link's QP (its teardown, its
	 * link's resume): link_tx.c checks the link
	 */
	spin_lock(&link->lock);
	err = conn->qp_closing ? -ESHUTDOWN : exs_link_post(link, wr);
	spin_unlock(&link->lock);
	if (err == -ESHUTDOWN) {
		conn->sq_head--;
		return err;
	}
	if (err) {
		conn->sq_head--;
		__exs_link_abort(conn, -ECONNRESET, false);
	} else if (wr->send_flags & IB_SEND_SIGNALED) {
		/* the first request to await an ack starts the clock */
		if (!exs_conn_awaits_ack(conn)) {
			conn->last_acked = jiffies;
			exs_watch_await(conn);
		}
		conn->sq_signaled = conn->sq_head;
	}
	return err;
}

/* Register our ring for the peer's writes: the first request on a new
 * QP, before our READY (exs_conn_established()).  Called under conn->lock.
 */
int exs_conn_send_reg(struct exs_conn *conn)
{
	struct exs_tx_slot *slot = exs_tx_slot_get(conn);
	struct ib_reg_wr reg = {
		.wr = {
			.opcode		= IB_WR_REG_MR,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.mr	= conn->mr,
		.key	= conn->mr->rkey,
		.access	= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};

	/* the queue is empty so far */
	if (WARN_ON_ONCE(!slot)) {
		__exs_conn_abort(conn, -ECONNRESET, false);
		return -ECONNRESET;
	}
	slot->kind = EXS_TX_REG;
	reg.wr.wr_cqe = &slot->cqe;
	return exs_post_send(conn, &reg.wr);
}

/* A control message of @len bytes at @msg (conn->tx_msg or tx_open),
 * sent inline; -EAGAIN when the send queue is full.  Its key is the
 * PD's, which exs_link_post() fills in.  Called under conn->lock.
 */
static int __exs_conn_send_buf(struct exs_conn *conn, const void *msg,
			       u32 len, enum exs_tx_kind kind)
{
	struct exs_tx_slot *slot;
	struct ib_sge sge = {
		.addr	= (uintptr_t)msg,
		.length	= len,
	};
	struct ib_send_wr wr = {
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED | IB_SEND_INLINE,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	slot = exs_tx_slot_get(conn);
	if (!slot)
		return -EAGAIN;
	slot->kind = kind;
	wr.wr_cqe = &slot->cqe;
	if (exs_post_send(conn, &wr))
		return -ECONNRESET;
	EXS_INC_STATS(conn->net, EXS_MIB_MSGSOUT);
	return 0;
}

static int exs_conn_send_buf(struct exs_conn *conn, const void *msg, u32 len,
			     enum exs_tx_kind kind)
{
	/* nothing more on a closed connection */
	if (conn->state != EXS_CONN_ESTABLISHED)
		return -ENOTCONN;
	return __exs_conn_send_buf(conn, msg, len, kind);
}

static int exs_conn_send_msg(struct exs_conn *conn,
			     enum exs_wire_msg_type type, u32 cursor,
			     enum exs_tx_kind kind)
{
	/* a resuming connection says RESUME first, and nothing before; a
	 * joining one has no channel at the peer before JOINED
	 */
	if (conn->resume || (conn->carrier && !conn->peer_chan))
		return -ENOTCONN;
	exs_wire_build_msg(&conn->tx_msg, type, 0, cursor, conn->peer_chan);
	return exs_conn_send_buf(conn, &conn->tx_msg, sizeof(conn->tx_msg),
				 kind);
}

int exs_conn_send_ctrl(struct exs_conn *conn, enum exs_wire_msg_type type,
		       u32 cursor)
{
	return exs_conn_send_msg(conn, type, cursor, EXS_TX_CTRL);
}

/* The first message on a resumed connection's new QP (resume.c), a
 * rider's on its channel: what we hold of the peer's bytes, and whether
 * its FIN; LINK alone from a carrier whose own stream is gone (its QP,
 * and the PD, stay for the riders).  Called under conn->lock.
 */
int exs_conn_send_resume(struct exs_conn *conn)
{
	if (conn->link_only) {
		exs_wire_build_msg(&conn->tx_msg, EXS_MSG_RESUME,
				   EXS_RESUME_LINK, 0, 0);
		return __exs_conn_send_buf(conn, &conn->tx_msg,
					   sizeof(conn->tx_msg), EXS_TX_CTRL);
	}
	exs_wire_build_msg(&conn->tx_msg, EXS_MSG_RESUME,
			   conn->fin_rcvd ? EXS_RESUME_FIN : 0, conn->rprod,
			   conn->peer_chan);
	return exs_conn_send_buf(conn, &conn->tx_msg, sizeof(conn->tx_msg),
				 EXS_TX_CTRL);
}

/* An OPEN, JOIN or JOINED speaks the version its QP speaks. */
static void exs_conn_self_version(struct exs_conn *conn)
{
	conn->self.version = conn->link->version;
	conn->self.version_min = conn->self.version;
}

/* A connector's OPEN on its parked QP, or a parked rider's channel (with
 * its own for the answer), for the connection conn->self names
 * (reuse.c).  Called under conn->lock.
 */
int exs_conn_send_open(struct exs_conn *conn)
{
	exs_conn_self_version(conn);
	exs_wire_build_open(&conn->tx_open, EXS_MSG_OPEN, conn->peer_chan,
			    conn->carrier ? conn->chan : 0, &conn->self);
	return exs_conn_send_buf(conn, &conn->tx_open, sizeof(conn->tx_open),
				 EXS_TX_CTRL);
}

/* A rider's JOIN (connector) or JOINED (acceptor), with its ring and
 * channel (share.c).  Called under conn->lock.
 */
int exs_conn_send_join(struct exs_conn *conn, enum exs_wire_msg_type type)
{
	conn->self.ring_addr = conn->mr->iova;
	conn->self.ring_rkey = conn->mr->rkey;
	conn->self.ring_len = conn->rsize;
	exs_conn_self_version(conn);
	exs_wire_build_open(&conn->tx_open, type, conn->peer_chan, conn->chan,
			    &conn->self);
	return exs_conn_send_buf(conn, &conn->tx_open, sizeof(conn->tx_open),
				 EXS_TX_CTRL);
}

/* Say ABORT while the QP still works, so that the peer takes the
 * disconnect that follows for a reset, not for a QP failure to resume
 * from (which would end only at the resume's deadline).  The teardown
 * waits a little for its ack: the disconnect flushes what the device
 * has not sent yet.  Called under conn->lock.
 */
void exs_conn_send_abort(struct exs_conn *conn)
{
	/* not on a QP being replaced either: it has none to say it on */
	if (conn->state == EXS_CONN_ESTABLISHED && !conn->abort_sent &&
	    !exs_conn_send_msg(conn, EXS_MSG_ABORT, 0, EXS_TX_ABORT))
		conn->abort_sent = true;
}

/* ABORT for a closed socket's stream (bytes reached it, its time ran
 * out, nobody accepted it): from the link's own slots once it is out of
 * its link's count (a rider after its LAST), whose own count against no
 * budget (link_sq.h).  Called under conn->lock.
 */
void exs_conn_send_orphan_abort(struct exs_conn *conn)
{
	struct exs_conn *carrier = conn->carrier;

	if (!carrier || !READ_ONCE(conn->counted_out)) {
		exs_conn_send_abort(conn);
		return;
	}
	if (conn->state != EXS_CONN_ESTABLISHED || !conn->peer_chan)
		return;
	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	exs_link_abort_chan(carrier->link, conn->peer_chan);
	spin_unlock(&carrier->lock);
}

/* Bytes wait in a closed socket's ring, which nobody will read: it
 * resets, as TCP's does on data after close (TCPAbortOnData), so that the
 * peer, still sending, hears a reset, not a bare disconnect it would
 * resume from.  Not while resuming: no ABORT goes out then
 * (exs_resume_finish() asks again).  True when it reset.  Called under
 * conn->lock.
 */
bool exs_conn_orphan_rx(struct exs_conn *conn)
{
	if (!conn->orphan || conn->park != EXS_PARK_NONE ||
	    conn->state != EXS_CONN_ESTABLISHED || conn->resume ||
	    conn->rprod == conn->rcons)
		return false;
	exs_conn_send_orphan_abort(conn);
	__exs_conn_abort(conn, -ECONNRESET, false);
	return true;
}

/* End the connection with a reset the peer hears: ours, or the peer's
 * protocol error.
 */
static void __exs_conn_reset(struct exs_conn *conn, bool protocol_error)
{
	exs_conn_send_abort(conn);
	__exs_conn_abort(conn, -ECONNRESET, protocol_error);
}

void exs_conn_reset(struct exs_conn *conn, bool protocol_error)
{
	spin_lock_bh(&conn->lock);
	__exs_conn_reset(conn, protocol_error);
	spin_unlock_bh(&conn->lock);
}

/* ...and the peer's protocol error in what the link itself reads (link_rx.c):
 * every stream on the link ends, its first with the ABORT the peer hears
 * (the others as their link fails: exs_share_link_failed()).  Counted
 * once a link: by its first stream's abort, or here when that stream
 * ended already; the bad messages still queued behind the first count
 * no more (link->err is set only with a stream counted in).
 */
void exs_conn_reset_link(struct exs_conn *conn)
{
	spin_lock_bh(&conn->lock);
	if (conn->state == EXS_CONN_CLOSED && !READ_ONCE(conn->link->err) &&
	    !conn->link->reset)
		EXS_INC_STATS(conn->net, EXS_MIB_PROTOERR);
	conn->link->reset = true;
	exs_conn_send_abort(conn);
	__exs_link_abort(conn, -ECONNRESET, true);
	spin_unlock_bh(&conn->lock);
}

/* Return credits if they are due.  Called under conn->lock. */
void exs_conn_credit(struct exs_conn *conn)
{
	/* after our LAST the peer hears nothing more (reuse.c) */
	if (conn->last_sent)
		return;
	if (!exs_credit_due(conn->rsize, conn->rcons, conn->racked,
			    conn->credit_fraction, conn->peer_low) &&
	    !conn->credit_owed)
		return;
	if (conn->rcons == conn->racked) {
		conn->credit_owed = false;
		return;
	}
	if (exs_conn_send_ctrl(conn, EXS_MSG_CREDIT, conn->rcons)) {
		conn->credit_owed = conn->state == EXS_CONN_ESTABLISHED;
		return;
	}
	EXS_INC_STATS(conn->net, EXS_MIB_CREDITUPDATES);
	conn->credit_owed = false;
	conn->peer_low = false;
	conn->racked = conn->rcons;
}

/* Make the peer's side of the QP answer (keepalive.c): a CREDIT repeating
 * the cursor we last sent, a no-op for a live peer.  A dead peer never
 * acks it: the QP's retries run out (RETRY_EXC), or the stall watch gives
 * up, and the socket gets ETIMEDOUT.  Anything already in flight tells
 * the same, so then nothing is sent.  Called under conn->lock.
 */
void exs_conn_probe(struct exs_conn *conn)
{
	/* before our READY, a CREDIT would break the protocol; a signaled
	 * request last in the queue will tell
	 */
	if (conn->ready_sent && !conn->last_sent &&
	    (conn->sq_head == conn->sq_tail ||
	     conn->sq_signaled != conn->sq_head))
		exs_conn_send_ctrl(conn, EXS_MSG_CREDIT, conn->racked);
}

/* A request waited for its ack longer than any retry takes (keepalive.c):
 * try a new QP (@may_resume), or end the connection as a dead peer's,
 * ETIMEDOUT.  Without @may_resume the deadline was the socket's own
 * (TCP_USER_TIMEOUT): it ends this stream alone, as on TCP; the others
 * on its link keep their own watch, stall bound and resume.  A resume
 * that cannot be made is the link's end.  Called under conn->lock.
 */
void exs_conn_stalled(struct exs_conn *conn, bool may_resume)
{
	unsigned long unacked = jiffies - exs_conn_unacked_since(conn);
	u32 inflight = conn->sq_head - conn->sq_tail;
	bool resume;

	/* a resume has its own deadline */
	if (conn->resume)
		return;
	resume = may_resume && exs_conn_resume(conn, -ETIMEDOUT);
	/* rare, and the one trace of a device that stopped retrying */
	pr_info_ratelimited("no ack for %u ms, %u requests in flight, peer last heard %u ms ago: %s\n",
			    jiffies_to_msecs(unacked), inflight,
			    jiffies_to_msecs(jiffies - conn->last_heard),
			    resume ? "moving to a new queue pair" :
				     "connection timed out");
	EXS_INC_STATS(conn->net, EXS_MIB_STALLS);
	if (!may_resume) {
		/* heard if the QP recovers: else the peer's stream, on a
		 * link that lives on, would never learn
		 */
		exs_conn_send_abort(conn);
		__exs_conn_abort(conn, -ETIMEDOUT, false);
	} else if (!resume) {
		__exs_link_abort(conn, -ETIMEDOUT, false);
	}
}

/* Bytes the sender may still copy: bounded by the peer's free ring space
 * and by send-buffer space whose writes have completed.
 */
u32 exs_conn_tx_free(const struct exs_conn *conn)
{
	u32 used = max(conn->tcopied - conn->tcredit,
		       conn->tcopied - conn->tdone);

	return used >= conn->tsize ? 0 : conn->tsize - used;
}

/* What the socket may copy now; when nothing, the next room that frees
 * up wakes it (exs_conn_write_space()).  Called under conn->lock.
 */
u32 exs_conn_tx_room(struct exs_conn *conn)
{
	u32 room = conn->peer_ready ? exs_conn_tx_free(conn) : 0;

	if (!room)
		conn->tx_wanted = true;
	return room;
}

/* Room came back: wake only a sender or poller that found none, as TCP's
 * sk_stream_write_space() does, so that a task asleep in recv() is not
 * woken by every completed write.  Called under conn->lock.
 */
void exs_conn_write_space(struct exs_conn *conn)
{
	if (conn->tx_wanted) {
		conn->tx_wanted = false;
		exs_conn_wake(conn, EPOLLOUT | EPOLLWRNORM);
	}
}

static int exs_post_write(struct exs_conn *conn, u32 cursor, u32 len,
			  bool last, __be32 imm)
{
	u32 off = exs_ring_off(conn->tsize, cursor);
	struct exs_tx_slot *slot = exs_tx_slot_get(conn);
	struct ib_sge sge = {
		.addr	= conn->tdma + off,
		.length	= len,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode		= last ? IB_WR_RDMA_WRITE_WITH_IMM :
						 IB_WR_RDMA_WRITE,
			.sg_list	= &sge,
			.num_sge	= 1,
			.ex.imm_data	= imm,
		},
		.remote_addr	= conn->peer.ring_addr + off,
		.rkey		= conn->peer.ring_rkey,
	};

	slot->kind = EXS_TX_DATA;
	slot->end = cursor + len;
	wr.wr.wr_cqe = &slot->cqe;
	if (exs_signal_due(!conn->nodelay, slot->seq - conn->sq_signaled,
			   slot->end - conn->tdone, conn->tsize))
		wr.wr.send_flags |= IB_SEND_SIGNALED;
	/* else synced for the device as it is posted (exs_link_post()) */
	if (len <= conn->inline_max) {
		sge.addr = (uintptr_t)conn->tbuf + off;
		wr.wr.send_flags |= IB_SEND_INLINE;
		EXS_INC_STATS(conn->net, EXS_MIB_INLINEWRITES);
	}
	return exs_post_send(conn, &wr.wr);
}

/* Post what the socket copied and may send now: everything with
 * TCP_NODELAY, else small amounts wait while a write is in flight (Nagle)
 * or while the socket holds them back (TCP_CORK, MSG_MORE), up to a
 * quarter ring.  Then the FIN, once every byte is out.  Called under
 * conn->lock, from system calls and from send completions.
 */
void exs_conn_tx_push(struct exs_conn *conn)
{
	u32 pending = conn->tcopied - conn->tposted;
	u32 gather = min_t(u32, conn->tsize >> EXS_WINDOW_LOW_SHIFT, 16384);

	if (conn->state != EXS_CONN_ESTABLISHED || !conn->peer_ready ||
	    conn->resume)
		return;
	/* the peer hears of an urgent byte before the write that carries
	 * it (oob.c); a completion pushes again
	 */
	if (conn->urg.owed && exs_urg_send(conn))
		return;

	/* Nagle waits only for a completion that will come: writes made
	 * under TCP_NODELAY, which may since have been turned off, were
	 * unsignaled
	 */
	if (pending && (conn->hold ||
			(!conn->nodelay && conn->tdone != conn->tposted &&
			 conn->sq_signaled == conn->sq_head)) &&
	    pending < gather && !conn->shut_wr && !conn->urg.push)
		pending = 0;

	/* what one write's immediate can say */
	pending = min_t(u32, pending, EXS_IMM_LEN_MASK);
	if (pending) {
		u32 first = exs_ring_contig(conn->tsize, conn->tposted,
					    pending);
		u32 free_after = conn->tsize -
				 (conn->tposted + pending - conn->tcredit);
		bool with_imm = READ_ONCE(exs_imm_data);
		bool low = exs_window_low(conn->tsize, free_after);
		u32 imm = pending | (u32)conn->peer_chan << EXS_IMM_CHAN_SHIFT;

		/* with others' on a shared QP (batch.c) */
		if (with_imm && exs_batch_add(conn, pending, low)) {
			conn->tposted += pending;
			conn->tdone = conn->tposted;
			EXS_ADD_STATS(conn->net, EXS_MIB_BYTESOUT, pending);
			exs_conn_write_space(conn);
			goto fin;
		}
		if (conn->sq_head - conn->sq_tail + (first < pending ? 2 : 1) +
		    !with_imm > EXS_SQ_DEPTH - EXS_SQ_CTRL)
			return;		/* a completion pushes again */
		if (low)
			imm |= EXS_IMM_LOW_WINDOW;
		/* across the wrap: a plain write, then the one with the
		 * immediate (or a plain one and a DATA message), which RC
		 * orders after it
		 */
		if (first < pending) {
			if (exs_post_write(conn, conn->tposted, first, false,
					   0) ||
			    exs_post_write(conn, conn->tposted + first,
					   pending - first, with_imm,
					   cpu_to_be32(imm)))
				return;
		} else if (exs_post_write(conn, conn->tposted, pending,
					  with_imm, cpu_to_be32(imm))) {
			return;
		}
		if (!with_imm && exs_conn_send_ctrl(conn, EXS_MSG_DATA, imm))
			return;
		conn->tposted += pending;
		EXS_INC_STATS(conn->net, EXS_MIB_RDMAWRITES);
		EXS_ADD_STATS(conn->net, EXS_MIB_BYTESOUT, pending);
	}

fin:
	if (conn->shut_wr && !conn->fin_sent &&
	    conn->tposted == conn->tcopied &&
	    !exs_conn_send_ctrl(conn, EXS_MSG_FIN, conn->tposted))
		conn->fin_sent = true;
	if (conn->fin_acked && conn->orphan)
		exs_park_last(conn);
}

/* Nothing more will leave: the last byte and the FIN are in the peer's
 * ring (every send completed), or the connection is dead anyway.  What a
 * closed socket's teardown and a lingering close() wait for.  Called under
 * conn->lock.
 */
bool exs_conn_tx_finished(const struct exs_conn *conn)
{
	return conn->state != EXS_CONN_ESTABLISHED ||
	       (!conn->resume && conn->fin_sent &&
		conn->sq_head == conn->sq_tail);
}

/* No more data from us: the FIN follows the last byte, and nothing is
 * held back for gathering any more.  Called under conn->lock.
 */
void exs_conn_shut_wr(struct exs_conn *conn)
{
	conn->shut_wr = true;
	conn->hold = false;
	exs_conn_tx_push(conn);
}

/* Every request @conn posted is through, though no completion of its
 * own may say so: its link's QP was drained for a resume, or a fence
 * after them completed (link_watch.c).  Called under conn->lock.
 */
void exs_conn_sq_through(struct exs_conn *conn)
{
	conn->sq_tail = conn->sq_head;
	conn->sq_signaled = conn->sq_head;
	exs_link_quiet_done(conn->link, conn);
}

/* A rider's teardown waited for its requests (share.c): on with it once
 * they are all through.  Called under conn->lock.
 */
void exs_conn_leave_go(struct exs_conn *conn)
{
	if (conn->leave_wait && conn->sq_tail == conn->sq_head) {
		conn->leave_wait = false;
		exs_conn_queue_hw(conn);
	}
}

void exs_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_tx_slot *slot = container_of(wc->wr_cqe,
						struct exs_tx_slot, cqe);
	struct exs_conn *conn = slot->conn;

	/* acked or flushed: the teardown may disconnect */
	if (slot->kind == EXS_TX_ABORT)
		complete(&conn->abort_done);
	spin_lock(&conn->lock);
	conn->sq_tail = slot->seq + 1;	/* and the unsignaled before it */
	exs_link_quiet_done(conn->link, conn);
	exs_conn_leave_go(conn);
	if (wc->status != IB_WC_SUCCESS) {
		exs_conn_wc_failed(conn, wc, false);
		spin_unlock(&conn->lock);
		return;
	}
	conn->last_heard = jiffies;	/* the peer's device acked it */
	conn->last_acked = conn->last_heard;
	exs_rtt_sample(conn, div_u64(ktime_get_ns() - slot->posted_ns,
				     NSEC_PER_USEC));
	if (conn->fin_sent && conn->sq_head == conn->sq_tail)
		conn->fin_acked = true;
	if (conn->park == EXS_PARK_IDLE) {
		/* the LAST that parked it, or a REFUSE */
		spin_unlock(&conn->lock);
		return;
	}
	/* a DATA message may follow its write with the older cursor */
	if ((s32)(slot->end - conn->tdone) > 0) {
		conn->tdone = slot->end;
		exs_urg_acked(conn);
		exs_conn_write_space(conn);
	}
	if (slot->kind != EXS_TX_DATA && exs_conn_tx_finished(conn))
		exs_conn_wake(conn, EPOLLOUT);	/* a lingering close */
	if (conn->credit_owed)
		exs_conn_credit(conn);
	exs_conn_tx_push(conn);
	if (conn->orphan && exs_conn_tx_finished(conn))
		exs_conn_finished(conn);
	spin_unlock(&conn->lock);
}
