// SPDX-License-Identifier: GPL-2.0
/*
 * A link's receives: the receive buffers it posts, and what each
 * completion brings, sorted by channel.  The link checks what is its own
 * (the completion's opcode and length, a message's header, a BATCH's
 * records and the channels they name, a write's immediate), counts the
 * bytes, reposts the buffer, and hands each stream its part through the
 * channel table (rx.c checks that part against the stream's state).  A
 * violation in what the link reads ends the link and every stream on it;
 * one in a stream's part ends that stream.
 *
 * Each completion consumes one posted receive, which is reposted at once,
 * and the QP retries receiver-not-ready forever (rnr_retry_count 7), so
 * receives need no credits of their own.
 *
 * Locking: the holder's lock (link.h) is held from the completion to the
 * repost, and covers the first stream's part; each other stream's part
 * is handed on after it, under that stream's own lock.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include "protocol.h"
#include "conn.h"

/* Post @slot on @link's QP, unless the QP is being shut: not behind
 * ib_drain_qp()'s marker (see exs_post_send(), tx.c).  The holder's
 * qp_closing, not link->closing: a resume posts its new QP's receives as
 * it builds it, before it opens the link to the streams' sends
 * (exs_resume_qp()).  Called under the holder's lock, or as the QP is
 * built.
 */
int exs_link_post_recv(struct exs_link *link, struct exs_rx_slot *slot)
{
	struct ib_recv_wr wr = {
		.wr_cqe		= &slot->cqe,
		.sg_list	= &slot->sge,
		.num_sge	= 1,
	};

	if (link->holder->qp_closing)
		return 0;
	return ib_post_recv(link->qp, &wr, NULL);
}

/* What a receive holds, copied out: any message, a BATCH the longest. */
union exs_rx_copy {
	union exs_wire_rx	msg;
	u8			raw[EXS_BATCH_MAX];
};

/* Take a control message out of its receive buffer, which is reposted
 * right after: @msg is a copy, its header checked.
 */
static int exs_link_rx_read(struct exs_link *link, const struct ib_wc *wc,
			    struct exs_rx_slot *slot, union exs_rx_copy *msg,
			    u8 *typep, u32 *cursor, u8 *chan)
{
	struct ib_device *ibdev = link->dev->ibdev;
	void *rx = link->rx_msgs + (slot - link->rx) * link->rx_size;
	enum exs_wire_msg_type type;
	int err;

	/* the device fails a longer SEND; rx_size is at most a BATCH */
	if (wc->byte_len > link->rx_size)
		return -EPROTO;
	ib_dma_sync_single_for_cpu(ibdev, slot->sge.addr, slot->sge.length,
				   DMA_FROM_DEVICE);
	memcpy(msg, rx, wc->byte_len);
	ib_dma_sync_single_for_device(ibdev, slot->sge.addr, slot->sge.length,
				      DMA_FROM_DEVICE);
	err = exs_wire_parse_msg(msg, wc->byte_len, &type, cursor, chan);
	if (!err)
		*typep = type;
	return err;
}

/* A BATCH (batch.c), well formed (exs_wire_parse_msg() checked its
 * records fill it): read into @batch, once, every record for a channel
 * of @link, 0 (its first stream's) or one the table holds; the bytes
 * counted.  Called under the holder's lock.
 */
static int exs_link_rx_batch(struct exs_link *link, const u8 *buf, u32 len,
			     struct exs_rx_batch *batch)
{
	unsigned int off = sizeof(struct exs_wire_msg);
	u8 chan, flags;
	u16 rlen;

	/* only a QP built to share takes them, from version 4 on */
	if (!link->batch || link->version < EXS_WIRE_V_BATCH)
		return -EPROTO;
	batch->n = 0;
	while (off < len) {
		if (batch->n == EXS_BATCH_RECS ||
		    exs_wire_parse_rec(buf, len, &off, &chan, &flags, &rlen))
			return -EPROTO;
		if (chan && !exs_link_chan_used(link, chan))
			return -EPROTO;
		batch->rec[batch->n].chan = chan;
		batch->rec[batch->n].flags = flags;
		batch->rec[batch->n].off = off;
		batch->rec[batch->n].len = rlen;
		batch->n++;
		link->rx_bytes += rlen;
		off += rlen;
	}
	return 0;
}

/* The other channels' records of a BATCH exs_link_rx_batch() read, each
 * to its stream, after the holder's lock.
 */
static void exs_link_rx_batch_chans(struct exs_link *link, const u8 *buf,
				    const struct exs_rx_batch *batch)
{
	struct exs_conn *stream;
	unsigned int i;

	for (i = 0; i < batch->n; i++) {
		if (!batch->rec[i].chan)
			continue;
		stream = exs_link_chan_get(link, batch->rec[i].chan);
		if (!stream)
			continue;
		exs_stream_rx(stream, IB_WC_RECV_RDMA_WITH_IMM, NULL,
			      EXS_MSG_BATCH, 0,
			      exs_wire_rec_imm(batch->rec[i].len,
					       batch->rec[i].flags),
			      buf + batch->rec[i].off);
		exs_conn_put(stream);
	}
}

