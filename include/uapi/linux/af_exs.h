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

/*
 * The same sockets, made as socket(AF_INET or AF_INET6, SOCK_STREAM,
 * IPPROTO_EXS), as IPPROTO_SMC makes SMC-R's: what a BPF program on
 * update_socket_protocol() can turn a TCP socket() into, since it can
 * change the protocol but not the family.  Not an IP protocol number
 * (those stop at 255): a socket() key of its own, above SMC's 256 and
 * below MPTCP's 262.  The module takes it as the "ipproto" parameter
 * (257 to 261; 0: none); programs read the live value from
 * EXS_IPPROTO_SYSFS.
 */
#define IPPROTO_EXS_DEFAULT	261
#define EXS_IPPROTO_SYSFS	"/sys/module/af_exs/parameters/ipproto"

/* Option level for AF_EXS specific socket options. */
#define SOL_EXS			300

/* SOL_EXS option names */
#define EXS_INFO		1	/* getsockopt: struct exs_info */
#define EXS_BUSY_POLL		2	/* int: microseconds a blocked call spins
					 * for RDMA data or credits before it
					 * sleeps; 0 = sleep at once
					 */
#define EXS_RING_SIZE		3	/* int: receive ring bytes, before
					 * connect() or listen(); rounded up
					 * to a power of two, EXS_RING_MIN..
					 * EXS_RING_MAX; 0 = the default
					 */
#define EXS_INLINE		4	/* int: writes up to this many bytes
					 * go inline in the work request,
					 * before connect() or listen();
					 * 0..EXS_INLINE_MAX
					 */

#define EXS_RING_MIN		(16 << 10)
#define EXS_RING_MAX		(16 << 20)
#define EXS_INLINE_MAX		256

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
	EXS_FALLBACK_NO_ANSWER,		/* no answer in net.exs.connect_race_ms */
	EXS_FALLBACK_GATEWAY,		/* the node is behind a gateway, unmapped */
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
	__u32	exsi_inline;		/* EXS_INLINE in force */
	__u32	exsi_credit_fraction;	/* credits return every 1/N ring */
};

/* How connect() picks a transport (EXS_CMD_POLICY_SET). */
enum exs_policy {
	EXS_POLICY_AUTO,	/* the map, then any peer a local RDMA device
				 * reaches (the default)
				 */
	EXS_POLICY_MAP,		/* mapped peers only */
	EXS_POLICY_OFF,		/* every connection on TCP */
	__EXS_POLICY_MAX,
};

#define EXS_POLICY_MAX (__EXS_POLICY_MAX - 1)

/*
 * Generic netlink control interface, per network namespace.  The spec is
 * Documentation/netlink/specs/af_exs.yaml; writes need CAP_NET_ADMIN in
 * the namespace's user namespace.
 */
#define EXS_GENL_NAME		"af_exs"
#define EXS_GENL_VERSION	1
#define EXS_MAP_MAX_ENTRIES	1024	/* per namespace */
#define EXS_MAP_MAX_RANGES	16	/* allow + deny ranges of an entry */

enum exs_cmd {
	EXS_CMD_UNSPEC,
	EXS_CMD_MAP_GET,	/* dump: one EXS_A_MAP_ENTRY per message */
	EXS_CMD_MAP_ADD,	/* EXS_A_MAP_ENTRY */
	EXS_CMD_MAP_DEL,	/* EXS_A_MAP_ENTRY: prefix and length */
	EXS_CMD_MAP_FLUSH,
	EXS_CMD_MAP_SET,	/* replace the map: EXS_A_MAP_ENTRY, any number */
	EXS_CMD_POLICY_GET,
	EXS_CMD_POLICY_SET,	/* EXS_A_POLICY */
	EXS_CMD_STATS_GET,	/* EXS_A_STAT, one per counter */
	EXS_CMD_STATS_RESET,
	EXS_CMD_SOCK_GET,	/* dump: one EXS_A_SOCK per AF_EXS socket */
	EXS_CMD_LINK_GET,	/* dump: one EXS_A_LINK per link */
	__EXS_CMD_MAX,
};

#define EXS_CMD_MAX (__EXS_CMD_MAX - 1)

enum exs_attr {
	EXS_A_UNSPEC,
	EXS_A_MAP_ENTRY,	/* nest: enum exs_entry_attr */
	EXS_A_POLICY,		/* u8: enum exs_policy */
	EXS_A_STAT,		/* nest: enum exs_stat_attr */
	EXS_A_SOCK,		/* nest: enum exs_sock_attr */
	EXS_A_LINK,		/* nest: enum exs_link_attr */
	__EXS_A_MAX,
};

#define EXS_A_MAX (__EXS_A_MAX - 1)

/* A map entry: peers in PREFIX/PREFIX_LEN are reached over RDMA at NODE
 * (without NODE: at their own address), on destination ports the ALLOW
 * ranges (all, if none) and no DENY range name.  IPv4 addresses are 4
 * bytes, IPv6 16; the longest prefix wins.
 */
