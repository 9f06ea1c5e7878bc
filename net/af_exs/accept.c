// SPDX-License-Identifier: GPL-2.0
/*
 * The acceptor: an AF_EXS listener keeps its native TCP listen and also
 * listens for RDMA connection requests on the same address and port.
 *
 * rdma_cm delivers each request to our handler in process context; the
 * handler validates it, builds the child's ring and queue pair and
 * accepts, all before returning, so a request for a port nobody listens
 * on with AF_EXS is refused by the CM at once.  Established children wait
 * on the listener's queue; accept() takes whichever of an RDMA child and
 * a TCP child comes first (socket.c).
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ratelimit.h>
#include <linux/memcontrol.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"
#include "conn.h"
#include "mem.h"
#include "mib.h"
#include "netns.h"
#include "ring.h"
#include "trace.h"

/* A child's connection ended (ESTABLISHED or failed); under conn->lock. */
static void exs_child_event(struct exs_conn *conn)
{
	struct exs_listener *lsn = conn->lsn;
	bool queued = false;

	spin_lock(&lsn->lock);
	if (conn->state == EXS_CONN_ESTABLISHED && lsn->owner) {
		/* as a TCP child's, set when its handshake ends (oob.c) */
		conn->urg.lsn_inline = sock_flag(&lsn->owner->sk,
						 SOCK_URGINLINE);
		list_add_tail(&conn->accept_node, &lsn->queue);
		exs_wake(lsn->owner, EPOLLIN | EPOLLRDNORM);
		queued = true;
	} else {
		lsn->qlen--;
	}
	spin_unlock(&lsn->lock);

	/* nobody will accept it: the teardown owns it now */
	if (!queued) {
		conn->lsn = NULL;
		exs_listener_put(lsn);
		conn->orphan = true;
		conn->on_connect = NULL;
		if (conn->state == EXS_CONN_ESTABLISHED) {
			/* a reset the connector hears, as TCP's RST: a
			 * bare disconnect would be a failure to resume
			 */
			exs_conn_send_orphan_abort(conn);
			conn->state = EXS_CONN_CLOSED;
			exs_conn_queue_hw(conn);
		}
	}
}

/* A REJ in @version: the one picked for a REQ that parsed (a host of
 * version 3 or 4 reads any other as "another version"), else ours.
 */
static int exs_reject(struct rdma_cm_id *id, struct net *net,
		      enum exs_wire_reject why, u8 version)
{
	struct exs_wire_rep rej;

	exs_wire_build_rej(&rej, why, version);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	EXS_INC_STATS(net, EXS_MIB_RDMAREJECT);
	return 1;	/* rdma_cm destroys the child id */
}

/* Take a place in @lsn's queue for a new child, as a SYN would: 0, or
 * why not.  The place holds a reference on the listener.
 */
static int exs_child_reserve(struct exs_listener *lsn, u32 *rsize,
			     u32 *inline_max)
{
	struct exs_sock *exs;
	int why = EXS_WIRE_REJ_NO_LISTENER;

	spin_lock_bh(&lsn->lock);
	exs = lsn->owner;
	if (exs && lsn->qlen > READ_ONCE(exs->sk.sk_max_ack_backlog)) {
		why = EXS_WIRE_REJ_BACKLOG;
	} else if (exs) {
		lsn->qlen++;
		refcount_inc(&lsn->ref);
		*rsize = exs_ring_size_of(exs);
		*inline_max = READ_ONCE(exs->inline_max);
		why = EXS_WIRE_REJ_NONE;
	}
	spin_unlock_bh(&lsn->lock);
	return why;
}

static void exs_child_unreserve(struct exs_listener *lsn)
{
	spin_lock_bh(&lsn->lock);
	lsn->qlen--;
	spin_unlock_bh(&lsn->lock);
	exs_listener_put(lsn);
}

/* Whether @peer, from RDMA address @node, claims that address as its
 * TCP-level source, as an AF_EXS connector does (its socket's own name
 * is that address too: connect.c), and it is one a host on a wire could
 * have; counted if not.  Anything else would let an RDMA peer pose as
 * any address to the program's checks, which accept() and getpeername()
 * report (overview.rst, "Threat model").
 */
static bool exs_source_ok(struct net *net, const struct in6_addr *node,
			  const struct exs_wire_peer *peer)
{
	/* a budget of its own: a flood of forged claims must not use up
	 * net_ratelimit()'s, which the rest of networking shares
	 */
	static DEFINE_RATELIMIT_STATE(exs_source_rs, 5 * HZ, 5);

	if (!exs_addr_is_martian(node) && ipv6_addr_equal(node, &peer->saddr))
		return true;
	EXS_INC_STATS(net, EXS_MIB_BADSOURCE);
	if (__ratelimit(&exs_source_rs))
		pr_info("%pI6c claimed TCP source %pI6c: refused\n", node,
			&peer->saddr);
	return false;
}

