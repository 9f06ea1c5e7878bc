// SPDX-License-Identifier: GPL-2.0
/* KUnit: building and matching host-to-node maps (map.c). */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "map.h"

/* An entry from text: "10.0.0.0" or "fd00::", its length and node. */
static struct exs_map_entry exs_test_entry(const char *prefix, u8 plen,
					   const char *node)
{
	struct exs_map_entry e = { .plen = plen };
	__be32 v4;

	if (in4_pton(prefix, -1, (u8 *)&v4, -1, NULL)) {
		e.family = AF_INET;
		ipv6_addr_set_v4mapped(v4, &e.prefix);
	} else {
		e.family = AF_INET6;
		in6_pton(prefix, -1, e.prefix.s6_addr, -1, NULL);
	}
	if (in4_pton(node, -1, (u8 *)&v4, -1, NULL))
		ipv6_addr_set_v4mapped(v4, &e.node);
	else
		in6_pton(node, -1, e.node.s6_addr, -1, NULL);
	return e;
}

static struct in6_addr exs_test_addr(const char *s)
{
	struct in6_addr a = {};
	__be32 v4;

	if (in4_pton(s, -1, (u8 *)&v4, -1, NULL))
		ipv6_addr_set_v4mapped(v4, &a);
	else
		in6_pton(s, -1, a.s6_addr, -1, NULL);
	return a;
}

/* The prefix length of the entry @s matches in @map, or -1. */
static int exs_test_match(const struct exs_map *map, const char *s)
{
	struct in6_addr a = exs_test_addr(s);
	const struct exs_map_entry *e = exs_map_lookup(map, &a);

	return e ? e->plen : -1;
}

static struct exs_map *exs_test_build(struct kunit *test,
				      const struct exs_map_entry *e,
				      unsigned int n)
{
	struct exs_map *map = exs_map_build(NULL, e, n, NULL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, map);
	return map;
}

static void exs_map_test_lpm_v4(struct kunit *test)
{
	struct exs_map_entry e[] = {
		exs_test_entry("10.0.0.0", 8, "192.168.0.1"),
		exs_test_entry("10.1.0.0", 16, "192.168.0.2"),
		exs_test_entry("10.1.2.3", 32, "192.168.0.3"),
		exs_test_entry("0.0.0.0", 0, "192.168.0.4"),
	};
	struct exs_map *map = exs_test_build(test, e, ARRAY_SIZE(e));

	KUNIT_EXPECT_EQ(test, exs_test_match(map, "10.1.2.3"), 32);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "10.1.2.4"), 16);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "10.2.0.1"), 8);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "11.0.0.1"), 0);
	/* /0 of IPv4 holds no IPv6 address */
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "fd00::1"), -1);
	kvfree(map);
}

static void exs_map_test_lpm_v6(struct kunit *test)
{
	struct exs_map_entry e[] = {
		exs_test_entry("fd00::", 8, "fd00::99"),
		exs_test_entry("fd00:1::", 32, "fd00::98"),
		exs_test_entry("fd00:1::7", 128, "fd00::97"),
		exs_test_entry("::", 0, "fd00::96"),
	};
	struct exs_map *map = exs_test_build(test, e, ARRAY_SIZE(e));
	struct in6_addr node = exs_test_addr("fd00::97");
	struct in6_addr a = exs_test_addr("fd00:1::7");

	KUNIT_EXPECT_EQ(test, exs_test_match(map, "fd00:1::7"), 128);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "fd00:1::8"), 32);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "fd12::1"), 8);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "2001:db8::1"), 0);
	/* ::/0 of IPv6 holds no IPv4 peer, mapped or not */
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "10.0.0.1"), -1);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&exs_map_lookup(map, &a)->node,
						&node));
	kvfree(map);
}

static void exs_map_test_ports(struct kunit *test)
{
	struct exs_map_entry e = exs_test_entry("10.0.0.0", 8, "10.0.0.1");

	/* no lists: every port */
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 1));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 65535));

	/* allow 5000-5999 and 80, deny 5500-5599 */
	e.ranges[0] = (struct exs_port_range){ 5000, 5999 };
	e.ranges[1] = (struct exs_port_range){ 80, 80 };
	e.ranges[2] = (struct exs_port_range){ 5500, 5599 };
	e.n_allow = 2;
	e.n_deny = 1;
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 5000));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 5999));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 80));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 5499));
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 5500));
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 5599));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 5600));
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 4999));
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 6000));
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 81));

	/* deny only: everything else */
	e.ranges[0] = (struct exs_port_range){ 1, 1023 };
	e.n_allow = 0;
	e.n_deny = 1;
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 1));
	KUNIT_EXPECT_FALSE(test, exs_map_port_ok(&e, 1023));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 1024));
	KUNIT_EXPECT_TRUE(test, exs_map_port_ok(&e, 65535));
}

