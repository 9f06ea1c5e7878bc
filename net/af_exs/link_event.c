// SPDX-License-Identifier: GPL-2.0
/*
 * A link's events (link.h): its QP's, which the driver raises, and its
 * cm_ids', which rdma_cm raises (their context, exs_cm_ctx, is the
 * link).  What concerns the QP every stream on the link posts on the
 * link takes and tells its streams: today through the stream that built
 * it (its holder), whose end or resume takes the others along (share.c).
 * The handshake's own events it passes to that stream, its builder.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include "conn.h"

/* @qp is @link's QP from now (NULL: none), a generation later, so an
 * event noted before the change is known for old news
 * (exs_link_qp_event_work()): a freed QP's address may be the next
 * one's.  A QP is cleared only once destroyed (no event names it after
 * that), and set only where there was none.  Never two at once: the
 * builder's rdma_cm handler, then a resume or the teardown, each of
 * which stops the other first (exs_resume_stop(), rdma_lock_handler()).
 */
void exs_link_set_qp(struct exs_link *link, struct ib_qp *qp)
{
	WRITE_ONCE(link->qp_gen, link->qp_gen + 1);
	/* pairs with the event's acquire: who sees this QP sees its
	 * generation, or a later one
	 */
	smp_store_release(&link->qp, qp);
}

/* The queue pair's own events, in whatever context the driver raises
 * them (hard interrupts too: no lock here): only its failures matter,
 * and they are acted on in process context, with a reference on the
 * link.  The event names a QP alive as it runs, which is the link's
 * unless it was just created (an event then is dropped); the work knows
 * a QP replaced since by the generation noted.  The QP is destroyed, and
 * the work cancelled (exs_link_qp_events_end()), before the holder whose
 * lock it takes is freed.
 */
void exs_link_qp_event(struct ib_event *ev, void *context)
{
	struct exs_link *link = context;
	u32 gen;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		/* pairs with exs_link_set_qp(): the generation read next
		 * is this QP's, or a later one's
		 */
		if (ev->element.qp != smp_load_acquire(&link->qp))
			break;
		gen = READ_ONCE(link->qp_gen);
		WRITE_ONCE(link->qp_event, ev->event);
		WRITE_ONCE(link->event_gen, gen);
		refcount_inc(&link->ref);
		if (!queue_work(exs_wq, &link->qp_event_work))
			refcount_dec(&link->ref);	/* queued: never the last */
		break;
	default:
		break;
	}
}

/* A request or access error is the peer's doing; the device's own failure
 * is worth a new QP.  An event of a QP replaced or gone since is old news.
 */
void exs_link_qp_event_work(struct work_struct *work)
{
	struct exs_link *link = container_of(work, struct exs_link,
					     qp_event_work);
	enum ib_event_type event = READ_ONCE(link->qp_event);
	bool fatal = event == IB_EVENT_QP_FATAL;
	struct exs_conn *holder = link->holder;

	spin_lock_bh(&holder->lock);
	/* a teardown or resume under way ends or replaces the QP anyway */
	if (READ_ONCE(link->event_gen) == READ_ONCE(link->qp_gen) &&
	    !holder->qp_closing) {
		pr_warn_ratelimited("queue pair failed (%s)%s\n",
				    ib_event_msg(event),
				    fatal ? "" : ", connection reset");
		if (fatal)
			exs_conn_qp_failed(holder, -ECONNRESET);
		else
			__exs_link_abort(holder, -ECONNRESET, true);
	}
	spin_unlock_bh(&holder->lock);
	exs_link_put(link);
}

/* @link's QP is destroyed: no event comes after this, and none waits. */
void exs_link_qp_events_end(struct exs_link *link)
{
	if (cancel_work_sync(&link->qp_event_work))
		exs_link_put(link);	/* the event's: never the last */
}

/* The ACK timeout the CM gave the QP at RTS (its own, or
 * net.exs.ack_timeout), for the socket dump; 0 where it sets none
 * (iWARP).  Asked of the CM, not the device: a device may sleep in its
 * firmware to answer, and an aborted connection's QP can be destroyed
 * under us, while @id lives as long as the CM handler that calls this.
 */
static u8 exs_link_cm_ack_timeout(struct rdma_cm_id *id)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };
	int mask = 0;

	if (rdma_init_qp_attr(id, &attr, &mask) || !(mask & IB_QP_TIMEOUT))
		return 0;
	return attr.timeout;
}

/* The link's part of its QP coming up, or up again after a resume: what
 * every stream on it reads of the QP (with READ_ONCE()), the port's
 * netdev (a parked link's, a teardown's wait for a port: reuse.c,
 * device.c) and the ACK timeout (the socket dump, an ABORT's wait).  One
 * writer: the handler of the link's cm_id of the moment, which rdma_cm
 * runs one event at a time.
 */
static void exs_link_note_up(struct exs_link *link, struct rdma_cm_id *id)
{
	WRITE_ONCE(link->ifindex, id->route.addr.dev_addr.bound_dev_if);
	WRITE_ONCE(link->ack_timeout, exs_link_cm_ack_timeout(id));
}

/* rdma_cm's events of @link's cm_id (a connector's: connect.c creates it
 * with this handler; an acceptor's: accept.c's listening handler passes
 * its children's here), in rdma_cm's process context, one at a time per
 * cm_id.  Those of a cm_id a resume replaced, or of a resume's REQ not
 * taken yet, are past; none is acted on once the teardown began, which
 * destroys the cm_id before the builder is freed (while the link is freed
 * with its builder, link.c: once a link outlives it, this must not read
 * it).  The link takes what
 * concerns the QP under every stream: its coming up, the device's removal
 * (at any stage), the peer's disconnect once up (which ends or replaces
 * the QP: a resume).  The handshake's own events are its builder's, the
 * first stream's (today through link->holder, whose end or resume takes
 * the others along: share.c), through the handshake it set: an
 * acceptor's (accept.c) or a connector's (connect.c).
 */
int exs_link_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct exs_link *link = container_of(id->context, struct exs_link,
					     ctx);
	struct exs_conn *builder = link->holder;

	if (READ_ONCE(builder->torn_down) || id != READ_ONCE(link->cm_id))
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		exs_conn_disconnected(builder);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		exs_link_abort(builder, -ENETDOWN, false);
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		exs_link_note_up(link, id);
		break;
	default:
		break;
	}
	link->handshake(builder, id, ev);
	return 0;
}
