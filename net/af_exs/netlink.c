// SPDX-License-Identifier: GPL-2.0
/*
 * The "af_exs" generic netlink family: map, policy, counters, socket and
 * link dumps of the caller's network namespace.  The spec is
 * Documentation/netlink/specs/af_exs.yaml.
 *
 * Every attribute is checked by the policies below, strictly (no unknown
 * or trailing attributes); what they cannot say (address lengths, host
 * bits, ranges) is checked before anything changes, and a refusal says
 * which attribute and why in the extended ack.  Writes need CAP_NET_ADMIN
 * in the namespace's user namespace (GENL_UNS_ADMIN_PERM).
 */
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "diag.h"
#include "map.h"
#include "mib.h"
#include "netns.h"

static struct genl_family exs_genl_family;

static const struct nla_policy exs_range_policy[EXS_RANGE_ATTR_MAX + 1] = {
	[EXS_RANGE_MIN]		= NLA_POLICY_MIN(NLA_U16, 1),
	[EXS_RANGE_MAX]		= NLA_POLICY_MIN(NLA_U16, 1),
};

static const struct nla_policy exs_entry_policy[EXS_ENTRY_MAX + 1] = {
	[EXS_ENTRY_PREFIX]	= { .type = NLA_BINARY,
				    .len = sizeof(struct in6_addr) },
	[EXS_ENTRY_PREFIX_LEN]	= NLA_POLICY_MAX(NLA_U8, 128),
	[EXS_ENTRY_NODE]	= { .type = NLA_BINARY,
				    .len = sizeof(struct in6_addr) },
	[EXS_ENTRY_ALLOW]	= NLA_POLICY_NESTED(exs_range_policy),
	[EXS_ENTRY_DENY]	= NLA_POLICY_NESTED(exs_range_policy),
};

static const struct nla_policy exs_genl_policy[EXS_A_MAX + 1] = {
	[EXS_A_MAP_ENTRY]	= NLA_POLICY_NESTED(exs_entry_policy),
	[EXS_A_POLICY]		= NLA_POLICY_MAX(NLA_U8, EXS_POLICY_MAX),
};

/* A 4- or 16-byte address attribute as IPv6 (IPv4-mapped); its family. */
static int exs_nl_addr(const struct nlattr *attr, struct in6_addr *a,
		       struct netlink_ext_ack *extack)
{
	switch (nla_len(attr)) {
	case sizeof(__be32):
		ipv6_addr_set_v4mapped(nla_get_in_addr(attr), a);
		return AF_INET;
	case sizeof(struct in6_addr):
		*a = nla_get_in6_addr(attr);
		return AF_INET6;
	default:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "address must be 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
}

static int exs_nl_range(const struct nlattr *nest, struct exs_port_range *r,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[EXS_RANGE_ATTR_MAX + 1];
	int err;

	err = nla_parse_nested(tb, EXS_RANGE_ATTR_MAX, nest, exs_range_policy,
			       extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, EXS_RANGE_MIN))
		return -EINVAL;
	r->min = nla_get_u16(tb[EXS_RANGE_MIN]);
	r->max = tb[EXS_RANGE_MAX] ? nla_get_u16(tb[EXS_RANGE_MAX]) : r->min;
	if (r->max < r->min) {
		NL_SET_ERR_MSG_ATTR(extack, tb[EXS_RANGE_MAX],
				    "last port is below the first");
		return -EINVAL;
	}
	return 0;
}

/* The ranges of one kind (allow or deny) into e->ranges from @n on. */
static int exs_nl_ranges(const struct nlattr *nest, int type,
			 struct exs_map_entry *e, unsigned int *n,
			 struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	int rem, err;

	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != type)
			continue;
		if (*n == EXS_MAP_MAX_RANGES) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "too many port ranges in the entry");
			return -E2BIG;
		}
		err = exs_nl_range(attr, &e->ranges[(*n)++], extack);
		if (err)
			return err;
	}
	return 0;
}

