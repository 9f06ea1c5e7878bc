// SPDX-License-Identifier: GPL-2.0
/*
 * Connections that share a queue pair, as SMC-R's share a link: on a
 * software device (rxe) every post and every ack is a run of the QP's
 * task, and one run serves whatever is queued on its QP, so connections
 * between the same two hosts on one QP cost fewer runs than on a QP each.
 *
 * The first connection to a node builds the QP (the carrier); later
 * connects to that node, while it is up, JOIN it as riders: each rider
 * has its own rings, registered in the carrier's PD, its cursors and its
 * send slots, and a channel at each end that every ring write's
 * immediate and every control message names.  The carrier's receives
 * take every message; a channel other than 0 goes to its rider.
 *
 * The peer can write any ring registered in the PD, every rider's, as
 * an SMC-R peer can write every RMB of its link group: the boundary is
 * the pair of hosts, not the connection.  A rider's ring is taken out of
 * the PD only once the peer cannot write to it any more: after both
 * ends said LAST (it wrote its last byte), or with the QP.  A rider that
 * ends otherwise stays registered, closed, until its carrier goes.
 *
 * A carrier's own connection may end first; its QP then stays for its
 * riders and goes with the last of them.  A QP that fails resumes
 * (resume.c) for every connection on it, as the carrier's connection
 * moves it, or, its own stream gone, its end of the QP.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "mem.h"
#include "mib.h"
#include "netns.h"

struct exs_share_find_arg {
	int			family;
	u8			ack_cfg;
	struct exs_conn		*found;
};

/* @carrier's QP is up, not going, and has a channel free. */
static bool exs_share_room(const struct exs_conn *carrier)
{
	return carrier->link->chans && !READ_ONCE(carrier->link->closed) &&
	       !carrier->qp_closing && !carrier->torn_down && !carrier->resume &&
	       !READ_ONCE(carrier->link->err) &&
	       carrier->park != EXS_PARK_GONE &&
	       exs_link_sq_fits(READ_ONCE(carrier->link->nchans),
				READ_ONCE(carrier->link->quiet_sq));
}

/* A connector's QP that may carry one more connection: its own stream
 * up (one that ended lets its QP drain out), not moving to a new QP, its
 * port up (a connect while it is down goes by TCP, as it would alone:
 * ENETUNREACH).  The acceptor takes a JOIN whenever there is room: the
 * connector chose.  Under conn->lock.
 */
static bool __exs_share_can_carry(const struct exs_conn *conn)
{
	return conn->share && !conn->carrier && !conn->passive &&
	       conn->state == EXS_CONN_ESTABLISHED && conn->announced &&
	       !conn->link_only && exs_share_room(conn) &&
	       !exs_dev_port_down(conn->net, READ_ONCE(conn->link->ifindex));
}

/* The same, as a hint without conn->lock (under the link table's): a
 * stale answer costs a JOIN refused or a link built, as the install
 * decides under the lock.  A parked link just taken is coming up
 * (link->pending), whatever its flags still say.
 */
bool exs_share_can_carry(const struct exs_conn *conn)
{
	if (READ_ONCE(conn->link->pending))
		return false;
	/* racy by design: see above */
	return data_race(__exs_share_can_carry(conn));
}

static bool exs_share_find_one(struct exs_conn *conn, void *data)
{
	struct exs_share_find_arg *arg = data;

	if (conn->link->family != arg->family ||
	    conn->link->ack_cfg != arg->ack_cfg ||
	    !exs_share_can_carry(conn) ||
	    !refcount_inc_not_zero(&conn->ref))
		return false;
	arg->found = conn;
	return true;
}

/* A connector's QP to @node that may carry one more connection, with a
 * reference; or NULL.  Its flags are read without its lock: the install
 * checks them again under it.
 */
struct exs_conn *exs_share_find(struct net *net, const struct in6_addr *node,
				int family, u8 ack_cfg)
{
	struct exs_share_find_arg arg = {
		.family = family, .ack_cfg = ack_cfg,
	};

	exs_links_each(net, node, exs_share_find_one, &arg);
	return arg.found;
}

