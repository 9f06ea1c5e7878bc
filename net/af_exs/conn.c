// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA connections: creation, completions, control messages, the transmit
 * pump and teardown.
 *
 * Data moves as RDMA WRITE WITH IMMEDIATE into the peer's ring; each write
 * consumes one posted receive at the peer, which reposts it in the
 * completion handler itself, and the QP retries receiver-not-ready
 * forever (rnr_retry_count 7), so receives need no credits of their own.
 * Bytes are credit controlled: the peer returns its consumer cursor.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/gfp.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "fault.h"
#include "mib.h"
#include "ring.h"
#include "wc.h"
#include "trace.h"

/* Devices without immediate data (iWARP) would follow each ring write with
 * a DATA message instead.  AF_EXS skips those devices for now (device.c),
 * so this only lets the tests run that path on RoCE.
 */
static bool exs_imm_data = true;
module_param_named(imm_data, exs_imm_data, bool, 0644);
MODULE_PARM_DESC(imm_data,
		 "announce ring writes with immediate data (0: with a SEND after each write, as devices without it must)");

struct workqueue_struct *exs_wq;

static void exs_qp_event(struct ib_event *ev, void *context);
static void exs_qp_event_work(struct work_struct *work);
static void exs_tx_done(struct ib_cq *cq, struct ib_wc *wc);
static void exs_rx_done(struct ib_cq *cq, struct ib_wc *wc);
static void exs_conn_hw_work(struct work_struct *work);
static void exs_conn_timeout_work(struct work_struct *work);
static void __exs_conn_abort(struct exs_conn *conn, int err,
			     bool protocol_error);

/* Wake whoever waits on an AF_EXS socket: its native socket's wait queue
 * is the one poll and epoll registered on (socket.c), and SIGIO goes
 * through the AF_EXS socket that owns the file.
 */
void exs_wake(struct exs_sock *exs, __poll_t mask)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(exs->native->sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, mask);
	rcu_read_unlock();
	if (mask & (EPOLLIN | EPOLLHUP | EPOLLERR))
		sk_wake_async(&exs->sk, SOCK_WAKE_WAITD, POLL_IN);
	if (mask & EPOLLOUT)
		sk_wake_async(&exs->sk, SOCK_WAKE_SPACE, POLL_OUT);
}

/* Called under conn->lock, which keeps the owner from going away. */
void exs_conn_wake(struct exs_conn *conn, __poll_t mask)
{
	if (conn->owner)
		exs_wake(conn->owner, mask);
}

/* rdma_cm events of an established connection, active or passive. */
void exs_conn_cm_event(struct exs_conn *conn, enum rdma_cm_event_type event)
{
	unsigned long flags;

	switch (event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		spin_lock_irqsave(&conn->lock, flags);
		if (!conn->announced)
			/* before any socket had it (a connector that fell
			 * back after the handshake): whoever waits for it,
			 * a listener or connect(), must learn it ended, or
			 * the connection and its listener are never freed
			 */
			__exs_conn_abort(conn, -ECONNRESET, false);
		else if (conn->fin_rcvd ||
			 !exs_conn_resume(conn, -ECONNRESET))
			/* flush the CQs first: the teardown then tells EOF
			 * (the peer's FIN came) from a reset
			 */
			exs_conn_queue_hw(conn);
		spin_unlock_irqrestore(&conn->lock, flags);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		exs_conn_abort(conn, -ENETDOWN, false);
		break;
	default:
		break;
	}
}

struct exs_conn *exs_conn_alloc(struct net *net, struct rdma_cm_id *id,
				u32 rsize, u32 inline_max)
{
	struct exs_conn *conn;
	int i;

	if (exs_fail_alloc(sizeof(*conn)))
		return NULL;
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	refcount_set(&conn->ref, 1);
	spin_lock_init(&conn->lock);
	conn->net = get_net(net);
	conn->id = id;
	conn->rsize = rsize;
	conn->inline_max = inline_max;
	conn->credit_fraction =
		READ_ONCE(exs_pernet(net)->cfg.delayed_ack_fraction);
	conn->ack_cfg = READ_ONCE(exs_pernet(net)->cfg.ack_timeout);
	conn->state = EXS_CONN_CONNECTING;
	INIT_LIST_HEAD(&conn->dev_node);
	INIT_LIST_HEAD(&conn->accept_node);
	INIT_LIST_HEAD(&conn->park_node);
	INIT_WORK(&conn->hw_work, exs_conn_hw_work);
	INIT_WORK(&conn->qp_event_work, exs_qp_event_work);
	INIT_WORK(&conn->resume_work, exs_resume_work);
	INIT_WORK(&conn->resolve_work, exs_connect_resolve_work);
	INIT_DELAYED_WORK(&conn->timeout_work, exs_conn_timeout_work);
	INIT_DELAYED_WORK(&conn->watch_work, exs_watch_work);
	init_completion(&conn->abort_done);
	for (i = 0; i < EXS_SQ_DEPTH; i++) {
		conn->tx[i].conn = conn;
		conn->tx[i].cqe.done = exs_tx_done;
	}
	for (i = 0; i < EXS_RQ_DEPTH; i++) {
		conn->rx[i].conn = conn;
		conn->rx[i].cqe.done = exs_rx_done;
	}
	return conn;
}

static void exs_conn_free(struct exs_conn *conn)
{
	WARN_ON_ONCE(conn->qp || conn->pd || conn->dev || conn->native ||
		     conn->old_id || conn->resume_id);
	if (conn->rbuf)
		free_pages((unsigned long)conn->rbuf, get_order(conn->rsize));
	if (conn->tbuf)
		free_pages((unsigned long)conn->tbuf, get_order(conn->tsize));
	kfree(conn->rx_msgs);
	put_net(conn->net);
	kfree(conn);
}

void exs_conn_put(struct exs_conn *conn)
{
	if (refcount_dec_and_test(&conn->ref))
		exs_conn_free(conn);
}

static void *exs_ring_alloc(u32 size)
{
	if (exs_fail_alloc(size))
		return NULL;
	return (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO |
					__GFP_NOWARN | __GFP_NORETRY,
					get_order(size));
}

static int exs_post_recv(struct exs_conn *conn, struct exs_rx_slot *slot)
{
	struct ib_recv_wr wr = {
		.wr_cqe		= &slot->cqe,
		.sg_list	= &slot->sge,
		.num_sge	= 1,
	};

	/* not behind ib_drain_qp()'s marker (see exs_post_send()) */
	if (conn->qp_closing)
		return 0;
	return ib_post_recv(conn->qp, &wr, NULL);
}