/* One EXS_A_MAP_ENTRY; @key_only for a delete (prefix and length). */
static int exs_nl_entry(const struct nlattr *nest, struct exs_map_entry *e,
			bool key_only, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[EXS_ENTRY_MAX + 1];
	unsigned int n = 0;
	const char *why;
	int family, err;

	err = nla_parse_nested(tb, EXS_ENTRY_MAX, nest, exs_entry_policy,
			       extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, EXS_ENTRY_PREFIX))
		return -EINVAL;

	memset(e, 0, sizeof(*e));
	family = exs_nl_addr(tb[EXS_ENTRY_PREFIX], &e->prefix, extack);
	if (family < 0)
		return family;
	e->family = family;
	/* no length: the one host */
	e->plen = tb[EXS_ENTRY_PREFIX_LEN] ?
		  nla_get_u8(tb[EXS_ENTRY_PREFIX_LEN]) :
		  family == AF_INET ? 32 : 128;
	if (!key_only) {
		err = tb[EXS_ENTRY_NODE] ?
		      exs_nl_addr(tb[EXS_ENTRY_NODE], &e->node, extack) : 0;
		if (err < 0)
			return err;
		err = exs_nl_ranges(nest, EXS_ENTRY_ALLOW, e, &n, extack);
		if (err)
			return err;
		e->n_allow = n;
		err = exs_nl_ranges(nest, EXS_ENTRY_DENY, e, &n, extack);
		if (err)
			return err;
		e->n_deny = n - e->n_allow;
	}
	why = key_only ? exs_map_key_check(e) : exs_map_entry_check(e);
	if (why) {
		/* NL_SET_ERR_MSG_ATTR() wants a literal; map.c's are static */
		NL_SET_BAD_ATTR(extack, nest);
		if (extack)
			extack->_msg = why;
		return -EINVAL;
	}
	return 0;
}

/* map-add and map-del: one entry, whole for an add, its key for a delete */
static int exs_nl_map_one(struct sk_buff *skb, struct genl_info *info)
{
	bool add = info->genlhdr->cmd == EXS_CMD_MAP_ADD;
	struct nlattr *attr = info->attrs[EXS_A_MAP_ENTRY];
	struct exs_map_entry e;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, EXS_A_MAP_ENTRY))
		return -EINVAL;
	err = exs_nl_entry(attr, &e, !add, info->extack);
	if (err)
		return err;
	err = exs_policy_map_change(genl_info_net(info), add ? &e : NULL,
				    add, add ? NULL : &e, false);
	if (err == -EEXIST)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "the map has an entry for this prefix");
	else if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no entry for this prefix");
	else if (err == -E2BIG)
		NL_SET_ERR_MSG(info->extack, "the map is full");
	return err;
}

static int exs_nl_map_flush(struct sk_buff *skb, struct genl_info *info)
{
	return exs_policy_map_change(genl_info_net(info), NULL, 0, NULL, true);
}

/* Replace the whole map: every entry is checked before anything changes. */
static int exs_nl_map_set(struct sk_buff *skb, struct genl_info *info)
{
	struct exs_map_entry *e = NULL;
	const struct nlattr *attr;
	unsigned int n = 0, i = 0;
	int rem, err = 0;

	/* count first: the array is as large as the request, no larger */
	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != EXS_A_MAP_ENTRY)
			continue;
		if (++n > EXS_MAP_MAX_ENTRIES) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "more entries than a map holds");
			return -E2BIG;
		}
	}
	if (n) {
		e = kvcalloc(n, sizeof(*e), GFP_KERNEL);
		if (!e)
			return -ENOMEM;
	}
	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != EXS_A_MAP_ENTRY)
			continue;
		err = exs_nl_entry(attr, &e[i++], false, info->extack);
		if (err)
			break;
	}
	if (!err) {
		err = exs_policy_map_change(genl_info_net(info), e, n, NULL,
					    true);
		if (err == -EEXIST)
			NL_SET_ERR_MSG(info->extack,
				       "two entries for the same prefix");
	}
	kvfree(e);
	return err;
}

static int exs_nl_put_entry(struct sk_buff *skb,
			    const struct exs_map_entry *e)
{
	struct nlattr *nest, *r;
	unsigned int i;

	nest = nla_nest_start(skb, EXS_A_MAP_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	if ((e->family == AF_INET ?
	     nla_put_in_addr(skb, EXS_ENTRY_PREFIX, e->prefix.s6_addr32[3]) :
	     nla_put_in6_addr(skb, EXS_ENTRY_PREFIX, &e->prefix)) ||
	    nla_put_u8(skb, EXS_ENTRY_PREFIX_LEN, e->plen))
		goto cancel;
	if (!ipv6_addr_any(&e->node) &&
	    (ipv6_addr_v4mapped(&e->node) ?
	     nla_put_in_addr(skb, EXS_ENTRY_NODE, e->node.s6_addr32[3]) :
	     nla_put_in6_addr(skb, EXS_ENTRY_NODE, &e->node)))
		goto cancel;
	for (i = 0; i < e->n_allow + e->n_deny; i++) {
		r = nla_nest_start(skb, i < e->n_allow ? EXS_ENTRY_ALLOW :
							 EXS_ENTRY_DENY);
		if (!r || nla_put_u16(skb, EXS_RANGE_MIN, e->ranges[i].min) ||
		    nla_put_u16(skb, EXS_RANGE_MAX, e->ranges[i].max))
			goto cancel;
		nla_nest_end(skb, r);
	}
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* One message per entry; a map swapped mid-dump shows parts of both. */
static int exs_nl_map_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct exs_map_entry e;
	void *hdr;

	while (!exs_policy_map_entry(net, cb->args[0], &e)) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &exs_genl_family,
				  NLM_F_MULTI, EXS_CMD_MAP_GET);
		if (!hdr)
			break;
		if (exs_nl_put_entry(skb, &e)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0]++;
	}
	return skb->len;
}

