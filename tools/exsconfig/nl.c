// SPDX-License-Identifier: GPL-2.0
/*
 * exsconfig's netlink plumbing on libmnl: resolve the af_exs generic
 * netlink family through nlctrl, send one request, collect its replies
 * and the kernel's extended ack.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/af_exs.h>

#include "nl.h"

static char exs_nl_why[256];

static int exs_nl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(attr, MNL_TYPE_U16))
			*(uint16_t *)data = mnl_attr_get_u16(attr);
	}
	return MNL_CB_OK;
}

struct nlmsghdr *exs_nl_request(struct exs_nl *nl, uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = nl->family == GENL_ID_CTRL ? 1 : nl->version;
	return nlh;
}

/* The kernel's reason, from the extended ack of an error message. */
static int exs_nl_error_cb(const struct nlmsghdr *nlh,
			   void *data __attribute__((unused)))
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*err);
	struct nlattr *attr;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
		return MNL_CB_ERROR;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		mnl_attr_for_each(attr, nlh, off) {
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
			    !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
				snprintf(exs_nl_why, sizeof(exs_nl_why), "%s",
					 mnl_attr_get_str(attr));
		}
	}
	errno = -err->error;
	return err->error ? MNL_CB_ERROR : MNL_CB_STOP;
}

static int exs_nl_done_cb(const struct nlmsghdr *nlh __attribute__((unused)),
			  void *data __attribute__((unused)))
{
	return MNL_CB_STOP;
}

int exs_nl_talk(struct exs_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data, const char **why)
{
	/* with a table of its own, libmnl applies no default: name DONE */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR]	= exs_nl_error_cb,
		[NLMSG_DONE]	= exs_nl_done_cb,
	};
	unsigned int portid = mnl_socket_get_portid(nl->sock);
	uint32_t seq = nlh->nlmsg_seq;
	int ret;

	exs_nl_why[0] = '\0';
	if (why)
		*why = exs_nl_why;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ret = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (ret < 0)
			return -errno;
		ret = mnl_cb_run2(nl->buf, ret, seq, portid, cb, data, ctl,
				  NLMSG_MIN_TYPE);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

int exs_nl_open(struct exs_nl *nl)
{
	return exs_nl_open_family(nl, EXS_GENL_NAME, EXS_GENL_VERSION);
}

int exs_nl_open_family(struct exs_nl *nl, const char *name, uint8_t version)
{
	struct nlmsghdr *nlh;
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->seq = time(NULL);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return -errno;
	/* the kernel's reasons, and only the header of what we sent back */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto err;
	}

	nl->family = GENL_ID_CTRL;
	nlh = exs_nl_request(nl, CTRL_CMD_GETFAMILY, false);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	nl->family = 0;
	err = exs_nl_talk(nl, nlh, exs_nl_family_cb, &nl->family, NULL);
	if (!err && !nl->family)
		err = -ENOENT;
	if (err)
		goto err;
	nl->version = version;
	return 0;
err:
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return err;
}

void exs_nl_close(struct exs_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}
