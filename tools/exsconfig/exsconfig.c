// SPDX-License-Identifier: GPL-2.0
/*
 * exsconfig: the AF_EXS map, policy, counters, sockets and links of the
 * current network namespace, over the af_exs generic netlink family
 * (Documentation/af_exs/exsconfig.rst).
 *
 * Exit status: 0 done; 1 bad usage or input (nothing changed); 2 the
 * kernel refused (its reason is printed); 3 AF_EXS is not loaded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/af_exs.h>

#include "exs_family.h"
#include "mapfile.h"
#include "nl.h"
#include "transparent.h"

enum { EXIT_USAGE = 1, EXIT_KERNEL = 2, EXIT_NOMODULE = 3 };

static bool json;
static struct exs_nl nl;

static const char *const policy_names[] = {
	[EXS_POLICY_AUTO]	= "auto",
	[EXS_POLICY_MAP]	= "map",
	[EXS_POLICY_OFF]	= "off",
};

static const char *const transport_names[] = {
	[EXS_TRANSPORT_NONE]	= "none",
	[EXS_TRANSPORT_RDMA]	= "rdma",
	[EXS_TRANSPORT_TCP]	= "tcp",
};

static const char *const fallback_names[] = {
	[EXS_FALLBACK_NONE]		= "-",
	[EXS_FALLBACK_NO_RDMA]		= "no_rdma",
	[EXS_FALLBACK_NO_DEVICE]	= "no_device",
	[EXS_FALLBACK_PEER_REJECT]	= "peer_reject",
	[EXS_FALLBACK_TIMEOUT]		= "timeout",
	[EXS_FALLBACK_VERSION]		= "version",
	[EXS_FALLBACK_NOMEM]		= "nomem",
	[EXS_FALLBACK_POLICY]		= "policy",
	[EXS_FALLBACK_NEG_CACHE]	= "neg_cache",
	[EXS_FALLBACK_NO_ANSWER]	= "no_answer",
	[EXS_FALLBACK_GATEWAY]		= "gateway",
};

static const char *const link_state_names[] = {
	[EXS_LINK_STATE_CONNECTING]	= "connecting",
	[EXS_LINK_STATE_UP]		= "up",
	[EXS_LINK_STATE_PARKED]		= "parked",
	[EXS_LINK_STATE_RESUMING]	= "resuming",
	[EXS_LINK_STATE_CLOSING]	= "closing",
};

/* TCP states, as ss names them */
static const char *const state_names[] = {
	"UNKNOWN", "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1",
	"FIN-WAIT-2", "TIME-WAIT", "UNCONN", "CLOSE-WAIT", "LAST-ACK",
	"LISTEN", "CLOSING",
};

/* tbl[i], or "?" for what this exsconfig does not know yet */
static const char *name_of(const char *const *tbl, size_t n, unsigned int i)
{
	return i < n && tbl[i] ? tbl[i] : "?";
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: exsconfig [-j] COMMAND\n"
		"  load FILE                 replace the map with FILE's entries (- for stdin)\n"
		"  map                       show the map, as a file load takes it\n"
		"  add PREFIX NODE [allow=PORTS] [deny=PORTS]\n"
		"  del PREFIX                one entry\n"
		"  flush                     empty the map\n"
		"  policy [auto|map|off]     show or set how connect() picks RDMA\n"
		"  stats                     the namespace's counters\n"
		"  reset-stats               start them again from zero\n"
		"  sockets                   every AF_EXS socket, its transport and state\n"
		"  links                     every RDMA link to a peer host, its streams and bytes\n"
		"  transparent [on|off CGROUP]\n"
		"                            show, or turn on or off, AF_EXS for a cgroup's TCP\n"
		"                            sockets by BPF (kernels with update_socket_protocol())\n"
		"  run [--preload LIB] PROG [ARGS...]\n"
		"                            PROG in a cgroup of its own, transparent on (exs-run);\n"
		"                            with LIB preloaded where the kernel cannot\n"
		"  -j                        JSON output\n");
	return EXIT_USAGE;
}

static int kernel_error(const char *what, int err, const char *why)
{
	fprintf(stderr, "exsconfig: %s: %s%s%s\n", what, strerror(-err),
		why && *why ? ": " : "", why ? why : "");
	return EXIT_KERNEL;
}

