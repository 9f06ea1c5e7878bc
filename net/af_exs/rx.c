// SPDX-License-Identifier: GPL-2.0
/*
 * A stream's receives: its part of what its link's receive completions
 * bring (link_rx.c sorts them by channel), a ring write's immediate, a
 * BATCH record's bytes or a control message from the peer.  Every length
 * and cursor is checked against the ring and the stream's state before
 * anything acts on it; a violation resets the stream and counts as a
 * protocol error.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "ring.h"

/* Bytes the peer wrote become the CPU's to read: synced once, as their
 * completion arrives, while the ring is surely still mapped (a no-op on
 * cache-coherent machines and on rxe).  The CPU only reads the ring, so
 * nothing needs syncing back before the device writes there again; but
 * bytes a BATCH brought, which the CPU wrote, go out to memory for the
 * device, which may write around them (@for_device).
 */
static void exs_ring_sync(struct exs_conn *conn, u32 cursor, u32 len,
			  bool for_device)
{
	struct ib_device *ibdev = conn->link->dev->ibdev;
	u64 base = sg_dma_address(&conn->rsg);

	while (len) {
		u32 n = exs_ring_contig(conn->rsize, cursor, len);
		u64 addr = base + exs_ring_off(conn->rsize, cursor);

		if (for_device)
			ib_dma_sync_single_for_device(ibdev, addr, n,
						      DMA_BIDIRECTIONAL);
		else
			ib_dma_sync_single_for_cpu(ibdev, addr, n,
						   DMA_BIDIRECTIONAL);
		cursor += n;
		len -= n;
	}
}

/* Data for our ring: @imm (the write's immediate, a DATA message, or a
 * BATCH record's length and flags) gives its length, which must fit the
 * free space.  The bytes themselves are the peer's, written there, or
 * at @data, a BATCH record's.  Called under conn->lock.
 */
static bool exs_rx_bytes(struct exs_conn *conn, u32 imm, const void *data)
{
	u32 len = imm & EXS_IMM_LEN_MASK;

	if (!len || conn->fin_rcvd || !conn->ready_sent ||
	    len > exs_ring_free(conn->rsize, conn->rprod, conn->rcons))
		return false;
	if (data)
		exs_ring_write(conn->rbuf, conn->rsize, conn->rprod, data, len);
	exs_ring_sync(conn, conn->rprod, len, data);
	conn->rprod += len;
	exs_urg_rx_bytes(conn);
	EXS_ADD_STATS(conn->net, EXS_MIB_BYTESIN, len);
	if (exs_conn_orphan_rx(conn))
		return true;	/* bytes for a closed socket: reset */
	if (imm & EXS_IMM_LOW_WINDOW)
		conn->peer_low = true;
	exs_conn_credit(conn);
	exs_conn_wake(conn, EPOLLIN | EPOLLRDNORM);
	return true;
}

/* An OPEN, JOIN or JOINED's REQ names the version its QP speaks, that
 * alone, and resumes nothing.
 */
static bool exs_rx_open_ok(u8 version, const struct exs_wire_req *req,
			   struct exs_wire_peer *peer)
{
	return !exs_wire_parse_req(req, sizeof(*req), version, peer) &&
	       !peer->resume && peer->version == version &&
	       peer->version_min == version && req->version == version;
}

/* A control message from the peer; every field checked against our state.
 * Called under conn->lock: 0, -ECONNRESET when the peer resets, -EPROTO
 * on a protocol violation.
 */