/* Whether @peer, from RDMA address @node, names as its TCP-level
 * destination an address a TCP segment from another host could reach:
 * one of this host's in @net (Linux takes any of them on any interface),
 * never a loopback one (Linux drops a 127/8 or ::1 destination that came
 * off a wire as martian, and no AF_EXS connector sends one: rdma_cm
 * takes no loopback REQ off a device).  Counted if not: a listener bound
 * to 127.0.0.1 is not for other hosts, and what getsockname() reports
 * must be an address the peer could have used.  Any context: RCU
 * lookups only.
 */
static bool exs_dest_ok(struct net *net, const struct in6_addr *node,
			const struct exs_wire_peer *peer)
{
	static DEFINE_RATELIMIT_STATE(exs_dest_rs, 5 * HZ, 5);
	const struct in6_addr *a = &peer->daddr;

	if (!exs_addr_is_martian(a) && exs_addr_is_local(net, a))
		return true;
	EXS_INC_STATS(net, EXS_MIB_BADDEST);
	if (__ratelimit(&exs_dest_rs))
		pr_info("%pI6c claimed TCP destination %pI6c: refused\n", node,
			a);
	return false;
}

/* Ours is the request's destination, theirs its source. */
static void exs_child_ends(struct exs_conn *conn,
			   const struct exs_wire_peer *peer)
{
	conn->self.family = peer->family;
	conn->self.saddr = peer->daddr;
	conn->self.sport = peer->dport;
	conn->self.daddr = peer->saddr;
	conn->self.dport = peer->sport;
}

/* Accept @id for @conn, its ring in the REP. */
static int exs_accept_rep(struct exs_conn *conn, struct rdma_cm_id *id)
{
	struct exs_wire_rep rep;
	struct rdma_conn_param param = exs_conn_param(&rep, sizeof(rep));

	exs_wire_build_rep(&rep, conn->link->version, conn->mr->iova, conn->mr->rkey,
			   conn->rsize);
	exs_conn_set_ack_timeout(id, conn->net);
	return rdma_accept(id, &param);
}

/* The handshake's events of an acceptor's link's cm_id, as its link's
 * handler passes them on (exs_link_cm_handler(): link_event.c, which
 * took the link's part), for @conn, the stream that builds the link: its
 * link->handshake.
 */
static void exs_child_cm_event(struct exs_conn *conn, struct rdma_cm_id *id,
			       const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		exs_conn_established(conn);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		exs_conn_abort(conn, -ECONNRESET, false);
		break;
	default:
		break;
	}
}

/* A REQ @lsn takes (exs_child_request()): it builds the child's QP and
 * ring and accepts, or refuses.
 */