static int print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
	return 0;
}

/* ---- map --------------------------------------------------------------- */

static void put_addr(struct nlmsghdr *nlh, int type, int family,
		     const uint8_t *a)
{
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

static void put_ranges(struct nlmsghdr *nlh, int type,
		       const struct exs_range *r, unsigned int n)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < n; i++) {
		nest = mnl_attr_nest_start(nlh, type);
		mnl_attr_put_u16(nlh, EXS_RANGE_MIN, r[i].min);
		mnl_attr_put_u16(nlh, EXS_RANGE_MAX, r[i].max);
		mnl_attr_nest_end(nlh, nest);
	}
}

static void put_entry(struct nlmsghdr *nlh, const struct exs_entry *e,
		      bool key_only)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, EXS_A_MAP_ENTRY);

	put_addr(nlh, EXS_ENTRY_PREFIX, e->family, e->prefix);
	mnl_attr_put_u8(nlh, EXS_ENTRY_PREFIX_LEN, e->plen);
	if (!key_only) {
		if (e->node_family)
			put_addr(nlh, EXS_ENTRY_NODE, e->node_family, e->node);
		put_ranges(nlh, EXS_ENTRY_ALLOW, e->allow, e->n_allow);
		put_ranges(nlh, EXS_ENTRY_DENY, e->deny, e->n_deny);
	}
	mnl_attr_nest_end(nlh, nest);
}

static int change(struct nlmsghdr *nlh, const char *what)
{
	const char *why;
	int err = exs_nl_talk(&nl, nlh, NULL, NULL, &why);

	return err ? kernel_error(what, err, why) : 0;
}

static int cmd_load(int argc, char **argv)
{
	struct exs_entry *e;
	struct nlmsghdr *nlh;
	int n, i, ret;

	if (argc != 1)
		return print_usage();
	e = calloc(EXS_MAP_MAX_ENTRIES, sizeof(*e));
	if (!e)
		return EXIT_KERNEL;
	n = exs_mapfile_read(argv[0], e, stderr);
	if (n < 0) {
		free(e);
		return EXIT_USAGE;
	}
	nlh = exs_nl_request(&nl, EXS_CMD_MAP_SET, false);
	for (i = 0; i < n; i++) {
		if (nlh->nlmsg_len + 512 > sizeof(nl.buf)) {
			free(e);
			fprintf(stderr, "exsconfig: %s: too large for one message\n",
				argv[0]);
			return EXIT_USAGE;
		}
		put_entry(nlh, &e[i], false);
	}
	free(e);
	ret = change(nlh, "load");
	if (!ret && !json)
		printf("loaded %d entr%s\n", n, n == 1 ? "y" : "ies");
	return ret;
}

static int cmd_add_del(int argc, char **argv, bool add)
{
	struct exs_entry e = {};
	struct nlmsghdr *nlh;
	const char *why;
	int i;

	if (argc < 1 || (add && argc < 2) || (!add && argc != 1))
		return print_usage();
	why = exs_parse_prefix(argv[0], &e);
	if (!why && add)
		why = exs_parse_node(argv[1], &e);
	for (i = 2; !why && add && i < argc; i++)
		why = exs_parse_ports(argv[i], &e);
	if (why) {
		fprintf(stderr, "exsconfig: %s: %s\n", argv[i > 2 ? i - 1 : 0],
			why);
		return EXIT_USAGE;
	}
	nlh = exs_nl_request(&nl, add ? EXS_CMD_MAP_ADD : EXS_CMD_MAP_DEL,
			     false);
	put_entry(nlh, &e, !add);
	return change(nlh, add ? "add" : "del");
}

