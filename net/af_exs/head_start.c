// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA's head start over TCP (RFC 8305's connection attempt delay): how
 * long a connector's REQ may wait for an answer before the connect goes
 * to TCP, and what a head start that ran out makes of the attempt.
 * connect.c starts it once the REQ is out and ends it at the answer; the
 * connect timer (teardown.c) asks exs_head_start_out() first.
 */
#include <linux/af_exs.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>

#include "conn.h"
#include "netns.h"

/* The REQ is out.  A host without AF_EXS, or without an RDMA stack, never
 * answers it, and waiting the whole connect_timeout_ms for that would
 * cost every first connect to a web server or a mirror seconds.  So, as
 * RFC 8305's happy eyeballs gives one address family a head start and
 * then starts the other, the REQ has connect_race_ms to be answered (REP
 * or REJ: either says AF_EXS runs there); unanswered, the connect goes to
 * TCP (FallbackNoAnswer) and the host is remembered for
 * neg_cache_host_ttl_ms.  TCP starts only once RDMA is given up, never
 * beside it: a peer must never see two connections for one connect().
 * A late answer makes no connection the peer's program sees either: its
 * accept() hands one out only after our READY (exs_conn_established()),
 * which an attempt given up never sends; the peer's end goes at our
 * REJ or DREQ.  A resume's REQ goes to a peer that was just there, and
 * waits the whole time.
 */
void exs_head_start(struct exs_conn *conn)
{
	struct exs_net *en = exs_pernet(conn->net);
	unsigned long race;

	race = msecs_to_jiffies(READ_ONCE(en->cfg.connect_race_ms));
	if (!race || conn->resume)
		return;
	spin_lock_bh(&conn->lock);
	if (conn->state == EXS_CONN_CONNECTING &&
	    time_before(jiffies + race, conn->timeout_at)) {
		conn->connect_by = conn->timeout_at;
		conn->racing = true;
		exs_conn_arm_timeout(conn, race);
	}
	spin_unlock_bh(&conn->lock);
}

/* The REQ was answered: the connect deadline is back (unless the head
 * start ran out meanwhile and ended the attempt).
 */
void exs_head_start_over(struct exs_conn *conn)
{
	spin_lock_bh(&conn->lock);
	if (conn->racing && conn->state == EXS_CONN_CONNECTING)
		exs_conn_arm_timeout(conn,
				     max_t(long, conn->connect_by - jiffies, 1));
	conn->racing = false;
	spin_unlock_bh(&conn->lock);
}

/* The connect timer fired: if it was the head start's, the attempt is
 * given up as unanswered (FallbackNoAnswer), counted, not logged, as
 * every first connect to a host without AF_EXS does it.  Under
 * conn->lock; true when it ended the attempt.
 */
bool exs_head_start_out(struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (!conn->racing || conn->reason)
		return false;
	conn->reason = EXS_FALLBACK_NO_ANSWER;
	__exs_conn_abort(conn, -ETIMEDOUT, false);
	return true;
}
