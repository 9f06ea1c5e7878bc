// SPDX-License-Identifier: GPL-2.0
/*
 * Connection reuse: an RDMA connection that ended cleanly keeps its queue
 * pair, rings and their registration, parked, for the next connection
 * between the same two hosts, as SMC-R keeps its link group.  The next
 * connection then costs an OPEN and a READY on the parked QP instead of
 * rdma_cm's handshake, a QP, a PD and a registered ring on each side, and
 * their teardown (DREQ, drain) at close.
 *
 * A connection parks once both ends said LAST.  An end says LAST once
 * its FIN is acked, its socket is closed and it consumed every byte, and
 * sends nothing after it but an ABORT for bytes that reach it later
 * (exs_conn_send_orphan_abort()).  So a parked QP is idle, every byte
 * written into either ring was consumed, and both ends agree on the
 * cursors, from which the next connection goes on.
 *
 * The connector's end (the host that built the QP) keeps it in the pool
 * for a later connect() to the same RDMA node; the acceptor's end waits
 * for an OPEN, which names the TCP-level ends as the CM's REQ does, and
 * hands it to a listener on that port (listeners.c) or REFUSEs it and
 * stays parked.  A parked QP joins the same two hosts as before and
 * nothing else, and its rings were that peer's to write already: the
 * security model is that of one connection.
 *
 * A parked connection not reused within net.exs.reuse_idle_ms goes (an
 * acceptor's end waits twice as long: its connector's normally ends it
 * first), as does an end that said LAST and did not hear the peer's in
 * that time.  0 turns reuse off: no end parks (from wire version 7 a
 * closing end still says LAST, and goes once it is delivered).
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"

/* The parked connections of every namespace, hashed by namespace and
 * peer node, each bucket most recent first: a connector's take the
 * newest.  Lock order: conn->lock, then this.
 */
static DEFINE_HASHTABLE(exs_parked, 8);
static DEFINE_SPINLOCK(exs_parked_lock);
static unsigned int exs_parked_count;

/* A bound on what parked QPs hold (two rings each). */
#define EXS_PARKED_MAX	256

static unsigned long exs_reuse_idle(const struct exs_conn *conn)
{
	int ms = READ_ONCE(exs_pernet(conn->net)->cfg.reuse_idle_ms);

	return ms ? msecs_to_jiffies(ms) * (conn->passive ? 2 : 1) : 0;
}

/* Everything either end wrote was consumed, and said so. */
static bool exs_park_clean(const struct exs_conn *conn)
{
	return conn->state == EXS_CONN_ESTABLISHED && !conn->err &&
	       !conn->qp_closing && conn->last_sent &&
	       conn->rprod == conn->rcons &&
	       (!conn->last_rcvd || conn->last_cursor == conn->tposted);
}

/* Everything either end wrote was consumed, and both said so: parked, or
 * about to park once our LAST's completion comes (the peer's OPEN may
 * beat it: the OPEN follows our LAST, the completion its ack).
 */
static bool exs_park_ready(const struct exs_conn *conn)
{
	return conn->park == EXS_PARK_IDLE ||
	       (conn->park == EXS_PARK_NONE && conn->orphan &&
		conn->last_rcvd && exs_park_clean(conn));
}

/* After our FIN is acked (until then a failed QP resumes: a LAST ends
 * that), once the socket is closed and every byte consumed: LAST, our
 * consumer cursor (the credit of everything), then nothing more but an
 * ABORT for bytes that reach it later.
 * Said with reuse off too (from wire version 7), before the teardown
 * disconnects: a peer that hears the disconnect after our FIN alone
 * takes it for a failure to resume from (exs_conn_disconnected()).
 * Called under conn->lock.
 */
void exs_park_last(struct exs_conn *conn)
{
	if (conn->last_sent || !conn->fin_acked || !conn->orphan ||
	    conn->park != EXS_PARK_NONE ||
	    conn->state != EXS_CONN_ESTABLISHED || conn->err ||
	    conn->rprod != conn->rcons ||
	    (!conn->carrier && !exs_reuse_idle(conn) &&
	     !exs_link_says_last(conn->link)))
		return;
	/* a full queue: the FIN's completion calls again */
	if (exs_conn_send_ctrl(conn, EXS_MSG_LAST, conn->rcons))
		return;
	conn->last_sent = true;
	conn->racked = conn->rcons;
	if (conn->carrier && (conn->passive || conn->last_rcvd))
		exs_share_quiet(conn);
}

