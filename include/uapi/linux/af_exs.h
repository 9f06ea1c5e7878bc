/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * AF_EXS: stream sockets that carry TCP connections over RDMA when both ends
 * run AF_EXS, and merge into a plain TCP socket when they do not.
 *
 * This header is the one definition shared by the module, its tools and its
 * tests.
 */
#ifndef _UAPI_LINUX_AF_EXS_H
#define _UAPI_LINUX_AF_EXS_H

#include <linux/types.h>

/*
 * Linux has no free address family number below AF_MAX, and sock_register()
 * refuses anything at or above it.  AF_EXS therefore borrows a number that no
 * current kernel registers (Documentation/af_exs/family.rst says which and
 * why).  The module takes it as the "family" parameter; programs must read
 * the live value from EXS_FAMILY_SYSFS instead of assuming the default.
 */
#define AF_EXS_DEFAULT		18	/* AF_ASH: never implemented in Linux */
#define EXS_FAMILY_SYSFS	"/sys/module/af_exs/parameters/family"

/* The protocol argument of socket(AF_EXS, type, protocol) picks the network
 * layer of the wrapped TCP socket, as SMCPROTO_SMC/SMCPROTO_SMC6 do for AF_SMC.
 */
#define EXSPROTO_EXS		0	/* IPv4 */
#define EXSPROTO_EXS6		1	/* IPv6 */

/* Option level for AF_EXS specific socket options. */
#define SOL_EXS			300

/* SOL_EXS option names */
#define EXS_INFO		1	/* getsockopt: struct exs_info */
#define EXS_BUSY_POLL		2	/* int: microseconds a blocked call spins
					 * for RDMA data or credits before it
					 * sleeps; 0 = sleep at once
					 */

/* Which transport carries a connection's bytes. */
enum exs_transport {
	EXS_TRANSPORT_NONE,	/* not connected (yet) */
	EXS_TRANSPORT_RDMA,
	EXS_TRANSPORT_TCP,	/* merged into the native TCP socket */
};

/* Why a connection fell back to TCP; each has its own counter. */
enum exs_fallback_reason {
	EXS_FALLBACK_NONE,
	EXS_FALLBACK_NO_RDMA,		/* the peer came over TCP (accepted child) */
	EXS_FALLBACK_NO_DEVICE,		/* no local RDMA device reaches the peer */
	EXS_FALLBACK_PEER_REJECT,	/* nothing listens with AF_EXS there */
	EXS_FALLBACK_TIMEOUT,
	EXS_FALLBACK_VERSION,
	EXS_FALLBACK_NOMEM,
	EXS_FALLBACK_POLICY,		/* map, port list or policy said TCP */
	EXS_FALLBACK_NEG_CACHE,		/* peer recently failed an RDMA attempt */
	__EXS_FALLBACK_MAX,
};

#define EXS_FALLBACK_MAX (__EXS_FALLBACK_MAX - 1)

/* getsockopt(fd, SOL_EXS, EXS_INFO): only an AF_EXS socket answers.  Once a
 * socket has merged into TCP the program holds a plain TCP socket, which
 * answers SOL_EXS as TCP answers any level it does not know (EOPNOTSUPP).
 */
struct exs_info {
	__u8	exsi_transport;		/* enum exs_transport */
	__u8	exsi_fallback_reason;	/* enum exs_fallback_reason */
	__u8	exsi_listening;		/* 1 on a listener */
	__u8	exsi_pad;
	__u32	exsi_native_family;	/* AF_INET or AF_INET6 */
	/* RDMA connections only (zero otherwise): */
	__u32	exsi_rx_ring;		/* bytes in our receive ring */
	__u32	exsi_tx_ring;		/* bytes in the peer's ring we write */
	__u32	exsi_rx_queued;		/* received, not yet read */
	__u32	exsi_tx_queued;		/* written, not yet delivered */
	__u32	exsi_tx_credit;		/* bytes we may write now */
	__u32	exsi_busy_poll_us;	/* EXS_BUSY_POLL */
	__u64	exsi_bytes_sent;
	__u64	exsi_bytes_received;
};

/* Generic netlink control interface (Documentation/netlink/specs/af_exs.yaml) */
#define EXS_GENL_NAME		"af_exs"
#define EXS_GENL_VERSION	1

#endif /* _UAPI_LINUX_AF_EXS_H */
