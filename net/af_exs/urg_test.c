// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for urgent data's arithmetic (urg.h), each case what
 * Linux's TCP answers in the same place.
 */
#include <kunit/test.h>

#include "urg.h"

#define RSIZE	4096

static int announce(struct exs_urg *u, u32 cursor, u32 rcons, u32 rprod,
		    bool inl, bool *signal)
{
	return exs_urg_announce(u, cursor, rcons, rprod, RSIZE, inl, signal);
}

/* "abc" sent with MSG_OOB: 'c' out of band, "ab" in band */
static void exs_test_urg_basic(struct kunit *test)
{
	struct exs_urg u = {};
	bool sig, step;

	KUNIT_EXPECT_EQ(test, announce(&u, 2, 0, 0, false, &sig), 1);
	KUNIT_EXPECT_TRUE(test, sig);
	KUNIT_EXPECT_EQ(test, u.data, EXS_URG_NOTYET);
	/* not there yet: nothing to stop at, POLLPRI not yet */
	KUNIT_EXPECT_FALSE(test, exs_urg_due(&u, 2));
	KUNIT_EXPECT_FALSE(test, exs_urg_arrives(&u, 2, 'b'));
	KUNIT_EXPECT_TRUE(test, exs_urg_due(&u, 3));
	KUNIT_EXPECT_TRUE(test, exs_urg_arrives(&u, 3, 'c'));
	KUNIT_EXPECT_EQ(test, u.data, EXS_URG_VALID | 'c');
	KUNIT_EXPECT_FALSE(test, exs_urg_arrives(&u, 4, 'd'));
	/* the read takes "ab", SIOCINQ counts up to the mark */
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, 0, 3, false), 2U);
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, 0, 3, true), 3U);
	KUNIT_EXPECT_FALSE(test, exs_urg_at_mark(&u, 0));
	KUNIT_EXPECT_TRUE(test, exs_urg_readable(&u, 0, 3, false, 1));
	KUNIT_EXPECT_TRUE(test, exs_urg_readable(&u, 0, 3, false, 3));
	KUNIT_EXPECT_FALSE(test, exs_urg_readable(&u, 0, 3, false, 4));
	KUNIT_EXPECT_EQ(test, exs_urg_clip(&u, false, 0, 3, &step), 2U);
	KUNIT_EXPECT_FALSE(test, step);
	/* at the mark: the read stops there with bytes, steps over it */
	KUNIT_EXPECT_TRUE(test, exs_urg_at_mark(&u, 2));
	KUNIT_EXPECT_TRUE(test, exs_urg_stops(&u, 2));
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, 2, 3, false), 0U);
	/* poll: the urgent byte alone is not readable, unless inline */
	KUNIT_EXPECT_FALSE(test, exs_urg_readable(&u, 2, 3, false, 1));
	KUNIT_EXPECT_TRUE(test, exs_urg_readable(&u, 2, 3, true, 1));
	KUNIT_EXPECT_TRUE(test, exs_urg_readable(&u, 2, 4, false, 1));
	KUNIT_EXPECT_EQ(test, exs_urg_clip(&u, false, 2, 1, &step), 1U);
	KUNIT_EXPECT_TRUE(test, step);
	/* SO_OOBINLINE: the byte is read as any other */
	KUNIT_EXPECT_EQ(test, exs_urg_clip(&u, true, 2, 1, &step), 1U);
	KUNIT_EXPECT_FALSE(test, step);
	exs_urg_passed(&u, 2);
	KUNIT_EXPECT_NE(test, u.data, 0);
	exs_urg_passed(&u, 3);
	KUNIT_EXPECT_EQ(test, u.data, 0);
	KUNIT_EXPECT_FALSE(test, exs_urg_at_mark(&u, 3));
}

/* what a peer may name, and what is ignored (tcp_check_urg()) */
static void exs_test_urg_bounds(struct kunit *test)
{
	struct exs_urg u = {};
	bool sig;

	/* past what it may write from our consumer cursor */
	KUNIT_EXPECT_EQ(test, announce(&u, 100 + RSIZE, 100, 100, false, &sig),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, announce(&u, 99 + RSIZE, 100, 100, false, &sig),
			1);
	u = (struct exs_urg){};
	/* a byte already here, or read: a replay */
	KUNIT_EXPECT_EQ(test, announce(&u, 150, 100, 200, false, &sig), 0);
	KUNIT_EXPECT_EQ(test, announce(&u, 50, 100, 200, false, &sig), 0);
	KUNIT_EXPECT_EQ(test, announce(&u, 100 - RSIZE * 4, 100, 200, false,
				       &sig), 0);
	KUNIT_EXPECT_EQ(test, u.data, 0);
	/* the same, or an older one than we know */
	KUNIT_EXPECT_EQ(test, announce(&u, 300, 100, 200, false, &sig), 1);
	KUNIT_EXPECT_EQ(test, announce(&u, 300, 100, 200, false, &sig), 0);
	KUNIT_EXPECT_EQ(test, announce(&u, 250, 100, 200, false, &sig), 0);
	KUNIT_EXPECT_EQ(test, u.seq, 300U);
	/* across the cursors' wrap */
	u = (struct exs_urg){};
	KUNIT_EXPECT_EQ(test, announce(&u, 5, (u32)-10, (u32)-3, false, &sig),
			1);
	KUNIT_EXPECT_TRUE(test, exs_urg_arrives(&u, 6, 'x'));
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, (u32)-10, 6, false), 15U);
}