/* Park @conn: the closed socket's reference becomes the pool's.  False
 * when the pool is full, or when the teardown is queued (it takes the
 * connection out of the pool).  Called under conn->lock.
 */
static bool exs_park(struct exs_conn *conn)
{
	bool room;

	if (conn->park == EXS_PARK_GONE)
		return false;
	spin_lock(&exs_parked_lock);
	room = exs_parked_count < EXS_PARKED_MAX;
	if (room) {
		hash_add(exs_parked, &conn->park_node,
			 exs_node_hash(conn->net, &conn->node));
		exs_parked_count++;
	}
	spin_unlock(&exs_parked_lock);
	if (!room)
		return false;
	conn->park = EXS_PARK_IDLE;
	conn->owner = NULL;
	conn->on_connect = NULL;
	conn->orphan = true;
	conn->persist = false;
	conn->keepalive = false;
	exs_conn_arm_timeout(conn, exs_reuse_idle(conn));
	EXS_INC_STATS(conn->net, EXS_MIB_PARKED);
	return true;
}

/* A closed socket's connection whose FIN and bytes are out (and acked):
 * park it, wait for the peer's LAST, or tear it down.  Called under
 * conn->lock.
 */
void exs_conn_finished(struct exs_conn *conn)
{
	/* A rider parks, on its channel, once both said LAST and ours
	 * completed: its ring may leave the PD from then (share.c)
	 */
	if (conn->carrier) {
		/* the peer's LAST, and our LAST's completion, to come */
		if (conn->state == EXS_CONN_ESTABLISHED && conn->last_sent &&
		    (!conn->last_rcvd || conn->sq_head != conn->sq_tail)) {
			if (!conn->last_rcvd)
				exs_conn_arm_timeout(conn,
						     exs_reuse_idle(conn) ?:
						     10 * HZ);
			return;
		}
		if (conn->park == EXS_PARK_NONE && conn->last_rcvd &&
		    exs_reuse_idle(conn) && exs_park_clean(conn) &&
		    exs_park(conn))
			return;
		exs_conn_queue_hw(conn);
		return;
	}
	if (conn->park == EXS_PARK_IDLE)
		return;
	/* with reuse off, it ends once its LAST completed */
	if (conn->park == EXS_PARK_NONE && exs_park_clean(conn) &&
	    exs_reuse_idle(conn)) {
		if (!conn->last_rcvd) {
			exs_conn_arm_timeout(conn, exs_reuse_idle(conn));
			return;
		}
		if (exs_park(conn))
			return;
	}
	/* a carrier's QP stays while its riders use it */
	if (!exs_share_busy(conn))
		exs_conn_queue_hw(conn);
}

/* timeout_work's part: a parked connection idle too long, or one done
 * that never heard the peer's LAST, ends in order; one whose link still
 * carries streams stays while they do, and is not counted as a parked
 * end that ran out (its QP was not idle).  Called under
 * conn->lock.
 */
bool exs_park_expire(struct exs_conn *conn)
{
	if (conn->park != EXS_PARK_IDLE &&
	    !(conn->orphan && conn->last_sent && !conn->last_rcvd &&
	      conn->state == EXS_CONN_ESTABLISHED &&
	      exs_conn_tx_finished(conn)))
		return false;
	if (exs_share_busy(conn))
		return true;
	if (conn->park == EXS_PARK_IDLE)
		EXS_INC_STATS(conn->net, EXS_MIB_PARKEXPIRED);
	exs_conn_queue_hw(conn);
	return true;
}

/* A parked connection is nobody's: it just ends (its device goes, its
 * port is wanted).  The streams its link still carries end with @err, if
 * any, set before its teardown is queued, which ends them with it
 * (exs_share_drop_riders()).  Decided under its lock, which a stream
 * counted in on its link takes too.  Whether it was parked, and in
 * @carried (if not NULL) whether its link carried streams.
 */
bool exs_park_end(struct exs_conn *conn, int err, bool *carried)
{
	bool parked, carries;

	spin_lock_bh(&conn->lock);
	parked = conn->park == EXS_PARK_IDLE;
	carries = parked && exs_conn_carries(conn);
	if (carries && err)
		exs_link_fail(conn->link, err);
	if (parked)
		exs_conn_queue_hw(conn);
	spin_unlock_bh(&conn->lock);
	if (carried)
		*carried = carries;
	return parked;
}