/* The ring is registered for remote write through a fast-registration MR
 * of its own in the connection's own PD, so the peer can reach these
 * pages and nothing else, through this QP and no other; the
 * registration work request is posted once the QP can send (READY tells
 * the peer it has completed, see exs_conn_established()).
 */
static int exs_conn_map_ring(struct exs_conn *conn)
{
	struct ib_device *ibdev = conn->dev->ibdev;
	u32 max_pages = ibdev->attrs.max_fast_reg_page_list_len;
	int n;

	if (max_pages && conn->rsize > max_pages * PAGE_SIZE)
		conn->rsize = rounddown_pow_of_two(max_pages * PAGE_SIZE);
	if (!exs_ring_size_ok(conn->rsize))
		return -EINVAL;
	conn->rbuf = exs_ring_alloc(conn->rsize);
	if (!conn->rbuf)
		return -ENOMEM;
	sg_init_one(&conn->rsg, conn->rbuf, conn->rsize);
	if (!ib_dma_map_sg(ibdev, &conn->rsg, 1, DMA_BIDIRECTIONAL))
		return -ENOMEM;

	conn->mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG,
			       conn->rsize >> PAGE_SHIFT);
	if (IS_ERR(conn->mr)) {
		int err = PTR_ERR(conn->mr);

		conn->mr = NULL;
		return err;
	}
	n = ib_map_mr_sg(conn->mr, &conn->rsg, 1, NULL, PAGE_SIZE);
	if (n != 1)
		return n < 0 ? n : -EINVAL;
	ib_update_fast_reg_key(conn->mr, ib_inc_rkey(conn->mr->rkey));
	return 0;
}

/* Bytes the peer wrote become the CPU's to read: synced once, as their
 * completion arrives, while the ring is surely still mapped (a no-op on
 * cache-coherent machines and on rxe).  The CPU only reads the ring, so
 * nothing needs syncing back before the device writes there again.
 */
static void exs_ring_sync_for_cpu(struct exs_conn *conn, u32 cursor, u32 len)
{
	struct ib_device *ibdev = conn->dev->ibdev;
	u64 base = sg_dma_address(&conn->rsg);

	while (len) {
		u32 n = exs_ring_contig(conn->rsize, cursor, len);
		u64 addr = base + exs_ring_off(conn->rsize, cursor);

		ib_dma_sync_single_for_cpu(ibdev, addr, n, DMA_BIDIRECTIONAL);
		cursor += n;
		len -= n;
	}
}

/* net.exs.ack_timeout, if set, on a connection's CM id: before route
 * resolution on the connecting side (RoCE derives the path's packet
 * lifetime from it), before rdma_accept() on the accepting one.
 */
void exs_conn_set_ack_timeout(struct rdma_cm_id *id, struct net *net)
{
	int timeout = READ_ONCE(exs_pernet(net)->cfg.ack_timeout);

	if (timeout)
		rdma_set_ack_timeout(id, timeout);
}

/* Queue pair on a PD of its own and on CQs from the device's CQ pool;
 * receives are posted before the connection exists, so the first
 * message can never find the queue empty.
 */
int exs_conn_create_qp(struct exs_conn *conn)
{
	struct rdma_cm_id *id = conn->id;
	struct ib_device *ibdev;
	int err;

	conn->dev = exs_dev_get(id->device);
	if (!conn->dev)
		return -ENODEV;
	ibdev = conn->dev->ibdev;
	spin_lock_bh(&conn->dev->lock);
	list_add(&conn->dev_node, &conn->dev->conns);
	spin_unlock_bh(&conn->dev->lock);

	if (exs_fail_alloc(sizeof(*conn->pd)))
		return -ENOMEM;
	conn->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(conn->pd)) {
		err = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return err;
	}

	err = exs_conn_map_ring(conn);
	if (err)
		return err;

	conn->rx_msgs = kcalloc(EXS_RQ_DEPTH, sizeof(*conn->rx_msgs),
				GFP_KERNEL);
	if (!conn->rx_msgs)
		return -ENOMEM;
	conn->rx_msgs_dma = ib_dma_map_single(ibdev, conn->rx_msgs,
					      EXS_RQ_DEPTH *
					      sizeof(*conn->rx_msgs),
					      DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, conn->rx_msgs_dma)) {
		conn->rx_msgs_dma = 0;
		return -ENOMEM;
	}

	/* one more of each for ib_drain_qp()'s marker */
	conn->scq = ib_cq_pool_get(ibdev, EXS_SQ_DEPTH + 1, -1,
				   IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->scq)) {
		err = PTR_ERR(conn->scq);
		conn->scq = NULL;
		return err;
	}
	conn->rcq = ib_cq_pool_get(ibdev, EXS_RQ_DEPTH + 1, -1,
				   IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->rcq)) {
		err = PTR_ERR(conn->rcq);
		conn->rcq = NULL;
		return err;
	}
	return exs_conn_make_qp(conn);
}

/* The queue pair itself, on conn->id, in the connection's PD and on its
 * CQs: a new connection's, or a resumed one's (resume.c), whose old QP
 * is gone and whose ring and registration stay.
 */
int exs_conn_make_qp(struct exs_conn *conn)
{
	struct ib_qp_init_attr attr = {};
	int err, i;

	attr.send_cq = conn->scq;
	attr.recv_cq = conn->rcq;
	attr.cap.max_send_wr = EXS_SQ_DEPTH + 1;
	attr.cap.max_recv_wr = EXS_RQ_DEPTH + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	/* control messages always go inline, an OPEN the longest */
	attr.cap.max_inline_data = max_t(u32, conn->inline_max,
					 sizeof(struct exs_wire_open));
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.event_handler = exs_qp_event;
	attr.qp_context = conn;
	if (exs_fail_alloc(sizeof(attr)))
		return -ENOMEM;
	err = rdma_create_qp(conn->id, conn->pd, &attr);
	if (err)
		return err;
	conn->qp = conn->id->qp;
	/* the device may grant less than we asked */
	conn->inline_cap = min_t(u32, attr.cap.max_inline_data, U16_MAX);
	conn->inline_max = min_t(u32, conn->inline_max, conn->inline_cap);

	for (i = 0; i < EXS_RQ_DEPTH; i++) {
		struct exs_rx_slot *slot = &conn->rx[i];

		slot->sge.addr = conn->rx_msgs_dma + i * sizeof(*conn->rx_msgs);
		slot->sge.length = sizeof(*conn->rx_msgs);
		slot->sge.lkey = conn->pd->local_dma_lkey;
		err = exs_post_recv(conn, slot);
		if (err)
			return err;
	}
	return 0;
}