static int exs_child_place(struct exs_listener *lsn, struct rdma_cm_id *id,
			   const struct exs_wire_peer *peer)
{
	struct net *net = lsn->net;
	struct exs_conn *conn;
	struct in6_addr node;
	u32 rsize = 0, inline_max = 0;
	int timeout_ms = exs_connect_timeout_ms(net);
	__be16 unused;
	int err;

	if (!exs_request_fits(lsn, peer)) {
		EXS_INC_STATS(net, EXS_MIB_PROTOERR);
		return exs_reject(id, net, EXS_WIRE_REJ_INVALID, peer->version);
	}
	/* a connection of ours whose QP failed, not a new one */
	if (peer->resume) {
		err = exs_resume_request(id, net, peer);
		return err ? exs_reject(id, net, err, peer->version) : 0;
	}
	/* the peer's RDMA address: where a resume's REQ must come from
	 * (resume.c), and what the TCP-level source is checked against
	 */
	exs_addr_to_v6((struct sockaddr *)&id->route.addr.dst_addr, &node,
		       &unused);
	if (!exs_source_ok(net, &node, peer) || !exs_dest_ok(net, &node, peer))
		return exs_reject(id, net, EXS_WIRE_REJ_INVALID, peer->version);
	/* rdma_cm found the listener by the REQ's RDMA destination, which
	 * the map may set apart from its TCP one: a listener bound to one
	 * address takes no stream for another, as on TCP
	 */
	if (!exs_listener_addr_ok(lsn, &peer->daddr))
		return exs_reject(id, net, EXS_WIRE_REJ_NO_LISTENER,
				  peer->version);

	err = exs_child_reserve(lsn, &rsize, &inline_max);
	if (err)
		return exs_reject(id, net, err, peer->version);
	/* past the ring limits: no queue pair built only to be refused
	 * (our ring at its least: the device may cap it, exs_conn_map_ring())
	 */
	if (!exs_mem_room(net, &node, EXS_RING_MIN, peer->ring_len))
		goto nomem;

	conn = exs_conn_alloc(net, true, id, rsize, inline_max);
	if (!conn)
		goto nomem;
	conn->passive = true;
	conn->share = peer->share;
	conn->link->version = peer->version;
	conn->lsn = lsn;
	conn->memcg = exs_mem_memcg_get(lsn->memcg);
	exs_child_ends(conn, peer);
	conn->node = node;
	exs_link_set_peer(conn->link, &node, peer->family, true, peer->share);

	err = exs_conn_create_qp(conn);
	if (!err)
		err = exs_conn_set_peer_ring(conn, peer);
	if (!err) {
		conn->link->handshake = exs_child_cm_event;
		id->context = &conn->link->ctx;
		conn->on_connect = exs_child_event;
		err = exs_accept_rep(conn, id);
		if (!err) {
			/* the connector has this long to say READY */
			exs_conn_arm_timeout(conn,
					     msecs_to_jiffies(timeout_ms));
			return 0;
		}
		id->context = &lsn->lport->ctx;
	}
	conn->torn_down = true;
	exs_conn_hw_release(conn, false);
	exs_conn_put(conn);
nomem:
	exs_child_unreserve(lsn);
	return exs_reject(id, net, EXS_WIRE_REJ_NOMEM, peer->version);
}

/* A REQ on @lport's cm_id: parsed, then placed with one of the listeners
 * on it (listeners.c).  Process context, in rdma_cm's handler.
 */
static int exs_child_request(struct exs_lport *lport, struct rdma_cm_id *id,
			     const struct rdma_cm_event *ev)
{
	struct net *net = lport->net;
	struct exs_wire_peer peer;
	struct exs_listener *lsn;
	int err;

	/* A resume speaks its QP's version, whatever the cap is now
	 * (exs_resume_matches()); a new QP, at most the cap.
	 */
	err = exs_wire_parse_req(ev->param.conn.private_data,
				 ev->param.conn.private_data_len,
				 EXS_WIRE_VERSION, &peer);
	if (!err && !peer.resume) {
		peer.version = exs_wire_pick_version(peer.version_min,
						     peer.version,
						     exs_wire_version_max());
		if (!peer.version)
			err = -EPROTONOSUPPORT;
	}
	if (err == -EPROTONOSUPPORT)
		return exs_reject(id, net, EXS_WIRE_REJ_VERSION,
				  exs_wire_version_max());
	if (err) {
		EXS_INC_STATS(net, EXS_MIB_PROTOERR);
		return exs_reject(id, net, EXS_WIRE_REJ_INVALID,
				  exs_wire_version_max());
	}
	lsn = exs_listener_pick(lport, &peer);
	if (!lsn)
		return exs_reject(id, net, EXS_WIRE_REJ_NO_LISTENER,
				  peer.version);
	err = exs_child_place(lsn, id, &peer);
	exs_listener_put(lsn);
	return err;
}

/* The listener an OPEN or a JOIN names, and a place in its queue, as a
 * REQ takes one: 0, or an enum exs_wire_reject.
 */
static int exs_child_claim(struct net *net, const struct in6_addr *node,
			   const struct exs_wire_peer *peer,
			   struct exs_listener **lsnp, u32 *rsize,
			   u32 *inline_max)
{
	int why = EXS_WIRE_REJ_NO_LISTENER;

	if (!exs_source_ok(net, node, peer) || !exs_dest_ok(net, node, peer))
		return EXS_WIRE_REJ_INVALID;
	*lsnp = exs_listener_find(net, peer);
	if (*lsnp) {
		why = exs_child_reserve(*lsnp, rsize, inline_max);
		exs_listener_put(*lsnp);	/* a place holds its own */
	}
	return why;
}

/* @conn is @lsn's child now, for the connection @peer names. */
static void exs_child_adopt(struct exs_conn *conn, struct exs_listener *lsn,
			    const struct exs_wire_peer *peer, u32 inline_max)
{
	conn->lsn = lsn;
	conn->on_connect = exs_child_event;
	conn->inline_max = min_t(u32, inline_max,
				 READ_ONCE(conn->link->inline_cap));
	/* a JOIN's rider's rings are set up next; a parked QP's keep the
	 * charge of the socket they were set up for
	 */
	if (!conn->rbuf)
		conn->memcg = exs_mem_memcg_get(lsn->memcg);
	exs_child_ends(conn, peer);
}