static int range_cb(const struct nlattr *attr, void *data)
{
	struct exs_range *r = data;

	if (mnl_attr_get_type(attr) == EXS_RANGE_MIN)
		r->min = mnl_attr_get_u16(attr);
	else if (mnl_attr_get_type(attr) == EXS_RANGE_MAX)
		r->max = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static void get_addr(const struct nlattr *attr, int *family, uint8_t *a)
{
	unsigned int len = mnl_attr_get_payload_len(attr);

	*family = len == 4 ? AF_INET : AF_INET6;
	memcpy(a, mnl_attr_get_payload(attr), len == 4 ? 4 : 16);
}

static int entry_attr_cb(const struct nlattr *attr, void *data)
{
	struct exs_entry *e = data;
	struct exs_range r = {};

	switch (mnl_attr_get_type(attr)) {
	case EXS_ENTRY_PREFIX:
		get_addr(attr, &e->family, e->prefix);
		break;
	case EXS_ENTRY_PREFIX_LEN:
		e->plen = mnl_attr_get_u8(attr);
		break;
	case EXS_ENTRY_NODE:
		get_addr(attr, &e->node_family, e->node);
		break;
	case EXS_ENTRY_ALLOW:
	case EXS_ENTRY_DENY:
		mnl_attr_parse_nested(attr, range_cb, &r);
		if (mnl_attr_get_type(attr) == EXS_ENTRY_ALLOW &&
		    e->n_allow < EXS_MAP_MAX_RANGES)
			e->allow[e->n_allow++] = r;
		else if (e->n_deny < EXS_MAP_MAX_RANGES)
			e->deny[e->n_deny++] = r;
		break;
	}
	return MNL_CB_OK;
}

static json_t *json_ranges(const struct exs_range *r, unsigned int n)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "min", json_integer(r[i].min));
		json_object_set_new(o, "max", json_integer(r[i].max));
		json_array_append_new(a, o);
	}
	return a;
}

static int map_cb(const struct nlmsghdr *nlh, void *data)
{
	struct exs_entry e = {};
	struct nlattr *attr;
	char line[1024];

	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) != EXS_A_MAP_ENTRY)
			continue;
		mnl_attr_parse_nested(attr, entry_attr_cb, &e);
		if (data) {
			char p[INET6_ADDRSTRLEN], n[INET6_ADDRSTRLEN];
			json_t *o = json_object();

			inet_ntop(e.family, e.prefix, p, sizeof(p));
			json_object_set_new(o, "prefix", json_string(p));
			json_object_set_new(o, "prefix_len",
					    json_integer(e.plen));
			if (e.node_family) {
				inet_ntop(e.node_family, e.node, n, sizeof(n));
				json_object_set_new(o, "node", json_string(n));
			} else {
				json_object_set_new(o, "node", json_null());
			}
			json_object_set_new(o, "allow",
					    json_ranges(e.allow, e.n_allow));
			json_object_set_new(o, "deny",
					    json_ranges(e.deny, e.n_deny));
			json_array_append_new(data, o);
		} else {
			exs_entry_format(&e, line, sizeof(line));
			puts(line);
		}
	}
	return MNL_CB_OK;
}

static int dump(uint8_t cmd, mnl_cb_t cb, void *data, const char *what)
{
	const char *why;
	int err = exs_nl_talk(&nl, exs_nl_request(&nl, cmd, true), cb, data,
			      &why);

	return err ? kernel_error(what, err, why) : 0;
}

static int cmd_map(void)
{
	json_t *a = json ? json_array() : NULL;
	int ret = dump(EXS_CMD_MAP_GET, map_cb, a, "map");

	if (a)
		return ret ? (json_decref(a), ret) : print_json(a);
	return ret;
}

/* ---- policy ------------------------------------------------------------ */

static int policy_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(attr) == EXS_A_POLICY)
			*(int *)data = mnl_attr_get_u8(attr);
	return MNL_CB_OK;
}

static int cmd_policy(int argc, char **argv)
{
	const char *why, *name;
	struct nlmsghdr *nlh;
	int policy = -1, err;

	if (argc > 1)
		return print_usage();
	if (argc == 1) {
		for (policy = 0; policy <= EXS_POLICY_MAX; policy++)
			if (!strcmp(argv[0], policy_names[policy]))
				break;
		if (policy > EXS_POLICY_MAX) {
			fprintf(stderr, "exsconfig: policy: '%s' is not auto, map or off\n",
				argv[0]);
			return EXIT_USAGE;
		}
		nlh = exs_nl_request(&nl, EXS_CMD_POLICY_SET, false);
		mnl_attr_put_u8(nlh, EXS_A_POLICY, policy);
		return change(nlh, "policy");
	}
	err = exs_nl_talk(&nl, exs_nl_request(&nl, EXS_CMD_POLICY_GET, false),
			  policy_cb, &policy, &why);
	if (err)
		return kernel_error("policy", err, why);
	name = name_of(policy_names, ARRAY_SIZE(policy_names), policy);
	if (json) {
		json_t *o = json_object();

		json_object_set_new(o, "policy", json_string(name));
		return print_json(o);
	}
	puts(name);
	return 0;
}

