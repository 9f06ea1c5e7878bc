// SPDX-License-Identifier: GPL-2.0
/*
 * Pure checks of what userspace passes (protocol numbers, connect
 * addresses, socket options) and of the addresses a peer claims: no
 * socket state, so that KUnit can test them alone (kunit_test.c).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "protocol.h"

/* An AF_INET or AF_INET6 address as one IPv6 address (IPv4-mapped). */
void exs_addr_to_v6(const struct sockaddr *sa, struct in6_addr *a,
		    __be16 *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, a);
		*port = sin->sin_port;
	} else {
		const struct sockaddr_in6 *sin6 =
			(const struct sockaddr_in6 *)sa;

		*a = sin6->sin6_addr;
		*port = sin6->sin6_port;
	}
}

/* And back: the sockaddr the RDMA side resolves, @port kept. */
void exs_addr_from_v6(const struct in6_addr *a, __be16 port,
		      struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv6_addr_v4mapped(a)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = a->s6_addr32[3];
		sin->sin_port = port;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *a;
		sin6->sin6_port = port;
	}
}

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

/* An address no packet from another host comes from, nor goes to over a
 * wire: loopback, unspecified or multicast, in either encoding (a forged
 * rdma_cm header may carry ::ffff:127.0.0.1).  IPv4 broadcast too.
 */
bool exs_addr_is_martian(const struct in6_addr *a)
{
	__be32 v4 = a->s6_addr32[3];

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_loopback(v4) || ipv4_is_zeronet(v4) ||
		       ipv4_is_multicast(v4) || ipv4_is_lbcast(v4);
	return ipv6_addr_loopback(a) || ipv6_addr_any(a) ||
	       ipv6_addr_is_multicast(a);
}
