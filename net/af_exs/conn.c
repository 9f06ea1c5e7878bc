// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA connections: their queue pair, protection domain and rings, the
 * handshake's last steps and the queue pair's failures.  The data path
 * is tx.c (posting, and send completions), link_rx.c and rx.c (receive
 * completions); how a connection ends, teardown.c.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "fault.h"
#include "mem.h"
#include "netns.h"
#include "ring.h"
#include "wc.h"

struct workqueue_struct *exs_wq;

/* The newest wire version this host speaks: a host capped one lower
 * keeps RDMA with every peer while a fleet upgrades (wire.h).
 */
static int exs_wire_max = EXS_WIRE_VERSION;

static int exs_wire_max_set(const char *val, const struct kernel_param *kp)
{
	int v, err;

	err = kstrtoint(val, 0, &v);
	if (err)
		return err;
	if (v < EXS_WIRE_VERSION_MIN || v > EXS_WIRE_VERSION)
		return -EINVAL;
	WRITE_ONCE(exs_wire_max, v);
	return 0;
}

static const struct kernel_param_ops exs_wire_max_ops = {
	.set	= exs_wire_max_set,
	.get	= param_get_int,
};
module_param_cb(wire_version, &exs_wire_max_ops, &exs_wire_max, 0644);
MODULE_PARM_DESC(wire_version, "the newest wire version spoken, "
		 __stringify(EXS_WIRE_VERSION_MIN) " to "
		 __stringify(EXS_WIRE_VERSION)
		 ": a new queue pair speaks the highest both ends do");

u8 exs_wire_version_max(void)
{
	return READ_ONCE(exs_wire_max);
}

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

/* The peer disconnected the QP under @conn, the stream that built it
 * (link_event.c): it ends, or resumes on a new QP for every stream on
 * it.
 */
void exs_conn_disconnected(struct exs_conn *conn)
{
	spin_lock_bh(&conn->lock);
	if (!conn->announced)
		/* before any socket had it (a connector that fell back after
		 * the handshake): whoever waits for it, a listener or
		 * connect(), must learn it ended, or the connection and its
		 * listener are never freed
		 */
		__exs_conn_abort(conn, -ECONNRESET, false);
	else if ((!exs_link_says_last(conn->link) && conn->fin_rcvd &&
		  !exs_conn_carries(conn)) ||
		 !exs_conn_resume(conn, -ECONNRESET))
		/* No resume: the peer said LAST (a closed socket's last
		 * word, reuse.c) or both FINs are through
		 * (exs_resume_stream_ok()), or it cannot.  From version 7
		 * a FIN alone settles nothing: a peer resuming a
		 * half-closed stream disconnects too; before, a closing
		 * end without reuse said no LAST.  Flush the CQs first:
		 * the teardown then tells EOF (the peer's FIN came) from a
		 * reset, and a finishing rider's LAST from a loss.
		 */
		exs_conn_queue_hw(conn);
	spin_unlock_bh(&conn->lock);
}

/* A connection; with @holder, one that builds a queue pair (a link) of
 * its own, on @id if it has one yet.  A stream another's QP carries
 * (share.c) holds none.
 */
struct exs_conn *exs_conn_alloc(struct net *net, bool holder,
				struct rdma_cm_id *id, u32 rsize,
				u32 inline_max)
{
	struct exs_conn *conn;
	int i;

	if (exs_fail_alloc(sizeof(*conn)))
		return NULL;
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	if (holder) {
		conn->link = exs_link_alloc(conn, net, id);
		if (!conn->link) {
			kfree(conn);
			return NULL;
		}
		conn->link->ack_cfg =
			READ_ONCE(exs_pernet(net)->cfg.ack_timeout);
	}
	refcount_set(&conn->ref, 1);
	spin_lock_init(&conn->lock);
	conn->net = get_net(net);
	conn->rsize = rsize;
	conn->inline_max = inline_max;
	conn->credit_fraction =
		READ_ONCE(exs_pernet(net)->cfg.delayed_ack_fraction);
	conn->state = EXS_CONN_CONNECTING;
	INIT_LIST_HEAD(&conn->accept_node);
	INIT_HLIST_NODE(&conn->park_node);
	INIT_WORK(&conn->hw_work, exs_conn_hw_work);
	INIT_WORK(&conn->resume_work, exs_resume_work);
	INIT_WORK(&conn->resolve_work, exs_connect_resolve_work);
	INIT_DELAYED_WORK(&conn->timeout_work, exs_conn_timeout_work);
	INIT_DELAYED_WORK(&conn->watch_work, exs_watch_work);
	init_completion(&conn->abort_done);
	INIT_WORK(&conn->join_work, exs_share_join_work);
	for (i = 0; i < EXS_SQ_DEPTH; i++) {
		conn->tx[i].conn = conn;
		conn->tx[i].cqe.done = exs_tx_done;
	}
	return conn;
}

