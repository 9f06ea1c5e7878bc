// SPDX-License-Identifier: GPL-2.0
/* KUnit: building and validating what crosses the wire (wire.c). */
#include <kunit/test.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "ring.h"
#include "wire.h"

static void exs_wire_test_self(struct exs_wire_peer *p, int family)
{
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->sport = htons(40000);
	p->dport = htons(5001);
	if (family == AF_INET) {
		ipv6_addr_set_v4mapped(htonl(0x0a000001), &p->saddr);
		ipv6_addr_set_v4mapped(htonl(0x0a000002), &p->daddr);
	} else {
		p->saddr.s6_addr[0] = 0xfd;
		p->saddr.s6_addr[15] = 1;
		p->daddr.s6_addr[0] = 0xfd;
		p->daddr.s6_addr[15] = 2;
	}
	p->ring_addr = 0x1000;
	p->ring_rkey = 0x42;
	p->ring_len = EXS_RING_MIN;
	p->version = EXS_WIRE_VERSION;
	p->version_min = EXS_WIRE_VERSION_MIN;
}

/* A REQ's parse by an acceptor that speaks our versions */
static int exs_wire_test_req(const void *data, unsigned int len,
			     struct exs_wire_peer *peer)
{
	return exs_wire_parse_req(data, len, EXS_WIRE_VERSION, peer);
}

static void exs_wire_test_req_roundtrip(struct kunit *test)
{
	struct exs_wire_peer self, got;
	struct exs_wire_req req;
	int family;

	KUNIT_EXPECT_LE(test, sizeof(req), (size_t)EXS_WIRE_PDATA_MAX);
	for (family = AF_INET; family <= AF_INET6; family += AF_INET6 - AF_INET) {
		exs_wire_test_self(&self, family);
		exs_wire_build_req(&req, &self);
		KUNIT_ASSERT_EQ(test, exs_wire_test_req(&req, sizeof(req),
							&got), 0);
		KUNIT_EXPECT_EQ(test, got.family, self.family);
		KUNIT_EXPECT_EQ(test, got.sport, self.sport);
		KUNIT_EXPECT_EQ(test, got.dport, self.dport);
		KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&got.saddr, &self.saddr));
		KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&got.daddr, &self.daddr));
		KUNIT_EXPECT_EQ(test, got.ring_addr, self.ring_addr);
		KUNIT_EXPECT_EQ(test, got.ring_rkey, self.ring_rkey);
		KUNIT_EXPECT_EQ(test, got.ring_len, self.ring_len);
		/* rdma_cm pads private data: longer is fine */
		KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, 56, &got), 0);
	}
}

static void exs_wire_test_req_bad(struct kunit *test)
{
	struct exs_wire_peer self, got;
	struct exs_wire_req req;
	__be16 flags;

	exs_wire_test_self(&self, AF_INET);
	exs_wire_build_req(&req, &self);

	KUNIT_EXPECT_EQ(test, exs_wire_test_req(NULL, 0, &got), -EPROTO);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, 0, &got), -EPROTO);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req) - 1, &got),
			-EPROTO);

	req.version = EXS_WIRE_VERSION_MIN - 1;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_req(&req, sizeof(req),
						 EXS_WIRE_VERSION, &got),
			-EPROTONOSUPPORT);
	/* an older version is told apart even from a short message */
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, 1, &got),
			-EPROTONOSUPPORT);
	req.version = EXS_WIRE_VERSION;

	req.family = 5;
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	/* an IPv4 request must carry IPv4-mapped addresses, IPv6 must not */
	req.family = EXS_WIRE_INET6;
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.family = EXS_WIRE_INET;

	req.sport = 0;
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.sport = htons(1);

	/* a flag nobody defined, alone or beside RESUME (the range in the
	 * high byte kept: the flag alone is what is wrong)
	 */
	flags = req.flags;
	req.flags = flags | htons(4);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.flags = flags | htons(4 | EXS_WIRE_REQ_RESUME);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.flags = flags;
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got), 0);

	/* ring sizes: not a power of two, too small, too large, zero */
	req.ring_len = cpu_to_be32(EXS_RING_MIN + 4096);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.ring_len = cpu_to_be32(EXS_RING_MIN / 2);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.ring_len = cpu_to_be32(EXS_RING_MAX * 2);
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
	req.ring_len = 0;
	KUNIT_EXPECT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got),
			-EPROTO);
}

