// SPDX-License-Identifier: GPL-2.0
/*
 * exs_nlfuzz: random messages to the af_exs generic netlink family, seeded
 * and reproducible: random commands and flags, attributes of random types,
 * lengths and payloads, nests inside nests, lengths that lie, and now and
 * then a well-formed map entry so that the paths behind validation run
 * too.  Every message must get its answer (an ack, an error or a dump), and
 * the family must still answer a plain request at the end.  It rewrites the
 * map and the policy: run it in a namespace of its own.
 *
 *   exs_nlfuzz [-s SEED] [-n MESSAGES]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>

#include "exs_family.h"
#include "exs_rng.h"
#include "exs_tap.h"
#include "../tools/exsconfig/nl.h"

static struct exs_nl nl;
static struct rng rng;

static void rnd_bytes(void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = rnd(&rng);
}

/* room left for attributes, keeping a margin for the nests' ends */
static bool room(struct nlmsghdr *nlh, size_t len)
{
	return nlh->nlmsg_len + MNL_ATTR_HDRLEN + len + 64 < 8192;
}

static void put_random(struct nlmsghdr *nlh, int depth);

/* a map entry the kernel may well accept, with a flaw now and then */
static void put_entry(struct nlmsghdr *nlh)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, EXS_A_MAP_ENTRY);
	bool v6 = below(&rng, 2);
	unsigned char addr[16];
	int i, n;

	rnd_bytes(addr, sizeof(addr));
	if (!v6)
		addr[0] = 10;
	mnl_attr_put(nlh, EXS_ENTRY_PREFIX, v6 ? 16 : (below(&rng, 8) ? 4 : below(&rng, 17)),
		     addr);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN,
			below(&rng, 8) ? below(&rng, v6 ? 129 : 33) : rnd(&rng));
	if (below(&rng, 2)) {
		rnd_bytes(addr, sizeof(addr));
		mnl_attr_put(nlh, EXS_ENTRY_NODE, below(&rng, 8) ? (v6 ? 16 : 4) : below(&rng, 17),
			     addr);
	}
	n = below(&rng, 4) ? below(&rng, 4) : below(&rng, 20);
	for (i = 0; i < n && room(nlh, 32); i++) {
		struct nlattr *r = mnl_attr_nest_start(nlh, below(&rng, 2) ?
						       EXS_ENTRY_ALLOW : EXS_ENTRY_DENY);
		unsigned short lo = rnd(&rng);
		unsigned short hi = below(&rng, 4) ? lo + below(&rng, 100) :
						     rnd(&rng);

		mnl_attr_put_u16(nlh, EXS_RANGE_MIN, lo);
		if (below(&rng, 8))
			mnl_attr_put_u16(nlh, EXS_RANGE_MAX, hi);
		mnl_attr_nest_end(nlh, r);
	}
	if (!below(&rng, 8))
		put_random(nlh, 1);
	mnl_attr_nest_end(nlh, e);
}

/* attributes of any type and length, nested up to three deep */
static void put_random(struct nlmsghdr *nlh, int depth)
{
	int i, n = below(&rng, 5);
	unsigned char val[64];

	for (i = 0; i < n; i++) {
		unsigned short type = below(&rng, 4) ? below(&rng, EXS_A_MAX + 3) : rnd(&rng);
		size_t len = below(&rng, 4) ? below(&rng, 9) : below(&rng, sizeof(val) + 1);

		if (!room(nlh, sizeof(val)))
			return;
		if (depth < 3 && !below(&rng, 3)) {
			struct nlattr *nest = mnl_attr_nest_start(nlh, type);

			put_random(nlh, depth + 1);
			mnl_attr_nest_end(nlh, nest);
			continue;
		}
		rnd_bytes(val, len);
		mnl_attr_put(nlh, type, len, val);
	}
}

/* Send @nlh and read until the kernel's last word on it (its error or
 * ack, or the end of its dump): 0, or -errno if none came.  Replies to
 * earlier messages (an error the fuzzer did not ask an ack for) are
 * skipped; @replies counts the messages read.
 */