/* The peer's ring, from its REQ or REP: our send buffer mirrors it, so a
 * byte has the same offset here and there.
 */
int exs_conn_set_peer_ring(struct exs_conn *conn,
			   const struct exs_wire_peer *peer)
{
	struct ib_device *ibdev = conn->dev->ibdev;

	conn->peer.ring_addr = peer->ring_addr;
	conn->peer.ring_rkey = peer->ring_rkey;
	conn->peer.ring_len = peer->ring_len;
	conn->tsize = peer->ring_len;
	conn->tbuf = exs_ring_alloc(conn->tsize);
	if (!conn->tbuf)
		return -ENOMEM;
	conn->tdma = ib_dma_map_single(ibdev, conn->tbuf, conn->tsize,
				       DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, conn->tdma)) {
		conn->tdma = 0;
		return -ENOMEM;
	}
	return 0;
}

static struct exs_tx_slot *exs_tx_slot_get(struct exs_conn *conn)
{
	struct exs_tx_slot *slot;

	if (conn->sq_head - conn->sq_tail >= EXS_SQ_DEPTH)
		return NULL;
	slot = &conn->tx[conn->sq_head % EXS_SQ_DEPTH];
	slot->seq = conn->sq_head++;
	slot->end = conn->tposted;
	return slot;
}

/* Queue the teardown with a reference of its own: it may be queued again
 * while it runs, and it drops the closed socket's reference itself.
 * From here the QP is going: it never parks, a connector cannot take it
 * from the pool, and an OPEN on it is not accepted (reuse.c), though the
 * teardown may not run for a while.  Called under conn->lock.
 */
void exs_conn_queue_hw(struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	conn->park = EXS_PARK_GONE;
	refcount_inc(&conn->ref);
	if (!queue_work(exs_wq, &conn->hw_work))
		refcount_dec(&conn->ref);	/* already queued: never the last */
}

/* conn->err is the connection's record (EPOLLHUP for good); the socket
 * takes its copy once it is the connection's on RDMA: sk_err, which
 * SO_ERROR, send() and recv() consume, as on TCP.  A connect that failed
 * before that falls back and must not leave an error behind.  Called
 * under conn->lock, which exs_connect_settle() and accept's graft hold
 * while they make the socket the connection's.
 */
void exs_conn_report_err(struct exs_conn *conn)
{
	struct exs_sock *exs = conn->owner;

	if (conn->err && exs && READ_ONCE(exs->cstate) == EXS_CS_RDMA)
		WRITE_ONCE(exs->sk.sk_err, -conn->err);
}

/* The one place a connection closes with an error: the socket will see
 * @err (unless it has one already), and an established connection that
 * ends this way, however it was noticed, is counted and traced as an
 * abort.  Called under conn->lock.
 */
static void exs_conn_close_err(struct exs_conn *conn, int err)
{
	if (conn->state == EXS_CONN_ESTABLISHED) {
		EXS_INC_STATS(conn->net, EXS_MIB_ABORTS);
		trace_exs_abort(&conn->self, err);
	}
	conn->state = EXS_CONN_CLOSED;
	if (!conn->err) {
		conn->err = err;
		exs_conn_report_err(conn);
	}
}

/* End the connection now with @err: the socket sees it at once, the
 * resources go in process context.  Called under conn->lock.
 */
static void __exs_conn_abort(struct exs_conn *conn, int err,
			     bool protocol_error)
{
	lockdep_assert_held(&conn->lock);
	if (conn->state != EXS_CONN_CLOSED) {
		/* once per connection: one violation may be reported twice
		 * (a failed receive and the queue pair's event)
		 */
		if (protocol_error)
			EXS_INC_STATS(conn->net, EXS_MIB_PROTOERR);
		if (conn->resume)
			EXS_INC_STATS(conn->net, EXS_MIB_RESUMEFAILS);

		exs_conn_close_err(conn, err);
		/* whoever waits for it to come up learns it never will */
		if (!conn->announced && conn->on_connect)
			conn->on_connect(conn);
		exs_conn_wake(conn, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP |
				    EPOLLRDHUP);
	}
	exs_conn_queue_hw(conn);
}

/* The same, from any context without conn->lock. */
void exs_conn_abort(struct exs_conn *conn, int err, bool protocol_error)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	__exs_conn_abort(conn, err, protocol_error);
	spin_unlock_irqrestore(&conn->lock, flags);
}

/* A signaled request is posted and not yet completed: the peer's device
 * owes an ack (unsignaled ones complete with the signaled after them).
 * Called under conn->lock.
 */
bool exs_conn_awaits_ack(const struct exs_conn *conn)
{
	return (s32)(conn->sq_signaled - conn->sq_tail) > 0;
}

/* Sends are posted under conn->lock, so a failed post can give back the
 * slot it just took.
 */
