// SPDX-License-Identifier: GPL-2.0
/* KUnit: ring and credit arithmetic (ring.h), at every edge. */
#include <kunit/test.h>

#include "ring.h"

#define SZ	EXS_RING_MIN

static void exs_ring_test_sizes(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, exs_ring_size_ok(EXS_RING_MIN));
	KUNIT_EXPECT_TRUE(test, exs_ring_size_ok(EXS_RING_MAX));
	KUNIT_EXPECT_FALSE(test, exs_ring_size_ok(EXS_RING_MIN / 2));
	KUNIT_EXPECT_FALSE(test, exs_ring_size_ok(EXS_RING_MAX * 2));
	KUNIT_EXPECT_FALSE(test, exs_ring_size_ok(EXS_RING_MIN + 1));
	KUNIT_EXPECT_FALSE(test, exs_ring_size_ok(0));
	KUNIT_EXPECT_FALSE(test, exs_ring_size_ok(U32_MAX));

	KUNIT_EXPECT_EQ(test, exs_ring_size_for(0), EXS_RING_MIN);
	KUNIT_EXPECT_EQ(test, exs_ring_size_for(EXS_RING_MIN + 1),
			EXS_RING_MIN);
	KUNIT_EXPECT_EQ(test, exs_ring_size_for(3 * EXS_RING_MIN),
			2 * EXS_RING_MIN);
	KUNIT_EXPECT_EQ(test, exs_ring_size_for(1ULL << 40), EXS_RING_MAX);
}

static void exs_ring_test_used_free(struct kunit *test)
{
	/* empty, one byte, full, and one past full (inconsistent) */
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, 0, 0), SZ);
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, 1, 0), SZ - 1);
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, SZ - 1, 0), 1U);
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, SZ, 0), 0U);
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, SZ + 1, 0), 0U);
	/* a consumer ahead of the producer is inconsistent: no space */
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, 0, 1), 0U);

	/* across the 2^32 wrap of the cursors */
	KUNIT_EXPECT_EQ(test, exs_ring_used(5, U32_MAX - 4), 10U);
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, 5, U32_MAX - 4), SZ - 10);
	KUNIT_EXPECT_EQ(test, exs_ring_free(SZ, SZ - 11, U32_MAX - 10), 0U);
}

static void exs_ring_test_offsets(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, exs_ring_off(SZ, 0), 0U);
	KUNIT_EXPECT_EQ(test, exs_ring_off(SZ, SZ), 0U);
	KUNIT_EXPECT_EQ(test, exs_ring_off(SZ, SZ - 1), SZ - 1);
	KUNIT_EXPECT_EQ(test, exs_ring_off(SZ, U32_MAX), SZ - 1);

	/* fits, ends exactly at the end, crosses the end by one */
	KUNIT_EXPECT_EQ(test, exs_ring_contig(SZ, 0, 100), 100U);
	KUNIT_EXPECT_EQ(test, exs_ring_contig(SZ, SZ - 100, 100), 100U);
	KUNIT_EXPECT_EQ(test, exs_ring_contig(SZ, SZ - 99, 100), 99U);
	KUNIT_EXPECT_EQ(test, exs_ring_contig(SZ, SZ - 1, SZ), 1U);
	KUNIT_EXPECT_EQ(test, exs_ring_contig(SZ, U32_MAX, 2), 1U);
	KUNIT_EXPECT_EQ(test, exs_ring_contig(SZ, 0, SZ), SZ);
}

static void exs_ring_test_cursor_advance(struct kunit *test)
{
	/* a credit may stay, move up to the limit, never back or past it */
	KUNIT_EXPECT_TRUE(test, exs_cursor_advance_ok(10, 10, 20));
	KUNIT_EXPECT_TRUE(test, exs_cursor_advance_ok(10, 20, 20));
	KUNIT_EXPECT_FALSE(test, exs_cursor_advance_ok(10, 21, 20));
	KUNIT_EXPECT_FALSE(test, exs_cursor_advance_ok(10, 9, 20));
	KUNIT_EXPECT_TRUE(test, exs_cursor_advance_ok(0, 0, 0));
	KUNIT_EXPECT_FALSE(test, exs_cursor_advance_ok(0, 1, 0));
	/* across the wrap */
	KUNIT_EXPECT_TRUE(test, exs_cursor_advance_ok(U32_MAX - 1, 3, 5));
	KUNIT_EXPECT_FALSE(test, exs_cursor_advance_ok(U32_MAX - 1, 6, 5));
	KUNIT_EXPECT_FALSE(test, exs_cursor_advance_ok(3, U32_MAX, 5));
}