/* Give @rider a channel of @carrier's link: the table's reference.  0,
 * or -EBUSY when the carrier cannot take it.  The carrier's lock orders
 * this against its own stream's end (exs_share_busy()).
 */
static int exs_share_install(struct exs_conn *carrier, struct exs_conn *rider)
{
	int err = -EBUSY;

	spin_lock_bh(&carrier->lock);
	if (carrier->passive ? exs_share_room(carrier) :
			       __exs_share_can_carry(carrier))
		err = exs_link_chan_add(carrier->link, rider);
	spin_unlock_bh(&carrier->lock);
	return err;
}

/* A rider, counted, whose peer's FIN has not come (exs_link_each_chan()
 * keeps it, under its link's lock)
 */
static bool exs_share_rider_live(struct exs_conn *rider, void *unused)
{
	return !rider->counted_out &&
	       /* the rider's lock is not ours to take: a hint (below) */
	       !data_race(exs_conn_ends_in_order(rider));
}

/* Some rider of @carrier still moves bytes: the peer's FIN has not come
 * (nor, orphaned, the ack of its own).  A peer that let the QP go on
 * purpose counts no such rider (an acceptor's rider quiets only once its
 * LAST is out, after both FINs), so a QP lost under one failed.  The
 * riders' flags are read without their locks: one that takes a new
 * stream just then may be missed, and ends with the QP, as every rider
 * did before a shared QP could resume.
 */
bool exs_share_riders_live(const struct exs_conn *carrier)
{
	return exs_link_each_chan(carrier->link, exs_share_rider_live, NULL);
}

/* @carrier's QP is going or gone: a JOIN on it that ended unanswered
 * lost its link, not its peer (connect.c connects afresh).  Process
 * context.
 */
bool exs_share_link_gone(struct exs_conn *carrier)
{
	bool gone;

	spin_lock_bh(&carrier->lock);
	gone = carrier->qp_closing || carrier->torn_down ||
	       READ_ONCE(carrier->link->closed) ||
	       READ_ONCE(carrier->link->err) ||
	       carrier->state == EXS_CONN_CLOSED;
	spin_unlock_bh(&carrier->lock);
	return gone;
}

/* A carrier whose own connection ended keeps its QP while riders use it. */
bool exs_share_busy(struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (!exs_conn_carries(conn))
		return false;
	conn->link_only = true;
	return true;
}

/* The rider's registration and mappings, out of the carrier's PD. */
static void exs_share_free_hw(struct exs_conn *rider)
{
	struct exs_conn *carrier = rider->carrier;
	struct ib_device *ibdev = carrier->link->dev->ibdev;

	lockdep_assert_held(&carrier->link->mutex);
	if (rider->mr)
		ib_dereg_mr(rider->mr);
	rider->mr = NULL;
	if (sg_dma_address(&rider->rsg))
		ib_dma_unmap_sg(ibdev, &rider->rsg, 1, DMA_BIDIRECTIONAL);
	sg_dma_address(&rider->rsg) = 0;
	if (rider->tdma)
		ib_dma_unmap_single(ibdev, rider->tdma, rider->tsize,
				    DMA_TO_DEVICE);
	rider->tdma = 0;
}

/* @rider posts nothing more (but an ABORT from the link's own slots:
 * exs_conn_send_orphan_abort()): it leaves its carrier's count.  An
 * acceptor's rider does once its LAST is out, a connector's once both
 * LASTs are through, so the acceptor never counts more riders than the
 * connector that JOINs them thinks it does.  Called under rider->lock.
 */
void exs_share_quiet(struct exs_conn *rider)
{
	struct exs_conn *carrier = rider->carrier;

	lockdep_assert_held(&rider->lock);
	/* the carrier's lock orders its link_only against the count */
	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	if (!exs_link_chan_count_out(carrier->link, rider) &&
	    carrier->link_only)
		exs_conn_queue_hw(carrier);
	spin_unlock(&carrier->lock);
}

/* A parked @rider carries a new connection (reuse.c): back in its
 * carrier's count, if the QP is up and has room.  A connector's, as it
 * joins, only while the carrier's own stream is up (the acceptor's end
 * may be letting a link-only QP go).  Called under rider->lock.
 */