static void exs_wire_test_rep_rej(struct kunit *test)
{
	struct exs_wire_peer self, got = {};
	struct exs_wire_rep rep;

	exs_wire_test_self(&self, AF_INET);
	exs_wire_build_rep(&rep, EXS_WIRE_VERSION, 0x2000, 7, EXS_RING_MAX);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rep(&rep, sizeof(rep), &self,
						 &got), 0);
	KUNIT_EXPECT_EQ(test, got.version, EXS_WIRE_VERSION);
	KUNIT_EXPECT_EQ(test, got.ring_addr, 0x2000ULL);
	KUNIT_EXPECT_EQ(test, got.ring_rkey, 7U);
	KUNIT_EXPECT_EQ(test, got.ring_len, EXS_RING_MAX);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rep(&rep, sizeof(rep) - 1, &self,
						 &got), -EPROTO);
	/* a version the REQ did not offer */
	rep.version = EXS_WIRE_VERSION + 1;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rep(&rep, sizeof(rep), &self,
						 &got), -EPROTONOSUPPORT);
	rep.version = EXS_WIRE_VERSION_MIN - 1;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rep(&rep, sizeof(rep), &self,
						 &got), -EPROTONOSUPPORT);
	self.version_min = EXS_WIRE_VERSION;
	rep.version = EXS_WIRE_VERSION - 1;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rep(&rep, sizeof(rep), &self,
						 &got), -EPROTONOSUPPORT);

	/* a reject sent as a REP is not a REP */
	exs_wire_build_rej(&rep, EXS_WIRE_REJ_BACKLOG, EXS_WIRE_VERSION);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rep(&rep, sizeof(rep), &self,
						 &got), -EPROTO);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rej(&rep, sizeof(rep), &got), 0);
	KUNIT_EXPECT_EQ(test, got.reject, EXS_WIRE_REJ_BACKLOG);

	/* it says the highest version the acceptor speaks */
	exs_wire_build_rej(&rep, EXS_WIRE_REJ_VERSION, EXS_WIRE_VERSION_MIN);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rej(&rep, sizeof(rep), &got), 0);
	KUNIT_EXPECT_EQ(test, got.reject, EXS_WIRE_REJ_VERSION);
	KUNIT_EXPECT_EQ(test, got.version, EXS_WIRE_VERSION_MIN);
	/* one older than any we speak refused for another reason */
	exs_wire_build_rej(&rep, EXS_WIRE_REJ_BACKLOG, 1);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rej(&rep, sizeof(rep), &got), 0);
	KUNIT_EXPECT_EQ(test, got.reject, EXS_WIRE_REJ_VERSION);

	/* the CM's own reject (nothing listens) carries zeros or nothing */
	memset(&rep, 0, sizeof(rep));
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rej(&rep, sizeof(rep), &got), 0);
	KUNIT_EXPECT_EQ(test, got.reject, EXS_WIRE_REJ_NO_LISTENER);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rej(NULL, 0, &got), 0);
	KUNIT_EXPECT_EQ(test, got.reject, EXS_WIRE_REJ_NO_LISTENER);

	/* unknown reason */
	exs_wire_build_rej(&rep, EXS_WIRE_REJ_NOMEM, EXS_WIRE_VERSION);
	rep.reason = 200;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rej(&rep, sizeof(rep), &got),
			-EPROTO);
}

/* The acceptor answers in the highest version both ends speak, and the
 * connector takes that answer; a REQ of 3 or 4 offers that version alone.
 */