static void exs_ring_test_credit(struct kunit *test)
{
	unsigned int fraction = 4;	/* every quarter ring */

	KUNIT_EXPECT_FALSE(test, exs_credit_due(SZ, 0, 0, fraction, false));
	KUNIT_EXPECT_FALSE(test, exs_credit_due(SZ, 0, 0, fraction, true));
	KUNIT_EXPECT_FALSE(test, exs_credit_due(SZ, SZ / 4 - 1, 0, fraction,
						false));
	KUNIT_EXPECT_TRUE(test, exs_credit_due(SZ, SZ / 4, 0, fraction, false));
	/* a starving sender gets any progress at once */
	KUNIT_EXPECT_TRUE(test, exs_credit_due(SZ, 1, 0, fraction, true));
	/* wrap of the cursors */
	KUNIT_EXPECT_TRUE(test, exs_credit_due(SZ, SZ / 4 - 10, U32_MAX - 9,
					       fraction, false));
	KUNIT_EXPECT_FALSE(test, exs_credit_due(SZ, SZ / 4 - 11, U32_MAX - 9,
						fraction, false));

	/* 1: only a whole ring consumed, unless the sender is low */
	KUNIT_EXPECT_FALSE(test, exs_credit_due(SZ, SZ - 1, 0, 1, false));
	KUNIT_EXPECT_TRUE(test, exs_credit_due(SZ, SZ, 0, 1, false));
	KUNIT_EXPECT_TRUE(test, exs_credit_due(SZ, 1, 0, 1, true));
	/* the largest fraction still needs progress */
	KUNIT_EXPECT_FALSE(test, exs_credit_due(EXS_RING_MIN, 0, 0, 64, false));
	KUNIT_EXPECT_TRUE(test, exs_credit_due(EXS_RING_MIN, EXS_RING_MIN / 64,
					       0, 64, false));

	KUNIT_EXPECT_TRUE(test, exs_window_low(SZ, SZ / 4 - 1));
	KUNIT_EXPECT_FALSE(test, exs_window_low(SZ, SZ / 4));
	KUNIT_EXPECT_TRUE(test, exs_window_low(SZ, 0));
}

static void exs_ring_test_signal(struct kunit *test)
{
	/* a small write with TCP_NODELAY, nothing else outstanding: silent */
	KUNIT_EXPECT_FALSE(test, exs_signal_due(false, 0, 16, SZ));
	/* Nagle waits for a completion: always signaled */
	KUNIT_EXPECT_TRUE(test, exs_signal_due(true, 0, 1, SZ));
	/* the EXS_SIGNAL_EVERY-th request in a row */
	KUNIT_EXPECT_FALSE(test, exs_signal_due(false, EXS_SIGNAL_EVERY - 2,
						1, SZ));
	KUNIT_EXPECT_TRUE(test, exs_signal_due(false, EXS_SIGNAL_EVERY - 1,
					       1, SZ));
	/* a quarter ring of bytes not known to be delivered */
	KUNIT_EXPECT_FALSE(test, exs_signal_due(false, 0, SZ / 4 - 1, SZ));
	KUNIT_EXPECT_TRUE(test, exs_signal_due(false, 0, SZ / 4, SZ));
}

/* What a resuming peer may say it holds of ours: from its last credit to
 * what we posted, across the 2^32 wrap too; our FIN only after all.
 */
static void exs_ring_test_resume_cursor(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, exs_resume_cursor_ok(100, 100, 300, false,
						     false));
	KUNIT_EXPECT_TRUE(test, exs_resume_cursor_ok(100, 300, 300, false,
						     false));
	KUNIT_EXPECT_FALSE(test, exs_resume_cursor_ok(100, 99, 300, false,
						      false));
	KUNIT_EXPECT_FALSE(test, exs_resume_cursor_ok(100, 301, 300, false,
						      false));
	KUNIT_EXPECT_TRUE(test, exs_resume_cursor_ok(0xfffffff0U, 0x10,
						     0x20, false, false));
	KUNIT_EXPECT_FALSE(test, exs_resume_cursor_ok(0xfffffff0U,
						      0xffffffe0U, 0x20, false,
						      false));
	/* the FIN: sent, and every byte before it held */
	KUNIT_EXPECT_TRUE(test, exs_resume_cursor_ok(100, 300, 300, true,
						     true));
	KUNIT_EXPECT_FALSE(test, exs_resume_cursor_ok(100, 200, 300, true,
						      true));
	KUNIT_EXPECT_FALSE(test, exs_resume_cursor_ok(100, 300, 300, false,
						      true));
	KUNIT_EXPECT_TRUE(test, exs_resume_cursor_ok(100, 200, 300, true,
						     false));
}

/* a BATCH's bytes in and out of a ring, across its end */
static void exs_ring_test_copy(struct kunit *test)
{
	u8 ring[16] = {}, out[6];

	exs_ring_write(ring, sizeof(ring), 0x1000000d, "abcdef", 6);
	KUNIT_EXPECT_EQ(test, memcmp(ring + 13, "abc", 3), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ring, "def", 3), 0);
	exs_ring_read(out, ring, sizeof(ring), 0x1000000d, 6);
	KUNIT_EXPECT_EQ(test, memcmp(out, "abcdef", 6), 0);
	exs_ring_read(out, ring, sizeof(ring), 13, 3);
	KUNIT_EXPECT_EQ(test, memcmp(out, "abc", 3), 0);
}

static struct kunit_case exs_ring_test_cases[] = {
	KUNIT_CASE(exs_ring_test_sizes),
	KUNIT_CASE(exs_ring_test_used_free),
	KUNIT_CASE(exs_ring_test_offsets),
	KUNIT_CASE(exs_ring_test_cursor_advance),
	KUNIT_CASE(exs_ring_test_credit),
	KUNIT_CASE(exs_ring_test_signal),
	KUNIT_CASE(exs_ring_test_resume_cursor),
	KUNIT_CASE(exs_ring_test_copy),
	{}
};

static struct kunit_suite exs_ring_test_suite = {
	.name = "af_exs_ring",
	.test_cases = exs_ring_test_cases,
};

kunit_test_suite(exs_ring_test_suite);