bool exs_share_retake(struct exs_conn *rider)
{
	struct exs_conn *carrier = rider->carrier;
	bool ok;

	lockdep_assert_held(&rider->lock);
	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	ok = exs_share_room(carrier) &&
	     (rider->passive || (carrier->state == EXS_CONN_ESTABLISHED &&
				 !carrier->link_only)) &&
	     exs_link_chan_count_in(carrier->link, rider);
	spin_unlock(&carrier->lock);
	return ok;
}

/* A rider's teardown (hw_work), which set qp_closing: it posts nothing
 * more.  Its ring leaves the PD if the peer can no longer write there;
 * else the carrier's teardown takes it.  Process context.
 */
void exs_share_leave(struct exs_conn *rider)
{
	struct exs_conn *carrier = rider->carrier;
	bool clean, drop = false;

	spin_lock_bh(&rider->lock);
	WARN_ON_ONCE(!rider->qp_closing);
	/* Its requests complete on the carrier's CQ, on its slots: the
	 * rider, its registration and its buffers stay until the last has
	 * (exs_tx_done() queues this again).
	 */
	exs_share_quiet(rider);
	if (rider->sq_head != rider->sq_tail) {
		rider->leave_wait = true;
		spin_unlock_bh(&rider->lock);
		return;
	}
	clean = !rider->chan || rider->refused ||
		(rider->last_sent && rider->last_rcvd &&
		 rider->sq_head == rider->sq_tail);
	if (rider->state != EXS_CONN_CLOSED) {
		rider->state = EXS_CONN_CLOSED;
		if (!exs_conn_ends_in_order(rider) && !rider->err)
			rider->err = -ECONNRESET;
	}
	exs_conn_wake(rider, EPOLLIN | EPOLLOUT | EPOLLHUP | EPOLLRDHUP |
			     (rider->err ? EPOLLERR : 0));
	spin_unlock_bh(&rider->lock);

	mutex_lock(&carrier->link->mutex);
	if (clean)
		drop = exs_link_chan_del(carrier->link, rider);
	if (clean && !carrier->link->closed)
		exs_share_free_hw(rider);
	mutex_unlock(&carrier->link->mutex);
	if (drop)
		exs_conn_put(rider);
}

/* A rider with requests not yet completed. */
static bool exs_share_sends_out(struct exs_conn *rider, void *unused)
{
	return READ_ONCE(rider->sq_head) != READ_ONCE(rider->sq_tail);
}

/* The carrier's QP is going, nothing more is posted on it (link->closing):
 * the riders' last requests complete first, as @wait allows.  A rider
 * leaves the count once its LAST is posted, the acceptor's (share_quiet),
 * and the disconnect would flush that LAST and the bytes before it.  A
 * QP that failed completes nothing more.  Process context.
 */
void exs_share_settle(struct exs_conn *carrier, unsigned long wait)
{
	unsigned long end = jiffies + wait;

	if (!carrier->link->chans || READ_ONCE(carrier->link->err))
		return;
	while (exs_link_each_chan(carrier->link, exs_share_sends_out, NULL) &&
	       time_before(jiffies, end))
		msleep(20);
}

/* The carrier's QP is drained and about to go: every rider ends, parked
 * or not, and its registration with the PD.  Process context.
 */
void exs_share_drop_riders(struct exs_conn *carrier)
{
	struct exs_conn *rider;
	int chan;

	if (!carrier->link->chans)
		return;
	mutex_lock(&carrier->link->mutex);
	for (chan = 1; chan < EXS_CHAN_MAX; chan++) {
		rider = exs_link_chan_take(carrier->link, chan);
		if (!rider)
			continue;
		spin_lock_bh(&rider->lock);
		/* parked, or its LAST or that LAST's completion still to
		 * come: no error, and no abort counted
		 */
		if (rider->park == EXS_PARK_IDLE ||
		    exs_conn_ends_in_order(rider))
			exs_conn_queue_hw(rider);
		else
			__exs_conn_abort(rider,
					 READ_ONCE(carrier->link->err) ?:
					 -ECONNRESET, false);
		spin_unlock_bh(&rider->lock);
		exs_share_free_hw(rider);
		exs_conn_put(rider);
	}
	WRITE_ONCE(carrier->link->closed, true);
	mutex_unlock(&carrier->link->mutex);
}

