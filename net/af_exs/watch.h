/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a connection probes its peer (keepalive.c): pure arithmetic on
 * jiffies, tested by KUnit (watch_test.c).
 */
#ifndef __EXS_WATCH_H
#define __EXS_WATCH_H

#include <linux/minmax.h>
#include <linux/types.h>

struct exs_watch_plan {
	bool		probe;	/* send a probe now */
	unsigned long	next;	/* look again in this many jiffies; 0: never */
};

/* The peer was last heard @idle jiffies ago.  A full peer ring (@full) is
 * probed every @persist; otherwise, with SO_KEEPALIVE (@keepalive), an
 * idle connection is probed after @keepidle and then every @intvl.
 */
static inline struct exs_watch_plan
exs_watch_plan(unsigned long idle, bool full, unsigned long persist,
	       bool keepalive, unsigned long keepidle, unsigned long intvl)
{
	struct exs_watch_plan p = {};

	if (full) {
		p.probe = idle >= persist;
		p.next = p.probe ? persist : persist - idle;
	} else if (keepalive) {
		p.probe = idle >= keepidle;
		p.next = p.probe ? intvl : keepidle - idle;
	} else {
		return p;
	}
	p.next = max(p.next, 1UL);	/* a zero would stop the watch */
	return p;
}

#endif /* __EXS_WATCH_H */