static int exs_rx_msg(struct exs_conn *conn, const union exs_wire_rx *rx,
		      u8 type, u32 cursor)
{
	struct exs_wire_peer peer;

	if ((type == EXS_MSG_OPEN || type == EXS_MSG_JOIN ||
	     type == EXS_MSG_JOINED) &&
	    !exs_rx_open_ok(conn->link->version, &rx->open.req,
			    &peer))
		return -EPROTO;
	EXS_INC_STATS(conn->net, EXS_MIB_MSGSIN);

	/* a parked QP hears nothing but an OPEN or a JOIN (reuse.c) */
	if (conn->park == EXS_PARK_IDLE && type != EXS_MSG_OPEN &&
	    type != EXS_MSG_JOIN)
		return -EPROTO;
	/* a rider's connection starts with JOIN and JOINED (share.c), or,
	 * parked, with OPEN and READY as a parked QP's
	 */
	if (conn->carrier && ((type == EXS_MSG_READY && !conn->reused) ||
			      type == EXS_MSG_JOIN))
		return -EPROTO;

	switch (type) {
	case EXS_MSG_READY:
		if (conn->peer_ready || cursor || conn->refused)
			return -EPROTO;
		conn->peer_ready = true;
		exs_conn_announce(conn);
		if (conn->state != EXS_CONN_ESTABLISHED)
			return 0;
		exs_conn_tx_push(conn);
		exs_conn_wake(conn, EPOLLOUT | EPOLLWRNORM);
		return 0;
	case EXS_MSG_CREDIT:
		if (!conn->peer_ready || conn->last_rcvd ||
		    !exs_cursor_advance_ok(conn->tcredit, cursor,
					   conn->tposted))
			return -EPROTO;
		conn->tcredit = cursor;
		exs_conn_tx_push(conn);
		exs_conn_write_space(conn);
		return 0;
	case EXS_MSG_FIN:
		if (conn->fin_rcvd || cursor != conn->rprod)
			return -EPROTO;
		conn->fin_rcvd = true;
		exs_conn_wake(conn, EPOLLIN | EPOLLRDNORM | EPOLLRDHUP);
		return 0;
	case EXS_MSG_ABORT:
		/* after the peer's FIN, ours not asked for: as TCP's
		 * reset in CLOSE_WAIT
		 */
		if (cursor)
			return -EPROTO;
		return conn->fin_rcvd && !conn->shut_wr ? -EPIPE : -ECONNRESET;
	case EXS_MSG_URG:
		return exs_urg_rx(conn, cursor);
	case EXS_MSG_DATA:
		return exs_rx_bytes(conn, cursor, NULL) ? 0 : -EPROTO;
	case EXS_MSG_LAST:
		/* after its FIN; it consumed what we sent, or some of it */
		if (!conn->fin_rcvd || conn->last_rcvd ||
		    !exs_cursor_advance_ok(conn->tcredit, cursor,
					   conn->tposted))
			return -EPROTO;
		conn->last_rcvd = true;
		conn->last_cursor = cursor;
		conn->tcredit = cursor;
		if (conn->carrier && !conn->passive && conn->last_sent)
			exs_share_quiet(conn);
		if (conn->orphan && exs_conn_tx_finished(conn))
			exs_conn_finished(conn);
		return 0;
	case EXS_MSG_OPEN:
		return exs_park_accept(conn, &peer, cursor);
	case EXS_MSG_RESUME:
		return exs_resume_rx(conn, cursor, rx->msg.flags);
	case EXS_MSG_JOIN:
		return exs_share_rx_join(conn, &peer, cursor);
	case EXS_MSG_JOINED:
		return exs_share_rx_joined(conn, &peer, cursor);
	case EXS_MSG_REFUSE:
		/* the answer to our OPEN or JOIN, instead of READY */
		if (conn->passive || !(conn->reused || conn->carrier) ||
		    conn->peer_ready ||
		    conn->refused || cursor == EXS_WIRE_REJ_NONE ||
		    cursor == EXS_WIRE_REJ_VERSION ||
		    cursor > EXS_WIRE_REJ_NOMEM)
			return -EPROTO;
		conn->refused = cursor;
		if (conn->on_connect)
			conn->on_connect(conn);
		return 0;
	default:
		return -EPROTO;
	}
}

/* Which message broke the protocol, and the state it found: enough to
 * tell a hostile peer from a bug of ours.
 */
void exs_rx_proto_err(const struct exs_conn *conn, u8 type)
{
	static const char * const what[__EXS_MSG_MAX] = {
		[0]		 = "a malformed message or write",
		[EXS_MSG_READY]	 = "READY",
		[EXS_MSG_CREDIT] = "CREDIT",
		[EXS_MSG_FIN]	 = "FIN",
		[EXS_MSG_ABORT]	 = "ABORT",
		[EXS_MSG_DATA]	 = "DATA",
		[EXS_MSG_LAST]	 = "LAST",
		[EXS_MSG_OPEN]	 = "OPEN",
		[EXS_MSG_REFUSE] = "REFUSE",
		[EXS_MSG_RESUME] = "RESUME",
		[EXS_MSG_JOIN]	 = "JOIN",
		[EXS_MSG_JOINED] = "JOINED",
		[EXS_MSG_BATCH]	 = "BATCH",
		[EXS_MSG_URG]	 = "URG",
	};

	pr_warn_ratelimited("protocol error from peer: %s (%s%s%s, ready %d/%d, fin %d/%d, last %d/%d, park %u, orphan %d), connection reset\n",
			    type < __EXS_MSG_MAX ? what[type] : what[0],
			    conn->passive ? "acceptor" : "connector",
			    conn->reused ? ", reused" : "",
			    conn->carrier ? ", rider" : "",
			    conn->ready_sent, conn->peer_ready,
			    conn->fin_sent, conn->fin_rcvd,
			    conn->last_sent, conn->last_rcvd,
			    conn->park, conn->orphan);
}