/* The QP under @conn failed, not only its stream: the carrier's own
 * stream and every rider end with @err (a dead peer times each of them
 * out), each as its next completion or the carrier's teardown finds
 * its link's err.  A carrier alone on its QP may still resume: nothing
 * to do.  Called under conn->lock.
 */
void exs_share_link_failed(struct exs_conn *conn, int err)
{
	struct exs_conn *carrier = conn->carrier;

	if (!carrier) {
		if (exs_conn_carries(conn))
			exs_link_fail(conn->link, err);
		return;
	}
	exs_link_fail(carrier->link, err);
	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	if (exs_conn_stream_over(carrier))
		exs_conn_queue_hw(carrier);
	else
		__exs_conn_abort(carrier, err, false);
	spin_unlock(&carrier->lock);
}

/* @rider's QP failed: its carrier's connection moves the QP for every
 * connection on it (resume.c), or has begun to; a failure of the new
 * one, up and waiting for RESUMEs, starts that over.  False when the
 * carrier cannot resume.  Called under rider->lock.
 */
bool exs_share_resume(struct exs_conn *rider, int err)
{
	struct exs_conn *carrier = rider->carrier;
	bool ok;

	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	ok = (carrier->resume && carrier->resume != EXS_RESUME_SYNC) ||
	     exs_conn_resume(carrier, err);
	spin_unlock(&carrier->lock);
	return ok;
}

/* A counted rider's destination port, into @port */
static bool exs_share_rider_port(struct exs_conn *rider, void *port)
{
	if (rider->counted_out)
		return false;
	*(__be16 *)port = rider->self.dport;
	return true;
}

/* Where @carrier, its own stream gone, sends its resume's REQ: to a
 * rider's listener, more likely still there than its first connection's
 * (the acceptor finds the QP by its four-tuple, whichever listener the
 * REQ reaches).  Process context.
 */
__be16 exs_share_resume_port(struct exs_conn *carrier)
{
	__be16 port = carrier->self.dport;

	exs_link_each_chan(carrier->link, exs_share_rider_port, &port);
	return port;
}

/* Set @rider up in @carrier's PD: ring, send buffer (@peer: the other
 * end's ring, if known), channel.  Process context.
 */
static int exs_share_setup(struct exs_conn *carrier, struct exs_conn *rider,
			   const struct exs_wire_peer *peer)
{
	int err = -EBUSY;

	mutex_lock(&carrier->link->mutex);
	if (carrier->link->closed || !carrier->link->dev)
		goto out;
	rider->inline_max = min_t(u32, rider->inline_max,
				  READ_ONCE(carrier->link->inline_cap));
	err = exs_conn_map_ring(rider);
	if (!err && peer)
		err = exs_conn_set_peer_ring(rider, peer);
	if (!err)
		err = exs_share_install(carrier, rider);
	if (err)
		exs_share_free_hw(rider);
out:
	mutex_unlock(&carrier->link->mutex);
	return err;
}

/* @rider is up for sending: its ring registered (the REG goes first on
 * the QP), JOIN or JOINED says where.  Called under rider->lock.
 */
static int exs_share_open(struct exs_conn *rider, enum exs_wire_msg_type type)
{
	int err;

	rider->state = EXS_CONN_ESTABLISHED;
	rider->ready_sent = true;
	err = exs_conn_send_reg(rider);
	return err ?: exs_conn_send_join(rider, type);
}

/* Carry @exs's connect to @addr on @carrier (with its reference): JOIN,
 * which the peer answers JOINED (the connect settles as after a REP and
 * READY) or REFUSE.  0, or the caller builds a QP of its own.  Under the
 * socket lock.
 */