/* An OPEN on @conn, a parked acceptor's end (reuse.c): the listener on
 * its port takes it as it takes a request, with no QP to build.  0, with
 * @conn renewed as the listener's child, or an enum exs_wire_reject.
 * Called under conn->lock, in a completion handler.
 */
int exs_rdma_open_child(struct exs_conn *conn,
			const struct exs_wire_peer *peer)
{
	struct exs_listener *lsn;
	u32 rsize = 0, inline_max = 0;
	int why;

	why = exs_child_claim(conn->net, &conn->node, peer, &lsn, &rsize,
			      &inline_max);
	if (why)
		return why;
	exs_conn_renew(conn);
	exs_child_adopt(conn, lsn, peer, inline_max);
	return EXS_WIRE_REJ_NONE;
}

/* A JOIN on a carrier's QP (share.c): the listener on its port takes
 * @rider, a new connection, as it takes a request.  0, with the rider's
 * ring size and the listener's reference set, or an enum exs_wire_reject.
 * Process context, before the rider is set up (its link is its
 * carrier's).
 */
int exs_rdma_join_child(struct exs_conn *rider,
			const struct exs_wire_peer *peer)
{
	struct exs_listener *lsn;
	u32 inline_max = 0;
	int why;

	why = exs_child_claim(rider->net, &rider->node, peer, &lsn,
			      &rider->rsize, &inline_max);
	if (why)
		return why;
	exs_child_adopt(rider, lsn, peer, inline_max);
	return EXS_WIRE_REJ_NONE;
}

/* Accept the REQ that resumes @conn (resume.c) on @id, its new cm_id: a
 * QP in the connection's PD, and the same ring in the REP.  Process
 * context, outside @id's handler.
 */
int exs_rdma_accept_resumed(struct exs_conn *conn, struct rdma_cm_id *id)
{
	int err;

	rdma_lock_handler(id);
	err = exs_resume_qp(conn);
	if (!err)
		err = exs_accept_rep(conn, id);
	rdma_unlock_handler(id);
	return err;
}

/* The listening cm_ids' handler, which their children inherit: a REQ on
 * a port, or the device under it gone; a child's events once it is a
 * link's cm_id (exs_child_place(), exs_resume_take()) are its link's.
 */
static int exs_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct exs_cm_ctx *ctx = id->context;
	struct exs_lport *lport;

	if (!ctx->listener)
		return exs_link_cm_handler(id, ev);
	lport = container_of(ctx, struct exs_lport, ctx);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return exs_child_request(lport, id, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		exs_lport_removed(lport, id);
	return 0;
}

/* Before the native listen(): listen for RDMA too, on the same address
 * and port, which an unbound socket takes now, as TCP's listen() would:
 * on a cm_id of its own, or, joining a SO_REUSEPORT group, on the
 * group's (listeners.c).  Without a device there is
 * nothing to do.  An error (rdma_cm cannot take the address: another
 * rdma_cm user holds the port) leaves the listener serving TCP only,
 * which exs_listen() counts once TCP listens.
 */
int exs_rdma_listen(struct exs_sock *exs, int backlog)
{
	struct net *net = sock_net(&exs->sk);
	struct sock *nsk = exs->native->sk;
	struct sockaddr_storage addr;
	struct exs_listener *lsn;
	struct exs_lkey key = {
		.family		= nsk->sk_family,
		.v6only		= nsk->sk_family == AF_INET6 &&
				  ipv6_only_sock(nsk),
		.reuseport	= nsk->sk_reuseport,
		.bound_dev_if	= READ_ONCE(nsk->sk_bound_dev_if),
		.uid		= sock_i_uid(nsk),
	};
	int err;

	if (!exs_dev_any())
		return 0;
	err = exs_native_autobind(exs, (struct sockaddr *)&addr);
	if (err)
		return err;
	exs_addr_to_v6((struct sockaddr *)&addr, &key.addr, &key.port);

	lsn = kzalloc(sizeof(*lsn), GFP_KERNEL);
	if (!lsn)
		return -ENOMEM;
	refcount_set(&lsn->ref, 1);
	lsn->net = net;
	lsn->owner = exs;
	lsn->memcg = exs_mem_sock_memcg(&exs->sk);
	spin_lock_init(&lsn->lock);
	INIT_LIST_HEAD(&lsn->queue);
	err = exs_listener_listen(lsn, &key, (struct sockaddr *)&addr, backlog,
				  exs_cm_handler);
	if (err) {
		mem_cgroup_put(lsn->memcg);
		kfree(lsn);
		return err;
	}
	exs->lsn = lsn;
	exs_negcache_forget_local(net, key.port);
	return 0;
}

