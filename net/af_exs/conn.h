/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA connection behind an AF_EXS socket: rings, cursors, credits,
 * FINs; and a reference on the link that carries it (link.h), which it
 * built or joined.
 *
 * A connection is created by connect.c or accept.c, owned by one AF_EXS
 * socket from connect()/accept() to close(), and freed by its teardown
 * work (conn.c) once the queue pair is drained, so completion handlers
 * never see freed memory.
 *
 * Locking: conn->lock (a BH spinlock) guards the cursors and flags that
 * completion handlers (softirq) and system calls share.  The socket lock
 * serialises system calls; it is never taken in a completion handler.
 * Queue-pair events may come in hard interrupt context (the driver's), so
 * their handler takes no lock: it hands the event to a work item.  Order:
 * socket lock, then conn->lock, then a listener's lock (the connection
 * announces itself to its listener under its own lock, from a completion
 * handler when the connector's READY or OPEN comes); conn->lock, then
 * the parked pool's lock (reuse.c), never held while taking a
 * conn->lock; device.c's list of devices, then a device's lock, then
 * conn->lock.  A resume (resume.c) takes a new cm_id's handler lock
 * before conn->lock, as rdma_cm's handlers do, and waits for the old
 * cm_id's handlers with no lock held.  The watch work (keepalive.c)
 * takes conn->lock only; the teardown cancels it without, once it set
 * qp_closing under it (no watch is armed after that).  The link's watch
 * (link_watch.c) takes each counted-out stream's lock, then link->lock,
 * and apart from that the holder's, then link->lock; the holder's
 * teardown cancels it with no lock held, once it set link->closing.  Every stream
 * posts under its own lock, then its link's (link->lock, link.h), and
 * reads the link's PD and device only there, as the link's teardown
 * frees them once it set link->closing under that lock.  link->lock is
 * a leaf: taken after the stream's own lock (and a rider's carrier's,
 * nested), after a device's lock in the link dump, or alone as a QP is
 * built or its channel table is read or changed (the callbacks of a
 * walk of the table take no lock).  A rider (share.c) takes its
 * carrier's lock nested under its own to join, leave or resume; a
 * carrier's completion handler hands a rider's message on with no lock
 * held (it finds the rider under the link's lock), and its resume
 * reaches its riders from work items, never under its own lock; a
 * carrier's link mutex comes before either lock.  The parked pool's
 * lock comes after a conn->lock (reuse.c); the link table's
 * (link_table.c) comes last, after a socket's lock, a conn->lock or the
 * parked pool's.  A URG (oob.c) takes its owner's fown lock
 * (sk_send_sigurg()) under conn->lock.
 */
#ifndef __EXS_CONN_H
#define __EXS_CONN_H

#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <net/netns/hash.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "link.h"
#include "urg.h"
#include "wire.h"

#define EXS_RQ_DEPTH		64	/* receives posted; reposted at once */
/* A shared QP's receives, kept posted for every stream on it */
#define EXS_SHARE_RQ_DEPTH	256
#define EXS_PROBE_INTERVAL	HZ	/* a full peer ring is probed */
/* A closed socket's last bytes and FIN have this long, from its close,
 * to reach the peer, however many resumes it takes (TCP's orphans have
 * their retries, tcp_orphan_retries): a peer that makes every QP fail
 * again cannot hold a closed socket's rings for longer.
 */
#define EXS_ORPHAN_TIMEOUT	(60 * HZ)
/* Transport retries before a send fails with RETRY_EXC (ETIMEDOUT).  7,
 * the most there is: rxe counts down on every retry, a NAK's or a
 * timeout's, and recounts only on a clean ack, so under 1% loss a long
 * stream once ran out of 6.  rxe reads 7 as "retry forever" (the spec does
 * so only for RNR retries), and the stall watch then bounds a dead peer.
 * RNR retries are forever too: receives are reposted at once, so an RNR
 * NAK only means a busy peer.
 */
#define EXS_RETRY_COUNT		7
#define EXS_RNR_RETRY_COUNT	7

/* What every connection asks of rdma_cm: its private data, our retries. */
static inline struct rdma_conn_param exs_conn_param(const void *pdata, u8 len)
{
	return (struct rdma_conn_param) {
		.private_data		= pdata,
		.private_data_len	= len,
		.retry_count		= EXS_RETRY_COUNT,
		.rnr_retry_count	= EXS_RNR_RETRY_COUNT,
	};
}

/* One rdma-capable device and the links on it. */
struct exs_dev {
	struct ib_device	*ibdev;
	refcount_t		ref;		/* links + 1 while registered */
	struct completion	released;
	spinlock_t		lock;		/* links, dying */
	struct list_head	links;		/* exs_link.dev_node */
	struct list_head	node;		/* exs_devs */
	bool			dying;
};

enum exs_conn_state {
	EXS_CONN_CONNECTING,
	EXS_CONN_ESTABLISHED,
	EXS_CONN_CLOSED,	/* failed, reset or disconnected */
};

/* How far a connector got: what its timeout names in the log */
enum exs_connect_stage {
	EXS_STAGE_ADDR,		/* resolving the node's address */
	EXS_STAGE_ROUTE,	/* resolving the route */
	EXS_STAGE_REP,		/* REQ sent */
	EXS_STAGE_READY,	/* connected (or OPEN sent): READY awaited */
};

/* reuse.c: where a connection stands towards reuse */
enum exs_park_state {
	EXS_PARK_NONE,		/* in use */
	EXS_PARK_IDLE,		/* parked: waits for the next connection */
	EXS_PARK_GONE,		/* ended: never parks (again) */
};

/* resume.c: where a connection stands in moving to a new queue pair */
enum exs_resume_phase {
	EXS_RESUME_NONE,
	EXS_RESUME_DRAIN,	/* the failed QP is going */
	EXS_RESUME_WAIT,	/* acceptor: gone; waits for the REQ */
	EXS_RESUME_CONNECT,	/* the new QP is connecting */
	EXS_RESUME_SYNC,	/* up; waits for the peer's RESUME */
};

enum exs_tx_kind {
	EXS_TX_REG,
	EXS_TX_DATA,
	EXS_TX_CTRL,
	EXS_TX_ABORT,	/* a reset's ABORT: the teardown waits for its ack */
};

struct exs_conn;
struct exs_mem_peer;
struct exs_sock;

/* What a listener listens on: its address and port, and what TCP groups
 * SO_REUSEPORT listeners by (listeners.c).
 */
struct exs_lkey {
	struct in6_addr		addr;		/* bound to; any, or IPv4-mapped */
	__be16			port;
	bool			v6only;
	bool			reuseport;	/* SO_REUSEPORT when it listened */
	int			family;		/* of the native listener */
	int			bound_dev_if;
	kuid_t			uid;		/* its native socket's owner */
};

/* The listeners of a SO_REUSEPORT group, for a request to pick from */
struct exs_lmembers {
	struct rcu_head		rcu;
	unsigned int		n;
	struct exs_listener	*m[];
};

/* The cm_id that listens for RDMA on a port, for one listener or for
 * every listener of a SO_REUSEPORT group (listeners.c): its context, so
 * it lives until the cm_id is gone, whichever listener closes first.
 */
struct exs_lport {
	struct exs_cm_ctx	ctx;
	struct rdma_cm_id	*id;		/* NULL once its device went */
	struct net		*net;
	struct exs_lkey		key;
	struct exs_lmembers __rcu *members;
	struct hlist_node	hnode;		/* exs_lports, while it has any */
	struct work_struct	remove_work;	/* the device went away */
	struct rcu_head		rcu;
};

struct exs_listener {
	refcount_t		ref;		/* the socket + each child, and
						 * a request being placed
						 */
	struct exs_lport	*lport;		/* its port, whose cm_id takes
						 * its REQs
						 */
	struct exs_sock		*owner;		/* NULL once closed */
	struct net		*net;
	spinlock_t		lock;		/* queue, qlen, owner */
	struct list_head	queue;		/* established, not accepted */
	struct mem_cgroup	*memcg;		/* the socket's, for the rings */
	unsigned int		qlen;		/* queued and still connecting */
	struct rcu_head		rcu;
};

struct exs_tx_slot {
	struct ib_cqe		cqe;
	struct exs_conn		*conn;
	u64			posted_ns;	/* when: its ack is an RTT sample */
	u32			seq;		/* sq_head when it was posted */
	u32			end;		/* bytes posted, this one included */
	u8			kind;		/* enum exs_tx_kind */
};

struct exs_conn {
	refcount_t		ref;
	spinlock_t		lock;		/* see above */
	struct net		*net;
	/* the link whose queue pair carries it (link.h), a reference: the
	 * one it built (it is the holder), or its carrier's
	 */
	struct exs_link		*link;
	struct list_head	accept_node;	/* exs_listener.queue */

	u8			state;		/* enum exs_conn_state */
	u8			reason;		/* enum exs_fallback_reason */
	u8			stage;		/* connector: enum exs_connect_stage */
	int			err;		/* how it ended, if with an error */
	bool			passive;	/* accepted, not connected */
	bool			transient;	/* refused, but not for good */
	bool			ready_sent;
	bool			peer_ready;
	bool			announced;	/* on_connect told it is up */
	bool			answer_late;	/* ...waits past the deadline */
	bool			racing;		/* REQ sent: TCP's turn comes at
						 * timeout_at (head_start.c)
						 */
	bool			fin_sent;
	bool			fin_acked;	/* ...and in the peer's ring */
	bool			fin_rcvd;
	bool			shut_wr;	/* FIN wanted once data is out */
	bool			peer_low;	/* sender asked for credits */
	bool			credit_owed;	/* no send slot when due */
	bool			tx_wanted;	/* a sender or poller found no room */
	bool			nodelay;	/* TCP_NODELAY: never gather */
	bool			hold;		/* TCP_CORK or MSG_MORE: gather */
	u16			inline_max;	/* writes this small go inline */
	u8			credit_fraction; /* credit every 1/N ring */
	bool			orphan;		/* the socket is closed */
	bool			torn_down;	/* handlers must not build more */
	bool			qp_closing;	/* we flush the QP: flushes are ours */
	bool			hw_released;	/* hw_work ran */
	bool			orphan_put;	/* ...and dropped the socket's ref */
	bool			persist;	/* the watch probes a full ring */
	bool			keepalive;	/* SO_KEEPALIVE: probe when idle */
	bool			abort_sent;	/* our ABORT is posted: */
	struct completion	abort_done;	/* ...and completed */
	/* reuse.c: both ends say LAST once done, then the QP parks */
	bool			last_sent;	/* nothing more from us */
	bool			last_rcvd;	/* ...nor from the peer */
	bool			reused;		/* carried by a parked QP */
	u8			refused;	/* ...whose OPEN was refused: why */
	u8			park;		/* enum exs_park_state */
	u32			last_cursor;	/* the peer's LAST: it consumed */
	/* resume.c: a failed QP replaced, the stream kept */
	u8			resume;		/* enum exs_resume_phase */
	bool			resume_off;	/* the teardown began: never */
	bool			peer_resumed;	/* its RESUME came: */
	u8			peer_resume_flags;
	u32			peer_resume_cursor;
	int			resume_err;	/* what a failed resume ends with */
	struct work_struct	resume_work;
	struct work_struct	resolve_work;	/* connect.c: another try */
	unsigned long		timeout_at;	/* when timeout_work may act */
	/* a closed socket's last bytes are through by then, resumes or not */
	unsigned long		orphan_by;
	unsigned long		connect_by;	/* racing: the connect deadline */
	struct hlist_node	park_node;	/* exs_parked */
	/* the peer's RDMA node: where a connector connects (and parks for),
	 * where an acceptor's REQs come from (a resume's too)
	 */
	struct in6_addr		node;

	/* the socket completions wake; NULL once it is closed */
	struct exs_sock		*owner;
	/* the closed socket's native one: it holds in TCP the port the
	 * cm_id holds in rdma_cm, until the cm_id is gone
	 */
	struct socket		*native;
	struct exs_listener	*lsn;		/* accepted: until accept() */
	struct work_struct	hw_work;	/* release the RDMA resources */
	struct delayed_work	timeout_work;	/* connect or close took too long */
	struct delayed_work	watch_work;	/* is the peer alive? keepalive.c */
	unsigned long		watch_at;	/* ...runs then, if armed */
	bool			watch_armed;
	bool			watch_over;	/* the teardown stopped it */
	unsigned long		last_heard;	/* jiffies of its last completion */
	/* jiffies of the last send completion, or of the first signaled
	 * request posted after none awaited an ack: how long the send
	 * queue has stood still (the peer's probes may still arrive)
	 */
	unsigned long		last_acked;
	void			(*on_connect)(struct exs_conn *conn);

	struct exs_wire_peer	self;		/* our TCP-level end */
	struct exs_wire_peer	peer;		/* theirs, and their ring */

	/* mem.c: the memory cgroup its rings are charged to (a reference),
	 * and the pages an accepted stream's count against the limits
	 */
	struct mem_cgroup	*memcg;
	struct exs_mem_peer	*mem_peer;	/* ...and whose they count as */
	unsigned long		mem_pages;

	/* receive ring: peers write here, registered for this QP only */
	void			*rbuf;
	u32			rsize;
	struct scatterlist	rsg;
	struct ib_mr		*mr;
	u32			rprod;		/* bytes the peer has written */
	u32			rcons;		/* bytes the socket consumed */
	u32			racked;		/* rcons last sent as credit */
	u64			rx_bytes;	/* read by the socket, in all */

	/* send buffer: a mirror of the peer's ring, same offsets */
	void			*tbuf;
	u32			tsize;
	u64			tdma;
	u32			tcopied;	/* bytes copied from the user */
	u32			tposted;	/* bytes posted to the QP */
	u32			tdone;		/* bytes whose write completed */
	u32			tcredit;	/* peer's consumer cursor */
	u64			tx_bytes;	/* copied from the user, in all */

	/* oob.c: urgent data either way, in the rings' cursors */
	struct exs_urg		urg;

	/* Requests complete in order, and a completion (only the signaled
	 * ones have any) retires its request and every one before it.
	 */
	struct exs_tx_slot	tx[EXS_SQ_DEPTH];
	u32			sq_head, sq_tail;
	/* a signaled request's post to its completion (the peer's device
	 * acked it), smoothed as TCP's RTT is: what TCP_INFO reports
	 */
	u32			srtt_us;	/* 0: no sample yet */
	u32			rttvar_us;
	u32			min_rtt_us;
	u32			sq_signaled;	/* sq_head after the last signaled */
	/* batch.c: the batch its last bytes went in, and since
	 * when it awaits an ack for batched bytes (as for a request)
	 */
	u32			batch_gen;
	unsigned long		batch_at;
	/* share.c: a QP that carries more connections than its first */
	bool			share;		/* built for it: channels */
	bool			link_only;	/* its own stream ended, the QP
						 * still carries others
						 */
	u8			chan;		/* ours: what the peer writes to */
	u8			peer_chan;	/* the peer's, what we write to */
	bool			leave_wait;	/* a rider's teardown waits for its
						 * requests to complete
						 */
	struct exs_conn		*carrier;	/* a rider's: whose QP, PD, CQs */
	bool			counted_out;	/* a rider no longer in its
						 * link's nchans (link->lock)
						 */
	u8			quiet_sq;	/* ...its requests in flight
						 * then, in the link's
						 * quiet_sq (link->lock)
						 */
	u32			quiet_gen;	/* ...and the link's fences
						 * posted by then, its sq_head
						 * then (link_watch.c;
						 * link->lock)
						 */
	u32			quiet_head;
	struct work_struct	join_work;
	struct exs_wire_peer	joined;		/* a rider's JOINED, for it */
	union {				/* scratch, sent inline */
		struct exs_wire_msg	tx_msg;
		struct exs_wire_open	tx_open;
	};
};

/* Where a peer node's queue pairs hash, in @net (link_table.c, reuse.c) */
static inline u32 exs_node_hash(const struct net *net,
				const struct in6_addr *node)
{
	return jhash2((const u32 *)node, 4, net_hash_mix(net));
}

/* How many streams besides its own the link @conn holds carries: none
 * for a stream carried by another's.
 */
static inline u8 exs_conn_carries(const struct exs_conn *conn)
{
	return conn->link && !conn->carrier ? READ_ONCE(conn->link->nchans) : 0;
}

/* An end in order once the QP goes: the peer's FIN came first, or a
 * closed socket's own FIN was delivered (it wants nothing more: TCP's
 * FIN_WAIT_2 ends with the peer's FIN or its timer, never as an abort).
 * Called under conn->lock.
 */
static inline bool exs_conn_ends_in_order(const struct exs_conn *conn)
{
	return conn->fin_rcvd || (conn->orphan && conn->fin_acked);
}

/* Both FINs are through: every byte either way was delivered, so a QP
 * that fails now takes nothing with it.  Called under conn->lock.
 */
static inline bool exs_conn_stream_over(const struct exs_conn *conn)
{
	return conn->fin_rcvd && conn->fin_acked;
}

/* The peer is done with the stream: both FINs are through, or it said
 * LAST (its socket closed, and wants nothing more of ours).  A QP that
 * fails now ends it in order.  Called under conn->lock.
 */
static inline bool exs_conn_peer_over(const struct exs_conn *conn)
{
	return exs_conn_stream_over(conn) || conn->last_rcvd;
}

/* device.c */
int exs_device_init(void);
void exs_device_exit(void);
struct exs_dev *exs_dev_get(struct ib_device *ibdev);
bool exs_dev_any(void);
void exs_dev_put(struct exs_dev *dev);
bool exs_dev_port_down(struct net *net, int ifindex);
void exs_dev_wait_port_up(struct exs_link *link, struct rdma_cm_id *id);
void exs_dev_stop_waits(void);
void exs_dev_each_link(void (*fn)(struct exs_link *link, void *arg),
		       void *arg);

/* link.c */
struct exs_link *exs_link_alloc(struct exs_conn *holder, struct net *net,
				struct rdma_cm_id *id);
void exs_link_set_peer(struct exs_link *link, const struct in6_addr *node,
		       u8 family, bool passive, bool shared);
void exs_link_get(struct exs_link *link);
int exs_link_chan_add(struct exs_link *link, struct exs_conn *conn);
void exs_link_quiet_done(struct exs_link *link, struct exs_conn *conn);
struct exs_conn *exs_link_chan_get(struct exs_link *link, u8 chan);
bool exs_link_chan_used(struct exs_link *link, u8 chan);
bool exs_link_each_chan(struct exs_link *link,
			bool (*fn)(struct exs_conn *conn, void *arg),
			void *arg);
int exs_link_chan_count_out(struct exs_link *link, struct exs_conn *conn);
bool exs_link_chan_count_in(struct exs_link *link, struct exs_conn *conn);
bool exs_link_chan_del(struct exs_link *link, struct exs_conn *conn);
struct exs_conn *exs_link_chan_take(struct exs_link *link, u8 chan);
void exs_link_fail(struct exs_link *link, int err);
bool exs_link_join_add(struct exs_link *link, struct exs_join *join);
struct exs_join *exs_link_join_next(struct exs_link *link);
void exs_link_put(struct exs_link *link);
void exs_link_qp_shut(struct exs_link *link, bool resume);
void exs_link_qp_open(struct exs_link *link);
void exs_link_qp_resumed(struct exs_link *link);

/* link_tx.c */
int exs_link_post(struct exs_link *link, struct ib_send_wr *wr);
void exs_link_tx_init(struct exs_link *link);
void exs_link_abort_chan(struct exs_link *link, u8 chan);
void exs_link_refuse(struct exs_link *link, u8 chan, int why);
void exs_link_tx_done(struct ib_cq *cq, struct ib_wc *wc);
int exs_link_post_fence(struct exs_link *link);
void exs_link_fence_done(struct ib_cq *cq, struct ib_wc *wc);
void exs_link_post_failed(struct exs_link *link, int err);
void exs_link_req_done(struct exs_link *link, const struct ib_wc *wc,
		       int err);

/* link_event.c */
void exs_link_set_qp(struct exs_link *link, struct ib_qp *qp);
void exs_link_qp_event(struct ib_event *ev, void *context);
void exs_link_qp_event_work(struct work_struct *work);
void exs_link_qp_events_end(struct exs_link *link);
int exs_link_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

/* link_watch.c */
void exs_link_watch_begin(struct exs_link *link, struct exs_conn *conn);
void exs_link_watch_work(struct work_struct *work);
void exs_link_watch_stop(struct exs_link *link);

/* link_qp.c */
int exs_link_build(struct exs_link *link);
int exs_link_make_qp(struct exs_link *link, u32 inline_max);
void exs_link_release(struct exs_link *link);

/* conn.c */
u8 exs_wire_version_max(void);
struct exs_conn *exs_conn_alloc(struct net *net, bool holder,
				struct rdma_cm_id *id, u32 rsize,
				u32 inline_max);
void exs_conn_set_ack_timeout(struct rdma_cm_id *id, struct net *net);
int exs_conn_create_qp(struct exs_conn *conn);
int exs_conn_map_ring(struct exs_conn *conn);
int exs_conn_set_peer_ring(struct exs_conn *conn,
			   const struct exs_wire_peer *peer);
void exs_conn_established(struct exs_conn *conn);
void exs_conn_disconnected(struct exs_conn *conn);
void exs_conn_put(struct exs_conn *conn);
void exs_conn_wake(struct exs_conn *conn, __poll_t mask);
void exs_wake(struct exs_sock *exs, __poll_t mask);
void exs_conn_wc_failed(struct exs_conn *conn, const struct ib_wc *wc,
			bool recv);
void exs_conn_qp_failed(struct exs_conn *conn, int err);
void exs_conn_announce(struct exs_conn *conn);
void exs_conn_renew(struct exs_conn *conn);
int exs_conn_make_qp(struct exs_conn *conn);
int exs_conn_init(void);
void exs_conn_exit(void);

/* teardown.c */
void __exs_conn_abort(struct exs_conn *conn, int err, bool protocol_error);
void exs_conn_abort(struct exs_conn *conn, int err, bool protocol_error);
void __exs_link_abort(struct exs_conn *conn, int err, bool protocol_error);
void exs_link_abort(struct exs_conn *conn, int err, bool protocol_error);
void exs_conn_orphan(struct exs_conn *conn, bool reset);
void exs_conn_disown(struct exs_conn *conn, struct socket **native,
		     bool reset);
void exs_conn_hw_release(struct exs_conn *conn, bool destroy_id);
void exs_conn_queue_hw(struct exs_conn *conn);
void exs_conn_hw_work(struct work_struct *work);
void exs_conn_report_err(struct exs_conn *conn);
void exs_conn_close_err(struct exs_conn *conn, int err);
void exs_conn_arm_timeout(struct exs_conn *conn, unsigned long delay);
void exs_conn_arm_orphan(struct exs_conn *conn);
void exs_conn_arm_resume(struct exs_conn *conn, unsigned long delay);
void exs_conn_disarm_timeout(struct exs_conn *conn);
void exs_conn_timeout_work(struct work_struct *work);

/* tx.c */
void exs_tx_done(struct ib_cq *cq, struct ib_wc *wc);
void exs_conn_tx_push(struct exs_conn *conn);
void exs_conn_credit(struct exs_conn *conn);
u32 exs_conn_tx_room(struct exs_conn *conn);
u32 exs_conn_tx_free(const struct exs_conn *conn);
void exs_conn_write_space(struct exs_conn *conn);
bool exs_conn_tx_finished(const struct exs_conn *conn);
void exs_conn_shut_wr(struct exs_conn *conn);
void exs_conn_probe(struct exs_conn *conn);
bool exs_conn_awaits_ack(const struct exs_conn *conn);
unsigned long exs_conn_unacked_since(const struct exs_conn *conn);
void exs_conn_stalled(struct exs_conn *conn, bool may_resume);
void exs_conn_sq_through(struct exs_conn *conn);
void exs_conn_leave_go(struct exs_conn *conn);
int exs_conn_send_reg(struct exs_conn *conn);
int exs_conn_send_ctrl(struct exs_conn *conn, enum exs_wire_msg_type type,
		       u32 cursor);
int exs_conn_send_open(struct exs_conn *conn);
int exs_conn_send_join(struct exs_conn *conn, enum exs_wire_msg_type type);
int exs_conn_send_resume(struct exs_conn *conn);
void exs_conn_send_abort(struct exs_conn *conn);
void exs_conn_send_orphan_abort(struct exs_conn *conn);
bool exs_conn_orphan_rx(struct exs_conn *conn);
void exs_conn_reset(struct exs_conn *conn, bool protocol_error);
void exs_conn_reset_link(struct exs_conn *conn);

/* batch.c */
void exs_batch_init(struct exs_link *link);
int exs_batch_post(struct exs_link *link);
void exs_batch_done(struct ib_cq *cq, struct ib_wc *wc);
bool exs_batch_add(struct exs_conn *conn, u32 len, bool low);
bool exs_batch_awaits(const struct exs_conn *conn);
unsigned long exs_batch_waiting_since(const struct exs_conn *conn);

/* link_rx.c */
void exs_link_rx_done(struct ib_cq *cq, struct ib_wc *wc);
int exs_link_post_recv(struct exs_link *link, struct exs_rx_slot *slot);

/* rx.c: a stream's part of its link's receives */
int exs_stream_rx_own(struct exs_conn *conn, enum ib_wc_opcode opcode,
		      const union exs_wire_rx *msg, u8 type, u32 cursor,
		      u32 imm, bool *stream_err);
int exs_stream_rx_batch(struct exs_conn *conn, const u8 *buf,
			const struct exs_rx_batch *batch);
void exs_stream_rx(struct exs_conn *conn, enum ib_wc_opcode opcode,
		   const union exs_wire_rx *msg, u8 type, u32 cursor, u32 imm,
		   const void *data);
void exs_rx_proto_err(const struct exs_conn *conn, u8 type);

/* reuse.c */
struct exs_wire_peer;
void exs_park_last(struct exs_conn *conn);
void exs_conn_finished(struct exs_conn *conn);
bool exs_park_expire(struct exs_conn *conn);
bool exs_park_end(struct exs_conn *conn, int err, bool *carried);
void exs_park_unlink(struct exs_conn *conn);
void exs_park_leave(struct exs_conn *conn);
struct exs_conn *exs_park_take(struct net *net, const struct in6_addr *node,
			       int family, u32 rsize, u8 ack_cfg, bool share);
void exs_park_return(struct exs_conn *conn);
bool exs_park_evict_port(struct net *net, __be16 port);
int exs_park_accept(struct exs_conn *conn, const struct exs_wire_peer *peer,
		    u8 from);

/* accept.c: an OPEN for a listener, as a REQ is; 0 or enum exs_wire_reject */
int exs_rdma_open_child(struct exs_conn *conn,
			const struct exs_wire_peer *peer);
int exs_rdma_accept_resumed(struct exs_conn *conn, struct rdma_cm_id *id);
int exs_rdma_join_child(struct exs_conn *rider,
			const struct exs_wire_peer *peer);

/* listeners.c */
void exs_listener_put(struct exs_listener *lsn);
int exs_listener_listen(struct exs_listener *lsn, const struct exs_lkey *key,
			struct sockaddr *addr, int backlog,
			rdma_cm_event_handler handler);
void exs_listener_leave(struct exs_listener *lsn);
struct exs_listener *exs_listener_pick(struct exs_lport *lport,
				       const struct exs_wire_peer *peer);
struct exs_listener *exs_listener_find(struct net *net,
				       const struct exs_wire_peer *peer);
void exs_lport_removed(struct exs_lport *lport, struct rdma_cm_id *id);
bool exs_request_fits(const struct exs_listener *lsn,
		      const struct exs_wire_peer *peer);
bool exs_listener_addr_ok(const struct exs_listener *lsn,
			  const struct in6_addr *daddr);

/* connect.c */
void exs_connect_resolve_work(struct work_struct *work);
int exs_connect_resume(struct exs_conn *conn);

/* head_start.c */
void exs_head_start(struct exs_conn *conn);
void exs_head_start_over(struct exs_conn *conn);
bool exs_head_start_out(struct exs_conn *conn);

/* resume.c */
bool exs_conn_resume(struct exs_conn *conn, int err);
void exs_resume_work(struct work_struct *work);
int exs_resume_request(struct rdma_cm_id *id, struct net *net,
		       const struct exs_wire_peer *peer);
int exs_resume_up(struct exs_conn *conn);
int exs_resume_qp(struct exs_conn *conn);
int exs_resume_rx(struct exs_conn *conn, u32 cursor, u8 flags);
void exs_resume_stop(struct exs_conn *conn);
void exs_resume_init(void);
void exs_test_hold_teardown(void);
void exs_test_hold_joins(void);
unsigned long exs_orphan_timeout(void);
void exs_resume_exit(void);

/* share.c */
struct exs_conn *exs_share_find(struct net *net, const struct in6_addr *node,
				int family, u8 ack_cfg);
int exs_share_join(struct exs_sock *exs, struct exs_conn *carrier,
		   struct sockaddr *addr, struct sockaddr *src, u32 rsize,
		   unsigned long timeout,
		   void (*on_connect)(struct exs_conn *conn));
void exs_share_refused(struct exs_conn *rider);
void exs_share_refuse_open(struct exs_conn *rider, u8 chan, int why);
int exs_share_rx_join(struct exs_conn *carrier,
		      const struct exs_wire_peer *peer, u8 chan);
int exs_share_rx_joined(struct exs_conn *rider,
			const struct exs_wire_peer *peer, u8 chan);
bool exs_share_busy(struct exs_conn *conn);
bool exs_share_link_gone(struct exs_conn *carrier);
bool exs_share_riders_live(const struct exs_conn *carrier);
void exs_share_leave(struct exs_conn *rider);
void exs_share_quiet(struct exs_conn *rider);
bool exs_share_retake(struct exs_conn *rider);
bool exs_share_resume(struct exs_conn *rider, int err);
__be16 exs_share_resume_port(struct exs_conn *carrier);
int exs_share_rx_stray(struct exs_conn *carrier, bool msg, u8 type,
		       u32 cursor);
void exs_share_drop_riders(struct exs_conn *carrier);
void exs_share_settle(struct exs_conn *carrier, unsigned long wait);
void exs_share_link_failed(struct exs_conn *conn, int err);
void exs_share_join_work(struct work_struct *work);
bool exs_share_can_carry(const struct exs_conn *conn);

/* link_table.c */
bool exs_link_claim(struct exs_sock *exs, struct exs_conn *conn,
		    bool may_wait);
void exs_link_table_del(struct exs_link *link);
void exs_link_reopen(struct exs_conn *conn);
void exs_links_each(struct net *net, const struct in6_addr *node,
		    bool (*fn)(struct exs_conn *conn, void *arg), void *arg);
void exs_link_wait_end(struct exs_conn *conn, u8 reason);
bool exs_link_wait_over(struct exs_sock *exs);
void exs_link_wait_cancel(struct exs_sock *exs);
void exs_link_wait_expire(struct work_struct *work);

/* oob.c */
void exs_urg_mark(struct exs_conn *conn);
int exs_urg_send(struct exs_conn *conn);
void exs_urg_acked(struct exs_conn *conn);
void exs_urg_resumed(struct exs_conn *conn, u32 cursor);
int exs_urg_rx(struct exs_conn *conn, u32 cursor);
void exs_urg_rx_bytes(struct exs_conn *conn);

/* keepalive.c */
void exs_watch_work(struct work_struct *work);
void exs_watch_stalled(struct exs_conn *conn);
void exs_watch_await(struct exs_conn *conn);
void exs_watch_update(struct exs_sock *exs, bool keepalive);
void exs_watch_stop(struct exs_conn *conn);
void exs_keepalive(struct sock *sk, int on);

extern struct workqueue_struct *exs_wq;

#endif /* __EXS_CONN_H */
