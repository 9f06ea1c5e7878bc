// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for how a link's send queue is shared out (link_sq.h). */
#include <kunit/test.h>

#include "link_sq.h"
#include "wire.h"

/* the budget fits the queue devices round it to, the drain's marker too */
static void exs_test_link_sq_slots(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, EXS_SHARE_RIDERS, 30);
	KUNIT_EXPECT_LE(test, EXS_SHARE_SQ_ROOM + 2, EXS_SHARE_SQ_SLOTS);
	KUNIT_EXPECT_LT(test, EXS_SHARE_RIDERS, EXS_CHAN_MAX);
}

/* streams counted in take the room as before: none past the last */
static void exs_test_link_sq_counted(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, exs_link_sq_fits(0, 0));
	KUNIT_EXPECT_TRUE(test, exs_link_sq_fits(EXS_SHARE_RIDERS - 1, 0));
	KUNIT_EXPECT_FALSE(test, exs_link_sq_fits(EXS_SHARE_RIDERS, 0));
	KUNIT_EXPECT_FALSE(test, exs_link_sq_fits(EXS_SHARE_RIDERS + 1, 0));
}

/* A stream that just left with its last requests in flight (its LAST,
 * say) keeps no one out; requests that never complete, once they would
 * leave less than a stream's EXS_SQ_DEPTH, keep the next one out.
 */
static void exs_test_link_sq_quiet(struct kunit *test)
{
	unsigned int last = EXS_SHARE_RIDERS - 1;

	KUNIT_EXPECT_TRUE(test, exs_link_sq_fits(last, EXS_SQ_QUIET));
	KUNIT_EXPECT_FALSE(test, exs_link_sq_fits(last, EXS_SQ_QUIET + 1));
	/* fewer counted in, room for what the others left in flight */
	KUNIT_EXPECT_TRUE(test, exs_link_sq_fits(last - 1,
						 EXS_SQ_DEPTH + EXS_SQ_QUIET));
	KUNIT_EXPECT_FALSE(test, exs_link_sq_fits(last - 1, EXS_SQ_DEPTH +
						  EXS_SQ_QUIET + 1));
	/* 127 streams out, each with all it may have in flight */
	KUNIT_EXPECT_FALSE(test, exs_link_sq_fits(0, 127 * EXS_SQ_DEPTH));
	KUNIT_EXPECT_TRUE(test, exs_link_sq_fits(0, last * EXS_SQ_DEPTH +
						 EXS_SQ_QUIET));
	KUNIT_EXPECT_FALSE(test, exs_link_sq_fits(0, last * EXS_SQ_DEPTH +
						  EXS_SQ_QUIET + 1));
}

static struct kunit_case exs_link_sq_test_cases[] = {
	KUNIT_CASE(exs_test_link_sq_slots),
	KUNIT_CASE(exs_test_link_sq_counted),
	KUNIT_CASE(exs_test_link_sq_quiet),
	{}
};

static struct kunit_suite exs_link_sq_test_suite = {
	.name = "af_exs_link_sq",
	.test_cases = exs_link_sq_test_cases,
};

kunit_test_suite(exs_link_sq_test_suite);