static int exs_post_send(struct exs_conn *conn, struct ib_send_wr *wr)
{
	int err;

	/* Nothing may follow ib_drain_qp()'s marker (a completion handler
	 * returning credits while the teardown drains, say): its flush would
	 * complete after the drain, on a connection about to be freed.
	 */
	if (conn->qp_closing || !conn->qp) {
		conn->sq_head--;
		return -ESHUTDOWN;
	}
	err = ib_post_send(conn->qp, wr, NULL);

	if (err) {
		conn->sq_head--;
		__exs_conn_abort(conn, -ECONNRESET, false);
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

/* A control message of @len bytes at @msg (conn->tx_msg or tx_open),
 * sent inline; -EAGAIN when the send queue is full.  Called under
 * conn->lock.
 */
static int exs_conn_send_buf(struct exs_conn *conn, const void *msg, u32 len,
			     enum exs_tx_kind kind)
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

	/* a closed connection's PD may be gone already */
	if (conn->state != EXS_CONN_ESTABLISHED)
		return -ENOTCONN;
	sge.lkey = conn->pd->local_dma_lkey;
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

static int exs_conn_send_msg(struct exs_conn *conn,
			     enum exs_wire_msg_type type, u32 cursor,
			     enum exs_tx_kind kind)
{
	/* a resuming connection says RESUME first, and nothing before */
	if (conn->resume)
		return -ENOTCONN;
	conn->tx_msg.type = type;
	conn->tx_msg.flags = 0;
	conn->tx_msg.reserved = 0;
	conn->tx_msg.cursor = cpu_to_be32(cursor);
	return exs_conn_send_buf(conn, &conn->tx_msg, sizeof(conn->tx_msg),
				 kind);
}

int exs_conn_send_ctrl(struct exs_conn *conn, enum exs_wire_msg_type type,
		       u32 cursor)
{
	return exs_conn_send_msg(conn, type, cursor, EXS_TX_CTRL);
}

/* The first message on a resumed connection's new QP (resume.c): what we
 * hold of the peer's bytes, and whether its FIN.  Called under
 * conn->lock.
 */
int exs_conn_send_resume(struct exs_conn *conn)
{
	conn->tx_msg.type = EXS_MSG_RESUME;
	conn->tx_msg.flags = conn->fin_rcvd ? EXS_RESUME_FIN : 0;
	conn->tx_msg.reserved = 0;
	conn->tx_msg.cursor = cpu_to_be32(conn->rprod);
	return exs_conn_send_buf(conn, &conn->tx_msg, sizeof(conn->tx_msg),
				 EXS_TX_CTRL);
}

/* A connector's OPEN on its parked QP, for the connection conn->self
 * names (reuse.c).  Called under conn->lock.
 */
int exs_conn_send_open(struct exs_conn *conn)
{
	exs_wire_build_open(&conn->tx_open, &conn->self);
	return exs_conn_send_buf(conn, &conn->tx_open, sizeof(conn->tx_open),
				 EXS_TX_CTRL);
}

/* Say ABORT while the QP still works, so that the peer takes the
 * disconnect that follows for a reset, not for a QP failure to resume
 * from (which would end only at the resume's deadline).  The teardown
 * waits a little for its ack: the disconnect flushes what the device
 * has not sent yet.  Called under conn->lock.
 */
static void exs_conn_send_abort(struct exs_conn *conn)
{
	/* not on a QP being replaced either: it has none to say it on */
	if (conn->state == EXS_CONN_ESTABLISHED && !conn->abort_sent &&
	    !exs_conn_send_msg(conn, EXS_MSG_ABORT, 0, EXS_TX_ABORT))
		conn->abort_sent = true;
}

/* How long a teardown waits for its ABORT's ack: time for a lost ABORT
 * to be sent twice more (IB's ack timeout is 4.096 us << t), within
 * bounds: the peer, if it is there at all, is owed no more.
 */
static unsigned long exs_abort_ack_wait(const struct exs_conn *conn)
{
	u64 us = div_u64(4096ULL << min_t(u8, conn->ack_timeout, 24), 1000);

	return clamp_t(unsigned long, usecs_to_jiffies(3 * us), 2 * HZ,
		       8 * HZ);
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
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	__exs_conn_reset(conn, protocol_error);
	spin_unlock_irqrestore(&conn->lock, flags);
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
 * ETIMEDOUT.  Called under conn->lock.
 */
void exs_conn_stalled(struct exs_conn *conn, bool may_resume)
{
	unsigned long unacked = jiffies - conn->last_acked;
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
	if (!resume)
		__exs_conn_abort(conn, -ETIMEDOUT, false);
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
		.lkey	= conn->pd->local_dma_lkey,
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
	if (len <= conn->inline_max) {
		sge.addr = (uintptr_t)conn->tbuf + off;
		wr.wr.send_flags |= IB_SEND_INLINE;
		EXS_INC_STATS(conn->net, EXS_MIB_INLINEWRITES);
	} else {
		ib_dma_sync_single_for_device(conn->dev->ibdev,
					      conn->tdma + off, len,
					      DMA_TO_DEVICE);
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

	/* Nagle waits only for a completion that will come: writes made
	 * under TCP_NODELAY, which may since have been turned off, were
	 * unsignaled
	 */
	if (pending && (conn->hold ||
			(!conn->nodelay && conn->tdone != conn->tposted &&
			 conn->sq_signaled == conn->sq_head)) &&
	    pending < gather && !conn->shut_wr)
		pending = 0;

	if (pending) {
		u32 first = exs_ring_contig(conn->tsize, conn->tposted,
					    pending);
		u32 free_after = conn->tsize -
				 (conn->tposted + pending - conn->tcredit);
		bool with_imm = READ_ONCE(exs_imm_data);
		u32 imm = pending;

		if (conn->sq_head - conn->sq_tail + (first < pending ? 2 : 1) +
		    !with_imm > EXS_SQ_DEPTH)
			return;		/* a completion pushes again */
		if (exs_window_low(conn->tsize, free_after))
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

	if (conn->shut_wr && !conn->fin_sent &&
	    conn->tposted == conn->tcopied &&
	    !exs_conn_send_ctrl(conn, EXS_MSG_FIN, conn->tposted))
		conn->fin_sent = true;
	if (conn->fin_sent && conn->orphan)
		exs_park_last(conn);
}

/* Tell the owner-to-be the connection is up, once: established, and the
 * peer's READY came (its ring is registered).  So connect() returns, as
 * TCP's does, on a socket that can send at once; and accept() never hands
 * out a connection whose connector failed after the CM handshake (its
 * send buffer, say) and fell back to TCP.  Called under conn->lock.
 */
void exs_conn_announce(struct exs_conn *conn)
{
	if (conn->announced || conn->state != EXS_CONN_ESTABLISHED ||
	    !conn->peer_ready)
		return;
	conn->announced = true;
	if (conn->on_connect)
		conn->on_connect(conn);
}

/* A parked connection carries a new one (reuse.c): what was the last
 * one's starts afresh.  The cursors go on from where both ends left
 * them: each had consumed all the other wrote, and said so in its LAST.
 * Called under conn->lock.
 */
void exs_conn_renew(struct exs_conn *conn)
{
	conn->err = 0;
	conn->reason = EXS_FALLBACK_NONE;
	conn->transient = false;
	conn->announced = false;
	conn->answer_late = false;
	conn->peer_ready = false;
	conn->fin_sent = false;
	conn->fin_acked = false;
	conn->fin_rcvd = false;
	conn->shut_wr = false;
	conn->peer_low = false;
	conn->credit_owed = false;
	conn->tx_wanted = false;
	conn->nodelay = false;
	conn->hold = false;
	conn->persist = false;
	conn->keepalive = false;
	conn->last_sent = false;
	conn->last_rcvd = false;
	conn->refused = 0;
	conn->orphan = false;
	conn->reused = true;
	conn->owner = NULL;
	conn->on_connect = NULL;
	conn->lsn = NULL;
	conn->rx_bytes = 0;
	conn->tx_bytes = 0;
	conn->last_heard = jiffies;
	conn->last_acked = conn->last_heard;
	conn->credit_fraction =
		READ_ONCE(exs_pernet(conn->net)->cfg.delayed_ack_fraction);
}

/* The ACK timeout the CM gave the QP at RTS (its own, or
 * net.exs.ack_timeout), for the socket dump; 0 where it sets none
 * (iWARP).  Asked of the CM, not the device: a device may sleep in its
 * firmware to answer, and an aborted connection's QP can be destroyed
 * under us, while @id lives as long as the CM handler that calls this.
 */
static u8 exs_conn_cm_ack_timeout(struct rdma_cm_id *id)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };
	int mask = 0;

	if (rdma_init_qp_attr(id, &attr, &mask) || !(mask & IB_QP_TIMEOUT))
		return 0;
	return attr.timeout;
}

/* Both sides registered their rings before sending READY; a side writes
 * only after the peer's READY, so no write can race a registration.
 * Called from @id's CM handler.
 */
void exs_conn_established(struct exs_conn *conn, struct rdma_cm_id *id)
{
	struct exs_tx_slot *slot;
	struct ib_reg_wr reg = {
		.wr = {
			.opcode		= IB_WR_REG_MR,
			.send_flags	= IB_SEND_SIGNALED,
		},
		.mr	= conn->mr,
		.key	= conn->mr->rkey,
		.access	= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	u8 ack_timeout = exs_conn_cm_ack_timeout(id);

	spin_lock_bh(&conn->lock);
	if (conn->resume == EXS_RESUME_CONNECT) {
		int err;

		/* the ring is registered already */
		conn->ack_timeout = ack_timeout;
		err = exs_resume_up(conn);
		if (err)
			__exs_conn_abort(conn, err == -EPROTO ? -ECONNRESET :
					 conn->resume_err, err == -EPROTO);
		goto out;
	}
	if (conn->state != EXS_CONN_CONNECTING)
		goto out;
	conn->state = EXS_CONN_ESTABLISHED;
	conn->ack_timeout = ack_timeout;
	conn->last_heard = jiffies;
	conn->last_acked = conn->last_heard;
	exs_conn_announce(conn);
	if (conn->state != EXS_CONN_ESTABLISHED)
		goto out;
	slot = exs_tx_slot_get(conn);	/* the queue is empty so far */
	if (WARN_ON_ONCE(!slot)) {
		__exs_conn_abort(conn, -ECONNRESET, false);
		goto out;
	}
	slot->kind = EXS_TX_REG;
	reg.wr.wr_cqe = &slot->cqe;
	if (exs_post_send(conn, &reg.wr))
		goto out;
	if (exs_conn_send_ctrl(conn, EXS_MSG_READY, 0)) {
		__exs_conn_abort(conn, -ECONNRESET, false);
		goto out;
	}
	conn->ready_sent = true;
out:
	spin_unlock_bh(&conn->lock);
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

/* The socket is closed.  Its reference moves to the teardown, which runs
 * once the remaining bytes and the FIN left (or the timeout hit); with
 * @reset (SO_LINGER 0), or with unread data, at once: the peer sees a
 * reset, as on TCP.  Called under conn->lock.
 */
static void __exs_conn_orphan(struct exs_conn *conn, bool reset)
{
	conn->owner = NULL;
	conn->orphan = true;
	conn->on_connect = NULL;
	if (conn->state == EXS_CONN_ESTABLISHED) {
		if (reset || conn->rprod != conn->rcons) {
			exs_conn_send_abort(conn);
			exs_conn_close_err(conn, -ECONNRESET);
		} else {
			exs_conn_shut_wr(conn);
		}
	}
	/* armed under the lock, so the teardown's cancel always sees it */
	if (conn->hw_released)
		exs_conn_queue_hw(conn);
	else if (exs_conn_tx_finished(conn))
		exs_conn_finished(conn);
	else
		exs_conn_arm_timeout(conn, 60 * HZ);
}

void exs_conn_orphan(struct exs_conn *conn, bool reset)
{
	spin_lock_bh(&conn->lock);
	__exs_conn_orphan(conn, reset);
	spin_unlock_bh(&conn->lock);
}

/* The owning socket is closing, and *@native goes with it: while the
 * cm_id lives, the connection keeps the native socket, and with it the
 * port, which rdma_cm holds too.  TCP would give a freed port out at
 * once, and a listener it went to could not listen for RDMA there.
 * hw_work releases it with the socket's reference; once the device let
 * go, there is nothing to keep it for.
 *
 * One critical section with the orphaning: a completion in between would
 * wake an owner whose native socket is gone.
 */
void exs_conn_disown(struct exs_conn *conn, struct socket **native,
		     bool reset)
{
	spin_lock_bh(&conn->lock);
	/* a reused connection's QP has one already, the first socket's */
	if (!conn->hw_released && !conn->native) {
		/* never merged, so it has no file (fallback.c lends one) */
		conn->native = *native;
		*native = NULL;
	}
	__exs_conn_orphan(conn, reset);
	spin_unlock_bh(&conn->lock);
}

/* Release everything the device holds for this connection, in process
 * context, while the socket may still be open: the rings stay (unread
 * bytes remain readable), the QP, MR, CQs and (with @destroy_id) the
 * cm_id go.  The QP is drained first, so no completion handler runs
 * after this on anything of ours.
 */
void exs_conn_hw_release(struct exs_conn *conn, bool destroy_id)
{
	struct rdma_cm_id *id = conn->id;
	struct ib_device *ibdev;
	bool abort_sent;

	spin_lock_bh(&conn->lock);
	conn->qp_closing = true;
	abort_sent = conn->abort_sent;
	spin_unlock_bh(&conn->lock);
	cancel_delayed_work_sync(&conn->watch_work);	/* no probe after this */
	/* the disconnect would flush an ABORT the device has not sent */
	if (abort_sent)
		wait_for_completion_timeout(&conn->abort_done,
					    exs_abort_ack_wait(conn));
	if (id)
		rdma_disconnect(id);
	if (conn->qp)
		ib_drain_qp(conn->qp);

	spin_lock_bh(&conn->lock);
	/* An orderly end when the peer's FIN came first, or when a closed
	 * socket's own FIN was delivered (it wants nothing more: TCP's
	 * FIN_WAIT_2 ends with the peer's FIN or its timer, never as an
	 * abort); else a reset.
	 */
	if (conn->fin_rcvd || (conn->orphan && conn->fin_acked))
		conn->state = EXS_CONN_CLOSED;
	else if (conn->state != EXS_CONN_CLOSED)
		exs_conn_close_err(conn, -ECONNRESET);
	exs_conn_wake(conn, EPOLLIN | EPOLLOUT | EPOLLHUP | EPOLLRDHUP |
			    (conn->err ? EPOLLERR : 0));
	spin_unlock_bh(&conn->lock);

	if (conn->qp)
		rdma_destroy_qp(id);
	conn->qp = NULL;
	if (id && destroy_id)
		rdma_destroy_id(id);
	WRITE_ONCE(conn->id, NULL);

	if (conn->dev) {
		ibdev = conn->dev->ibdev;
		if (conn->mr)
			ib_dereg_mr(conn->mr);
		if (conn->scq)
			ib_cq_pool_put(conn->scq, EXS_SQ_DEPTH + 1);
		if (conn->rcq)
			ib_cq_pool_put(conn->rcq, EXS_RQ_DEPTH + 1);
		if (sg_dma_address(&conn->rsg))
			ib_dma_unmap_sg(ibdev, &conn->rsg, 1,
					DMA_BIDIRECTIONAL);
		if (conn->rx_msgs_dma)
			ib_dma_unmap_single(ibdev, conn->rx_msgs_dma,
					    EXS_RQ_DEPTH *
					    sizeof(*conn->rx_msgs),
					    DMA_FROM_DEVICE);
		if (conn->tdma)
			ib_dma_unmap_single(ibdev, conn->tdma, conn->tsize,
					    DMA_TO_DEVICE);
		/* after the QP and the MR that live in it */
		if (conn->pd)
			ib_dealloc_pd(conn->pd);
		spin_lock_bh(&conn->dev->lock);
		list_del_init(&conn->dev_node);
		spin_unlock_bh(&conn->dev->lock);
		exs_dev_put(conn->dev);
		conn->dev = NULL;
	}
	conn->mr = NULL;
	conn->pd = NULL;
	conn->scq = NULL;
	conn->rcq = NULL;
}

static void exs_conn_hw_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(work, struct exs_conn, hw_work);
	struct socket *native = NULL;
	bool put_orphan;

	/* Out of the pool for good: marked GONE when this was queued, it
	 * cannot park again (exs_conn_finished()) before the QP is flushed.
	 */
	exs_park_unlink(conn);
	/* no resume runs from here, nor starts */
	exs_resume_stop(conn);
	if (!conn->torn_down && (conn->id || conn->dev)) {
		/* after this no rdma_cm handler builds anything on the conn */
		if (conn->id)
			rdma_lock_handler(conn->id);
		WRITE_ONCE(conn->torn_down, true);
		if (conn->id)
			rdma_unlock_handler(conn->id);
		cancel_delayed_work_sync(&conn->timeout_work);
		if (cancel_work_sync(&conn->resolve_work))
			exs_conn_put(conn);
		exs_conn_hw_release(conn, true);
	}

	/* the closed socket's reference, dropped here and only once */
	spin_lock_bh(&conn->lock);
	conn->hw_released = true;
	put_orphan = conn->orphan && !conn->orphan_put;
	conn->orphan_put |= put_orphan;
	if (put_orphan)
		swap(native, conn->native);
	spin_unlock_bh(&conn->lock);
	/* the cm_id is gone: TCP may give its port out again */
	if (native)
		sock_release(native);
	if (put_orphan) {
		cancel_delayed_work_sync(&conn->timeout_work);
		exs_conn_put(conn);
	}
	exs_conn_put(conn);	/* exs_conn_queue_hw()'s */
}

/* Arm timeout_work for @delay from now; a run that finds an earlier
 * deadline than the last one armed (it waited for the lock while it was
 * armed again: a parked connection reused) does nothing.  Called under
 * conn->lock, or before anyone else can see the connection.
 */
void exs_conn_arm_timeout(struct exs_conn *conn, unsigned long delay)
{
	conn->timeout_at = jiffies + delay;
	mod_delayed_work(exs_wq, &conn->timeout_work, delay);
}

void exs_conn_disarm_timeout(struct exs_conn *conn)
{
	conn->timeout_at = jiffies + MAX_JIFFY_OFFSET;
	cancel_delayed_work(&conn->timeout_work);
}

/* The connect deadline passed on a connection that is up but whose peer
 * has not said READY.  If our READY (a reuse's OPEN) reached the peer's
 * device, the peer takes the connection as soon as it reads it: accept()
 * may hand it out, or connect() return, and giving up now would reset
 * it.  Its answer is then awaited as long as an ack would be, once.  Not
 * acked by the deadline, it may never have arrived (a peer rebooted
 * under a parked QP): the attempt fails, and the socket goes to TCP.
 * Called under conn->lock.
 */
static bool exs_conn_answer_late(struct exs_conn *conn)
{
	if (conn->answer_late || exs_conn_awaits_ack(conn))
		return false;
	conn->answer_late = true;
	exs_conn_arm_timeout(conn, EXS_STALL_TIMEOUT);
	return true;
}

/* A connector's attempt ran out of time.  Which step it was waiting for
 * tells a silent peer (no REP) from a link that cannot reach the node
 * (no address): say it, as TCP's SYN timeouts cannot.  Under conn->lock.
 */
static void exs_connect_timed_out(struct exs_conn *conn)
{
	static const char * const stage[] = {
		[EXS_STAGE_ADDR]	= "resolving the address",
		[EXS_STAGE_ROUTE]	= "resolving the route",
		[EXS_STAGE_REP]		= "REQ sent, no REP",
		[EXS_STAGE_READY]	= "connected, no READY",
	};
	u8 at = READ_ONCE(conn->stage);

	if (!conn->reason)
		conn->reason = EXS_FALLBACK_TIMEOUT;
	/* a peer that answered the REQ runs AF_EXS: slow, not absent, so
	 * no negative-cache entry
	 */
	if (at == EXS_STAGE_READY)
		conn->transient = true;
	pr_info_ratelimited("connect to %pI6c timed out: %s\n", &conn->node,
			    stage[at]);
	__exs_conn_abort(conn, -ETIMEDOUT, false);
}

/* One timer, six deadlines: a connector's RDMA attempt still connecting
 * (a child's is the CM's), an established one whose peer never said
 * READY, a resume (resume.c), a closed socket's last bytes, its peer's
 * LAST (reuse.c), and a parked connection's idle time.  Anything else
 * it finds has moved on.
 */
static void exs_conn_timeout_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(to_delayed_work(work),
					     struct exs_conn, timeout_work);

	spin_lock_bh(&conn->lock);
	if (time_before(jiffies, conn->timeout_at)) {
		/* armed again meanwhile */
	} else if (exs_park_expire(conn)) {
		/* parked, or done and waiting for the peer's LAST, too long:
		 * an orderly end
		 */
	} else if (conn->resume && conn->state == EXS_CONN_ESTABLISHED) {
		/* the new QP never came up: the failure stands */
		__exs_conn_abort(conn, conn->resume_err, false);
	} else if (conn->state == EXS_CONN_CONNECTING && conn->passive) {
		/* A child's handshake is the CM's until the CM ends it: the
		 * RTU, a REJ, or its REP's last retry.  Destroying the id
		 * before may race that retry's timeout, whose callback ib_cm
		 * makes without a reference on the id: a use-after-free in
		 * rdma_cm, seen on 6.1 under load.  Look again later.
		 */
		exs_conn_arm_timeout(conn,
				     msecs_to_jiffies(exs_connect_timeout_ms(conn->net)));
	} else if (conn->state == EXS_CONN_CONNECTING) {
		exs_connect_timed_out(conn);
	} else if (conn->state == EXS_CONN_ESTABLISHED && !conn->announced) {
		/* the peer may hold it already if only its READY is late */
		if (conn->orphan || conn->passive)
			__exs_conn_abort(conn, -ETIMEDOUT, false);
		else if (!exs_conn_answer_late(conn))
			exs_connect_timed_out(conn);
	} else if (conn->orphan) {
		__exs_conn_abort(conn, -ETIMEDOUT, false);
	}
	spin_unlock_bh(&conn->lock);
}

/* A failed work request, a receive if @recv (wc.h says what it means).
 * Called under conn->lock.
 */
static void exs_wc_failed(struct exs_conn *conn, const struct ib_wc *wc,
			  bool recv)
{
	bool stands = conn->state == EXS_CONN_ESTABLISHED && !conn->fin_rcvd &&
		      !conn->qp_closing;

	lockdep_assert_held(&conn->lock);
	/* The failed QP a resume drains: whatever it says is past.  The
	 * new one's, before it is up: the CM flushes it when the peer
	 * refuses, and its event says so.
	 */
	if (conn->resume && (conn->qp_closing ||
			     conn->resume == EXS_RESUME_CONNECT))
		return;
	switch (exs_wc_verdict(wc->status, recv, stands,
			       conn->sq_head != conn->sq_tail)) {
	case EXS_WC_IGNORE:
		break;
	case EXS_WC_TIMEDOUT:
		if (!exs_conn_resume(conn, -ETIMEDOUT))
			__exs_conn_abort(conn, -ETIMEDOUT, false);
		break;
	case EXS_WC_RESET:
		if (!exs_conn_resume(conn, -ECONNRESET))
			__exs_conn_abort(conn, -ECONNRESET, false);
		break;
	case EXS_WC_PEER_FAULT:
		pr_warn_ratelimited("peer's request refused by the device (%s), connection reset\n",
				    ib_wc_status_msg(wc->status));
		__exs_conn_abort(conn, -ECONNRESET, true);
		break;
	}
}

/* The queue pair's own events, in whatever context the driver raises
 * them: only its failures matter, and they are acted on in process
 * context (conn->lock is a BH lock).  The QP is destroyed before the
 * connection is freed, so the connection is alive here.
 */
static void exs_qp_event(struct ib_event *ev, void *context)
{
	struct exs_conn *conn = context;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		WRITE_ONCE(conn->qp_event, ev->event);
		WRITE_ONCE(conn->qp_event_qp, ev->element.qp);
		refcount_inc(&conn->ref);
		if (!queue_work(exs_wq, &conn->qp_event_work))
			refcount_dec(&conn->ref);	/* queued: never the last */
		break;
	default:
		break;
	}
}

/* The device failed the QP on its own (IB_EVENT_QP_FATAL): a new QP, or
 * a reset.  Called under conn->lock.
 */
void exs_conn_qp_fatal(struct exs_conn *conn)
{
	if (!exs_conn_resume(conn, -ECONNRESET))
		__exs_conn_abort(conn, -ECONNRESET, false);
}

/* A request or access error is the peer's doing; the device's own failure
 * is worth a new QP.  An event of a QP a resume replaced is old news.
 */
static void exs_qp_event_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(work, struct exs_conn,
					     qp_event_work);
	enum ib_event_type event = READ_ONCE(conn->qp_event);
	bool fatal = event == IB_EVENT_QP_FATAL;

	spin_lock_bh(&conn->lock);
	if (READ_ONCE(conn->qp_event_qp) == conn->qp && !conn->qp_closing) {
		pr_warn_ratelimited("queue pair failed (%s)%s\n",
				    ib_event_msg(event),
				    fatal ? "" : ", connection reset");
		if (fatal)
			exs_conn_qp_fatal(conn);
		else
			__exs_conn_abort(conn, -ECONNRESET, true);
	}
	spin_unlock_bh(&conn->lock);
	exs_conn_put(conn);
}

static void exs_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_tx_slot *slot = container_of(wc->wr_cqe,
						struct exs_tx_slot, cqe);
	struct exs_conn *conn = slot->conn;

	/* acked or flushed: the teardown may disconnect */
	if (slot->kind == EXS_TX_ABORT)
		complete(&conn->abort_done);
	spin_lock(&conn->lock);
	conn->sq_tail = slot->seq + 1;	/* and the unsignaled before it */
	if (wc->status != IB_WC_SUCCESS) {
		exs_wc_failed(conn, wc, false);
		spin_unlock(&conn->lock);
		return;
	}
	conn->last_heard = jiffies;	/* the peer's device acked it */
	conn->last_acked = conn->last_heard;
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

/* Data the peer wrote into our ring: @imm (the write's immediate, or a
 * DATA message) gives its length, which must fit the free space; the bytes
 * themselves are the peer's.  Called under conn->lock.
 */
static bool exs_rx_bytes(struct exs_conn *conn, u32 imm)
{
	u32 len = imm & EXS_IMM_LEN_MASK;

	if (!len || conn->fin_rcvd || !conn->ready_sent ||
	    len > exs_ring_free(conn->rsize, conn->rprod, conn->rcons))
		return false;
	exs_ring_sync_for_cpu(conn, conn->rprod, len);
	conn->rprod += len;
	EXS_ADD_STATS(conn->net, EXS_MIB_BYTESIN, len);
	if (imm & EXS_IMM_LOW_WINDOW)
		conn->peer_low = true;
	exs_conn_credit(conn);
	exs_conn_wake(conn, EPOLLIN | EPOLLRDNORM);
	return true;
}

/* A control message from the peer; every field checked against our state.
 * Called under conn->lock: 0, -ECONNRESET when the peer resets, -EPROTO
 * on a protocol violation.
 */
static int exs_rx_msg(struct exs_conn *conn, const struct ib_wc *wc,
		      struct exs_rx_slot *slot, u8 *typep)
{
	struct ib_device *ibdev = conn->dev->ibdev;
	union exs_wire_rx *rx = conn->rx_msgs + (slot - conn->rx);
	struct exs_wire_peer peer;
	enum exs_wire_msg_type type;
	u32 cursor;

	ib_dma_sync_single_for_cpu(ibdev, slot->sge.addr, slot->sge.length,
				   DMA_FROM_DEVICE);
	if (exs_wire_parse_msg(rx, wc->byte_len, &type, &cursor) ||
	    (type == EXS_MSG_OPEN &&
	     (exs_wire_parse_req(&rx->open.req, sizeof(rx->open.req),
				 &peer) || peer.resume)))
		return -EPROTO;
	*typep = type;
	EXS_INC_STATS(conn->net, EXS_MIB_MSGSIN);
	ib_dma_sync_single_for_device(ibdev, slot->sge.addr, slot->sge.length,
				      DMA_FROM_DEVICE);

	/* a parked QP hears nothing but an OPEN (reuse.c) */
	if (conn->park == EXS_PARK_IDLE && type != EXS_MSG_OPEN)
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
		return cursor ? -EPROTO : -ECONNRESET;
	case EXS_MSG_DATA:
		return exs_rx_bytes(conn, cursor) ? 0 : -EPROTO;
	case EXS_MSG_LAST:
		/* after its FIN; it consumed what we sent, or some of it */
		if (!conn->fin_rcvd || conn->last_rcvd ||
		    !exs_cursor_advance_ok(conn->tcredit, cursor,
					   conn->tposted))
			return -EPROTO;
		conn->last_rcvd = true;
		conn->last_cursor = cursor;
		conn->tcredit = cursor;
		if (conn->orphan && exs_conn_tx_finished(conn))
			exs_conn_finished(conn);
		return 0;
	case EXS_MSG_OPEN:
		return exs_park_accept(conn, &peer);
	case EXS_MSG_RESUME:
		return exs_resume_rx(conn, cursor, rx->msg.flags);
	case EXS_MSG_REFUSE:
		/* the answer to our OPEN, instead of READY */
		if (conn->passive || !conn->reused || conn->peer_ready ||
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
static void exs_rx_proto_err(const struct exs_conn *conn, u8 type)
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
	};

	pr_warn_ratelimited("protocol error from peer: %s (%s%s, ready %d/%d, fin %d/%d, last %d/%d, park %u, orphan %d), connection reset\n",
			    type < __EXS_MSG_MAX ? what[type] : what[0],
			    conn->passive ? "acceptor" : "connector",
			    conn->reused ? ", reused" : "",
			    conn->ready_sent, conn->peer_ready,
			    conn->fin_sent, conn->fin_rcvd,
			    conn->last_sent, conn->last_rcvd,
			    conn->park, conn->orphan);
}

static void exs_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct exs_rx_slot *slot = container_of(wc->wr_cqe,
						struct exs_rx_slot, cqe);
	struct exs_conn *conn = slot->conn;
	u8 type = 0;
	int err = 0;
	u32 imm;

	spin_lock(&conn->lock);
	if (wc->status != IB_WC_SUCCESS) {
		exs_wc_failed(conn, wc, true);
		spin_unlock(&conn->lock);
		return;
	}
	/* The peer's READY may beat our own ESTABLISHED event (its RTU is
	 * still on the way): receives are live from the REP on.
	 */
	if (conn->state == EXS_CONN_CLOSED) {
		spin_unlock(&conn->lock);
		return;
	}
	conn->last_heard = jiffies;
	switch (wc->opcode) {
	case IB_WC_RECV_RDMA_WITH_IMM:
		/* a message's last write carries its length: never more bytes
		 * than that length says
		 */
		imm = be32_to_cpu(wc->ex.imm_data);
		err = (wc->wc_flags & IB_WC_WITH_IMM) &&
		      wc->byte_len <= (imm & EXS_IMM_LEN_MASK) &&
		      exs_rx_bytes(conn, imm) ? 0 : -EPROTO;
		break;
	case IB_WC_RECV:
		err = exs_rx_msg(conn, wc, slot, &type);
		break;
	default:
		err = -EPROTO;
		break;
	}
	/* ours, not the peer's: a reset, not a protocol error */
	if (!err && exs_post_recv(conn, slot))
		err = -ECONNRESET;
	if (err == -EPROTO)
		exs_rx_proto_err(conn, type);
	spin_unlock(&conn->lock);

	/* the peer's reset needs no answer; its protocol error hears one */
	if (err == -EPROTO)
		exs_conn_reset(conn, true);
	else if (err)
		exs_conn_abort(conn, -ECONNRESET, false);
}

int exs_conn_init(void)
{
	/* Connection setup and teardown sleep (rdma_cm, QP drain) and may
	 * run while memory is short (an NBD device over AF_EXS), so they get
	 * a workqueue of their own with a rescuer.
	 */
	exs_wq = alloc_workqueue("af_exs", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return exs_wq ? 0 : -ENOMEM;
}

void exs_conn_exit(void)
{
	destroy_workqueue(exs_wq);
}