static void exs_wire_test_versions(struct kunit *test)
{
	struct exs_wire_peer self, got, rep_got;
	struct exs_wire_rep rep;
	struct exs_wire_req req;
	u8 hi, lo, max, want;
	int err;

	exs_wire_test_self(&self, AF_INET);
	for (hi = EXS_WIRE_VERSION_MIN; hi <= EXS_WIRE_VERSION; hi++) {
		lo = hi < EXS_WIRE_V_RANGE ? hi : self.version_min;
		for (max = EXS_WIRE_VERSION_MIN; max <= EXS_WIRE_VERSION;
		     max++) {
			want = min(hi, max);
			self.version = hi;
			exs_wire_build_req(&req, &self);
			err = exs_wire_parse_req(&req, sizeof(req), max, &got);
			if (want < lo) {
				KUNIT_EXPECT_EQ(test, err, -EPROTONOSUPPORT);
				continue;
			}
			KUNIT_ASSERT_EQ(test, err, 0);
			KUNIT_EXPECT_EQ(test, got.version, want);
			KUNIT_EXPECT_EQ(test, got.version_min, lo);
			/* flags are flags: the range is not a flag */
			KUNIT_EXPECT_FALSE(test, got.resume || got.share);
			/* the REP names it, and the connector takes it */
			exs_wire_build_rep(&rep, got.version, 0x2000, 7,
					   EXS_RING_MIN);
			KUNIT_ASSERT_EQ(test,
					exs_wire_parse_rep(&rep, sizeof(rep),
							   &self, &rep_got),
					0);
			KUNIT_EXPECT_EQ(test, rep_got.version, want);
		}
		/* an older version's REQ names that version alone */
		if (hi < EXS_WIRE_V_RANGE)
			KUNIT_EXPECT_EQ(test, req.flags, 0);
	}
	/* a newer host than us, whose range reaches ours */
	self.version = EXS_WIRE_VERSION + 2;
	exs_wire_build_req(&req, &self);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_req(&req, sizeof(req),
						 EXS_WIRE_VERSION, &got), 0);
	KUNIT_EXPECT_EQ(test, got.version, EXS_WIRE_VERSION);
	/* ...and one whose range does not */
	self.version_min = EXS_WIRE_VERSION + 1;
	exs_wire_build_req(&req, &self);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_req(&req, sizeof(req),
						 EXS_WIRE_VERSION, &got),
			-EPROTONOSUPPORT);
	/* a range that is none: no lowest, or a lowest above the highest */
	req.flags = cpu_to_be16(0);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_req(&req, sizeof(req),
						 EXS_WIRE_VERSION, &got),
			-EPROTO);
	req.version = EXS_WIRE_VERSION;
	req.flags = cpu_to_be16((EXS_WIRE_VERSION + 1) <<
				EXS_WIRE_REQ_VMIN_SHIFT);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_req(&req, sizeof(req),
						 EXS_WIRE_VERSION, &got),
			-EPROTO);
	/* a version-4 REQ with bits in the high byte is malformed */
	self.version = EXS_WIRE_V_BATCH;
	self.version_min = EXS_WIRE_VERSION_MIN;
	exs_wire_build_req(&req, &self);
	req.flags = cpu_to_be16(EXS_WIRE_VERSION_MIN <<
				EXS_WIRE_REQ_VMIN_SHIFT);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_req(&req, sizeof(req),
						 EXS_WIRE_VERSION, &got),
			-EPROTO);
}

static void exs_wire_test_msg(struct kunit *test)
{
	struct exs_wire_msg msg = { .type = EXS_MSG_CREDIT,
				    .cursor = cpu_to_be32(1234) };
	enum exs_wire_msg_type type;
	u32 cursor;
	u8 chan;

	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_CREDIT);
	KUNIT_EXPECT_EQ(test, cursor, 1234U);

	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg) - 1, &type,
						 &cursor, &chan), -EPROTO);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg) + 1, &type,
						 &cursor, &chan), -EPROTO);
	msg.type = 0;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	msg.type = __EXS_MSG_MAX;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	/* the last type: a DATA message keeps the "window low" bit */
	msg.type = EXS_MSG_DATA;
	msg.cursor = cpu_to_be32(EXS_IMM_LOW_WINDOW | 4096);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_DATA);
	KUNIT_EXPECT_EQ(test, cursor, EXS_IMM_LOW_WINDOW | 4096);
	msg.type = EXS_MSG_FIN;
	msg.flags = 1;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
}

/* Resuming: a REQ's flag comes back out of the parser and only when set;
 * a RESUME takes its flags, and nothing else does: FIN, or LINK alone on
 * channel 0 with no cursor (a QP that resumes for its riders only).
 */