enum exs_entry_attr {
	EXS_ENTRY_UNSPEC,
	EXS_ENTRY_PREFIX,	/* binary: 4 or 16 bytes, host bits clear */
	EXS_ENTRY_PREFIX_LEN,	/* u8: 0..32 or 0..128 */
	EXS_ENTRY_NODE,		/* binary: 4 or 16 bytes, the RDMA address;
				 * absent: the peer's own
				 */
	EXS_ENTRY_ALLOW,	/* nest, repeated: enum exs_range_attr */
	EXS_ENTRY_DENY,		/* nest, repeated: enum exs_range_attr */
	__EXS_ENTRY_MAX,
};

#define EXS_ENTRY_MAX (__EXS_ENTRY_MAX - 1)

enum exs_range_attr {
	EXS_RANGE_UNSPEC,
	EXS_RANGE_MIN,		/* u16: first port, 1..65535 */
	EXS_RANGE_MAX,		/* u16: last port, >= EXS_RANGE_MIN */
	__EXS_RANGE_MAX,
};

#define EXS_RANGE_ATTR_MAX (__EXS_RANGE_MAX - 1)

enum exs_stat_attr {
	EXS_STAT_UNSPEC,
	EXS_STAT_NAME,		/* string: the /proc/net/exs_stat name */
	EXS_STAT_VALUE,		/* u64: since load or the last reset; a
				 * gauge (RingMemPages): now
				 */
	EXS_STAT_PAD,
	__EXS_STAT_MAX,
};

#define EXS_STAT_MAX (__EXS_STAT_MAX - 1)

enum exs_sock_attr {
	EXS_SOCK_UNSPEC,
	EXS_SOCK_INODE,		/* u64: as in /proc/net/tcp and ss */
	EXS_SOCK_FAMILY,	/* u8: AF_INET or AF_INET6 */
	EXS_SOCK_SADDR,		/* binary: 4 or 16 bytes */
	EXS_SOCK_DADDR,
	EXS_SOCK_SPORT,		/* u16, host order */
	EXS_SOCK_DPORT,
	EXS_SOCK_TRANSPORT,	/* u8: enum exs_transport */
	EXS_SOCK_STATE,		/* u8: TCP state (TCP_ESTABLISHED...) */
	EXS_SOCK_FALLBACK,	/* u8: enum exs_fallback_reason */
	EXS_SOCK_RX_RING,	/* u32: RDMA only, as struct exs_info */
	EXS_SOCK_TX_RING,
	EXS_SOCK_RX_QUEUED,
	EXS_SOCK_TX_QUEUED,
	EXS_SOCK_TX_CREDIT,
	EXS_SOCK_BYTES_SENT,	/* u64 */
	EXS_SOCK_BYTES_RECEIVED,
	EXS_SOCK_PAD,
	EXS_SOCK_ACK_TIMEOUT,	/* u8: the QP's, 4.096 us << N (not on iWARP) */
	EXS_SOCK_LINK,		/* u32: RDMA only, its link's EXS_LINK_ID */
	__EXS_SOCK_MAX,
};

#define EXS_SOCK_MAX (__EXS_SOCK_MAX - 1)

/* A link: one RDMA queue pair between this host and a peer host, which
 * carries one stream (an RDMA socket's connection), or several when
 * net.exs.share_qp lets them share it, or none while parked for the
 * next connection.
 */
enum exs_link_state {
	EXS_LINK_STATE_CONNECTING,	/* its queue pair is being set up */
	EXS_LINK_STATE_UP,
	EXS_LINK_STATE_PARKED,		/* idle, kept for the next connection */
	EXS_LINK_STATE_RESUMING,	/* its queue pair failed: moving to a
					 * new one
					 */
	EXS_LINK_STATE_CLOSING,		/* going, its queue pair with it */
	__EXS_LINK_STATE_MAX,
};

#define EXS_LINK_STATE_MAX (__EXS_LINK_STATE_MAX - 1)

enum exs_link_attr {
	EXS_LINK_UNSPEC,
	EXS_LINK_ID,		/* u32: unique while the module is loaded */
	EXS_LINK_NODE,		/* binary: 4 or 16 bytes, the peer's RDMA
				 * address
				 */
	EXS_LINK_FAMILY,	/* u8: AF_INET or AF_INET6, of its streams */
	EXS_LINK_DEVICE,	/* string: the local RDMA device */
	EXS_LINK_STATE,		/* u8: enum exs_link_state */
	EXS_LINK_SHARED,	/* u8: 1 when built to carry several streams */
	EXS_LINK_STREAMS,	/* u32: streams on it now */
	EXS_LINK_TX_BYTES,	/* u64: its streams' bytes sent on it, in all */
	EXS_LINK_RX_BYTES,	/* u64: ...and received */
	EXS_LINK_RESUMES,	/* u32: times it moved to a new queue pair */
	EXS_LINK_PAD,
	EXS_LINK_VERSION,	/* u8: the wire version its queue pair speaks */
	__EXS_LINK_MAX,
};

#define EXS_LINK_MAX (__EXS_LINK_MAX - 1)

#endif /* _UAPI_LINUX_AF_EXS_H */
