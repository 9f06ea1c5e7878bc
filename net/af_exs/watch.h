/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a connection probes its peer, or gives up on it (keepalive.c):
 * pure arithmetic on jiffies, tested by KUnit (watch_test.c).
 */
#ifndef __EXS_WATCH_H
#define __EXS_WATCH_H

#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* What the watch sees; all times in jiffies. */
struct exs_watch_in {
	unsigned long	idle;		/* since the peer was last heard */
	bool		full;		/* the peer's ring is full */
	bool		keepalive;	/* SO_KEEPALIVE */
	bool		waiting;	/* a request awaits the peer's ack... */
	unsigned long	unacked;	/* ...and no ack came for this long */
	unsigned long	persist;	/* probe interval of a full ring */
	unsigned long	keepidle;	/* TCP_KEEPIDLE */
	unsigned long	intvl;		/* TCP_KEEPINTVL */
	unsigned long	stall;		/* longest wait for an ack */
};

struct exs_watch_plan {
	bool		probe;	/* send a probe now */
	bool		expire;	/* end the connection: ETIMEDOUT */
	unsigned long	next;	/* look again in this many jiffies; 0: never */
};

/* A full peer ring is probed every @persist; otherwise, with SO_KEEPALIVE,
 * an idle connection is probed after @keepidle and then every @intvl.
 * Whether or not it probes, a send queue that stood still for @stall with
 * a request awaiting its ack ends the connection, as TCP_USER_TIMEOUT (or
 * the retransmission timer) does TCP's, however lively the peer's own
 * traffic (its probes, say) looks: the device retries forever.
 */
static inline struct exs_watch_plan
exs_watch_plan(const struct exs_watch_in *in)
{
	struct exs_watch_plan p = { .next = ULONG_MAX };

	if (in->full) {
		p.probe = in->idle >= in->persist;
		p.next = p.probe ? in->persist : in->persist - in->idle;
	} else if (in->keepalive) {
		p.probe = in->idle >= in->keepidle;
		p.next = p.probe ? in->intvl : in->keepidle - in->idle;
	} else if (!in->waiting) {
		p.next = 0;
		return p;
	}
	if (in->waiting) {
		if (in->unacked >= in->stall) {
			p.probe = false;
			p.expire = true;
			p.next = 0;
			return p;
		}
		p.next = min(p.next, in->stall - in->unacked);
	}
	p.next = max(p.next, 1UL);	/* a zero would stop the watch */
	return p;
}

#endif /* __EXS_WATCH_H */