/* The listener closes: no more requests, and children nobody accepted
 * are reset, as TCP resets its unaccepted children.
 */
void exs_rdma_unlisten(struct exs_sock *exs)
{
	struct exs_listener *lsn = exs->lsn;
	struct exs_conn *conn, *tmp;
	LIST_HEAD(queue);

	if (!lsn)
		return;
	exs->lsn = NULL;

	/* No request is handed to it from here on, and the last of its
	 * group takes the cm_id (listeners.c).  One placed with it just
	 * before finds it closed, or ends when it is up (owner NULL).
	 */
	exs_listener_leave(lsn);
	spin_lock_bh(&lsn->lock);
	lsn->owner = NULL;
	list_splice_init(&lsn->queue, &queue);
	spin_unlock_bh(&lsn->lock);

	list_for_each_entry_safe(conn, tmp, &queue, accept_node) {
		list_del_init(&conn->accept_node);
		conn->lsn = NULL;
		/* never accepted: a reset, as TCP's for its queue */
		exs_conn_reset(conn, false);
		exs_conn_orphan(conn, true);
		exs_listener_put(lsn);
	}
	/* children still connecting see owner == NULL when they finish,
	 * and drop their references then
	 */
	exs_listener_put(lsn);
}

bool exs_rdma_accept_ready(struct exs_sock *exs)
{
	struct exs_listener *lsn = exs->lsn;
	bool ready;

	if (!lsn)
		return false;
	spin_lock_bh(&lsn->lock);
	ready = !list_empty(&lsn->queue);
	spin_unlock_bh(&lsn->lock);
	return ready;
}

struct exs_conn *exs_rdma_accept_dequeue(struct exs_sock *exs)
{
	struct exs_listener *lsn = exs->lsn;
	struct exs_conn *conn = NULL;

	if (!lsn)
		return NULL;
	spin_lock_bh(&lsn->lock);
	if (!list_empty(&lsn->queue)) {
		conn = list_first_entry(&lsn->queue, struct exs_conn,
					accept_node);
		list_del_init(&conn->accept_node);
		lsn->qlen--;
		conn->lsn = NULL;
		/* the listener's own reference keeps it alive */
		refcount_dec(&lsn->ref);
	}
	spin_unlock_bh(&lsn->lock);
	return conn;
}

/* Give an accepted RDMA connection an AF_EXS socket of its own, with a
 * fresh native socket for the TCP-level options it is asked about.
 */
int exs_rdma_accept_graft(struct exs_sock *lexs, struct socket *newsock,
			  struct exs_conn *conn, bool kern)
{
	struct net *net = sock_net(&lexs->sk);
	struct socket *native;
	struct exs_sock *exs;
	struct sock *sk;
	int err;

	err = __sock_create(net, lexs->native->sk->sk_family, SOCK_STREAM,
			    IPPROTO_TCP, &native, kern);
	if (err)
		return err;
	newsock->type = SOCK_STREAM;
	sk = exs_sock_alloc(net, newsock, native, lexs->sk.sk_prot,
			    lexs->sk.sk_protocol, kern);
	if (!sk) {
		sock_release(native);
		return -ENOMEM;
	}
	exs = exs_sk(sk);
	exs_inherit_settings(exs, lexs);
	sock_valbool_flag(sk, SOCK_URGINLINE, conn->urg.lsn_inline);
	sock_valbool_flag(native->sk, SOCK_URGINLINE, conn->urg.lsn_inline);
	exs->conn = conn;
	exs->cstate = EXS_CS_RDMA;
	exs->transport = EXS_TRANSPORT_RDMA;
	exs_busy_poll_mark(&exs->sk);
	sk->sk_state = TCP_ESTABLISHED;
	newsock->state = SS_CONNECTED;

	spin_lock_bh(&conn->lock);
	conn->owner = exs;
	conn->on_connect = NULL;
	conn->lsn = NULL;
	exs_conn_report_err(conn);	/* it may have ended in the queue */
	spin_unlock_bh(&conn->lock);
	EXS_INC_STATS(net, EXS_MIB_ACCEPTRDMA);
	trace_exs_accept(&conn->self, 0);
	exs_watch_update(exs, sock_flag(sk, SOCK_KEEPOPEN));
	return 0;
}
