// SPDX-License-Identifier: GPL-2.0
/*
 * The connector: connect() on an AF_EXS socket tries RDMA first and falls
 * back to TCP on any failure.
 *
 * rdma_cm runs our handler in its own process-context work (one event at a
 * time per cm_id), so resolving, creating the QP and sending the REQ happen
 * there, never in the caller: a non-blocking connect() returns EINPROGRESS
 * at once.  What needs the socket lock (finishing the connect, or merging
 * into TCP and starting the TCP connect) runs either in the connect() that
 * waits, or in the socket's connect_work on exs_wq, whichever comes first
 * (exs_connect_settle()).
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <rdma/ib_cm.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"
#include "conn.h"
#include "mem.h"
#include "mib.h"
#include "ring.h"
#include "trace.h"

/* How long one try at resolving the node's address (ARP, ND) waits.
 * rdma_resolve_ip() sends the solicitation before it queues the request
 * that the answer's neighbour update wakes: an answer in between is
 * missed, and the request sleeps out its whole timeout before it looks
 * again (6.1 and 6.12; first connects on loaded emulated hosts lost
 * their 30 s that way).  Short tries bound it, and each try solicits
 * again, even after the neighbour failed; the connect deadline bounds
 * them all.
 */
#define EXS_RESOLVE_TRY_MS	500

static int exs_resolve_try_ms(const struct net *net)
{
	return min(exs_connect_timeout_ms(net), EXS_RESOLVE_TRY_MS);
}

/* What is left of connect()'s net.exs.connect_timeout_ms, which every
 * attempt it makes shares (one after a wait for a link, or after a
 * parked QP refused its OPEN): at least a jiffy.
 */
static unsigned long exs_connect_left(const struct exs_sock *exs)
{
	long left = (long)(exs->connect_deadline - jiffies);

	return left > 0 ? left : 1;
}

/* rdma_cm told us how the attempt ended; under conn->lock.  The connect
 * work settles the socket and wakes whoever waits (exs_connect_settle()).
 */
static void exs_connect_event(struct exs_conn *conn)
{
	struct exs_sock *exs = conn->owner;

	if (exs)
		queue_work(exs_wq, &exs->connect_work);
}

/* The attempt failed.  A resume's (resume.c) ends the connection: with a
 * reset if the peer refused (it holds no such connection any more),
 * else with the error of the failure it tried to mend.
 */
static void exs_connect_fail(struct exs_conn *conn,
			     enum exs_fallback_reason reason)
{
	int err = -ECONNREFUSED;

	spin_lock_bh(&conn->lock);
	if (conn->resume)
		err = reason == EXS_FALLBACK_PEER_REJECT ? -ECONNRESET :
							   conn->resume_err;
	else if (!conn->reason)
		conn->reason = reason;
	spin_unlock_bh(&conn->lock);
	exs_conn_abort(conn, err, false);
}

/* The route is known: build the QP and the ring and send the REQ. */
static int exs_connect_route_resolved(struct exs_conn *conn)
{
	struct rdma_cm_id *id = conn->link->cm_id;
	struct exs_wire_req req;
	struct rdma_conn_param param = exs_conn_param(&req, sizeof(req));
	__be16 unused;
	int err;

	err = conn->resume ? exs_resume_qp(conn) : exs_conn_create_qp(conn);
	if (err)
		return err;

	/* TCP-level source: the address rdma_cm chose, the native port */
	exs_addr_to_v6((struct sockaddr *)&id->route.addr.src_addr,
		       &conn->self.saddr, &unused);
	conn->self.ring_addr = conn->mr->iova;
	conn->self.ring_rkey = conn->mr->rkey;
	conn->self.ring_len = conn->rsize;
	/* a resume speaks what its QP spoke; a new QP, what we can (a REQ
	 * below the range's version offers that version alone)
	 */
	conn->self.version = conn->resume ? conn->link->version :
					    exs_wire_version_max();
	conn->self.version_min = conn->self.version < EXS_WIRE_V_RANGE ||
				 conn->resume ? conn->self.version :
						EXS_WIRE_VERSION_MIN;
	exs_wire_build_req(&req, &conn->self);
	err = rdma_connect_locked(id, &param);
	if (!err)
		exs_head_start(conn);
	return err;
}

