/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_EXS private definitions: the socket that wraps a native TCP socket.
 */
#ifndef __EXS_PROTOCOL_H
#define __EXS_PROTOCOL_H

#include <linux/net.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <linux/af_exs.h>

#include "compat.h"
#include "wire.h"

struct exs_conn;
struct exs_listener;

/* Where connect() stands; under the sock lock. */
enum exs_cstate {
	EXS_CS_IDLE,		/* no connect() yet, or a listener */
	EXS_CS_CONNECTING,	/* an RDMA attempt is under way */
	EXS_CS_RDMA,		/* carried by RDMA */
	EXS_CS_MERGED,		/* handed to TCP (fallback.c) */
};

/* An AF_EXS socket.  @sk is what the socket layer sees; @native is the
 * AF_INET/AF_INET6 TCP socket it wraps, created with it and released with
 * it, so it is valid in every proto_ops call.  sk_lock serialises bind,
 * listen, connect and the merge.  Made as IPPROTO_EXS (inet.c), @sk is
 * an AF_INET or AF_INET6 sock, which inet_create() fills in as the
 * inet_sock it takes every such sock for (an AF_INET6 one has its
 * ipv6_pinfo after it: struct exs6_sock).
 *
 * Lock order: the AF_EXS sk_lock before the native sock's sk_lock
 * (exs_copy_settings_to_native() takes the second inside the first).
 */
struct exs_sock {
	union {				/* must be first */
		struct sock	 sk;
		struct inet_sock inet;	/* IPPROTO_EXS: inet.c */
	};
	struct socket	*native;
	u8		transport;	/* enum exs_transport */
	u8		fallback_reason;
	u8		cstate;		/* enum exs_cstate */
	struct exs_conn	*conn;		/* RDMA connection, from connect/accept */
	struct exs_listener *lsn;	/* RDMA side of a listener */
	struct sockaddr_storage daddr;	/* connect() address, for the fallback */
	int		daddr_len;
	struct work_struct connect_work; /* finish an RDMA attempt (connect.c) */
	unsigned long	connect_deadline; /* ...which every attempt shares */
	u32		busy_poll_us;	/* EXS_BUSY_POLL */
	u32		poll_mean_us;	/* what a busy wait took (data.c) */
	u32		ring_size;	/* EXS_RING_SIZE, 0: SO_RCVBUF/sysctl */
	u32		inline_max;	/* EXS_INLINE */
	struct list_head node;		/* exs_net.socks (diag.c) */
	/* link_table.c: connecting, it waits for a link coming up */
	bool		link_waiting;
	bool		link_nowait;	/* ...found one up: never again */
	u8		link_fail_reason; /* ...that never came up: TCP, why */
	struct exs_link	*wait_link;	/* ...that one */
	struct list_head link_wait_node; /* ...on its waiters */
	struct delayed_work link_wait_timer; /* ...until connect()'s deadline */
};

/* EXS_BUSY_POLL and net.exs.busy_poll_us: at most 100 ms of spinning */
#define EXS_BUSY_POLL_MAX	100000
/* net.exs.inline_threshold: small writes skip the device's DMA read */
#define EXS_INLINE_DEFAULT	64
/* net.exs.delayed_ack_fraction: credits return every 1/N ring */
#define EXS_ACK_FRACTION_DEFAULT 4
#define EXS_ACK_FRACTION_MAX	64

static inline struct exs_sock *exs_sk(const struct sock *sk)
{
	return (struct exs_sock *)sk;
}

static inline bool exs_is_merged(const struct exs_sock *exs)
{
	return READ_ONCE(exs->transport) == EXS_TRANSPORT_TCP;
}

extern int exs_family;
extern struct proto exs_proto;
extern const struct proto_ops exs_proto_ops_template;
extern const struct proto_ops *exs_proto_ops;

/* inet.c: IPPROTO_EXS */
extern struct proto exs_inet_proto, exs_inet6_proto;
int exs_inet_init(void);
void exs_inet_exit(void);
int exs_inet_register(void);
void exs_inet_unregister(void);
void exs_inet_child(struct sock *sk);

