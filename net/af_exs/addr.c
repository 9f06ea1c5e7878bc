// SPDX-License-Identifier: GPL-2.0
/*
 * AF_EXS protocol numbers and connect addresses: pure checks, no socket
 * state, so that KUnit can test them alone (kunit_test.c).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>

#include "protocol.h"

int exs_proto_to_family(int protocol)
{
	switch (protocol) {
	case EXSPROTO_EXS:
		return AF_INET;
	case EXSPROTO_EXS6:
		return AF_INET6;
	default:
		return -EPROTONOSUPPORT;
	}
}

/* Would TCP start a connection to @addr?  Anything else (AF_UNSPEC
 * disconnect, a short or foreign address) goes to the native socket
 * unmerged, so it fails or succeeds exactly as on TCP and the socket stays
 * free to try again.
 */
bool exs_connect_addr_ok(int family, const struct sockaddr *addr, int len)
{
	if (len < (int)sizeof(addr->sa_family) || addr->sa_family != family)
		return false;
	if (family == AF_INET)
		return len >= (int)sizeof(struct sockaddr_in);
	return len >= SIN6_LEN_RFC2133;
}