static int exs_nl_sock_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return exs_diag_dump(skb, cb, &exs_genl_family);
}

static int exs_nl_link_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return exs_link_diag_dump(skb, cb, &exs_genl_family);
}

/* A reply to @info carrying what @fill puts. */
static int exs_nl_reply(struct genl_info *info, u8 cmd, size_t size,
			int (*fill)(struct sk_buff *skb, struct net *net))
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &exs_genl_family, 0, cmd);
	err = hdr ? fill(msg, genl_info_net(info)) : -EMSGSIZE;
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int exs_nl_fill_policy(struct sk_buff *skb, struct net *net)
{
	return nla_put_u8(skb, EXS_A_POLICY,
			  READ_ONCE(exs_pernet(net)->policy));
}

static int exs_nl_policy_get(struct sk_buff *skb, struct genl_info *info)
{
	return exs_nl_reply(info, EXS_CMD_POLICY_GET, NLMSG_GOODSIZE,
			    exs_nl_fill_policy);
}

static int exs_nl_policy_set(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, EXS_A_POLICY))
		return -EINVAL;
	exs_policy_set(genl_info_net(info),
		       nla_get_u8(info->attrs[EXS_A_POLICY]));
	return 0;
}

static int exs_nl_fill_stats(struct sk_buff *skb, struct net *net)
{
	struct nlattr *nest;
	int i;

	for (i = 0; i < EXS_MIB_MAX; i++) {
		nest = nla_nest_start(skb, EXS_A_STAT);
		if (!nest ||
		    nla_put_string(skb, EXS_STAT_NAME, exs_mib_name(i)) ||
		    nla_put_u64_64bit(skb, EXS_STAT_VALUE,
				      exs_mib_read(net, i), EXS_STAT_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int exs_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return exs_nl_reply(info, EXS_CMD_STATS_GET, NLMSG_DEFAULT_SIZE,
			    exs_nl_fill_stats);
}

static int exs_nl_stats_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct exs_net *en = exs_pernet(genl_info_net(info));

	mutex_lock(&en->cfg_lock);
	exs_mib_reset(genl_info_net(info));
	mutex_unlock(&en->cfg_lock);
	return 0;
}

static const struct genl_small_ops exs_genl_ops[] = {
	{
		.cmd	= EXS_CMD_MAP_GET,
		.dumpit	= exs_nl_map_dump,
	},
	{
		.cmd	= EXS_CMD_MAP_ADD,
		.doit	= exs_nl_map_one,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= EXS_CMD_MAP_DEL,
		.doit	= exs_nl_map_one,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= EXS_CMD_MAP_FLUSH,
		.doit	= exs_nl_map_flush,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= EXS_CMD_MAP_SET,
		.doit	= exs_nl_map_set,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= EXS_CMD_POLICY_GET,
		.doit	= exs_nl_policy_get,
	},
	{
		.cmd	= EXS_CMD_POLICY_SET,
		.doit	= exs_nl_policy_set,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= EXS_CMD_STATS_GET,
		.doit	= exs_nl_stats_get,
	},
	{
		.cmd	= EXS_CMD_STATS_RESET,
		.doit	= exs_nl_stats_reset,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= EXS_CMD_SOCK_GET,
		.dumpit	= exs_nl_sock_dump,
	},
	{
		.cmd	= EXS_CMD_LINK_GET,
		.dumpit	= exs_nl_link_dump,
	},
};

static struct genl_family exs_genl_family __ro_after_init = {
	.name		= EXS_GENL_NAME,
	.version	= EXS_GENL_VERSION,
	.maxattr	= EXS_A_MAX,
	.policy		= exs_genl_policy,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.small_ops	= exs_genl_ops,
	.n_small_ops	= ARRAY_SIZE(exs_genl_ops),
	/* strict checking of every command: there is no old userspace */
	.resv_start_op	= EXS_CMD_MAX + 1,
};

int exs_netlink_init(void)
{
	return genl_register_family(&exs_genl_family);
}

void exs_netlink_exit(void)
{
	genl_unregister_family(&exs_genl_family);
}
