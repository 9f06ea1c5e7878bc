// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for AF_EXS's pure logic, built into af_exs_kunit.ko (only
 * against a kernel with CONFIG_KUNIT: the project's debug kernel).
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "protocol.h"
#include "mib.h"

static void exs_test_proto_to_family(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, exs_proto_to_family(EXSPROTO_EXS), AF_INET);
	KUNIT_EXPECT_EQ(test, exs_proto_to_family(EXSPROTO_EXS6), AF_INET6);
	KUNIT_EXPECT_EQ(test, exs_proto_to_family(2), -EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, exs_proto_to_family(-1), -EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, exs_proto_to_family(IPPROTO_TCP),
			-EPROTONOSUPPORT);
}

static void exs_test_connect_addr_v4(struct kunit *test)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr *sa = (struct sockaddr *)&sin;

	KUNIT_EXPECT_TRUE(test, exs_connect_addr_ok(AF_INET, sa, sizeof(sin)));
	KUNIT_EXPECT_TRUE(test, exs_connect_addr_ok(AF_INET, sa,
						    sizeof(sin) + 8));
	/* one byte short, no family, zero length: left for TCP to refuse */
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET, sa,
						     sizeof(sin) - 1));
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET, sa, 1));
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET, sa, 0));
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET, sa, -1));
	/* AF_UNSPEC is TCP's disconnect, never a merge */
	sin.sin_family = AF_UNSPEC;
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET, sa,
						     sizeof(sin)));
	sin.sin_family = AF_INET6;
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET, sa,
						     sizeof(sin)));
}

static void exs_test_connect_addr_v6(struct kunit *test)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr *sa = (struct sockaddr *)&sin6;

	KUNIT_EXPECT_TRUE(test, exs_connect_addr_ok(AF_INET6, sa,
						    sizeof(sin6)));
	/* RFC 2133 length (no scope id) is what TCP accepts too */
	KUNIT_EXPECT_TRUE(test, exs_connect_addr_ok(AF_INET6, sa,
						    SIN6_LEN_RFC2133));
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET6, sa,
						     SIN6_LEN_RFC2133 - 1));
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET6, sa,
						     sizeof(struct sockaddr_in)));
	sin6.sin6_family = AF_INET;
	KUNIT_EXPECT_FALSE(test, exs_connect_addr_ok(AF_INET6, sa,
						     sizeof(sin6)));
}

/* What a peer's claim may not name (accept.c): loopback, unspecified,
 * multicast, broadcast, in either encoding; any unicast it may.
 */
static void exs_test_addr_martian(struct kunit *test)
{
	static const char * const bad[] = {
		"::1", "::", "ff02::1", "::ffff:127.0.0.1", "::ffff:127.1.2.3",
		"::ffff:0.0.0.0", "::ffff:224.0.0.1", "::ffff:255.255.255.255",
	};
	static const char * const good[] = {
		"::ffff:10.0.0.2", "fd00::2", "fe80::1", "2001:db8::1",
		"::127.0.0.1",	/* IPv4-compatible: not loopback, not v4 */
	};
	struct in6_addr a;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_ASSERT_EQ(test, in6_pton(bad[i], -1, a.s6_addr, -1, NULL),
				1);
		KUNIT_EXPECT_TRUE_MSG(test, exs_addr_is_martian(&a), "%s", bad[i]);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_ASSERT_EQ(test, in6_pton(good[i], -1, a.s6_addr, -1,
					       NULL), 1);
		KUNIT_EXPECT_FALSE_MSG(test, exs_addr_is_martian(&a), "%s",
				       good[i]);
	}
}

static void exs_test_sol_socket_native_only(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, exs_sol_socket_native_only(SO_ATTACH_FILTER));
	KUNIT_EXPECT_TRUE(test, exs_sol_socket_native_only(SO_ATTACH_BPF));
	KUNIT_EXPECT_TRUE(test, exs_sol_socket_native_only(SO_ZEROCOPY));
	KUNIT_EXPECT_FALSE(test, exs_sol_socket_native_only(SO_RCVBUF));
	KUNIT_EXPECT_FALSE(test, exs_sol_socket_native_only(SO_LINGER));
	KUNIT_EXPECT_FALSE(test, exs_sol_socket_native_only(SO_REUSEPORT));
}

/* Each fallback reason has its own, named counter. */
static void exs_test_fallback_counters(struct kunit *test)
{
	DECLARE_BITMAP(seen, EXS_MIB_MAX) = {};
	int reason;

	for (reason = EXS_FALLBACK_NONE + 1; reason <= EXS_FALLBACK_MAX;
	     reason++) {
		enum exs_mib_field f = exs_mib_fallback(reason);

		KUNIT_ASSERT_GE(test, f, EXS_MIB_FALLBACK_BASE);
		KUNIT_ASSERT_LT(test, f, EXS_MIB_MAX);
		KUNIT_EXPECT_FALSE(test, test_and_set_bit(f, seen));
		KUNIT_ASSERT_NOT_NULL(test, exs_mib_name(f));
		KUNIT_EXPECT_EQ(test, strncmp(exs_mib_name(f), "Fallback", 8),
				0);
	}
	KUNIT_EXPECT_NULL(test, exs_mib_name(EXS_MIB_MAX));
}

static struct kunit_case exs_test_cases[] = {
	KUNIT_CASE(exs_test_proto_to_family),
	KUNIT_CASE(exs_test_connect_addr_v4),
	KUNIT_CASE(exs_test_connect_addr_v6),
	KUNIT_CASE(exs_test_addr_martian),
	KUNIT_CASE(exs_test_sol_socket_native_only),
	KUNIT_CASE(exs_test_fallback_counters),
	{}
};

static struct kunit_suite exs_test_suite = {
	.name = "af_exs",
	.test_cases = exs_test_cases,
};

kunit_test_suite(exs_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for AF_EXS");