/* Every top-level nest of @type in the replies, one JSON object each,
 * filled by @cb from its attributes.
 */
struct nests {
	uint16_t	type;
	mnl_attr_cb_t	cb;
	json_t		*array;
};

static int nests_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nests *n = data;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		json_t *o;

		if (mnl_attr_get_type(attr) != n->type)
			continue;
		o = json_object();
		mnl_attr_parse_nested(attr, n->cb, o);
		json_array_append_new(n->array, o);
	}
	return MNL_CB_OK;
}

/* ---- stats ------------------------------------------------------------- */

static int stat_attr_cb(const struct nlattr *attr, void *data)
{
	json_t *o = data;

	if (mnl_attr_get_type(attr) == EXS_STAT_NAME)
		json_object_set_new(o, "name",
				    json_string(mnl_attr_get_str(attr)));
	else if (mnl_attr_get_type(attr) == EXS_STAT_VALUE)
		json_object_set_new(o, "value",
				    json_integer(mnl_attr_get_u64(attr)));
	return MNL_CB_OK;
}

static int cmd_stats(void)
{
	struct nests n = { EXS_A_STAT, stat_attr_cb, json_array() };
	json_t *o = json_object(), *v;
	const char *why, *k;
	size_t i;
	int err;

	err = exs_nl_talk(&nl, exs_nl_request(&nl, EXS_CMD_STATS_GET, false),
			  nests_cb, &n, &why);
	if (err) {
		json_decref(n.array);
		json_decref(o);
		return kernel_error("stats", err, why);
	}
	/* { "Name": value, ... }, in the kernel's order */
	json_array_foreach(n.array, i, v)
		if (json_string_value(json_object_get(v, "name")))
			json_object_set(o, json_string_value(json_object_get(v, "name")),
					json_object_get(v, "value"));
	json_decref(n.array);
	if (json)
		return print_json(o);
	json_object_foreach(o, k, v)
		printf("%-20s %" JSON_INTEGER_FORMAT "\n", k,
		       json_integer_value(v));
	json_decref(o);
	return 0;
}

/* ---- sockets ----------------------------------------------------------- */

static void sock_addr(json_t *o, const char *key, const struct nlattr *attr)
{
	char s[INET6_ADDRSTRLEN];
	int family;
	uint8_t a[16];

	get_addr(attr, &family, a);
	inet_ntop(family, a, s, sizeof(s));
	json_object_set_new(o, key, json_string(s));
}

static int sock_attr_cb(const struct nlattr *attr, void *data)
{
	static const char *const u32_keys[] = {
		[EXS_SOCK_RX_RING]	= "rx_ring",
		[EXS_SOCK_TX_RING]	= "tx_ring",
		[EXS_SOCK_RX_QUEUED]	= "rx_queued",
		[EXS_SOCK_TX_QUEUED]	= "tx_queued",
		[EXS_SOCK_TX_CREDIT]	= "tx_credit",
	};
	unsigned int type = mnl_attr_get_type(attr);
	json_t *o = data;
	const char *s;

	switch (type) {
	case EXS_SOCK_INODE:
		json_object_set_new(o, "inode",
				    json_integer(mnl_attr_get_u64(attr)));
		break;
	case EXS_SOCK_FAMILY:
		s = mnl_attr_get_u8(attr) == AF_INET ? "inet" : "inet6";
		json_object_set_new(o, "family", json_string(s));
		break;
	case EXS_SOCK_SADDR:
		sock_addr(o, "local", attr);
		break;
	case EXS_SOCK_DADDR:
		sock_addr(o, "peer", attr);
		break;
	case EXS_SOCK_SPORT:
		json_object_set_new(o, "local_port",
				    json_integer(mnl_attr_get_u16(attr)));
		break;
	case EXS_SOCK_DPORT:
		json_object_set_new(o, "peer_port",
				    json_integer(mnl_attr_get_u16(attr)));
		break;
	case EXS_SOCK_TRANSPORT:
		s = name_of(transport_names, ARRAY_SIZE(transport_names),
			    mnl_attr_get_u8(attr));
		json_object_set_new(o, "transport", json_string(s));
		break;
	case EXS_SOCK_STATE:
		s = name_of(state_names, ARRAY_SIZE(state_names),
			    mnl_attr_get_u8(attr));
		json_object_set_new(o, "state", json_string(s));
		break;
	case EXS_SOCK_FALLBACK:
		s = name_of(fallback_names, ARRAY_SIZE(fallback_names),
			    mnl_attr_get_u8(attr));
		json_object_set_new(o, "fallback", json_string(s));
		break;
	case EXS_SOCK_BYTES_SENT:
		json_object_set_new(o, "bytes_sent",
				    json_integer(mnl_attr_get_u64(attr)));
		break;
	case EXS_SOCK_BYTES_RECEIVED:
		json_object_set_new(o, "bytes_received",
				    json_integer(mnl_attr_get_u64(attr)));
		break;
	case EXS_SOCK_ACK_TIMEOUT:
		json_object_set_new(o, "ack_timeout",
				    json_integer(mnl_attr_get_u8(attr)));
		break;
	case EXS_SOCK_LINK:
		json_object_set_new(o, "link",
				    json_integer(mnl_attr_get_u32(attr)));
		break;
	default:
		if (type < ARRAY_SIZE(u32_keys) && u32_keys[type])
			json_object_set_new(o, u32_keys[type],
					    json_integer(mnl_attr_get_u32(attr)));
		break;
	}
	return MNL_CB_OK;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "-";
}