static int exs_connect_established(struct exs_conn *conn,
				   const struct rdma_cm_event *ev)
{
	struct exs_wire_peer peer = {};
	int err;

	err = exs_wire_parse_rep(ev->param.conn.private_data,
				 ev->param.conn.private_data_len, &conn->self,
				 &peer);
	if (err)
		return err;
	conn->link->version = peer.version;
	if (conn->resume) {
		/* the same ring, or not the same connection */
		if (peer.ring_addr != conn->peer.ring_addr ||
		    peer.ring_rkey != conn->peer.ring_rkey ||
		    peer.ring_len != conn->peer.ring_len)
			return -EPROTO;
		exs_conn_established(conn);
		return 0;
	}
	err = exs_conn_set_peer_ring(conn, &peer);
	if (err)
		return err;
	exs_conn_established(conn);
	return 0;
}

/* Why the peer refused.  Only a refusal that says the peer has no AF_EXS
 * there (the CM knows no such service, or another protocol version) may
 * keep later connects away for a while; a busy or short listener may not.
 */
static enum exs_fallback_reason exs_reject_reason(struct exs_conn *conn,
						  const struct rdma_cm_event *ev)
{
	struct exs_wire_peer peer = {};

	if (ev->status != IB_CM_REJ_CONSUMER_DEFINED) {
		conn->transient = ev->status != IB_CM_REJ_INVALID_SERVICE_ID;
		return EXS_FALLBACK_PEER_REJECT;
	}
	if (exs_wire_parse_rej(ev->param.conn.private_data,
			       ev->param.conn.private_data_len, &peer))
		return EXS_FALLBACK_PEER_REJECT;
	conn->transient = peer.reject != EXS_WIRE_REJ_VERSION &&
			  peer.reject != EXS_WIRE_REJ_NO_LISTENER;
	return peer.reject == EXS_WIRE_REJ_VERSION ? EXS_FALLBACK_VERSION :
	       peer.reject == EXS_WIRE_REJ_NOMEM ? EXS_FALLBACK_NOMEM :
	       EXS_FALLBACK_PEER_REJECT;
}

/* Resolve the node's address once more, out of rdma_cm's handler: a new
 * resolve cancels the last one synchronously, and the last one's work is
 * what runs the handler.  The id keeps its source (and port) and is back
 * in the state a resolve starts from.  The teardown sets torn_down under
 * the handler's lock, then waits for this work before it destroys the id.
 */
void exs_connect_resolve_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(work, struct exs_conn,
					     resolve_work);
	struct rdma_cm_id *id = READ_ONCE(conn->link->cm_id);
	struct sockaddr_storage node;

	if (!READ_ONCE(conn->torn_down) && id) {
		memcpy(&node, &id->route.addr.dst_addr, sizeof(node));
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&node,
				      exs_resolve_try_ms(conn->net)))
			exs_connect_fail(conn, EXS_FALLBACK_NO_DEVICE);
	}
	exs_conn_put(conn);
}

static void exs_connect_resolve_again(struct exs_conn *conn)
{
	refcount_inc(&conn->ref);
	if (!queue_work(exs_wq, &conn->resolve_work))
		refcount_dec(&conn->ref);	/* queued: never the last */
}

/* The handshake's events of a connector's link's cm_id @id, as its link's
 * handler passes them on (exs_link_cm_handler(): link_event.c, which
 * took the link's part), for @conn, the stream that builds the link: its
 * link->handshake.
 */