static void exs_wire_test_resume(struct kunit *test)
{
	struct exs_wire_msg msg = { .type = EXS_MSG_RESUME,
				    .cursor = cpu_to_be32(4096) };
	struct exs_wire_peer self, got;
	enum exs_wire_msg_type type;
	struct exs_wire_req req;
	u32 cursor;
	u8 chan;

	exs_wire_test_self(&self, AF_INET);
	exs_wire_build_req(&req, &self);
	KUNIT_ASSERT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got), 0);
	KUNIT_EXPECT_FALSE(test, got.resume);
	self.resume = true;
	exs_wire_build_req(&req, &self);
	/* the high byte is the lowest version offered (wire.h) */
	KUNIT_EXPECT_EQ(test, be16_to_cpu(req.flags) &
			((1 << EXS_WIRE_REQ_VMIN_SHIFT) - 1),
			EXS_WIRE_REQ_RESUME);
	KUNIT_ASSERT_EQ(test, exs_wire_test_req(&req, sizeof(req), &got), 0);
	KUNIT_EXPECT_TRUE(test, got.resume);
	KUNIT_EXPECT_EQ(test, got.ring_rkey, self.ring_rkey);

	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_RESUME);
	KUNIT_EXPECT_EQ(test, cursor, 4096U);
	msg.flags = EXS_RESUME_FIN;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	msg.flags = EXS_RESUME_LINK << 1;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	/* LINK: no stream, so no cursor, no FIN, and the QP's own channel */
	msg.flags = EXS_RESUME_LINK;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	msg.cursor = 0;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	msg.flags = EXS_RESUME_LINK | EXS_RESUME_FIN;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	msg.flags = EXS_RESUME_LINK;
	msg.chan = cpu_to_be16(3);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	msg.chan = 0;
	msg.type = EXS_MSG_CREDIT;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);
	msg.flags = EXS_RESUME_FIN;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);

	/* what the sender builds (tx.c) the receiver takes back */
	memset(&msg, 0xff, sizeof(msg));
	exs_wire_build_msg(&msg, EXS_MSG_RESUME, EXS_RESUME_FIN, 8192, 0);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_RESUME);
	KUNIT_EXPECT_EQ(test, cursor, 8192U);
	KUNIT_EXPECT_EQ(test, msg.flags, EXS_RESUME_FIN);
	memset(&msg, 0xff, sizeof(msg));
	exs_wire_build_msg(&msg, EXS_MSG_CREDIT, 0, 0xfffffff0, 5);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_CREDIT);
	KUNIT_EXPECT_EQ(test, cursor, 0xfffffff0U);
}

/* The messages of reuse: an OPEN is a header and a REQ, and only that
 * length; LAST and REFUSE are bare headers.
 */
static void exs_wire_test_reuse_msgs(struct kunit *test)
{
	struct exs_wire_open open;
	struct exs_wire_msg msg = {};
	struct exs_wire_peer self, got;
	enum exs_wire_msg_type type;
	u32 cursor;
	u8 chan;

	KUNIT_EXPECT_EQ(test, sizeof(open), sizeof(union exs_wire_rx));
	exs_wire_test_self(&self, AF_INET6);
	exs_wire_build_open(&open, EXS_MSG_OPEN, 0, 0, &self);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_OPEN);
	KUNIT_ASSERT_EQ(test, exs_wire_test_req(&open.req, sizeof(open.req),
						&got), 0);
	KUNIT_EXPECT_EQ(test, got.sport, self.sport);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&got.daddr, &self.daddr));
	KUNIT_EXPECT_EQ(test, got.ring_rkey, self.ring_rkey);

	/* an OPEN cut short, padded, with a cursor; a bare header of it */
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open) - 1,
						 &type, &cursor, &chan), -EPROTO);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open) + 1,
						 &type, &cursor, &chan), -EPROTO);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open.hdr),
						 &type, &cursor, &chan), -EPROTO);
	open.hdr.cursor = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);

	msg.type = EXS_MSG_LAST;
	msg.cursor = cpu_to_be32(77);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_LAST);
	KUNIT_EXPECT_EQ(test, cursor, 77U);
	/* a LAST as long as an OPEN */
	memset(&open, 0, sizeof(open));
	open.hdr = msg;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	msg.type = EXS_MSG_REFUSE;
	msg.cursor = cpu_to_be32(EXS_WIRE_REJ_NO_LISTENER);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_REFUSE);
}