static void exs_conn_free(struct exs_conn *conn)
{
	WARN_ON_ONCE(conn->native);
	exs_mem_ring_free(conn->rbuf, conn->rsize);
	exs_mem_ring_free(conn->tbuf, conn->tsize);
	exs_mem_uncharge(conn);
	mem_cgroup_put(conn->memcg);
	exs_link_put(conn->link);
	if (conn->carrier)
		exs_conn_put(conn->carrier);
	put_net(conn->net);
	kfree(conn);
}

void exs_conn_put(struct exs_conn *conn)
{
	if (refcount_dec_and_test(&conn->ref))
		exs_conn_free(conn);
}

/* The ring is registered for remote write through a fast-registration MR
 * of its own in the connection's own PD, so the peer can reach these
 * pages and nothing else, through this QP and no other; the
 * registration work request is posted once the QP can send (READY tells
 * the peer it has completed, see exs_conn_established()).
 */
int exs_conn_map_ring(struct exs_conn *conn)
{
	struct ib_device *ibdev = conn->link->dev->ibdev;
	u32 max_pages = ibdev->attrs.max_fast_reg_page_list_len;
	int n;

	if (max_pages && conn->rsize > max_pages * PAGE_SIZE)
		conn->rsize = rounddown_pow_of_two(max_pages * PAGE_SIZE);
	if (!exs_ring_size_ok(conn->rsize))
		return -EINVAL;
	conn->rbuf = exs_mem_ring_alloc(conn, conn->rsize);
	if (!conn->rbuf)
		return -ENOMEM;
	sg_init_one(&conn->rsg, conn->rbuf, conn->rsize);
	if (!ib_dma_map_sg(ibdev, &conn->rsg, 1, DMA_BIDIRECTIONAL))
		return -ENOMEM;

	conn->mr = ib_alloc_mr(conn->link->pd,
			       IB_MR_TYPE_MEM_REG,
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

/* The link's PD, buffers and CQs (link_qp.c), the ring in that PD, and
 * the queue pair.  The connection is a link from here: its id is set
 * before the device's list shows it.
 */
int exs_conn_create_qp(struct exs_conn *conn)
{
	return exs_link_build(conn->link) ?:
	       exs_conn_map_ring(conn) ?: exs_conn_make_qp(conn);
}

/* The link's queue pair (link_qp.c), a new connection's or a resumed
 * one's (resume.c), whose old QP is gone and whose ring and registration
 * stay; the stream writes no more inline than its QP takes.
 */
int exs_conn_make_qp(struct exs_conn *conn)
{
	int err = exs_link_make_qp(conn->link, conn->inline_max);

	if (!err)
		conn->inline_max = min_t(u32, conn->inline_max,
					 conn->link->inline_cap);
	return err;
}

/* The peer's ring, from its REQ or REP: our send buffer mirrors it, so a
 * byte has the same offset here and there.
 */
int exs_conn_set_peer_ring(struct exs_conn *conn,
			   const struct exs_wire_peer *peer)
{
	struct ib_device *ibdev = conn->link->dev->ibdev;

	conn->peer.ring_addr = peer->ring_addr;
	conn->peer.ring_rkey = peer->ring_rkey;
	conn->peer.ring_len = peer->ring_len;
	conn->tsize = peer->ring_len;
	conn->tbuf = exs_mem_ring_alloc(conn, conn->tsize);
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
	/* the connects that waited for it to be up join it now */
	exs_link_wait_end(conn, EXS_FALLBACK_NONE);
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
	conn->link_only = false;
	conn->reason = EXS_FALLBACK_NONE;
	conn->transient = false;
	conn->announced = false;
	conn->answer_late = false;
	conn->racing = false;
	conn->peer_ready = false;
	conn->fin_sent = false;
	conn->fin_acked = false;
	conn->fin_rcvd = false;
	conn->shut_wr = false;
	conn->peer_low = false;
	conn->credit_owed = false;
	memset(&conn->urg, 0, sizeof(conn->urg));
	conn->tx_wanted = false;
	conn->nodelay = false;
	conn->hold = false;
	conn->persist = false;
	conn->keepalive = false;
	conn->last_sent = false;
	conn->last_rcvd = false;
	conn->refused = 0;
	conn->orphan = false;
	conn->orphan_by = 0;
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

/* Both sides registered their rings before sending READY; a side writes
 * only after the peer's READY, so no write can race a registration.
 * The builder's part of its link's QP coming up (exs_link_note_up() did
 * the link's), from the link's CM handler: its stream's, or, for a QP
 * that moves for the link's other streams only, the resume's.
 */
void exs_conn_established(struct exs_conn *conn)
{
	spin_lock_bh(&conn->lock);
	if (conn->resume == EXS_RESUME_CONNECT) {
		int err;

		/* the ring is registered already */
		err = exs_resume_up(conn);
		if (err)
			__exs_conn_abort(conn, err == -EPROTO ? -ECONNRESET :
					 conn->resume_err, err == -EPROTO);
		goto out;
	}
	if (conn->state != EXS_CONN_CONNECTING)
		goto out;
	conn->state = EXS_CONN_ESTABLISHED;
	conn->last_heard = jiffies;
	conn->last_acked = conn->last_heard;
	exs_conn_announce(conn);
	if (conn->state != EXS_CONN_ESTABLISHED)
		goto out;
	if (exs_conn_send_reg(conn))
		goto out;
	if (exs_conn_send_ctrl(conn, EXS_MSG_READY, 0)) {
		__exs_conn_abort(conn, -ECONNRESET, false);
		goto out;
	}
	conn->ready_sent = true;
out:
	spin_unlock_bh(&conn->lock);
}

/* A failed work request, a receive if @recv (wc.h says what it means).
 * Called under conn->lock.
 */
void exs_conn_wc_failed(struct exs_conn *conn, const struct ib_wc *wc,
			bool recv)
{
	/* from version 7 a FIN alone does not end the stream: a flushed
	 * send on a half-closed one that still sends is the QP's death too
	 * (6.12's rxe); once our FIN is out as well, as before
	 */
	bool over = exs_link_says_last(conn->link) ?
		    exs_conn_peer_over(conn) ||
		    (conn->fin_rcvd && conn->fin_sent) : conn->fin_rcvd;
	bool stands = conn->state == EXS_CONN_ESTABLISHED && !over &&
		      !conn->qp_closing;
	int link_err = READ_ONCE(conn->link->err);

	lockdep_assert_held(&conn->lock);
	/* The failed QP a resume drains: whatever it says is past.  The
	 * new one's, before it is up: the CM flushes it when the peer
	 * refuses, and its event says so.
	 */
	if (conn->resume && (conn->qp_closing ||
			     conn->resume == EXS_RESUME_CONNECT))
		return;
	/* another connection on the QP told why it failed (share.c) */
	if (link_err) {
		exs_conn_qp_failed(conn, link_err);
		return;
	}
	/* a carrier's riders may have sends out, which will tell */
	switch (exs_wc_verdict(wc->status, recv, stands,
			       conn->sq_head != conn->sq_tail ||
			       exs_conn_carries(conn))) {
	case EXS_WC_IGNORE:
		break;
	case EXS_WC_TIMEDOUT:
		exs_conn_qp_failed(conn, -ETIMEDOUT);
		break;
	case EXS_WC_RESET:
		exs_conn_qp_failed(conn, -ECONNRESET);
		break;
	case EXS_WC_PEER_FAULT:
		pr_warn_ratelimited("peer's request refused by the device (%s), connection reset\n",
				    ib_wc_status_msg(wc->status));
		__exs_link_abort(conn, -ECONNRESET, true);
		break;
	}
}

/* The QP failed under @conn (the device's fatal event, a request that
 * timed out or was flushed): a new QP, or @err.  Once the peer is done
 * with the stream (exs_conn_peer_over()) nothing is lost with the QP, so
 * the connection ends in order, as when the peer disconnects then.
 * Called under conn->lock.
 */
void exs_conn_qp_failed(struct exs_conn *conn, int err)
{
	bool over = exs_conn_peer_over(conn);

	/* a rider's QP is its carrier's, which resumes for all on it
	 * whatever the rider's own stream, and whatever the carrier's
	 */
	if ((!over || conn->carrier || exs_conn_carries(conn)) &&
	    exs_conn_resume(conn, err))
		return;
	if (over) {
		exs_share_link_failed(conn, err);
		exs_conn_queue_hw(conn);
	} else {
		__exs_link_abort(conn, err, false);
	}
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