static void exs_map_test_check(struct kunit *test)
{
	struct exs_map_entry e = exs_test_entry("10.0.0.0", 8, "10.0.0.1");

	KUNIT_EXPECT_NULL(test, exs_map_entry_check(&e));
	e.plen = 33;
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	e = exs_test_entry("10.0.0.1", 8, "10.0.0.1");	/* host bits */
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	KUNIT_EXPECT_NOT_NULL(test, exs_map_key_check(&e));
	e = exs_test_entry("10.0.0.1", 32, "0.0.0.0");	/* not a node */
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	KUNIT_EXPECT_NULL(test, exs_map_key_check(&e));
	e = exs_test_entry("10.0.0.1", 32, "::");	/* the peer's own */
	KUNIT_EXPECT_NULL(test, exs_map_entry_check(&e));
	e = exs_test_entry("10.0.0.1", 32, "224.0.0.1");
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	e = exs_test_entry("fd00::", 129, "fd00::1");
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	e = exs_test_entry("fd00::", 128, "ff02::1");
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	e = exs_test_entry("fd00::", 128, "fd00::1");
	KUNIT_EXPECT_NULL(test, exs_map_entry_check(&e));
	e.ranges[0] = (struct exs_port_range){ 0, 10 };
	e.n_allow = 1;
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	e.ranges[0] = (struct exs_port_range){ 10, 9 };
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	e.ranges[0] = (struct exs_port_range){ 65535, 65535 };
	KUNIT_EXPECT_NULL(test, exs_map_entry_check(&e));
	e.n_deny = EXS_MAP_MAX_RANGES;
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
	/* an IPv6 entry may not hide an IPv4 prefix */
	e = exs_test_entry("::ffff:10.0.0.0", 104, "fd00::1");
	KUNIT_EXPECT_NOT_NULL(test, exs_map_entry_check(&e));
}

static void exs_map_test_build(struct kunit *test)
{
	struct exs_map_entry e[] = {
		exs_test_entry("10.0.0.0", 8, "10.0.0.1"),
		exs_test_entry("10.0.0.0", 16, "10.0.0.2"),
		exs_test_entry("10.0.0.0", 8, "10.0.0.3"),
	};
	struct exs_map_entry v6 = exs_test_entry("fd00::", 8, "fd00::1");
	struct exs_map_entry del = e[0];
	struct exs_map *map, *next;

	/* the same key twice */
	KUNIT_EXPECT_EQ(test, PTR_ERR(exs_map_build(NULL, e, 3, NULL)),
			-EEXIST);
	KUNIT_EXPECT_NULL(test, exs_map_build(NULL, NULL, 0, NULL));

	map = exs_test_build(test, e, 2);
	KUNIT_EXPECT_EQ(test, map->n, 2U);
	/* sorted longest first */
	KUNIT_EXPECT_EQ(test, map->e[0].plen, 16);

	KUNIT_EXPECT_EQ(test, PTR_ERR(exs_map_build(map, &e[2], 1, NULL)),
			-EEXIST);
	next = exs_map_build(map, &v6, 1, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, next);
	KUNIT_EXPECT_EQ(test, next->n, 3U);
	kvfree(next);

	next = exs_map_build(map, NULL, 0, &del);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, next);
	KUNIT_EXPECT_EQ(test, next->n, 1U);
	KUNIT_EXPECT_EQ(test, PTR_ERR(exs_map_build(next, NULL, 0, &del)),
			-ENOENT);
	kvfree(next);
	/* the old map is untouched */
	KUNIT_EXPECT_EQ(test, map->n, 2U);
	kvfree(map);
}

static void exs_map_test_full(struct kunit *test)
{
	struct exs_map *map, *next;
	struct exs_map_entry *e;
	unsigned int i;

	e = kunit_kcalloc(test, EXS_MAP_MAX_ENTRIES + 1, sizeof(*e),
			  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	for (i = 0; i <= EXS_MAP_MAX_ENTRIES; i++) {
		e[i] = exs_test_entry("10.0.0.0", 32, "10.0.0.1");
		e[i].prefix.s6_addr32[3] = htonl(0x0a000000 + i);
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(exs_map_build(NULL, e,
						    EXS_MAP_MAX_ENTRIES + 1,
						    NULL)), -E2BIG);
	map = exs_test_build(test, e, EXS_MAP_MAX_ENTRIES);
	KUNIT_EXPECT_EQ(test, PTR_ERR(exs_map_build(map,
						    &e[EXS_MAP_MAX_ENTRIES],
						    1, NULL)), -E2BIG);
	/* a delete from a full map is fine */
	next = exs_map_build(map, NULL, 0, &e[0]);
	kvfree(map);
	map = next;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, map);
	KUNIT_EXPECT_EQ(test, map->n, EXS_MAP_MAX_ENTRIES - 1);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "10.0.3.255"), 32);
	KUNIT_EXPECT_EQ(test, exs_test_match(map, "10.0.0.0"), -1);
	kvfree(map);
}

static struct kunit_case exs_map_test_cases[] = {
	KUNIT_CASE(exs_map_test_lpm_v4),
	KUNIT_CASE(exs_map_test_lpm_v6),
	KUNIT_CASE(exs_map_test_ports),
	KUNIT_CASE(exs_map_test_check),
	KUNIT_CASE(exs_map_test_build),
	KUNIT_CASE(exs_map_test_full),
	{}
};

static struct kunit_suite exs_map_test_suite = {
	.name = "af_exs_map",
	.test_cases = exs_map_test_cases,
};

kunit_test_suite(exs_map_test_suite);
