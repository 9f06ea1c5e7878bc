/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A link: one RDMA queue pair between this host's AF_EXS and a peer
 * host's, and the verbs objects it is made of.  The streams it carries
 * (conn.h) reach them only through the link: a stream's own struct holds
 * no cm_id, PD, CQ or QP (only its ring's MR, in the link's PD).  A link
 * is allocated with the connection that builds its queue pair (a
 * connector's, or a listener's child: its holder); every stream on it
 * holds a reference (conn->link), the holder's the first, and it is
 * freed at the last.  The streams that join it later also hold the
 * holder's connection (conn->carrier), whose teardown still takes the
 * verbs objects down, so today the holder's reference is the last.
 *
 * Locking: link->lock, a spinlock and a leaf (taken after any conn->lock or
 * device lock held, or alone in process context or a completion handler;
 * nothing but the device's own locks, as a request is posted, and the
 * workqueue's, as a walk of the channel table queues work or the link's
 * watch is armed (link_watch.c), is taken under it).  It is taken with BHs
 * off (nothing takes it, or any conn->lock, with interrupts off: rdma_cm
 * handlers and work items run in process context, completions in softirq,
 * and a QP event only queues its work).  It guards what every stream posting
 * on the QP shares: closing and resuming, the batch, tx_bytes, the link's
 * own send slots and the refusals it owes, its fence; and the channel table
 * (chans, each stream's counted_out, the JOINs heard; nchans, read without
 * it as a hint).  A stream posts under it and its own lock, whichever stream
 * built the link (tx.c, batch.c, link_tx.c); the link's own messages, under
 * it and the holder's (link_tx.c).  The verbs objects are set before anyone
 * else posts on them, and taken away by the teardown (teardown.c) or a
 * resume (resume.c) only after closing was set under it, in the same
 * section of the holder's lock as its qp_closing.  The holder's lock
 * (conn.h) still guards the rest that completion handlers and system calls
 * share (counters other than tx_bytes); err is set once, by cmpxchg().  The
 * link table's lock guards table_node, pending and the waiters
 * (link_table.c); mutex guards closed.
 */
#ifndef __EXS_LINK_H
#define __EXS_LINK_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "link_sq.h"
#include "wire.h"

struct exs_conn;
struct exs_link;

/* The context of every rdma_cm_id of ours, its first member: a listening
 * port's (listeners.c), or a link's (link_event.c).  A listening cm_id's
 * children start with its port's and are switched to their link's.
 */
struct exs_cm_ctx {
	bool			listener;
};

/* One of a link's receive buffers (link_rx.c) */
struct exs_rx_slot {
	struct ib_cqe		cqe;
	struct exs_link		*link;
	struct ib_sge		sge;
};

/* The most records a BATCH holds: each is a header and at least a byte */
#define EXS_BATCH_RECS	((EXS_BATCH_MAX - sizeof(struct exs_wire_msg)) / \
			 (sizeof(struct exs_wire_rec) + 1))

/* A BATCH's records as its link read them, once (link_rx.c): for each,
 * its channel, its flags and where its bytes are in the BATCH.
 */
struct exs_rx_batch {
	u8			n;
	struct {
		u8		chan;
		u8		flags;
		u16		off;
		u16		len;
	} rec[EXS_BATCH_RECS];
};

/* A JOIN the acceptor's link heard, for its join work (share.c). */
struct exs_join {
	struct list_head	node;		/* exs_link.joins */
	struct exs_wire_peer	peer;
	u8			chan;
};

struct exs_link {
	struct exs_cm_ctx	ctx;		/* of its cm_ids: not a listener */
	refcount_t		ref;		/* each stream on it */
	struct exs_conn		*holder;	/* whose lock guards the rest */
	/* Who it is to, what the lookups match (link_table.c, share.c,
	 * resume.c, link_diag.c): its namespace (a reference) from its
	 * allocation, the rest set by exs_link_set_peer() before it is in
	 * the table or on its device's list, none changed after that, so
	 * read without a lock.
	 */
	struct net		*net;
	struct in6_addr		node;		/* the peer host's */
	u8			family;		/* its streams' TCP family */
	bool			passive;	/* the peer built it */
	bool			shared;		/* may carry more streams */
	spinlock_t		lock;
	/* No request is posted on the QP: it is going, or failed and is
	 * replaced (its holder's qp_closing, copied here as that is set:
	 * exs_link_qp_shut(); a resume clears it once the new QP is built).
	 */
	bool			closing;
	bool			resuming;	/* ...and no batch until over */
	/* What the QP is, for every stream on it: its device (a reference,
	 * in the device's list of links from the QP's creation to its
	 * teardown), its port's netdev once up, the wire version it speaks,
	 * its ack timeout (the CM's, and net.exs.ack_timeout as the link was
	 * allocated), what a send takes inline.  ack_cfg is set at the
	 * allocation, version before any other stream joins (a resume keeps
	 * it), dev as the QP is built and until the teardown; ifindex and
	 * ack_timeout are written by the CM handler as the QP comes up
	 * (again, after a resume: exs_link_note_up()), inline_cap as it is
	 * created: others read those with READ_ONCE().
	 */
	struct exs_dev		*dev;
	struct list_head	dev_node;	/* exs_dev.links */
	int			ifindex;	/* 0 until up */
	u8			version;	/* the wire version it speaks */
	u8			ack_timeout;	/* the CM's, once up */
	u8			ack_cfg;	/* net.exs.ack_timeout then */
	u16			inline_cap;	/* what a send takes inline */
	struct rdma_cm_id	*cm_id;		/* its QP's; NULL while resuming */
	/* the handshake's events of its cm_ids, for the stream that builds
	 * it (link_event.c): connect.c's or accept.c's, set by that stream
	 * before it gives a cm_id the link's context
	 */
	void			(*handshake)(struct exs_conn *builder,
					     struct rdma_cm_id *id,
					     const struct rdma_cm_event *ev);
	/* A protection domain of the link's own: a ring's key is valid on
	 * this QP alone, so no other QP's peer can reach the ring (the
	 * streams on this link share it: share.c).
	 */
	struct ib_pd		*pd;
	struct ib_qp		*qp;
	struct ib_cq		*scq, *rcq;
	/* resume.c: a failed QP replaced, the link kept */
	struct rdma_cm_id	*old_id;	/* the failed QP's, until gone */
	struct rdma_cm_id	*resume_id;	/* acceptor: the REQ to accept */
	/* link_event.c: a fatal event of its QP, acted on in process
	 * context, if the QP it named is still the link's: qp_gen counts
	 * the changes of qp (exs_link_set_qp()), event_gen is its value as
	 * the event came
	 */
	struct work_struct	qp_event_work;
	enum ib_event_type	qp_event;
	u32			qp_gen;
	u32			event_gen;
	u16			sq_room;	/* the QP's send requests */