static void exs_connect_cm_event(struct exs_conn *conn,
				 struct rdma_cm_id *id,
				 const struct rdma_cm_event *ev)
{
	int timeout = exs_connect_timeout_ms(conn->net);
	int err;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		WRITE_ONCE(conn->stage, EXS_STAGE_ROUTE);
		if (rdma_resolve_route(id, timeout))
			exs_connect_fail(conn, EXS_FALLBACK_NO_DEVICE);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		WRITE_ONCE(conn->stage, EXS_STAGE_REP);
		err = exs_connect_route_resolved(conn);
		if (err)
			exs_connect_fail(conn, err == -ENOMEM ?
					 EXS_FALLBACK_NOMEM :
					 EXS_FALLBACK_NO_DEVICE);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		WRITE_ONCE(conn->stage, EXS_STAGE_READY);
		exs_head_start_over(conn);
		err = exs_connect_established(conn, ev);
		if (err)
			exs_connect_fail(conn, err == -EPROTONOSUPPORT ?
					 EXS_FALLBACK_VERSION :
					 err == -ENOMEM ? EXS_FALLBACK_NOMEM :
					 EXS_FALLBACK_PEER_REJECT);
		break;
	case RDMA_CM_EVENT_REJECTED:
		exs_connect_fail(conn, exs_reject_reason(conn, ev));
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		/* a connect's try ran out (EXS_RESOLVE_TRY_MS): the next one.
		 * A resume resolves once, for the whole connect timeout: its
		 * peer was just there.
		 */
		if (ev->status == -ETIMEDOUT && !conn->resume)
			exs_connect_resolve_again(conn);
		else
			exs_connect_fail(conn, EXS_FALLBACK_NO_DEVICE);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		exs_connect_fail(conn, EXS_FALLBACK_NO_DEVICE);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		/* the REP came (the peer runs AF_EXS), our QP's steps
		 * after it failed: no negative-cache entry
		 */
		conn->transient = true;
		fallthrough;
	case RDMA_CM_EVENT_UNREACHABLE:
		exs_connect_fail(conn, EXS_FALLBACK_TIMEOUT);
		break;
	default:
		break;
	}
}

/* Resolve @node from the port the native socket holds.  rdma_cm's port
 * space is its own, and an id left to pick takes a random port from the
 * same ephemeral range as TCP: the port an AF_EXS listener binds next in
 * TCP, whose rdma_listen() then fails, and whose peers are refused.  Held
 * by the native socket, the port is ours in both spaces.  If another
 * rdma_cm user has it (NFS/RDMA, a userspace rsocket), rdma_cm picks.
 */
static int exs_connect_resolve(struct rdma_cm_id *id, __be16 port,
			       struct sockaddr *node, int timeout_ms)
{
	struct in6_addr any = in6addr_any;
	struct sockaddr_storage own;

	/* the wildcard of @node's family: the route picks the address */
	if (node->sa_family == AF_INET)
		ipv6_addr_set_v4mapped(htonl(INADDR_ANY), &any);
	exs_addr_from_v6(&any, port, &own);
	if (!rdma_resolve_addr(id, (struct sockaddr *)&own, node, timeout_ms))
		return 0;
	return rdma_resolve_addr(id, NULL, node, timeout_ms);
}

/* Connect again for a resume (resume.c): a new cm_id, from the same port
 * to the same node; its handler goes on as for a connect, with a REQ
 * marked RESUME.  Process context.
 */