/* Out of the pool, if it is there.  Called under exs_parked_lock. */
static void __exs_park_unlink(struct exs_conn *conn)
{
	if (!hlist_unhashed(&conn->park_node)) {
		hash_del(&conn->park_node);
		exs_parked_count--;
	}
}

/* The teardown takes it out of the pool, if it is there. */
void exs_park_unlink(struct exs_conn *conn)
{
	spin_lock_bh(&exs_parked_lock);
	__exs_park_unlink(conn);
	spin_unlock_bh(&exs_parked_lock);
}

/* A parked carrier's QP failed under its riders: it moves for them only
 * (resume.c), and never parks again.  Called under conn->lock.
 */
void exs_park_leave(struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	spin_lock(&exs_parked_lock);
	__exs_park_unlink(conn);
	spin_unlock(&exs_parked_lock);
	conn->park = EXS_PARK_NONE;
}

/* The netdev of the port a parked @conn's queue pair is on */
static int exs_park_ifindex(struct exs_conn *conn)
{
	return READ_ONCE(conn->link->ifindex);
}

/* A connector's parked connection to @node, for a socket of @family with
 * a receive ring of @rsize bytes, whose QP was built with the
 * net.exs.ack_timeout now in force, @ack_cfg, and to carry others or not
 * as @share says, or a parked rider on such a QP if @share (share.c); or
 * NULL.  It comes with the pool's reference, out of the pool, no longer
 * parked.
 */
struct exs_conn *exs_park_take(struct net *net, const struct in6_addr *node,
			       int family, u32 rsize, u8 ack_cfg, bool share)
{
	struct exs_conn *conn, *found;
	bool ok;

	do {
		found = NULL;
		spin_lock_bh(&exs_parked_lock);
		hash_for_each_possible(exs_parked, conn, park_node,
				       exs_node_hash(net, node)) {
			if (conn->passive || !net_eq(conn->net, net) ||
			    conn->self.family != family ||
			    conn->rsize != rsize ||
			    conn->link->ack_cfg != ack_cfg ||
			    (conn->carrier ? !share : conn->share != share) ||
			    !ipv6_addr_equal(&conn->node, node) ||
			    exs_dev_port_down(net, exs_park_ifindex(conn)))
				continue;
			__exs_park_unlink(conn);
			/* out of the pool and coming up again in one
			 * step: a concurrent connect waits for it
			 */
			if (!conn->carrier)
				exs_link_reopen(conn);
			found = conn;
			break;
		}
		spin_unlock_bh(&exs_parked_lock);
		if (!found)
			return NULL;
		/* it may have ended meanwhile: its teardown owns it then */
		spin_lock_bh(&found->lock);
		ok = found->park == EXS_PARK_IDLE &&
		     found->state == EXS_CONN_ESTABLISHED;
		/* a rider's carrier may have no room left, or be going */
		if (ok && found->carrier && !exs_share_retake(found)) {
			ok = false;
			exs_conn_queue_hw(found);
		}
		if (ok) {
			found->park = EXS_PARK_NONE;
			exs_conn_disarm_timeout(found);
		} else {
			exs_link_wait_end(found, EXS_FALLBACK_NONE);
		}
		spin_unlock_bh(&found->lock);
	} while (!ok);
	return found;
}

/* bind() found @port (network order) taken in @net: a parked connector's
 * end may hold it, in its first socket's native socket, which it keeps
 * while its cm_id lives (exs_conn_disown()).  End such connections and
 * wait for their teardown, as TCP lets a bind take a port from TIME_WAIT.
 * True when one ended, so the bind may try again.  Process context,
 * no socket lock held: the teardown runs on exs_wq.
 */
bool exs_park_evict_port(struct net *net, __be16 port)
{
	struct exs_conn *conn, *found[8];
	int bkt, i, n = 0;

	spin_lock_bh(&exs_parked_lock);
	hash_for_each(exs_parked, bkt, conn, park_node) {
		/* in the pool, its native socket is stable (exs_park()) */
		if (conn->passive || !net_eq(conn->net, net) ||
		    !conn->native ||
		    inet_sk(conn->native->sk)->inet_sport != port)
			continue;
		refcount_inc(&conn->ref);
		found[n++] = conn;
		/* a break would leave only the bucket */
		if (n == ARRAY_SIZE(found))
			goto full;
	}
full:
	spin_unlock_bh(&exs_parked_lock);

	for (i = 0; i < n; i++) {
		conn = found[i];
		/* unless taken meanwhile; its native socket goes in the
		 * teardown's first run
		 */
		if (exs_park_end(conn, 0, NULL))
			flush_work(&conn->hw_work);
		exs_conn_put(conn);
	}
	return n > 0;
}

