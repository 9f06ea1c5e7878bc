// SPDX-License-Identifier: GPL-2.0
/*
 * Pure checks of what userspace passes (protocol numbers, connect
 * addresses, socket options): no socket state, so that KUnit can test them
 * alone (kunit_test.c).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
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

/* Options that only mean something on the socket carrying the traffic. */
bool exs_sol_socket_native_only(int optname)
{
	switch (optname) {
	case SO_ATTACH_FILTER:
	case SO_ATTACH_BPF:
	case SO_DETACH_FILTER:
	case SO_LOCK_FILTER:
	case SO_ATTACH_REUSEPORT_CBPF:
	case SO_ATTACH_REUSEPORT_EBPF:
	case SO_DETACH_REUSEPORT_BPF:
	case SO_ZEROCOPY:
		return true;
	default:
		return false;
	}
}