/* Sharing a QP (share.c): every message names the receiver's channel;
 * a JOIN goes to channel 0 and names the joiner's, JOINED answers on it
 * with the acceptor's; an immediate carries a channel beside the length.
 */
static void exs_wire_test_share_msgs(struct kunit *test)
{
	struct exs_wire_open open;
	struct exs_wire_msg msg;
	struct exs_wire_peer self, got;
	enum exs_wire_msg_type type;
	u32 cursor, imm;
	u8 chan;

	exs_wire_build_msg(&msg, EXS_MSG_CREDIT, 0, 4096, EXS_CHAN_MAX - 1);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, chan, EXS_CHAN_MAX - 1);
	msg.chan = cpu_to_be16(EXS_CHAN_MAX);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&msg, sizeof(msg), &type,
						 &cursor, &chan), -EPROTO);

	exs_wire_test_self(&self, AF_INET);
	self.share = true;
	exs_wire_build_open(&open, EXS_MSG_JOIN, 0, 5, &self);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_JOIN);
	KUNIT_EXPECT_EQ(test, cursor, 5U);
	KUNIT_EXPECT_EQ(test, chan, 0);
	KUNIT_ASSERT_EQ(test, exs_wire_test_req(&open.req, sizeof(open.req),
						&got), 0);
	KUNIT_EXPECT_TRUE(test, got.share);
	KUNIT_EXPECT_FALSE(test, got.resume);
	/* a JOIN to a rider, or naming channel 0 or none there is */
	exs_wire_build_open(&open, EXS_MSG_JOIN, 3, 5, &self);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	exs_wire_build_open(&open, EXS_MSG_JOIN, 0, 0, &self);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	open.hdr.cursor = cpu_to_be32(EXS_CHAN_MAX);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	/* JOINED: to the joiner's channel, naming the acceptor's */
	exs_wire_build_open(&open, EXS_MSG_JOINED, 5, 9, &self);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_JOINED);
	KUNIT_EXPECT_EQ(test, chan, 5);
	KUNIT_EXPECT_EQ(test, cursor, 9U);
	exs_wire_build_open(&open, EXS_MSG_JOINED, 0, 9, &self);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	/* a bare JOIN header; an OPEN to a channel that names none of
	 * the sender's, or one out of range
	 */
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open.hdr),
						 &type, &cursor, &chan),
			-EPROTO);
	exs_wire_build_open(&open, EXS_MSG_OPEN, 2, 0, &self);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	open.hdr.cursor = cpu_to_be32(EXS_CHAN_MAX);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), -EPROTO);
	/* a parked rider's OPEN: its channel, and the sender's */
	exs_wire_build_open(&open, EXS_MSG_OPEN, 2, 5, &self);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(&open, sizeof(open), &type,
						 &cursor, &chan), 0);
	KUNIT_EXPECT_EQ(test, chan, 2);
	KUNIT_EXPECT_EQ(test, cursor, 5U);

	/* the immediate's three fields do not overlap */
	KUNIT_EXPECT_EQ(test, EXS_IMM_LOW_WINDOW & EXS_IMM_CHAN_MASK, 0U);
	KUNIT_EXPECT_EQ(test, EXS_IMM_LEN_MASK & EXS_IMM_CHAN_MASK, 0U);
	imm = EXS_IMM_LOW_WINDOW | (EXS_CHAN_MAX - 1) << EXS_IMM_CHAN_SHIFT |
	      EXS_IMM_LEN_MASK;
	KUNIT_EXPECT_EQ(test, imm, 0xffffffffU);
	KUNIT_EXPECT_GE(test, EXS_IMM_LEN_MASK + 1, (u32)EXS_RING_MAX);
}

/* A BATCH of records for channels 0 and 7, in @buf: its length */
static unsigned int exs_wire_test_batch(u8 *buf)
{
	unsigned int off = sizeof(struct exs_wire_msg);

	exs_wire_build_msg((struct exs_wire_msg *)buf, EXS_MSG_BATCH, 0, 2, 0);
	exs_wire_build_rec((struct exs_wire_rec *)(buf + off), 0, 0, 3);
	off += sizeof(struct exs_wire_rec);
	memcpy(buf + off, "abc", 3);
	off += 3;
	exs_wire_build_rec((struct exs_wire_rec *)(buf + off), 7,
			   EXS_REC_LOW_WINDOW, 1);
	off += sizeof(struct exs_wire_rec);
	buf[off++] = 'z';
	return off;
}

