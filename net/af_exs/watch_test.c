// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for when a connection probes its peer (watch.h). */
#include <kunit/test.h>

#include "watch.h"

#define PERSIST	100
#define IDLE	7200
#define INTVL	75

static void exs_test_watch_quiet(struct kunit *test)
{
	struct exs_watch_plan p = exs_watch_plan(1000000, false, PERSIST,
						 false, IDLE, INTVL);

	/* no full ring, no SO_KEEPALIVE: nothing to watch, as on TCP */
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 0UL);
}

static void exs_test_watch_persist(struct kunit *test)
{
	struct exs_watch_plan p;

	p = exs_watch_plan(30, true, PERSIST, false, IDLE, INTVL);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, PERSIST - 30UL);

	p = exs_watch_plan(PERSIST, true, PERSIST, false, IDLE, INTVL);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)PERSIST);

	/* a full ring wins over keepalive's longer wait */
	p = exs_watch_plan(PERSIST + 1, true, PERSIST, true, IDLE, INTVL);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)PERSIST);
}

static void exs_test_watch_keepalive(struct kunit *test)
{
	struct exs_watch_plan p;

	p = exs_watch_plan(0, false, PERSIST, true, IDLE, INTVL);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)IDLE);

	p = exs_watch_plan(IDLE - 1, false, PERSIST, true, IDLE, INTVL);
	KUNIT_EXPECT_FALSE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 1UL);

	/* silent past TCP_KEEPIDLE: probe, then every TCP_KEEPINTVL */
	p = exs_watch_plan(IDLE + 5 * INTVL, false, PERSIST, true, IDLE, INTVL);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, (unsigned long)INTVL);
}

static void exs_test_watch_never_zero(struct kunit *test)
{
	struct exs_watch_plan p;

	/* intervals of 0 jiffies (HZ rounding) must not stop the watch */
	p = exs_watch_plan(5, false, PERSIST, true, 0, 0);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 1UL);
	p = exs_watch_plan(5, true, 0, false, IDLE, INTVL);
	KUNIT_EXPECT_TRUE(test, p.probe);
	KUNIT_EXPECT_EQ(test, p.next, 1UL);
}

static struct kunit_case exs_watch_test_cases[] = {
	KUNIT_CASE(exs_test_watch_quiet),
	KUNIT_CASE(exs_test_watch_persist),
	KUNIT_CASE(exs_test_watch_keepalive),
	KUNIT_CASE(exs_test_watch_never_zero),
	{}
};

static struct kunit_suite exs_watch_test_suite = {
	.name = "af_exs_watch",
	.test_cases = exs_watch_test_cases,
};

kunit_test_suite(exs_watch_test_suite);