/* What the link's receive brought for one of its streams on a channel
 * other than its first (share.c), with the stream's reference, after the
 * holder's lock: the same checks, on this stream's state.  Bytes come
 * written (@imm), or in a BATCH record at @data.
 */
void exs_stream_rx(struct exs_conn *rider, enum ib_wc_opcode opcode,
		   const union exs_wire_rx *msg, u8 type, u32 cursor, u32 imm,
		   const void *data)
{
	int err = 0;

	spin_lock(&rider->lock);
	if (rider->state == EXS_CONN_CLOSED) {
		/* A JOINED after our connect gave up (it timed out, and went
		 * to TCP): the acceptor's listener has a connection nobody
		 * will use, which our ABORT resets.
		 */
		bool late = opcode == IB_WC_RECV && type == EXS_MSG_JOINED &&
			    !rider->passive && !rider->peer_chan;
		/* An OPEN for the stream this channel carried, which ended
		 * here while the peer's end parked: refused, as on a channel
		 * reused since (exs_park_accept()), on the channel it names
		 * (1 to 127: wire.c)
		 */
		if (opcode == IB_WC_RECV && type == EXS_MSG_OPEN &&
		    rider->passive)
			exs_share_refuse_open(rider, cursor,
					      EXS_WIRE_REJ_NOMEM);
		spin_unlock(&rider->lock);
		if (late) {
			struct exs_conn *carrier = rider->carrier;

			spin_lock(&carrier->lock);
			exs_link_abort_chan(carrier->link, cursor);
			spin_unlock(&carrier->lock);
		}
		return;
	}
	rider->last_heard = jiffies;
	if (opcode == IB_WC_RECV)
		err = exs_rx_msg(rider, msg, type, cursor);
	else if (!exs_rx_bytes(rider, imm, data))
		err = -EPROTO;
	if (err == -EPROTO)
		exs_rx_proto_err(rider, type);
	spin_unlock(&rider->lock);

	if (err == -EPROTO)
		exs_conn_reset(rider, true);
	else if (err)
		exs_conn_abort(rider, err == -EPIPE ? err : -ECONNRESET, false);
}

/* The first stream's records of a BATCH at @buf, which the link read
 * and checked whole (link_rx.c), with its bytes' checks; dropped once it
 * ended, as its late writes are.  Called under conn->lock.
 */
int exs_stream_rx_batch(struct exs_conn *conn, const u8 *buf,
			const struct exs_rx_batch *batch)
{
	unsigned int i;

	if (conn->state == EXS_CONN_CLOSED)
		return 0;
	for (i = 0; i < batch->n; i++)
		if (!batch->rec[i].chan &&
		    !exs_rx_bytes(conn, exs_wire_rec_imm(batch->rec[i].len,
							 batch->rec[i].flags),
				  buf + batch->rec[i].off))
			return -EPROTO;
	return 0;
}

/* What the link's receive brought for its first stream, @conn, on
 * channel 0: a message (@opcode IB_WC_RECV) or bytes written (@imm).
 * *@stream_err says whether a protocol error is the stream's own (it
 * ends the stream), not the link's (a JOIN's, or a message for a first
 * stream already closed: it ends the link).  Called under conn->lock.
 */
int exs_stream_rx_own(struct exs_conn *conn, enum ib_wc_opcode opcode,
		      const union exs_wire_rx *msg, u8 type, u32 cursor,
		      u32 imm, bool *stream_err)
{
	if (conn->state == EXS_CONN_CLOSED) {
		/* our stream's late bytes and messages are dropped; the
		 * link takes JOINs while it carries others, and RESUMEs as
		 * it moves for them (resume.c)
		 */
		if (opcode == IB_WC_RECV &&
		    (type == EXS_MSG_JOIN || type == EXS_MSG_RESUME))
			return exs_rx_msg(conn, msg, type, cursor);
		return 0;
	}
	if (opcode == IB_WC_RECV) {
		*stream_err = type != EXS_MSG_JOIN;
		return exs_rx_msg(conn, msg, type, cursor);
	}
	*stream_err = true;
	return exs_rx_bytes(conn, imm, NULL) ? 0 : -EPROTO;
}