/* Is @sk an AF_EXS sock, of the family or of IPPROTO_EXS? */
static inline bool sk_is_exs(const struct sock *sk)
{
	return sk->sk_prot == &exs_proto || sk->sk_prot == &exs_inet_proto ||
	       sk->sk_prot == &exs_inet6_proto;
}

/* diag.c: the socket dump */
void exs_diag_link(struct exs_sock *exs);
void exs_diag_unlink(struct exs_sock *exs);

/* zerocopy.c */
struct ubuf_info *exs_zc_begin(struct sock *sk, struct msghdr *msg,
			       size_t len);
void exs_zc_end(struct exs_sock *exs, struct ubuf_info *uarg, size_t copied);
int exs_recv_errqueue(struct exs_sock *exs, struct msghdr *msg, size_t len);

/* oob.c */
int exs_urg_recv(struct exs_sock *exs, struct msghdr *msg, size_t len,
		 int flags);

/* family.c */
void exs_sock_init(struct sock *sk, struct socket *native);
struct sock *exs_sock_alloc(struct net *net, struct socket *sock,
			    struct socket *native, struct proto *prot,
			    int protocol, int kern);

/* addr.c: pure checks, KUnit-tested */
int exs_proto_to_family(int protocol);
void exs_addr_to_v6(const struct sockaddr *sa, struct in6_addr *a,
		    __be16 *port);
void exs_addr_from_v6(const struct in6_addr *a, __be16 port,
		      struct sockaddr_storage *ss);
bool exs_connect_addr_ok(int family, const struct sockaddr *addr, int len);
bool exs_addr_is_martian(const struct in6_addr *a);

/* sockopt.c */
bool exs_sol_socket_native_only(int optname);
int exs_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int exs_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);
void exs_copy_settings_to_native(struct exs_sock *exs);
void exs_inherit_settings(struct exs_sock *exs, struct exs_sock *lexs);
u32 exs_ring_size_of(struct exs_sock *exs);
void exs_sock_info(struct exs_sock *exs, struct exs_info *info);
void exs_copy_settings_to_child(struct exs_sock *lexs, struct sock *child);

/* busy_poll.c */
int exs_busy_poll_init(void);
void exs_busy_poll_exit(void);
void exs_busy_poll_mark(struct sock *sk);

/* socket.c */
int exs_native_autobind(struct exs_sock *exs, struct sockaddr *addr);

/* fallback.c */
void exs_fallback(struct exs_sock *exs, enum exs_fallback_reason reason);

/* connect.c */
int exs_rdma_connect(struct exs_sock *exs, struct sockaddr *addr, int len,
		     int flags);
void exs_connect_cancel(struct exs_sock *exs);
void exs_connect_work(struct work_struct *work);
bool exs_settled_on_rdma(struct exs_sock *exs, bool nonblock);

/* accept.c */
int exs_rdma_listen(struct exs_sock *exs, int backlog);
void exs_rdma_unlisten(struct exs_sock *exs);
struct exs_conn *exs_rdma_accept_dequeue(struct exs_sock *exs);
bool exs_rdma_accept_ready(struct exs_sock *exs);
int exs_rdma_accept_graft(struct exs_sock *lexs, struct socket *newsock,
			  struct exs_conn *conn, bool kern);

/* data.c: the RDMA data path of an established socket */
int exs_rdma_sendmsg(struct exs_sock *exs, struct msghdr *msg, size_t len);
int exs_rdma_recvmsg(struct exs_sock *exs, struct msghdr *msg, size_t len,
		     int flags);
__poll_t exs_rdma_poll(struct exs_sock *exs);
int exs_rdma_shutdown(struct exs_sock *exs, int how);
int exs_rdma_ioctl(struct exs_sock *exs, unsigned int cmd,
		   unsigned long arg);
int exs_rdma_getname(struct exs_sock *exs, struct sockaddr *addr, int peer);
void exs_rdma_push(struct exs_sock *exs);
void exs_rdma_release(struct exs_sock *exs);
void exs_rdma_info(struct exs_sock *exs, struct exs_info *info);
struct tcp_info;
void exs_rdma_tcp_info(struct exs_sock *exs, struct tcp_info *ti);

static inline bool exs_on_rdma(const struct exs_sock *exs)
{
	return READ_ONCE(exs->cstate) == EXS_CS_RDMA;
}

#endif /* __EXS_PROTOCOL_H */
