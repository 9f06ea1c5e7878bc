// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for what a failed work completion means (wc.h). */
#include <kunit/test.h>

#include "wc.h"

#define RECV	true
#define SEND	false
#define STANDS	true
#define ENDED	false
#define OUT	true
#define NONE	false

/* the verdict on a completion @st (a receive's if @recv) must be @want */
#define EXPECT_VERDICT(st, recv, stands, out, want)			\
	KUNIT_EXPECT_EQ(test, exs_wc_verdict(st, recv, stands, out), want)

static void exs_test_wc_dead_peer(struct kunit *test)
{
	/* a dead peer: our send's retries ran out */
	EXPECT_VERDICT(IB_WC_RETRY_EXC_ERR, SEND, STANDS, OUT, EXS_WC_TIMEDOUT);
	/* the rest of the send queue is flushed after it */
	EXPECT_VERDICT(IB_WC_WR_FLUSH_ERR, SEND, ENDED, OUT, EXS_WC_IGNORE);
	/* The receive queue's flush reached us first (the receive CQ ran
	 * before the send CQ): it must not call the peer a faulty one and
	 * reset the connection before the send says it timed out.
	 */
	EXPECT_VERDICT(IB_WC_WR_FLUSH_ERR, RECV, STANDS, OUT, EXS_WC_IGNORE);
}

static void exs_test_wc_flush(struct kunit *test)
{
	/* our own teardown's flushes, either queue */
	EXPECT_VERDICT(IB_WC_WR_FLUSH_ERR, RECV, ENDED, NONE, EXS_WC_IGNORE);
	EXPECT_VERDICT(IB_WC_WR_FLUSH_ERR, SEND, ENDED, OUT, EXS_WC_IGNORE);
	/* The QP died under a standing connection with no send to tell
	 * why: the device refused a peer's plain write (rxe says so in a
	 * QP event, with no receive to report it on)
	 */
	EXPECT_VERDICT(IB_WC_WR_FLUSH_ERR, RECV, STANDS, NONE,
		       EXS_WC_PEER_FAULT);
	/* A send flushed with no cause first: our own device ended the QP
	 * (6.12's rxe, a packet its qdisc refused), which a new one mends.
	 * Calling it the peer's fault reset the connection instead.
	 */
	EXPECT_VERDICT(IB_WC_WR_FLUSH_ERR, SEND, STANDS, OUT, EXS_WC_RESET);
}

static void exs_test_wc_refused(struct kunit *test)
{
	/* what the peer sent, refused on our receive */
	EXPECT_VERDICT(IB_WC_LOC_LEN_ERR, RECV, STANDS, NONE,
		       EXS_WC_PEER_FAULT);
	EXPECT_VERDICT(IB_WC_LOC_PROT_ERR, RECV, STANDS, OUT,
		       EXS_WC_PEER_FAULT);
	/* what we wrote into the peer's ring, refused by its device */
	EXPECT_VERDICT(IB_WC_REM_ACCESS_ERR, SEND, STANDS, OUT,
		       EXS_WC_PEER_FAULT);
	/* a local error on a send is our own side's */
	EXPECT_VERDICT(IB_WC_LOC_QP_OP_ERR, SEND, STANDS, OUT, EXS_WC_RESET);
	EXPECT_VERDICT(IB_WC_GENERAL_ERR, SEND, STANDS, OUT, EXS_WC_RESET);
}

static struct kunit_case exs_wc_test_cases[] = {
	KUNIT_CASE(exs_test_wc_dead_peer),
	KUNIT_CASE(exs_test_wc_flush),
	KUNIT_CASE(exs_test_wc_refused),
	{}
};

static struct kunit_suite exs_wc_test_suite = {
	.name = "af_exs_wc",
	.test_cases = exs_wc_test_cases,
};

kunit_test_suite(exs_wc_test_suite);