/* a newer urgent byte: the older one is ordinary, or, the reader on it,
 * stepped over; one announcement on its way signals once
 */
static void exs_test_urg_newer(struct kunit *test)
{
	struct exs_urg u = {};
	bool sig;

	/* "ab" then "cd", both MSG_OOB, nothing read: 'b' is in band */
	announce(&u, 1, 0, 0, false, &sig);
	exs_urg_arrives(&u, 2, 'b');
	KUNIT_EXPECT_EQ(test, announce(&u, 3, 0, 2, false, &sig), 1);
	KUNIT_EXPECT_TRUE(test, sig);
	KUNIT_EXPECT_EQ(test, u.skip, 0U);
	exs_urg_arrives(&u, 4, 'd');
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, 0, 4, false), 3U);

	/* "xa", "x" read, then "yb": 'a' is stepped over */
	u = (struct exs_urg){};
	announce(&u, 1, 0, 0, false, &sig);
	exs_urg_arrives(&u, 2, 'a');
	KUNIT_EXPECT_EQ(test, announce(&u, 3, 1, 2, false, &sig), 1);
	KUNIT_EXPECT_EQ(test, u.skip, 1U);
	KUNIT_EXPECT_EQ(test, exs_urg_cons(&u, 1), 2U);
	exs_urg_arrives(&u, 4, 'b');
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, 1, 4, false), 1U);
	KUNIT_EXPECT_FALSE(test, exs_urg_at_mark(&u, 1));
	/* ...unless inline, or the reader's byte is not here yet */
	u = (struct exs_urg){};
	announce(&u, 1, 0, 0, true, &sig);
	exs_urg_arrives(&u, 2, 'a');
	announce(&u, 3, 1, 2, true, &sig);
	KUNIT_EXPECT_EQ(test, u.skip, 0U);

	/* "a", "b", "c", each MSG_OOB, none read: skips pile up, the read
	 * stands on 'c': EAGAIN, SIOCATMARK 1, SIOCINQ 0, not readable
	 */
	u = (struct exs_urg){};
	announce(&u, 0, 0, 0, false, &sig);
	exs_urg_arrives(&u, 1, 'a');
	KUNIT_EXPECT_EQ(test, announce(&u, 1, 0, 1, false, &sig), 1);
	exs_urg_arrives(&u, 2, 'b');
	KUNIT_EXPECT_EQ(test, announce(&u, 2, 0, 2, false, &sig), 1);
	exs_urg_arrives(&u, 3, 'c');
	KUNIT_EXPECT_EQ(test, u.skip, 2U);
	KUNIT_EXPECT_TRUE(test, exs_urg_at_mark(&u, 0));
	KUNIT_EXPECT_EQ(test, exs_urg_inq(&u, 0, 3, false), 0U);
	KUNIT_EXPECT_EQ(test, exs_urg_cons(&u, 0), 2U);
	KUNIT_EXPECT_FALSE(test, exs_urg_readable(&u, 0, 3, false, 1));

	/* URGs ahead of their bytes: the owner hears once */
	u = (struct exs_urg){};
	announce(&u, 10, 0, 0, false, &sig);
	KUNIT_EXPECT_TRUE(test, sig);
	KUNIT_EXPECT_EQ(test, announce(&u, 20, 0, 0, false, &sig), 1);
	KUNIT_EXPECT_FALSE(test, sig);
	KUNIT_EXPECT_EQ(test, u.seq, 20U);
}

static struct kunit_case exs_urg_test_cases[] = {
	KUNIT_CASE(exs_test_urg_basic),
	KUNIT_CASE(exs_test_urg_bounds),
	KUNIT_CASE(exs_test_urg_newer),
	{}
};

static struct kunit_suite exs_urg_test_suite = {
	.name = "af_exs_urg",
	.test_cases = exs_urg_test_cases,
};

kunit_test_suite(exs_urg_test_suite);