static long long jint(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* @o's integer @k as text in @buf, or "-" when it has none */
static const char *jnum(json_t *o, const char *k, char *buf, size_t len)
{
	if (!json_is_integer(json_object_get(o, k)))
		return "-";
	snprintf(buf, len, "%lld", jint(o, k));
	return buf;
}

static int cmd_sockets(void)
{
	struct nests n = { EXS_A_SOCK, sock_attr_cb, json_array() };
	json_t *a = n.array, *o;
	size_t i;
	int ret = dump(EXS_CMD_SOCK_GET, nests_cb, &n, "sockets");

	if (ret) {
		json_decref(a);
		return ret;
	}
	if (json)
		return print_json(a);
	printf("%-9s %-10s %-10s %-24s %-24s %-11s %9s %9s %12s %12s %6s\n",
	       "Transport", "State", "Fallback", "Local", "Peer", "Inode",
	       "RxRing", "TxCredit", "BytesSent", "BytesRecv", "Link");
	json_array_foreach(a, i, o) {
		char local[64], peer[64], link[16];

		snprintf(local, sizeof(local), "%s:%lld", jstr(o, "local"),
			 jint(o, "local_port"));
		snprintf(peer, sizeof(peer), "%s:%lld", jstr(o, "peer"),
			 jint(o, "peer_port"));
		printf("%-9s %-10s %-10s %-24s %-24s %-11lld %9lld %9lld %12lld %12lld %6s\n",
		       jstr(o, "transport"), jstr(o, "state"),
		       jstr(o, "fallback"), local, peer, jint(o, "inode"),
		       jint(o, "rx_ring"), jint(o, "tx_credit"),
		       jint(o, "bytes_sent"), jint(o, "bytes_received"),
		       jnum(o, "link", link, sizeof(link)));
	}
	json_decref(a);
	return 0;
}

/* ---- links ------------------------------------------------------------- */

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	unsigned int type = mnl_attr_get_type(attr);
	json_t *o = data;
	const char *s;

	switch (type) {
	case EXS_LINK_ID:
		json_object_set_new(o, "id",
				    json_integer(mnl_attr_get_u32(attr)));
		break;
	case EXS_LINK_NODE:
		sock_addr(o, "node", attr);
		break;
	case EXS_LINK_FAMILY:
		s = mnl_attr_get_u8(attr) == AF_INET ? "inet" : "inet6";
		json_object_set_new(o, "family", json_string(s));
		break;
	case EXS_LINK_DEVICE:
		json_object_set_new(o, "device",
				    json_string(mnl_attr_get_str(attr)));
		break;
	case EXS_LINK_STATE:
		s = name_of(link_state_names, ARRAY_SIZE(link_state_names),
			    mnl_attr_get_u8(attr));
		json_object_set_new(o, "state", json_string(s));
		break;
	case EXS_LINK_SHARED:
		json_object_set_new(o, "shared",
				    json_boolean(mnl_attr_get_u8(attr)));
		break;
	case EXS_LINK_STREAMS:
		json_object_set_new(o, "streams",
				    json_integer(mnl_attr_get_u32(attr)));
		break;
	case EXS_LINK_TX_BYTES:
		json_object_set_new(o, "bytes_sent",
				    json_integer(mnl_attr_get_u64(attr)));
		break;
	case EXS_LINK_RX_BYTES:
		json_object_set_new(o, "bytes_received",
				    json_integer(mnl_attr_get_u64(attr)));
		break;
	case EXS_LINK_RESUMES:
		json_object_set_new(o, "resumes",
				    json_integer(mnl_attr_get_u32(attr)));
		break;
	case EXS_LINK_VERSION:
		json_object_set_new(o, "version",
				    json_integer(mnl_attr_get_u8(attr)));
		break;
	}
	return MNL_CB_OK;
}