int exs_share_join(struct exs_sock *exs, struct exs_conn *carrier,
		   struct sockaddr *addr, struct sockaddr *src, u32 rsize,
		   unsigned long timeout,
		   void (*on_connect)(struct exs_conn *conn))
{
	struct net *net = sock_net(&exs->sk);
	struct exs_conn *rider;
	struct in6_addr unused;
	int err;

	rider = exs_conn_alloc(net, false, NULL, rsize,
			       READ_ONCE(exs->inline_max));
	if (!rider) {
		exs_conn_put(carrier);
		return -ENOMEM;
	}
	rider->carrier = carrier;	/* its reference, until freed */
	rider->link = carrier->link;
	exs_link_get(rider->link);
	rider->memcg = exs_mem_sock_memcg(&exs->sk);
	rider->node = carrier->node;
	rider->self = carrier->self;
	rider->self.share = false;
	exs_addr_to_v6(src, &unused, &rider->self.sport);
	exs_addr_to_v6(addr, &rider->self.daddr, &rider->self.dport);

	err = exs_share_setup(carrier, rider, NULL);
	if (err) {
		exs_conn_put(rider);
		return err;
	}

	spin_lock_bh(&rider->lock);
	rider->stage = EXS_STAGE_READY;
	rider->owner = exs;
	rider->on_connect = on_connect;
	err = exs_share_open(rider, EXS_MSG_JOIN);
	if (!err)
		exs_conn_arm_timeout(rider, timeout);
	spin_unlock_bh(&rider->lock);
	if (err) {
		exs_conn_orphan(rider, true);
		return err;
	}
	exs->conn = rider;
	return 0;
}

/* Our JOIN was refused: the peer holds nothing on that channel. */
void exs_share_refused(struct exs_conn *rider)
{
	spin_lock_bh(&rider->lock);
	rider->owner = NULL;
	rider->on_connect = NULL;
	rider->orphan = true;
	rider->state = EXS_CONN_CLOSED;
	exs_conn_queue_hw(rider);
	spin_unlock_bh(&rider->lock);
}

/* JOINED on @rider, the acceptor's channel @chan and ring in @peer: its
 * send buffer is allocated in its join work.  Called under rider->lock.
 */
int exs_share_rx_joined(struct exs_conn *rider,
			const struct exs_wire_peer *peer, u8 chan)
{
	if (rider->passive || !rider->carrier || rider->peer_ready ||
	    rider->refused || rider->peer_chan)
		return -EPROTO;
	rider->peer_chan = chan;
	rider->joined = *peer;
	refcount_inc(&rider->ref);
	if (!queue_work(exs_wq, &rider->join_work))
		refcount_dec(&rider->ref);
	return 0;
}

/* A message (@msg, else a write) for a channel of @carrier's that no
 * rider has.  An OPEN for a parked rider we let go (its idle time ran
 * out, the pool was full) is refused, and the connector starts afresh;
 * anything else breaks the protocol, as on a QP not built to share.
 * Called under carrier->lock.
 */
int exs_share_rx_stray(struct exs_conn *carrier, bool msg, u8 type,
		       u32 cursor)
{
	if (!carrier->link->chans || !msg || type != EXS_MSG_OPEN)
		return -EPROTO;
	exs_link_refuse(carrier->link, cursor, EXS_WIRE_REJ_NOMEM);
	return 0;
}

/* JOIN on the acceptor's @carrier, for the connector's channel @chan:
 * its join work sets the rider up; refused now when as many wait as the
 * link has channels.  0, or -EPROTO.  Called under carrier->lock.
 */
int exs_share_rx_join(struct exs_conn *carrier,
		      const struct exs_wire_peer *peer, u8 chan)
{
	struct exs_join *join;
	int why;

	if (carrier->carrier || !carrier->passive || !carrier->link->chans)
		return -EPROTO;
	join = kmalloc(sizeof(*join), GFP_ATOMIC);
	if (join) {
		join->peer = *peer;
		join->chan = chan;
	}
	/* as many wait as the link could carry, no more */
	if (!join || !exs_link_join_add(carrier->link, join)) {
		why = join ? EXS_WIRE_REJ_BACKLOG : EXS_WIRE_REJ_NOMEM;
		kfree(join);
		exs_link_refuse(carrier->link, chan, why);
		return 0;
	}
	refcount_inc(&carrier->ref);
	if (!queue_work(exs_wq, &carrier->join_work))
		refcount_dec(&carrier->ref);
	return 0;
}

