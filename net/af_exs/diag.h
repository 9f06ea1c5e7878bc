/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __EXS_DIAG_H
#define __EXS_DIAG_H

#include <net/genetlink.h>

int exs_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
		  const struct genl_family *family);
/* link_diag.c */
int exs_link_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct genl_family *family);

#endif /* __EXS_DIAG_H */
