// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for when a connection probes or gives up on its peer
 * (watch.h).
 */
#include <kunit/test.h>

#include "watch.h"

#define PERSIST	100
#define IDLE	7200
#define INTVL	75
#define STALL	6000

/* The plan for a connection silent for @i jiffies, with the timings above
 * and the rest of what it sees given as designated initializers.
 */
#define PLAN(i, ...)							\
	exs_watch_plan(&(const struct exs_watch_in){			\
		.idle = (i), .persist = PERSIST, .keepidle = IDLE,	\
		.intvl = INTVL, .stall = STALL, __VA_ARGS__ })

static void exs_test_watch_quiet(struct kunit *test)
{
	struct exs_watch_plan p = PLAN(1000000);

	/* no full ring, no SO_KEEPALIVE: nothing to watch, as on TCP */
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_FALSE(test, p.expire);
	KUNIT_EXPECT_EQ(test, p.next, 0UL);
}

static void exs_test_watch_persist(struct kunit *test)
{
	struct exs_watch_plan p;

	p = PLAN(30, .full = true);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, PERSIST - 30UL);

	p = PLAN(PERSIST, .full = true);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)PERSIST);

	/* a full ring wins over keepalive's longer wait */
	p = PLAN(PERSIST + 1, .full = true, .keepalive = true);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)PERSIST);

	/* silence alone never ends a connection: probes tell */
	p = PLAN(10 * STALL, .full = true);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_FALSE(test, p.expire);
}

static void exs_test_watch_keepalive(struct kunit *test)
{
	struct exs_watch_plan p;

	p = PLAN(0, .keepalive = true);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)IDLE);

	p = PLAN(IDLE - 1, .keepalive = true);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 1UL);

	/* silent past TCP_KEEPIDLE: probe, then every TCP_KEEPINTVL */
	p = PLAN(IDLE + 5 * INTVL, .keepalive = true);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)INTVL);
}

static void exs_test_watch_stall(struct kunit *test)
{
	struct exs_watch_plan p;

	/* a request awaits its ack: look again no later than its bound */
	p = PLAN(PERSIST, .full = true, .waiting = true,
		 .unacked = STALL - 10);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_FALSE(test, p.expire);
	KUNIT_EXPECT_EQ(test, p.next, 10UL);

	p = PLAN(STALL - 10, .keepalive = true, .waiting = true,
		 .unacked = STALL - 10);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 10UL);

	/* unacknowledged that long: the transport is wedged, give up */
	p = PLAN(STALL, .full = true, .waiting = true, .unacked = STALL);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_TRUE(test, p.expire);
	KUNIT_EXPECT_EQ(test, p.next, 0UL);

	/* however recently the peer's own probes came in (rxe after a
	 * link flap: our sends stuck, its sends fine)
	 */
	p = PLAN(1, .full = true, .waiting = true, .unacked = STALL + 1);
	KUNIT_EXPECT_TRUE(test, p.expire);

	p = PLAN(STALL + IDLE, .keepalive = true, .waiting = true,
		 .unacked = STALL + IDLE);
	KUNIT_EXPECT_TRUE(test, p.expire);

	/* an old ack with nothing awaited since is no stall */
	p = PLAN(PERSIST, .full = true, .unacked = 10 * STALL);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_FALSE(test, p.expire);

	/* no full ring, no keepalive: the stall alone is watched, and
	 * nothing is probed (the request awaiting its ack is the probe)
	 */
	p = PLAN(2 * STALL, .waiting = true, .unacked = STALL - 10);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_FALSE(test, p.expire);
	KUNIT_EXPECT_EQ(test, p.next, 10UL);

	p = PLAN(0, .waiting = true, .unacked = 0);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)STALL);

	p = PLAN(2 * STALL, .waiting = true, .unacked = 2 * STALL);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_TRUE(test, p.expire);
	KUNIT_EXPECT_EQ(test, p.next, 0UL);
}

static void exs_test_watch_never_zero(struct kunit *test)
{
	struct exs_watch_plan p;

	/* intervals of 0 jiffies (HZ rounding) must not stop the watch */
	p = exs_watch_plan(&(const struct exs_watch_in){
		.idle = 5, .keepalive = true, .persist = PERSIST,
		.stall = STALL });
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 1UL);
	p = exs_watch_plan(&(const struct exs_watch_in){
		.idle = 5, .full = true, .keepidle = IDLE, .intvl = INTVL,
		.stall = STALL });
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 1UL);
}

static struct kunit_case exs_watch_test_cases[] = {
	KUNIT_CASE(exs_test_watch_quiet),
	KUNIT_CASE(exs_test_watch_persist),
	KUNIT_CASE(exs_test_watch_keepalive),
	KUNIT_CASE(exs_test_watch_stall),
	KUNIT_CASE(exs_test_watch_never_zero),
	{}
};

static struct kunit_suite exs_watch_test_suite = {
	.name = "af_exs_watch",
	.test_cases = exs_watch_test_cases,
};

kunit_test_suite(exs_watch_test_suite);