/* What the completion is, as far as the link can tell: a write's
 * immediate (@imm, its channel in @chan), or a message copied into
 * @msg (a BATCH's records read into @batch); its bytes counted for the
 * link.  Called under the holder's lock.
 */
static int exs_link_rx_frame(struct exs_link *link, const struct ib_wc *wc,
			     struct exs_rx_slot *slot, union exs_rx_copy *msg,
			     u8 *type, u32 *cursor, u8 *chan, u32 *imm,
			     struct exs_rx_batch *batch)
{
	int err;

	switch (wc->opcode) {
	case IB_WC_RECV_RDMA_WITH_IMM:
		/* a message's last write carries its length: never more
		 * bytes than that length says
		 */
		*imm = be32_to_cpu(wc->ex.imm_data);
		*chan = (*imm & EXS_IMM_CHAN_MASK) >> EXS_IMM_CHAN_SHIFT;
		if (!(wc->wc_flags & IB_WC_WITH_IMM) ||
		    wc->byte_len > (*imm & EXS_IMM_LEN_MASK))
			return -EPROTO;
		link->rx_bytes += *imm & EXS_IMM_LEN_MASK;
		return 0;
	case IB_WC_RECV:
		err = exs_link_rx_read(link, wc, slot, msg, type, cursor,
				       chan);
		if (!err && *type == EXS_MSG_DATA)
			link->rx_bytes += *cursor & EXS_IMM_LEN_MASK;
		if (!err && *type == EXS_MSG_BATCH)
			err = exs_link_rx_batch(link, msg->raw, wc->byte_len,
						batch);
		return err;
	default:
		return -EPROTO;
	}
}

void exs_link_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_rx_slot *slot = container_of(wc->wr_cqe,
						struct exs_rx_slot, cqe);
	struct exs_link *link = slot->link;
	struct exs_conn *conn = link->holder;
	struct exs_conn *stream = NULL;
	union exs_rx_copy msg;
	struct exs_rx_batch batch = { .n = 0 };
	u32 imm = 0, cursor = 0;
	u8 type = 0, chan = 0;
	bool repost_failed = false, stream_err = false;
	int err;

	spin_lock(&conn->lock);
	if (wc->status != IB_WC_SUCCESS) {
		exs_conn_wc_failed(conn, wc, true);
		spin_unlock(&conn->lock);
		return;
	}
	/* The peer's READY may beat our own ESTABLISHED event (its RTU is
	 * still on the way): receives are live from the REP on.  A closed
	 * first stream's link hears on while it carries others (share.c).
	 */
	if (conn->state == EXS_CONN_CLOSED && !conn->link_only) {
		spin_unlock(&conn->lock);
		return;
	}
	conn->last_heard = jiffies;
	err = exs_link_rx_frame(link, wc, slot, &msg, &type, &cursor, &chan,
				&imm, &batch);
	if (!err && type == EXS_MSG_BATCH) {
		err = exs_stream_rx_batch(conn, msg.raw, &batch);
	} else if (!err && chan) {
		/* another stream's: handed on below */
		stream = exs_link_chan_get(link, chan);
		if (!stream)
			err = exs_share_rx_stray(conn, wc->opcode == IB_WC_RECV,
						 type, cursor);
	} else if (!err) {
		err = exs_stream_rx_own(conn, wc->opcode, &msg.msg, type,
					cursor, imm, &stream_err);
	}
	/* after the first stream's reset too, while the link carries
	 * others; a failure is ours, not the peer's: the QP's end
	 */
	if ((!err || exs_conn_carries(conn)) && exs_link_post_recv(link, slot))
		repost_failed = true;
	if (err == -EPROTO)
		exs_rx_proto_err(conn, type);
	spin_unlock(&conn->lock);

	/* The peer's reset needs no answer; its protocol error hears one.
	 * One in what the link itself reads (a message it cannot parse, a
	 * write's length, a BATCH, a channel nobody has, a JOIN, a RESUME
	 * once its first stream ended) ends the link and every stream on
	 * it, as a bad message ends an SMC-R link group: the peer's kernel
	 * is broken, and no stream on it can trust it.  One in a stream's
	 * own message or bytes ends that stream.
	 */
	if (repost_failed)
		exs_link_abort(conn, -ECONNRESET, false);
	else if (err == -EPROTO && link->chans && !stream_err)
		exs_conn_reset_link(conn);
	else if (err == -EPROTO)
		exs_conn_reset(conn, true);
	else if (err)
		exs_conn_abort(conn, err == -EPIPE ? err : -ECONNRESET, false);
	if (stream) {
		if (!err && !repost_failed)
			exs_stream_rx(stream, wc->opcode, &msg.msg, type,
				      cursor, imm, NULL);
		exs_conn_put(stream);
	}
	if (batch.n && !err && !repost_failed)
		exs_link_rx_batch_chans(link, msg.raw, &batch);
}