int exs_connect_resume(struct exs_conn *conn)
{
	struct sockaddr_storage node;
	struct rdma_cm_id *id;
	__be16 port;

	id = rdma_create_id(conn->net, exs_link_cm_handler, &conn->link->ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	exs_conn_set_ack_timeout(id, conn->net);
	spin_lock_bh(&conn->lock);
	WRITE_ONCE(conn->link->cm_id, id);
	conn->self.resume = true;
	spin_unlock_bh(&conn->lock);
	/* the node, and the listener's port (a parked QP's connection
	 * may go to another port than its first); a QP that moves for its
	 * riders only, a rider's
	 */
	port = conn->link_only ? exs_share_resume_port(conn) :
				 conn->self.dport;
	exs_addr_from_v6(&conn->node, port, &node);
	return exs_connect_resolve(id, conn->self.sport,
				   (struct sockaddr *)&node,
				   exs_connect_timeout_ms(conn->net));
}

/* Carry the connect on @conn, a parked QP to the same node (reuse.c):
 * OPEN, which the peer answers READY (the connect settles as after a REP
 * and READY) or REFUSE.  0, or the QP failed and is gone.  Under the
 * socket lock.
 */
static int exs_connect_reopen(struct exs_sock *exs, struct exs_conn *conn,
			      struct sockaddr *addr, struct sockaddr *src)
{
	unsigned long timeout = exs_connect_left(exs);
	struct in6_addr unused;
	int err;

	spin_lock_bh(&conn->lock);
	exs_conn_renew(conn);
	WRITE_ONCE(conn->stage, EXS_STAGE_READY);
	conn->owner = exs;
	conn->on_connect = exs_connect_event;
	conn->inline_max = min_t(u32, READ_ONCE(exs->inline_max),
				 READ_ONCE(conn->link->inline_cap));
	/* the route's source address, as before; this socket's port */
	exs_addr_to_v6(src, &unused, &conn->self.sport);
	exs_addr_to_v6(addr, &conn->self.daddr, &conn->self.dport);
	err = exs_conn_send_open(conn);
	if (!err)
		exs_conn_arm_timeout(conn, timeout);
	spin_unlock_bh(&conn->lock);
	if (err) {
		exs_conn_orphan(conn, true);
		return err;
	}
	exs->conn = conn;
	return 0;
}

/* What an RDMA attempt may start on besides a QP of its own */
enum {
	EXS_TAKE_PARKED	= BIT(0),	/* a parked QP or rider (reuse.c) */
	EXS_TAKE_LINK	= BIT(1),	/* a channel of a link up (share.c) */
	EXS_TAKE_ANY	= EXS_TAKE_PARKED | EXS_TAKE_LINK,
};

/* Start an RDMA attempt to @addr, on what @take allows if there is one.
 * 0 when under way, or the reason to go to TCP at once.  Under the
 * socket lock, @addr already checked.
 */
static enum exs_fallback_reason exs_connect_start(struct exs_sock *exs,
						  struct sockaddr *addr,
						  unsigned int take)
{
	struct net *net = sock_net(&exs->sk);
	enum exs_fallback_reason reason;
	struct sockaddr_storage src, node;
	struct in6_addr node6;
	struct rdma_cm_id *id;
	bool share = READ_ONCE(exs_pernet(net)->cfg.share_qp);
	bool named;
	struct exs_conn *conn;
	__be16 unused;
	u32 rsize;
	int err;

	/* the map and policy first: a "no" costs nothing more */
	reason = exs_policy_route(net, addr, &node, &named);
	if (reason)
		return reason;
	if (!exs_dev_any())
		return EXS_FALLBACK_NO_DEVICE;
	if (exs_negcache_hit(net, addr))
		return EXS_FALLBACK_NEG_CACHE;
	exs_addr_to_v6((struct sockaddr *)&node, &node6, &unused);
	/* by default, a node only where no router stands between */
	if (!named && exs_addr_via_gateway(net, &node6))
		return EXS_FALLBACK_GATEWAY;
	/* an unbound client takes its port now and keeps it: the
	 * four-tuple stays unique across RDMA and TCP, and a fallback
	 * connects from the same port
	 */
	if (exs_native_autobind(exs, (struct sockaddr *)&src))
		return EXS_FALLBACK_NO_DEVICE;

	rsize = exs_ring_size_of(exs);
	/* reuse_idle_ms 0: no reuse, and no stream on another's link */
	if (!READ_ONCE(exs_pernet(net)->cfg.reuse_idle_ms))
		take = 0;
	conn = take & EXS_TAKE_PARKED ?
	       exs_park_take(net, &node6, addr->sa_family, rsize,
			     READ_ONCE(exs_pernet(net)->cfg.ack_timeout),
			     share) :
	       NULL;
	if (conn && !exs_connect_reopen(exs, conn, addr,
					(struct sockaddr *)&src))
		return EXS_FALLBACK_NONE;
	/* beside the connections a QP to that node carries (share.c) */
	conn = (take & EXS_TAKE_LINK) && share ?
	       exs_share_find(net, &node6, addr->sa_family,
			      READ_ONCE(exs_pernet(net)->cfg.ack_timeout)) :
	       NULL;
	if (conn && !exs_share_join(exs, conn, addr, (struct sockaddr *)&src,
				    rsize, exs_connect_left(exs),
				    exs_connect_event))
		return EXS_FALLBACK_NONE;
	conn = exs_conn_alloc(net, true, NULL, rsize,
			      READ_ONCE(exs->inline_max));
	if (!conn)
		return EXS_FALLBACK_NOMEM;
	conn->node = node6;
	conn->memcg = exs_mem_sock_memcg(&exs->sk);
	conn->share = share;
	conn->self.share = conn->share;
	exs_addr_to_v6((struct sockaddr *)&src, &conn->self.saddr,
		       &conn->self.sport);
	exs_addr_to_v6(addr, &conn->self.daddr, &conn->self.dport);
	conn->self.family = addr->sa_family;
	exs_link_set_peer(conn->link, &node6, addr->sa_family, false, share);
	/* later connects to the node find this QP, and wait for it; or
	 * one, coming up or just up, that another connect built is this
	 * one's to wait for (link_table.c).  Before the cm_id: a connect
	 * that waits builds nothing.  Freed, @conn leaves the table.
	 */
	if (share && !exs_link_claim(exs, conn, take & EXS_TAKE_LINK)) {
		exs_conn_put(conn);
		return EXS_FALLBACK_NONE;
	}

	conn->link->handshake = exs_connect_cm_event;
	id = rdma_create_id(net, exs_link_cm_handler, &conn->link->ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		exs_conn_put(conn);
		return EXS_FALLBACK_NOMEM;
	}
	conn->link->cm_id = id;
	exs_conn_set_ack_timeout(id, net);
	conn->owner = exs;
	conn->on_connect = exs_connect_event;
	/* the deadline, before the handler may send the REQ and read it
	 * for the head start (exs_head_start(): head_start.c); armed below
	 */
	conn->timeout_at = jiffies + exs_connect_left(exs);

	/* the peer's RDMA address; the REQ carries its TCP one */
	err = exs_connect_resolve(id, conn->self.sport,
				  (struct sockaddr *)&node,
				  exs_resolve_try_ms(net));
	if (err) {
		conn->owner = NULL;
		rdma_destroy_id(id);
		conn->link->cm_id = NULL;
		exs_conn_put(conn);
		return EXS_FALLBACK_NO_DEVICE;
	}
	exs->conn = conn;
	/* unless the REQ went out meanwhile and its head start is armed */
	spin_lock_bh(&conn->lock);
	if (!conn->racing)
		exs_conn_arm_timeout(conn, exs_connect_left(exs));
	spin_unlock_bh(&conn->lock);
	return EXS_FALLBACK_NONE;
}

/* Merge into TCP and start its connect without blocking: a program that
 * waits (blocking connect, poll, epoll) then waits on TCP's handshake.
 *
 * TCP's connect starts before the descriptor moves: a TCP socket not yet
 * connecting polls EPOLLOUT | EPOLLHUP, which a poller woken in between
 * would take for the outcome.  A poller that looked before the move saw
 * "connecting" and is woken once more after it.
 */
static void exs_connect_to_tcp(struct exs_sock *exs,
			       enum exs_fallback_reason reason)
{
	struct socket *native = exs->native;
	int err;

	err = READ_ONCE(native->ops)->connect(native,
					      (struct sockaddr *)&exs->daddr,
					      exs->daddr_len, O_NONBLOCK);
	if (err && err != -EINPROGRESS) {
		/* reported by the next connect(), SO_ERROR or poll */
		WRITE_ONCE(native->sk->sk_err, -err);
		sk_error_report(native->sk);
	}
	WRITE_ONCE(exs->cstate, EXS_CS_MERGED);
	exs_fallback(exs, reason);
	exs_wake(exs, 0);
}

/* Finish a connect whose RDMA attempt has ended.  Under the socket lock. */
static void exs_connect_settle(struct exs_sock *exs)
{
	struct exs_conn *conn = exs->conn;
	bool transient, reused, afresh;
	u8 state, reason, refused;
	unsigned int take;

	if (exs->cstate != EXS_CS_CONNECTING)
		return;
	if (!conn) {
		/* it waited for a link coming up (link_table.c): join it,
		 * or, if the node did not answer RDMA, go where that
		 * connect went; else start afresh, in the time left
		 */
		if (!exs->link_waiting || !exs_link_wait_over(exs))
			return;
		reason = exs->link_fail_reason;
		if (!reason && time_after_eq(jiffies, exs->connect_deadline))
			reason = EXS_FALLBACK_TIMEOUT;
		if (!reason)
			reason = exs_connect_start(exs,
						   (struct sockaddr *)&exs->daddr,
						   EXS_TAKE_ANY);
		if (reason)
			exs_connect_to_tcp(exs, reason);
		return;
	}
	spin_lock_bh(&conn->lock);
	state = conn->state;
	refused = conn->refused;
	reused = conn->reused;
	/* up once the peer's READY came too (exs_conn_announce()); a
	 * parked QP's OPEN may be refused instead
	 */
	if (state == EXS_CONN_ESTABLISHED && !conn->announced)
		state = refused ? EXS_CONN_CLOSED : EXS_CONN_CONNECTING;
	reason = conn->reason;
	transient = conn->transient;
	/* from here an error is the socket's (exs_conn_report_err()) */
	if (state == EXS_CONN_ESTABLISHED)
		WRITE_ONCE(exs->cstate, EXS_CS_RDMA);
	spin_unlock_bh(&conn->lock);

	switch (state) {
	case EXS_CONN_CONNECTING:
		return;
	case EXS_CONN_ESTABLISHED:
		cancel_delayed_work(&conn->timeout_work);
		WRITE_ONCE(exs->transport, EXS_TRANSPORT_RDMA);
		exs_busy_poll_mark(&exs->sk);
		exs->sk.sk_state = TCP_ESTABLISHED;
		EXS_INC_STATS(sock_net(&exs->sk), EXS_MIB_CONNECTRDMA);
		if (reused)
			EXS_INC_STATS(sock_net(&exs->sk),
				      EXS_MIB_CONNECTREUSE);
		trace_exs_connect(&conn->self, 0);
		exs_watch_update(exs, sock_flag(&exs->sk, SOCK_KEEPOPEN));
		/* Now, not at the peer's READY (which may come first, and
		 * wakes a socket that is still connecting): a connect() or
		 * poll woken earlier would find it unsettled and sleep on.
		 */
		exs_wake(exs, EPOLLOUT | EPOLLWRNORM);
		return;
	default:
		break;
	}

	exs->conn = NULL;
	/* A parked QP that failed, or a parked rider refused for anything
	 * but a listener's absence: the peer let its end go meanwhile.  A
	 * connection of its own, as if there had been none; a rider's link
	 * is up still, and takes it on a channel of its own.  So too a
	 * JOIN whose link went before its answer, for no cause of its own
	 * (no deadline, no refusal: the link's other end let it go as the
	 * JOIN flew, a reset's teardown on a link that carried nothing
	 * else).
	 */
	afresh = (reused && (!refused ||
			     (conn->carrier &&
			      refused != EXS_WIRE_REJ_NO_LISTENER))) ||
		 (conn->carrier && !reused && !refused && !reason &&
		  exs_share_link_gone(conn->carrier));
	take = refused ? EXS_TAKE_LINK : 0;
	/* A parked QP, or parked rider, whose OPEN found no listener is
	 * parked again, as the peer's end stays (exs_park_accept()); a
	 * refused JOIN, or a parked rider the peer let go, ends, the QP
	 * carrying on.
	 */
	if (refused && (!conn->carrier ||
			(reused && refused == EXS_WIRE_REJ_NO_LISTENER)))
		exs_park_return(conn);
	else if (refused)
		exs_share_refused(conn);
	else
		exs_conn_orphan(conn, true);
	/* ...in the time left: none left is the deadline's, not the peer's */
	if (afresh && time_after_eq(jiffies, exs->connect_deadline)) {
		reason = EXS_FALLBACK_TIMEOUT;
		transient = true;
	} else if (afresh) {
		reason = exs_connect_start(exs, (struct sockaddr *)&exs->daddr,
					   take);
		if (!reason)
			return;
		transient = true;
	} else if (refused) {
		/* as a REQ's refusal reads (exs_reject_reason()) */
		reason = refused == EXS_WIRE_REJ_NOMEM ? EXS_FALLBACK_NOMEM :
			 EXS_FALLBACK_PEER_REJECT;
		transient = refused != EXS_WIRE_REJ_NO_LISTENER;
	}
	/* the timer and rdma_cm's events name theirs; a device that went
	 * away mid-attempt is the one that leaves none
	 */
	if (!reason)
		reason = EXS_FALLBACK_NO_DEVICE;
	if (!transient)
		exs_negcache_failed(sock_net(&exs->sk),
				    (struct sockaddr *)&exs->daddr, reason);
	exs_connect_to_tcp(exs, reason);
}

void exs_connect_work(struct work_struct *work)
{
	struct exs_sock *exs = container_of(work, struct exs_sock,
					    connect_work);

	lock_sock(&exs->sk);
	exs_connect_settle(exs);
	release_sock(&exs->sk);
}

/* Wait for the attempt as TCP's connect() waits for its handshake.
 * 1: merged into TCP, the caller continues with TCP's connect().
 */
static int exs_connect_wait(struct exs_sock *exs, int flags, bool first)
{
	struct sock *sk = &exs->sk;
	struct sock *nsk = exs->native->sk;
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	long timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	int err = 0;

	add_wait_queue(sk_sleep(nsk), &wait);
	for (;;) {
		exs_connect_settle(exs);
		if (exs->cstate != EXS_CS_CONNECTING)
			break;
		if (!timeo) {
			err = first ? -EINPROGRESS : -EALREADY;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		release_sock(sk);
		timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
		lock_sock(sk);
	}
	remove_wait_queue(sk_sleep(nsk), &wait);
	if (err)
		return err;
	return exs->cstate == EXS_CS_MERGED ? 1 : 0;
}

/* connect() on an unmerged AF_EXS socket, under the socket lock.
 * 1: the socket is (now) TCP's, forward the call.
 */
int exs_rdma_connect(struct exs_sock *exs, struct sockaddr *addr, int len,
		     int flags)
{
	struct socket *sock = exs->sk.sk_socket;
	enum exs_fallback_reason reason;
	bool first = false;
	int timeout_ms;
	int err;

	switch (exs->cstate) {
	case EXS_CS_IDLE:
		EXS_INC_STATS(sock_net(&exs->sk), EXS_MIB_ACTIVEOPEN);
		/* zero-padded: an RFC 2133 sockaddr_in6 has no scope id,
		 * and in-kernel callers may pass more than fits
		 */
		len = min_t(int, len, sizeof(exs->daddr));
		memset(&exs->daddr, 0, sizeof(exs->daddr));
		memcpy(&exs->daddr, addr, len);
		exs->daddr_len = len;
		timeout_ms = exs_connect_timeout_ms(sock_net(&exs->sk));
		exs->connect_deadline = jiffies + msecs_to_jiffies(timeout_ms);
		reason = exs_connect_start(exs,
					   (struct sockaddr *)&exs->daddr,
					   EXS_TAKE_ANY);
		if (reason) {
			exs_fallback(exs, reason);
			exs->cstate = EXS_CS_MERGED;
			return 1;
		}
		exs->cstate = EXS_CS_CONNECTING;
		sock->state = SS_CONNECTING;
		first = true;
		fallthrough;
	case EXS_CS_CONNECTING:
		err = exs_connect_wait(exs, flags, first);
		if (err)
			return err;
		/* Settled already, within a non-blocking connect()'s first
		 * call (a parked link's OPEN answers at once; a refusal then
		 * starts TCP's connect, which may fail at once): TCP's own
		 * handshake takes a round trip, so it says EINPROGRESS and
		 * leaves the outcome to poll and SO_ERROR.  So do we: both
		 * already hold it (a merged socket's, TCP's own).
		 */
		if (first && (flags & O_NONBLOCK)) {
			/* but a TCP connect that failed at once (no route,
			 * say) is TCP's own failure at once
			 */
			if (exs->cstate == EXS_CS_MERGED &&
			    exs->native->state == SS_UNCONNECTED)
				return sock_error(exs->native->sk) ?: 1;
			return -EINPROGRESS;
		}
		if (exs->cstate == EXS_CS_MERGED)
			return 1;
		sock->state = SS_CONNECTED;
		return 0;
	case EXS_CS_RDMA:
		if (sock->state == SS_CONNECTING) {
			/* the first connect() after a non-blocking one */
			sock->state = SS_CONNECTED;
			return 0;
		}
		return -EISCONN;
	default:
		return 1;
	}
}

/* A data call on a socket still connecting: wait for the outcome as TCP
 * waits for its handshake (or not, @nonblock).  True when the socket ended
 * on RDMA; otherwise it is, or will be, TCP's.
 */
bool exs_settled_on_rdma(struct exs_sock *exs, bool nonblock)
{
	if (READ_ONCE(exs->cstate) != EXS_CS_CONNECTING)
		return exs_on_rdma(exs);
	lock_sock(&exs->sk);
	/* still connecting, a timeout or a signal: the caller finds out */
	exs_connect_wait(exs, nonblock ? O_NONBLOCK : 0, false);
	release_sock(&exs->sk);
	return exs_on_rdma(exs);
}

/* close() during connect: the attempt is abandoned, never merged. */
void exs_connect_cancel(struct exs_sock *exs)
{
	exs_link_wait_cancel(exs);
	if (exs->cstate == EXS_CS_CONNECTING && exs->conn) {
		exs_conn_disown(exs->conn, &exs->native, true);
		exs->conn = NULL;
	}
}
