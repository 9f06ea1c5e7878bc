// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile requests to the af_exs generic netlink family, built by hand
 * where exsconfig would refuse to: each must fail with the expected errno
 * (and a reason in the extended ack) and leave the map as it was.
 *
 *   exs_nlbad          run as root, in a namespace with a known map
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "exs_family.h"
#include "exs_tap.h"
#include "../tools/exsconfig/nl.h"

static struct exs_nl nl;

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(int *)data)++;
	return MNL_CB_OK;
}

static int map_size(void)
{
	int n = 0;

	if (exs_nl_talk(&nl, exs_nl_request(&nl, EXS_CMD_MAP_GET, true),
			count_cb, &n, NULL))
		return -1;
	return n;
}

/* One entry with what @fill adds to its nest. */
static struct nlmsghdr *entry_req(uint8_t cmd,
				  void (*fill)(struct nlmsghdr *nlh))
{
	struct nlmsghdr *nlh = exs_nl_request(&nl, cmd, false);
	struct nlattr *nest = mnl_attr_nest_start(nlh, EXS_A_MAP_ENTRY);

	fill(nlh);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static const uint8_t v4[4] = { 10, 9, 0, 0 }, v4node[4] = { 10, 9, 0, 1 };

static void f_no_prefix(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_NODE, 4, v4node);
}

static void f_short_prefix(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 3, v4);
}

static void f_odd_prefix(struct nlmsghdr *nlh)
{
	uint8_t five[5] = { 10, 9, 0, 0, 0 };

	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 5, five);
}

static void f_long_plen(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 33);
}

static void f_absurd_plen(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 255);
}

static void f_host_bits(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4node);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 16);
}

static void f_mcast_node(struct nlmsghdr *nlh)
{
	uint8_t m[4] = { 224, 0, 0, 1 };

	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 16);
	mnl_attr_put(nlh, EXS_ENTRY_NODE, 4, m);
}

static void f_range(struct nlmsghdr *nlh, uint16_t lo, uint16_t hi,
		    bool has_min)
{
	struct nlattr *r;

	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 16);
	r = mnl_attr_nest_start(nlh, EXS_ENTRY_ALLOW);
	if (has_min)
		mnl_attr_put_u16(nlh, EXS_RANGE_MIN, lo);
	mnl_attr_put_u16(nlh, EXS_RANGE_MAX, hi);
	mnl_attr_nest_end(nlh, r);
}

static void f_port0(struct nlmsghdr *nlh)
{
	f_range(nlh, 0, 10, true);
}

static void f_backwards(struct nlmsghdr *nlh)
{
	f_range(nlh, 10, 9, true);
}

static void f_no_min(struct nlmsghdr *nlh)
{
	f_range(nlh, 0, 9, false);
}

static void f_many_ranges(struct nlmsghdr *nlh)
{
	struct nlattr *r;
	int i;

	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 16);
	for (i = 0; i <= EXS_MAP_MAX_RANGES; i++) {
		r = mnl_attr_nest_start(nlh, EXS_ENTRY_DENY);
		mnl_attr_put_u16(nlh, EXS_RANGE_MIN, 100 + i);
		mnl_attr_nest_end(nlh, r);
	}
}

static void f_unknown_attr(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u32(nlh, EXS_ENTRY_MAX + 7, 1);
}

static void f_good(struct nlmsghdr *nlh)
{
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, v4);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, 16);
}

/* A request that must fail with @want and leave @before entries. */
static void expect(const char *name, struct nlmsghdr *nlh, int want,
		   int before)
{
	const char *why;
	int err = exs_nl_talk(&nl, nlh, NULL, NULL, &why);
	int after = map_size();

	tap_report(err == -want && after == before, name,
		   "got %s (%s), want %s; map %d -> %d entries",
		   strerror(-err), why, strerror(want), before, after);
	if (err == -want && *why)
		printf("#   kernel: %s\n", why);
}

