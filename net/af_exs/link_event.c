// SPDX-License-Identifier: GPL-2.0
/*
 * A link's events (link.h): its QP's, which the driver raises, and its
 * cm_id's but for the handshake's own, which rdma_cm raises.  Either
 * concerns the QP every stream on the link posts on, so the link takes
 * them and tells its streams: today through the stream that built it
 * (its holder), whose end or resume takes the others along (share.c).
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

/* rdma_cm's events of @link's cm_id but for the handshake's own, which
 * are its builder's (connect.c, accept.c): at any stage, the device's
 * removal, which ends the QP under every stream; once up, the peer's
 * disconnect, which ends or replaces it (a resume).
 */
void exs_link_cm_event(struct exs_link *link, enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		exs_conn_disconnected(link->holder);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		exs_link_abort(link->holder, -ENETDOWN, false);
		break;
	default:
		break;
	}
}