static void exs_wire_test_batch_msgs(struct kunit *test)
{
	u8 buf[EXS_BATCH_MAX + 8] = {};
	enum exs_wire_msg_type type;
	unsigned int len, off;
	u8 chan, flags;
	u32 cursor;
	u16 rlen;

	len = exs_wire_test_batch(buf);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), 0);
	KUNIT_EXPECT_EQ(test, type, EXS_MSG_BATCH);
	KUNIT_EXPECT_EQ(test, cursor, 2U);
	off = sizeof(struct exs_wire_msg);
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rec(buf, len, &off, &chan, &flags,
						 &rlen), 0);
	KUNIT_EXPECT_EQ(test, chan, 0);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, rlen, 3);
	KUNIT_EXPECT_EQ(test, memcmp(buf + off, "abc", 3), 0);
	off += rlen;
	KUNIT_ASSERT_EQ(test, exs_wire_parse_rec(buf, len, &off, &chan, &flags,
						 &rlen), 0);
	KUNIT_EXPECT_EQ(test, chan, 7);
	KUNIT_EXPECT_EQ(test, flags, EXS_REC_LOW_WINDOW);
	KUNIT_EXPECT_EQ(test, off + rlen, len);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rec(buf, len, &len, &chan, &flags,
						 &rlen), -EPROTO);

	/* a byte short, a byte over, or a record more or fewer than said */
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len - 1, &type, &cursor,
						 &chan), -EPROTO);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len + 1, &type, &cursor,
						 &chan), -EPROTO);
	((struct exs_wire_msg *)buf)->cursor = cpu_to_be32(3);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	((struct exs_wire_msg *)buf)->cursor = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	((struct exs_wire_msg *)buf)->cursor = 0;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, sizeof(struct exs_wire_msg),
						 &type, &cursor, &chan),
			-EPROTO);
	/* to a rider's channel, longer than a receive holds */
	len = exs_wire_test_batch(buf);
	((struct exs_wire_msg *)buf)->chan = cpu_to_be16(1);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	len = exs_wire_test_batch(buf);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, EXS_BATCH_MAX + 1, &type,
						 &cursor, &chan), -EPROTO);
	/* an empty record, an unknown flag, a channel out of range, a
	 * record longer than the message
	 */
	off = sizeof(struct exs_wire_msg);
	exs_wire_build_rec((struct exs_wire_rec *)(buf + off), 0, 0, 0);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	exs_wire_build_rec((struct exs_wire_rec *)(buf + off), 0, 2, 3);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	exs_wire_build_rec((struct exs_wire_rec *)(buf + off), EXS_CHAN_MAX, 0,
			   3);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	exs_wire_build_rec((struct exs_wire_rec *)(buf + off), 0, 0, 0xffff);
	KUNIT_EXPECT_EQ(test, exs_wire_parse_msg(buf, len, &type, &cursor,
						 &chan), -EPROTO);
	off = len;
	KUNIT_EXPECT_EQ(test, exs_wire_parse_rec(buf, len - 1, &off, &chan,
						 &flags, &rlen), -EPROTO);
}

static struct kunit_case exs_wire_test_cases[] = {
	KUNIT_CASE(exs_wire_test_batch_msgs),
	KUNIT_CASE(exs_wire_test_share_msgs),
	KUNIT_CASE(exs_wire_test_req_roundtrip),
	KUNIT_CASE(exs_wire_test_req_bad),
	KUNIT_CASE(exs_wire_test_rep_rej),
	KUNIT_CASE(exs_wire_test_versions),
	KUNIT_CASE(exs_wire_test_msg),
	KUNIT_CASE(exs_wire_test_reuse_msgs),
	KUNIT_CASE(exs_wire_test_resume),
	{}
};

static struct kunit_suite exs_wire_test_suite = {
	.name = "af_exs_wire",
	.test_cases = exs_wire_test_cases,
};

kunit_test_suite(exs_wire_test_suite);
