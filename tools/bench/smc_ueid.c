// SPDX-License-Identifier: GPL-2.0
/*
 * smc_ueid: give SMC a user-defined EID, so that two hosts on Soft-RoCE
 * agree on SMC-Rv2 without a PNET table (make bench's SMC-R peer).  Debian
 * does not package smc-tools; this is its "smcr ueid add", through SMC's
 * generic netlink family.
 *
 *   smc_ueid NAME     add NAME (upper case, digits, '.', '-'; up to 32)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/smc.h>

#include "../exsconfig/nl.h"

int main(int argc, char **argv)
{
	char ueid[SMC_MAX_EID_LEN + 1];
	struct exs_nl nl;
	struct nlmsghdr *nlh;
	const char *why;
	int err;

	if (argc != 2 || strlen(argv[1]) > SMC_MAX_EID_LEN) {
		fprintf(stderr, "usage: smc_ueid NAME (up to %d characters)\n",
			SMC_MAX_EID_LEN);
		return 2;
	}
	/* SMC compares whole EIDs: blank padded, NUL terminated */
	memset(ueid, ' ', SMC_MAX_EID_LEN);
	memcpy(ueid, argv[1], strlen(argv[1]));
	ueid[SMC_MAX_EID_LEN] = '\0';

	err = exs_nl_open_family(&nl, SMC_GENL_FAMILY_NAME,
				 SMC_GENL_FAMILY_VERSION);
	if (err) {
		fprintf(stderr, "smc_ueid: SMC's netlink family: %s\n",
			strerror(-err));
		return 1;
	}
	nlh = exs_nl_request(&nl, SMC_NETLINK_ADD_UEID, false);
	mnl_attr_put(nlh, SMC_NLA_EID_TABLE_ENTRY, sizeof(ueid), ueid);
	err = exs_nl_talk(&nl, nlh, NULL, NULL, &why);
	exs_nl_close(&nl);
	/* already there (a second run) is what was asked for */
	if (err && err != -EEXIST) {
		fprintf(stderr, "smc_ueid: add %s: %s%s%s\n", argv[1],
			strerror(-err), *why ? ": " : "", why);
		return 1;
	}
	return 0;
}