static int talk(struct nlmsghdr *nlh, unsigned long *replies)
{
	uint32_t seq = nlh->nlmsg_seq;
	int len;

	if (mnl_socket_sendto(nl.sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *r;

		len = mnl_socket_recvfrom(nl.sock, nl.buf, sizeof(nl.buf));
		if (len < 0)
			return -errno;
		for (r = (void *)nl.buf; mnl_nlmsg_ok(r, len);
		     r = mnl_nlmsg_next(r, &len)) {
			(*replies)++;
			if (r->nlmsg_seq == seq &&
			    (r->nlmsg_type == NLMSG_ERROR ||
			     r->nlmsg_type == NLMSG_DONE))
				return 0;
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 10000, i, answered = 0, replies = 0, lost = 0;
	struct timeval tmo = { .tv_sec = 30 };
	unsigned long seed = 1;
	struct nlmsghdr *nlh;
	int c, err;

	while ((c = getopt(argc, argv, "s:n:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: exs_nlfuzz [-s SEED] [-n MESSAGES]\n");
			return 2;
		}
	}
	rng.s = seed;
	tap_begin(0);
	err = exs_nl_open(&nl);
	if (err) {
		tap_skip("netlink fuzz", "no af_exs genl family");
		return tap_end();
	}
	printf("# seed %lu, %lu messages\n", seed, n);
	/* an answer that never comes is a failure, not a hang */
	setsockopt(mnl_socket_get_fd(nl.sock), SOL_SOCKET, SO_RCVTIMEO, &tmo,
		   sizeof(tmo));

	for (i = 0; i < n; i++) {
		unsigned char cmd = below(&rng, 8) ? 1 + below(&rng, EXS_CMD_MAX) : rnd(&rng);

		nlh = exs_nl_request(&nl, cmd, !below(&rng, 4));
		if (!below(&rng, 16))
			nlh->nlmsg_flags ^= 1 << below(&rng, 12);
		if (!below(&rng, 32))
			((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->version = rnd(&rng);
		if (below(&rng, 3))
			put_entry(nlh);
		if (!below(&rng, 4) && room(nlh, 8))
			mnl_attr_put_u8(nlh, EXS_A_POLICY, below(&rng, 4) ?
					below(&rng, 4) : rnd(&rng));
		put_random(nlh, 0);
		/* an attribute header that claims more than is there */
		if (!below(&rng, 32) && nlh->nlmsg_len > NLMSG_HDRLEN + GENL_HDRLEN + 4) {
			struct nlattr *a = (void *)((char *)nlh + NLMSG_HDRLEN + GENL_HDRLEN);

			a->nla_len = rnd(&rng);
		}
		/* a message whose own length is short */
		if (!below(&rng, 64))
			nlh->nlmsg_len = NLMSG_HDRLEN +
				below(&rng, nlh->nlmsg_len - NLMSG_HDRLEN + 1);
		if (!(nlh->nlmsg_flags & NLM_F_ACK) &&
		    (!(nlh->nlmsg_flags & NLM_F_REQUEST) ||
		     (nlh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)) {
			/* the answer may never come: send it anyway, then
			 * a request that is answered, which must be
			 */
			mnl_socket_sendto(nl.sock, nlh, nlh->nlmsg_len);
			nlh = exs_nl_request(&nl, EXS_CMD_POLICY_GET, false);
		}
		if (talk(nlh, &replies))
			lost++;
		else
			answered++;
	}

	tap_report(!lost, "every message got its answer", "%lu of %lu",
		   answered, n);
	nlh = exs_nl_request(&nl, EXS_CMD_MAP_FLUSH, false);
	err = exs_nl_talk(&nl, nlh, NULL, NULL, NULL);
	tap_report(!err, "the family still answers, a map flush succeeds",
		   "%s", strerror(-err));
	nlh = exs_nl_request(&nl, EXS_CMD_POLICY_SET, false);
	mnl_attr_put_u8(nlh, EXS_A_POLICY, EXS_POLICY_AUTO);
	err = exs_nl_talk(&nl, nlh, NULL, NULL, NULL);
	tap_report(!err, "policy back to auto", "%s", strerror(-err));
	printf("# netlink_messages=%lu replies=%lu\n", n, replies);
	exs_nl_close(&nl);
	return tap_end();
}