static int cmd_links(void)
{
	struct nests n = { EXS_A_LINK, link_attr_cb, json_array() };
	json_t *a = n.array, *o;
	size_t i;
	int ret = dump(EXS_CMD_LINK_GET, nests_cb, &n, "links");

	if (ret) {
		json_decref(a);
		return ret;
	}
	if (json)
		return print_json(a);
	printf("%-6s %-10s %-24s %-6s %-16s %-6s %7s %12s %12s %7s %7s\n",
	       "Link", "State", "Node", "Family", "Device", "Shared",
	       "Streams", "BytesSent", "BytesRecv", "Resumes", "Version");
	json_array_foreach(a, i, o)
		printf("%-6lld %-10s %-24s %-6s %-16s %-6s %7lld %12lld %12lld %7lld %7lld\n",
		       jint(o, "id"), jstr(o, "state"), jstr(o, "node"),
		       jstr(o, "family"), jstr(o, "device"),
		       json_is_true(json_object_get(o, "shared")) ? "yes" : "no",
		       jint(o, "streams"), jint(o, "bytes_sent"),
		       jint(o, "bytes_received"), jint(o, "resumes"),
		       jint(o, "version"));
	json_decref(a);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int err, ret;

	if (argc > 1 && !strcmp(argv[1], "-j")) {
		json = true;
		argc--;
		argv++;
	}
	if (argc < 2)
		return print_usage();
	cmd = argv[1];
	argc -= 2;
	argv += 2;

	/* no netlink: a program runs, and BPF is set, with or without it */
	if (!strcmp(cmd, "run") || !strcmp(cmd, "transparent")) {
		ret = cmd[0] == 'r' ? cmd_run(argc, argv) :
				      cmd_transparent(argc, argv, json);
		return ret < 0 ? print_usage() : ret;
	}

	err = exs_nl_open(&nl);
	if (err == -ENOENT) {
		fprintf(stderr, "exsconfig: AF_EXS is not loaded (modprobe af_exs)\n");
		return EXIT_NOMODULE;
	}
	if (err)
		return kernel_error("netlink", err, NULL);

	if (!strcmp(cmd, "load"))
		ret = cmd_load(argc, argv);
	else if (!strcmp(cmd, "map") && !argc)
		ret = cmd_map();
	else if (!strcmp(cmd, "add"))
		ret = cmd_add_del(argc, argv, true);
	else if (!strcmp(cmd, "del"))
		ret = cmd_add_del(argc, argv, false);
	else if (!strcmp(cmd, "flush") && !argc)
		ret = change(exs_nl_request(&nl, EXS_CMD_MAP_FLUSH, false),
			     "flush");
	else if (!strcmp(cmd, "policy"))
		ret = cmd_policy(argc, argv);
	else if (!strcmp(cmd, "stats") && !argc)
		ret = cmd_stats();
	else if (!strcmp(cmd, "reset-stats") && !argc)
		ret = change(exs_nl_request(&nl, EXS_CMD_STATS_RESET, false),
			     "reset-stats");
	else if (!strcmp(cmd, "sockets") && !argc)
		ret = cmd_sockets();
	else if (!strcmp(cmd, "links") && !argc)
		ret = cmd_links();
	else
		ret = print_usage();
	exs_nl_close(&nl);
	return ret;
}