/* A connector's OPEN was refused: the QP (or the rider) parks again, as
 * its acceptor's end stayed.  The refused connection moved nothing, so
 * the QP is as it was parked, both streams over: when its time runs out, or the pool
 * is full, it ends in order, not as an abort, and says nothing to the
 * peer's parked end (which takes only an OPEN).  Takes the socket's
 * reference.
 */
void exs_park_return(struct exs_conn *conn)
{
	bool parked;

	spin_lock_bh(&conn->lock);
	/* parked again, not up: whoever waited for it starts again */
	exs_link_wait_end(conn, EXS_FALLBACK_NONE);
	conn->refused = 0;
	conn->fin_sent = true;
	conn->fin_acked = true;
	conn->fin_rcvd = true;
	conn->last_sent = true;
	conn->last_rcvd = true;
	/* a rider, out of its carrier's count again (exs_share_retake()) */
	if (conn->carrier)
		exs_share_quiet(conn);
	parked = conn->state == EXS_CONN_ESTABLISHED && exs_park(conn);
	spin_unlock_bh(&conn->lock);
	if (!parked)
		exs_conn_orphan(conn, false);
}

/* An OPEN on a parked acceptor's end, @peer its fields, from the
 * peer's channel @from (0: the QP's own): to the listener on that port,
 * answered READY, or REFUSEd (the QP stays parked).  Called under
 * conn->lock: 0, or -EPROTO for an OPEN that does not match the QP.
 */
int exs_park_accept(struct exs_conn *conn, const struct exs_wire_peer *peer,
		    u8 from)
{
	int why;

	/* A rider's channel here that no longer carries the stream the
	 * peer parked: ours was let go (the pool was full, or reuse is
	 * off here) and a later JOIN took the channel, or it is going.
	 * The peer could not know: its OPEN is refused on its channel,
	 * and it starts afresh; the stream here is not the OPEN's to end.
	 */
	if (conn->carrier && conn->passive &&
	    (conn->park == EXS_PARK_GONE || from != conn->peer_chan)) {
		/* a channel's OPEN names one, 1 to 127 (wire.c) */
		exs_share_refuse_open(conn, from, EXS_WIRE_REJ_NOMEM);
		return 0;
	}

	/* Our end is letting the QP go (its idle time ran out, or it did
	 * not fit in the pool) as the OPEN came: no violation, and no
	 * child, which the teardown would reset.  Its disconnect fails the
	 * connector's attempt, which then sets up a connection of its own.
	 */
	if (conn->park == EXS_PARK_GONE)
		return 0;
	/* ...or, reuse off here, it said LAST and goes once that is
	 * delivered (exs_conn_finished()): the same
	 */
	if (!conn->carrier && !exs_reuse_idle(conn) && conn->orphan &&
	    conn->last_sent && conn->park == EXS_PARK_NONE)
		return 0;
	if (!conn->passive || !exs_park_ready(conn))
		return -EPROTO;
	/* the rings are the QP's, whatever the OPEN says */
	if (peer->ring_addr != conn->peer.ring_addr ||
	    peer->ring_rkey != conn->peer.ring_rkey ||
	    peer->ring_len != conn->peer.ring_len)
		return -EPROTO;

	/* a rider counts on its carrier's QP again (share.c) */
	why = conn->carrier && !exs_share_retake(conn) ? EXS_WIRE_REJ_NOMEM :
	      exs_rdma_open_child(conn, peer);
	if (why) {
		if (conn->carrier) {
			/* out of the count again, so it may not post */
			exs_share_quiet(conn);
			exs_share_refuse_open(conn, from, why);
			return 0;
		}
		EXS_INC_STATS(conn->net, EXS_MIB_RDMAREJECT);
		return exs_conn_send_ctrl(conn, EXS_MSG_REFUSE, why) ?
		       -ECONNRESET : 0;
	}
	exs_park_unlink(conn);
	conn->park = EXS_PARK_NONE;
	exs_conn_disarm_timeout(conn);
	conn->peer_ready = true;
	if (exs_conn_send_ctrl(conn, EXS_MSG_READY, 0))
		return -ECONNRESET;
	EXS_INC_STATS(conn->net, EXS_MIB_ACCEPTREUSE);
	/* to the listener's queue (exs_child_event()) */
	exs_conn_announce(conn);
	return 0;
}
