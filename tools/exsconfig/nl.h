/* SPDX-License-Identifier: GPL-2.0 */
/* exsconfig: one generic netlink conversation with the af_exs family
 * (or, for make bench, another one).
 */
#ifndef EXSCONFIG_NL_H
#define EXSCONFIG_NL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

struct exs_nl {
	struct mnl_socket	*sock;
	uint16_t		family;		/* the family's id */
	uint8_t			version;	/* and its version */
	uint32_t		seq;
	char			buf[1 << 18];	/* a whole map, or replies */
};

/* Open and resolve the family: 0, or -errno (-ENOENT: module not loaded). */
int exs_nl_open(struct exs_nl *nl);
/* The same for another generic netlink family (make bench talks to SMC). */
int exs_nl_open_family(struct exs_nl *nl, const char *name, uint8_t version);
void exs_nl_close(struct exs_nl *nl);

/* A request for @cmd in nl->buf; add attributes with mnl_attr_put*(). */
struct nlmsghdr *exs_nl_request(struct exs_nl *nl, uint8_t cmd, bool dump);

/* Send @nlh, pass every reply message to @cb: 0, or -errno with the
 * kernel's extended-ack message (if any) in @why.
 */
int exs_nl_talk(struct exs_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data, const char **why);

#endif /* EXSCONFIG_NL_H */
