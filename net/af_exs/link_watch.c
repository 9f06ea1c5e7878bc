// SPDX-License-Identifier: GPL-2.0
/*
 * The requests no stream watches.  A stream's own watch (keepalive.c)
 * bounds its requests in flight while it has a socket; once it is
 * counted out of its link (its LAST out, its socket closed and reset, or
 * its teardown begun) its last requests count in the link's quiet_sq
 * (link_sq.h), and its teardown waits for them (share.c's leave_wait),
 * holding its rings.  Their completions may never come: unsignaled
 * writes (TCP_NODELAY's) complete only with a later signaled request of
 * their stream's, which a stream that left never posts; and a peer that
 * stops posting receives stalls the whole send queue (RNR, retried for
 * ever).  Unbounded, either would hold the stream's rings, and its share
 * of the send queue, for as long as the link lives, or as a peer likes.
 *
 * So the link tests them, as SMC-R's LLC tests a link: once they have
 * stood for EXS_FENCE_DELAY it posts a fence of its own after them
 * (link_tx.c), whose completion says they all completed: their streams
 * are released.  A fence not completed within net.exs.stall_timeout_ms
 * is the QP's stall, as a stream's request's would be: a resume, or the
 * link's end with ETIMEDOUT.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include "conn.h"
#include "mib.h"
#include "netns.h"

#define EXS_FENCE_DELAY		HZ

/* @conn left @link's count with requests in flight: a fence posted from
 * now on covers them.  Called under link->lock.
 */
void exs_link_watch_begin(struct exs_link *link, struct exs_conn *conn)
{
	lockdep_assert_held(&link->lock);
	conn->quiet_gen = link->fences;
	conn->quiet_head = conn->sq_head;
	if (!link->closing)
		queue_delayed_work(exs_wq, &link->watch_work, EXS_FENCE_DELAY);
}

/* Each stream that left before the last fence completed, and posted
 * nothing of its own since (none does: a closed socket's ABORT goes from
 * the link's slots): its requests are all through, though no completion
 * of its own said so.  Its teardown may go on.  Process context.
 */
static void exs_link_watch_release(struct exs_link *link)
{
	struct exs_conn *conn;
	bool through;
	u32 done;
	int chan;

	for (chan = 1; chan < EXS_CHAN_MAX && READ_ONCE(link->quiet_sq);
	     chan++) {
		conn = exs_link_chan_get(link, chan);
		if (!conn)
			continue;
		spin_lock_bh(&conn->lock);
		spin_lock(&link->lock);
		done = link->fences_done;
		through = conn->counted_out && conn->quiet_sq &&
			  conn->sq_head == conn->quiet_head &&
			  (s32)(done - conn->quiet_gen) > 0;
		spin_unlock(&link->lock);
		if (through) {
			exs_conn_sq_through(conn);
			exs_conn_leave_go(conn);
			EXS_INC_STATS(link->net, EXS_MIB_LINKFENCED);
		}
		spin_unlock_bh(&conn->lock);
		exs_conn_put(conn);
	}
}

/* The fence stood for the stall bound: the QP is stuck.  Called under
 * the holder's lock, with no resume under way.
 */
static void exs_link_watch_stalled(struct exs_link *link, u16 quiet,
				   unsigned long since)
{
	struct exs_conn *holder = link->holder;
	bool resume;

	resume = exs_conn_resume(holder, -ETIMEDOUT);
	pr_info_ratelimited("link %u: %u requests of streams that left unacked for %u ms: %s\n",
			    link->id, quiet, jiffies_to_msecs(since),
			    resume ? "moving to a new queue pair" :
				     "link timed out");
	EXS_INC_STATS(link->net, EXS_MIB_STALLS);
	if (!resume)
		__exs_link_abort(holder, -ETIMEDOUT, false);
}

void exs_link_watch_work(struct work_struct *work)
{
	struct exs_link *link = container_of(to_delayed_work(work),
					     struct exs_link, watch_work);
	unsigned long stall = exs_stall_timeout(link->net);
	unsigned long next = 0, since = 0;
	struct exs_conn *holder = link->holder;
	bool stalled = false;
	u16 quiet;
	int err = 0;

	exs_link_watch_release(link);

	spin_lock_bh(&holder->lock);
	spin_lock(&link->lock);
	quiet = link->quiet_sq;
	if (!quiet || link->closing || holder->resume) {
		/* nothing left, or the QP goes: its drain, or its resume
		 * (which starts the streams that left over: resume.c), ends
		 * what is quiet
		 */
	} else if (link->fence_out) {
		since = jiffies - link->fence_at;
		stalled = since >= stall;
		next = stalled ? 0 : stall - since;
	} else {
		err = exs_link_post_fence(link);
		next = err == -EAGAIN ? EXS_FENCE_DELAY : stall;
		if (err == -EAGAIN || err == -ENOTCONN)
			err = 0;
	}
	if (next && !err)
		queue_delayed_work(exs_wq, &link->watch_work, next);
	spin_unlock(&link->lock);
	if (stalled)
		exs_link_watch_stalled(link, quiet, since);
	exs_link_post_failed(link, err);
	spin_unlock_bh(&holder->lock);
}

/* The holder's teardown set link->closing: the watch is not armed again
 * (exs_link_watch_begin(), exs_link_fence_done()), nor runs after this.
 * Process context.
 */
void exs_link_watch_stop(struct exs_link *link)
{
	might_sleep();
	WARN_ON_ONCE(!READ_ONCE(link->closing));
	cancel_delayed_work_sync(&link->watch_work);
}