	/* receive buffers, for the messages of every stream on it */
	struct exs_rx_slot	*rx;		/* rq_depth of them */
	u16			rq_depth;
	u16			rx_size;	/* what a receive holds */
	void			*rx_msgs;	/* rx_size a slot, DMA mapped */
	u64			rx_msgs_dma;

	/* The channel table (link.c, for share.c): the streams it carries
	 * besides its holder's, by the channel the peer writes to (NULL:
	 * an unshared link's), each with the table's reference; how many
	 * of them post on it (each stream's counted_out says whether it
	 * does); the requests in flight of those counted out
	 * (link_sq.h); the JOINs heard, for the acceptor's join work.
	 * Under lock; nchans and quiet_sq are read without it as hints.
	 */
	struct exs_conn		**chans;
	u8			nchans;		/* channels counted in */
	u16			quiet_sq;	/* ...sends of those out */
	u8			njoins;		/* ...JOINs waiting */
	struct list_head	joins;		/* JOINs heard, to handle */
	/* link_watch.c: the sends of streams counted out (quiet_sq), which
	 * no stream watches, tested by a fence of the link's own after them
	 * (link_tx.c): fences posted, the last that completed, whether one
	 * is in flight and since when (under lock); the work that posts it
	 * and bounds it, its completion's entry
	 */
	u32			fences;
	u32			fences_done;
	bool			fence_out;
	unsigned long		fence_at;
	struct delayed_work	watch_work;
	struct ib_cqe		fence_cqe;
	/* held while a stream is set up in its PD, and while its teardown
	 * takes the streams' registrations away
	 */
	struct mutex		mutex;
	bool			closed;		/* ...after which none joins */
	int			err;		/* its QP failed: every stream
						 * on it ends so (its first,
						 * set once: exs_link_fail())
						 */
	bool			reset;		/* the peer's protocol error in
						 * what the link reads ended it
						 * (exs_conn_reset_link(): the
						 * holder's lock)
						 */

	/* link_tx.c: its own messages, for channels no stream of ours
	 * has, from send slots of its own (a shared link's); REFUSEs with
	 * no slot free, owed by the peer's channel (the reason, 0: none).
	 * Under lock (ctrl_cqe: set at the allocation).
	 */
	struct exs_wire_msg	ctrl_msg;	/* sent inline: copied */
	struct ib_cqe		ctrl_cqe;
	u8			ctrl_inflight;	/* of EXS_LINK_SQ */
	u8			nrefuse_owed;
	u8			refuse_owed[EXS_CHAN_MAX];

	/* batch.c: a shared QP's small writes, gathered in a BATCH */
	void			*batch;		/* EXS_BATCH_MAX bytes */
	u16			batch_len;	/* ...held, not yet posted */
	u16			batch_cap;	/* ...what one SEND takes inline */
	u16			batch_rec;	/* ...where its last record is */
	u8			batch_nrec;
	u8			batch_inflight;	/* posted, not yet completed */
	struct ib_cqe		batch_cqe;
	u32			batch_posted;	/* batches posted, in all */
	u32			batch_acked;	/* ...and completed: in order */
	unsigned long		batch_acked_at;	/* jiffies of the last, or of
						 * the first post awaiting one
						 */

	/* link_table.c: a connector's link built to share, in the table
	 * later connects to its node look in; coming up, they wait for it
	 */
	struct hlist_node	table_node;	/* exs_links */
	bool			pending;	/* not up yet */
	u8			nwaiters;
	struct list_head	waiters;	/* exs_sock.link_wait_node */

	/* link_diag.c: its counters, those of every stream on it, which
	 * outlive each of them
	 */
	u32			id;		/* unique while loaded; 0: none */
	u32			resumes;	/* moves to a new QP */
	u64			tx_bytes;	/* stream bytes posted (lock) */
	u64			rx_bytes;	/* ...and arrived on it */
};

/* From wire version 7 a closing end always says LAST, so a FIN alone ends
 * no stream on @link: a disconnect or a flush after it is a failure to
 * resume from (wire.h)
 */
static inline bool exs_link_says_last(const struct exs_link *link)
{
	return link->version >= EXS_WIRE_V_LAST;
}

#endif /* __EXS_LINK_H */