static void exs_share_refuse(struct exs_conn *carrier, u8 chan, int why)
{
	spin_lock_bh(&carrier->lock);
	exs_link_refuse(carrier->link, chan, why);
	spin_unlock_bh(&carrier->lock);
}

/* REFUSE, for @why, an OPEN that reached @rider, parked: one meant for
 * the stream its channel carried before, or one it cannot take
 * (exs_park_accept()), to the peer's channel @chan, from the link's own
 * slots (a parked rider's count against no budget: link_sq.h).  Called
 * under rider->lock.
 */
void exs_share_refuse_open(struct exs_conn *rider, u8 chan, int why)
{
	struct exs_conn *carrier = rider->carrier;

	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	exs_link_refuse(carrier->link, chan, why);
	spin_unlock(&carrier->lock);
}

/* A JOIN for a listener of ours: a rider, its ring registered, JOINED,
 * and to the listener's queue.
 */
static void exs_share_accept(struct exs_conn *carrier, struct exs_join *join)
{
	struct exs_conn *rider;
	bool room;
	int why, err;

	/* none on a link that carries all it may, or is going or moving:
	 * refused before anything is built for it
	 */
	spin_lock_bh(&carrier->lock);
	room = exs_share_room(carrier);
	spin_unlock_bh(&carrier->lock);
	if (!room) {
		exs_share_refuse(carrier, join->chan, EXS_WIRE_REJ_BACKLOG);
		return;
	}
	rider = exs_conn_alloc(carrier->net, false, NULL, 0, 0);
	if (!rider) {
		exs_share_refuse(carrier, join->chan, EXS_WIRE_REJ_NOMEM);
		return;
	}
	refcount_inc(&carrier->ref);
	rider->carrier = carrier;
	rider->link = carrier->link;
	exs_link_get(rider->link);
	rider->passive = true;
	rider->node = carrier->node;
	why = exs_rdma_join_child(rider, &join->peer);
	if (why) {
		exs_share_refuse(carrier, join->chan, why);
		exs_conn_put(rider);
		return;
	}
	err = exs_share_setup(carrier, rider, &join->peer);

	spin_lock_bh(&rider->lock);
	rider->peer_chan = join->chan;
	if (!err) {
		rider->peer_ready = true;
		err = exs_share_open(rider, EXS_MSG_JOINED);
	}
	if (!err) {
		EXS_INC_STATS(rider->net, EXS_MIB_ACCEPTSHARED);
		exs_conn_announce(rider);	/* to the listener's queue */
	} else {
		/* the listener's place goes (exs_child_event()), and the
		 * rider with it
		 */
		__exs_conn_abort(rider, -ECONNRESET, false);
	}
	spin_unlock_bh(&rider->lock);
	/* its first reference is the listener's queue's, or the teardown's */
	if (err)
		exs_share_refuse(carrier, join->chan, EXS_WIRE_REJ_NOMEM);
}

/* A rider's: the acceptor's ring came (JOINED), our send buffer mirrors
 * it.  A carrier's: the JOINs it heard.
 */
void exs_share_join_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(work, struct exs_conn,
					     join_work);
	struct exs_conn *carrier = conn->carrier;
	struct exs_join *join;
	int err = -EBUSY;

	if (!carrier) {
		exs_test_hold_joins();
		while ((join = exs_link_join_next(conn->link))) {
			exs_share_accept(conn, join);
			kfree(join);
		}
		exs_conn_put(conn);
		return;
	}

	mutex_lock(&carrier->link->mutex);
	if (!carrier->link->closed && carrier->link->dev)
		err = exs_conn_set_peer_ring(conn, &conn->joined);
	mutex_unlock(&carrier->link->mutex);

	spin_lock_bh(&conn->lock);
	if (!err && conn->state == EXS_CONN_ESTABLISHED) {
		conn->peer_ready = true;
		EXS_INC_STATS(conn->net, EXS_MIB_CONNECTSHARED);
		exs_conn_announce(conn);
		exs_conn_tx_push(conn);
	} else if (conn->state == EXS_CONN_ESTABLISHED) {
		__exs_conn_abort(conn, -ECONNRESET, false);
	}
	spin_unlock_bh(&conn->lock);
	exs_conn_put(conn);
}