int main(void)
{
	static const struct {
		const char *name;
		uint8_t cmd;
		void (*fill)(struct nlmsghdr *nlh);
		int err;
	} cases[] = {
		{ "add without a prefix", EXS_CMD_MAP_ADD, f_no_prefix, EINVAL },
		{ "prefix of 3 bytes", EXS_CMD_MAP_ADD, f_short_prefix, EINVAL },
		{ "prefix of 5 bytes", EXS_CMD_MAP_ADD, f_odd_prefix, EINVAL },
		{ "IPv4 prefix length 33", EXS_CMD_MAP_ADD, f_long_plen, EINVAL },
		{ "prefix length 255", EXS_CMD_MAP_ADD, f_absurd_plen, ERANGE },
		{ "host bits past the length", EXS_CMD_MAP_ADD, f_host_bits, EINVAL },
		{ "multicast node", EXS_CMD_MAP_ADD, f_mcast_node, EINVAL },
		{ "port range from 0", EXS_CMD_MAP_ADD, f_port0, ERANGE },
		{ "port range backwards", EXS_CMD_MAP_ADD, f_backwards, EINVAL },
		{ "port range without a start", EXS_CMD_MAP_ADD, f_no_min, EINVAL },
		{ "17 port ranges", EXS_CMD_MAP_ADD, f_many_ranges, E2BIG },
		{ "unknown attribute", EXS_CMD_MAP_ADD, f_unknown_attr, EINVAL },
		{ "load with one bad entry", EXS_CMD_MAP_SET, f_host_bits, EINVAL },
		{ "delete of an absent prefix", EXS_CMD_MAP_DEL, f_good, ENOENT },
	};
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int before, i, err;

	tap_begin(120);
	err = exs_nl_open(&nl);
	if (err) {
		printf("1..0 # SKIP af_exs netlink: %s\n", strerror(-err));
		return KSFT_SKIP;
	}
	before = map_size();
	tap_report(before >= 0, "the map dumps", "%d", before);

	for (i = 0; i < (int)ARRAY_SIZE(cases); i++)
		expect(cases[i].name, entry_req(cases[i].cmd, cases[i].fill),
		       cases[i].err, before);

	nlh = exs_nl_request(&nl, EXS_CMD_MAP_ADD, false);
	expect("add without an entry", nlh, EINVAL, before);

	nlh = exs_nl_request(&nl, EXS_CMD_POLICY_SET, false);
	mnl_attr_put_u8(nlh, EXS_A_POLICY, EXS_POLICY_MAX + 1);
	expect("unknown policy", nlh, ERANGE, before);

	nlh = exs_nl_request(&nl, EXS_CMD_POLICY_SET, false);
	mnl_attr_put_u32(nlh, EXS_A_POLICY, 0);
	expect("policy of the wrong size", nlh, EINVAL, before);

	nlh = exs_nl_request(&nl, EXS_CMD_MAX + 1, false);
	expect("unknown command", nlh, EOPNOTSUPP, before);

	/* more entries than a map holds: refused whole */
	nlh = exs_nl_request(&nl, EXS_CMD_MAP_SET, false);
	for (i = 0; i <= EXS_MAP_MAX_ENTRIES; i++) {
		uint8_t a[4] = { 10, 200, i >> 8, i & 0xff };

		nest = mnl_attr_nest_start(nlh, EXS_A_MAP_ENTRY);
		mnl_attr_put(nlh, EXS_ENTRY_PREFIX, 4, a);
		mnl_attr_nest_end(nlh, nest);
	}
	expect("load of 1025 entries", nlh, E2BIG, before);

	/* a message larger than the socket takes stops at the socket */
	nlh = exs_nl_request(&nl, EXS_CMD_MAP_SET, false);
	while (nlh->nlmsg_len + 64 < sizeof(nl.buf))
		mnl_attr_put_u32(nlh, EXS_A_MAX + 1, 0);
	expect("a 256 KiB request", nlh, EMSGSIZE, before);

	exs_nl_close(&nl);
	return tap_end();
}
