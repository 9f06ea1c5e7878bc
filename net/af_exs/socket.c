// SPDX-License-Identifier: GPL-2.0
/*
 * AF_EXS proto_ops.
 *
 * Until a socket has a transport, every operation is the native TCP
 * socket's, so addresses, errno values and readiness are TCP's own.  A
 * connecting socket merges into its native socket (fallback.c); a listener
 * never merges and hands out plain TCP sockets.
 */
#include <linux/bpf-cgroup.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"

/* The socket an operation on @sock acts on.  Usually the native socket of
 * an AF_EXS sock, but accept() may hand us a socket that already holds the
 * TCP child: newer kernels (6.12) have do_accept() call getname() through
 * the listener's proto_ops, ours, on the socket exs_accept() just gave TCP's.
 */
static struct socket *exs_native(struct socket *sock)
{
	if (unlikely(!sk_is_exs(sock->sk)))
		return sock;
	return exs_sk(sock->sk)->native;
}

static int exs_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct exs_sock *exs;
	struct socket *native;

	if (!sk)
		return 0;
	exs = exs_sk(sk);

	/* An O_ASYNC registration that raced with the merge may have landed
	 * on our list after fallback.c moved it (see there): drop it here,
	 * where the socket layer no longer looks.
	 */
	if (sock->file)
		fasync_helper(-1, sock->file, 0, &sock->wq.fasync_list);
	exs_diag_unlink(exs);

	lock_sock(sk);
	exs_rdma_unlisten(exs);
	if (exs_on_rdma(exs))
		exs_rdma_release(exs);
	else
		exs_connect_cancel(exs);
	release_sock(sk);
	/* it takes the lock and finds nothing left to do; a link wait's
	 * timer (link_table.c) queues it, so goes first
	 */
	cancel_delayed_work_sync(&exs->link_wait_timer);
	cancel_work_sync(&exs->connect_work);

	lock_sock(sk);
	/* NULL if its RDMA connection kept it (exs_conn_disown()) */
	native = exs->native;
	exs->native = NULL;
	/* The file is going away: it no longer belongs to the native socket
	 * (fallback.c lent it), and sock_release() must free its inode.
	 */
	if (native)
		native->file = NULL;
	sk->sk_state = TCP_CLOSE;
	sock_orphan(sk);
	release_sock(sk);
	/* IPPROTO_EXS: as inet_release() does, for the cgroup programs that
	 * saw it made (inet_create())
	 */
	if (sk->sk_family != exs_family && !sk->sk_kern_sock)
		BPF_CGROUP_RUN_PROG_INET_SOCK_RELEASE(sk);

	/* SO_LINGER and friends act on the native socket's own settings. */
	if (native)
		sock_release(native);

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/* The native socket's address, after binding it to the wildcard and an
 * ephemeral port if it has none: what TCP's connect() and listen() would
 * do, done first so that rdma_cm can take the same port (connect.c,
 * accept.c).  Under the socket lock.
 */
int exs_native_autobind(struct exs_sock *exs, struct sockaddr *addr)
{
	struct socket *native = exs->native;
	struct sockaddr_storage any = { .ss_family = native->sk->sk_family };
	int len;

	if (!inet_sk(native->sk)->inet_num) {
		int err = kernel_bind(native, (struct sockaddr *)&any,
				      native->sk->sk_family == AF_INET ?
				      sizeof(struct sockaddr_in) :
				      sizeof(struct sockaddr_in6));
		if (err)
			return err;
	}
	len = kernel_getsockname(native, addr);
	return len < 0 ? len : 0;
}

static int exs_bind(struct socket *sock, struct sockaddr *addr, int len)
{
	struct sock *sk = sock->sk;
	struct socket *native;
	int err;

	lock_sock(sk);
	native = exs_sk(sk)->native;
	if (exs_sk(sk)->cstate != EXS_CS_IDLE) {
		/* connecting or connected: TCP's answer to a second bind */
		release_sock(sk);
		return -EINVAL;
	}
	exs_copy_settings_to_native(exs_sk(sk));
	err = READ_ONCE(native->ops)->bind(native, addr, len);
	/* A parked QP's cm_id may hold the port (reuse.c), as TIME_WAIT
	 * holds a closed TCP connection's: with SO_REUSEADDR, TCP lets the
	 * bind have it, so the QP goes.
	 */
	if (err == -EADDRINUSE && native->sk->sk_reuse) {
		struct in6_addr unused;
		__be16 port;

		/* the native bind parsed the address: it is whole */
		exs_addr_to_v6(addr, &unused, &port);
		if (!port)
			goto out;
		/* The teardown waited for runs on exs_wq, whose works take
		 * socket locks (exs_connect_work()): wait without ours.
		 */
		release_sock(sk);
		if (!exs_park_evict_port(sock_net(sk), port))
			return err;
		lock_sock(sk);
		/* a connect() may have come meanwhile */
		if (exs_sk(sk)->cstate == EXS_CS_IDLE) {
			native = exs_sk(sk)->native;
			err = READ_ONCE(native->ops)->bind(native, addr, len);
		}
	}
out:
	release_sock(sk);
	return err;
}

static int exs_connect(struct socket *sock, struct sockaddr *addr, int len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct exs_sock *exs = exs_sk(sk);
	struct socket *native = exs->native;
	int ret = 1;

	lock_sock(sk);
	if (exs->cstate != EXS_CS_IDLE ||
	    (exs->transport == EXS_TRANSPORT_NONE &&
	     sk->sk_state == TCP_CLOSE && native->state == SS_UNCONNECTED &&
	     READ_ONCE(native->sk->sk_state) == TCP_CLOSE &&
	     exs_connect_addr_ok(native->sk->sk_family, addr, len))) {
		if (exs->cstate == EXS_CS_IDLE)
			exs_copy_settings_to_native(exs);
		ret = exs_rdma_connect(exs, addr, len, flags);
	}
	release_sock(sk);
	if (ret <= 0)
		return ret;

	/* TCP's from here: blocking, EINPROGRESS, signals and SO_ERROR. */
	return READ_ONCE(native->ops)->connect(native, addr, len, flags);
}

/* A user accept() receives a plain TCP socket: the native child is grafted
 * onto @newsock and @newsock takes TCP's proto_ops before the socket layer
 * installs its file descriptor, so it is never seen with AF_EXS ops.
 * kernel_accept() sets newsock->ops itself after we return, so an in-kernel
 * caller gets an AF_EXS socket that owns the TCP child instead.
 */
static int exs_accept_tcp(struct socket *sock, struct socket *newsock,
			  struct exs_accept_arg *arg)
{
	struct socket *native = exs_native(sock);
	struct socket *child;
	int err;

	if (!EXS_HAVE_CUSTOM_SOCKOPT) {
		/* SOL_SOCKET options set on the listener since listen() */
		lock_sock(sock->sk);
		exs_copy_settings_to_native(exs_sk(sock->sk));
		release_sock(sock->sk);
	}

	if (!arg->kern) {
		err = exs_forward_accept(native, newsock, arg);
		if (err)
			return err;
		exs_copy_settings_to_child(exs_sk(sock->sk), newsock->sk);
		module_put(newsock->ops->owner);
		newsock->ops = native->ops;
		__module_get(newsock->ops->owner);
		EXS_INC_STATS(sock_net(sock->sk), EXS_MIB_ACCEPTTCP);
		return 0;
	}

	child = sock_alloc();
	if (!child)
		return -ENFILE;
	child->type = native->type;
	child->ops = native->ops;
	__module_get(child->ops->owner);
	err = exs_forward_accept(native, child, arg);
	if (err)
		goto out_release;
	exs_copy_settings_to_child(exs_sk(sock->sk), child->sk);

	newsock->type = sock->type;
	if (!exs_sock_alloc(sock_net(sock->sk), newsock, child,
			    sock->sk->sk_prot, sock->sk->sk_protocol, true)) {
		err = -ENOMEM;
		goto out_release;
	}
	newsock->state = SS_CONNECTED;
	lock_sock(newsock->sk);
	newsock->sk->sk_state = TCP_ESTABLISHED;
	exs_fallback(exs_sk(newsock->sk), EXS_FALLBACK_NO_RDMA);
	release_sock(newsock->sk);
	EXS_INC_STATS(sock_net(sock->sk), EXS_MIB_ACCEPTKERN);
	return 0;

out_release:
	sock_release(child);
	return err;
}

/* A listener with an RDMA side takes whichever child comes first: both
 * queues wake the native socket's wait queue.
 */
static int exs_accept_common(struct socket *sock, struct socket *newsock,
			     struct exs_accept_arg *arg)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct exs_sock *exs = exs_sk(sock->sk);
	struct exs_accept_arg tcp_arg = *arg;
	struct exs_conn *conn;
	long timeo;
	int err;

	if (!exs->lsn)
		return exs_accept_tcp(sock, newsock, arg);

	tcp_arg.flags |= O_NONBLOCK;
	timeo = sock_rcvtimeo(sock->sk, arg->flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(exs->native->sk), &wait);
	for (;;) {
		lock_sock(sock->sk);
		conn = exs_rdma_accept_dequeue(exs);
		release_sock(sock->sk);
		if (conn) {
			err = exs_rdma_accept_graft(exs, newsock, conn,
						    arg->kern);
			if (err) {
				exs_conn_reset(conn, false);
				exs_conn_orphan(conn, true);
			}
			break;
		}
		err = exs_accept_tcp(sock, newsock, &tcp_arg);
		if (err != -EAGAIN)
			break;
		if (!timeo)
			break;
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
	}
	remove_wait_queue(sk_sleep(exs->native->sk), &wait);
	return err;
}

#ifdef EXS_HAVE_ACCEPT_ARG
#define exs_accept exs_accept_common
#else
static int exs_accept(struct socket *sock, struct socket *newsock, int flags,
		      bool kern)
{
	struct exs_accept_arg arg = { .flags = flags, .kern = kern };

	return exs_accept_common(sock, newsock, &arg);
}
#endif

static int exs_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct socket *native = exs_native(sock);

	if (native != sock && exs_on_rdma(exs_sk(sock->sk)))
		return exs_rdma_getname(exs_sk(sock->sk), addr, peer);

	return READ_ONCE(native->ops)->getname(native, addr, peer);
}

static __poll_t exs_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct socket *native = exs_native(sock);
	struct exs_sock *exs;
	__poll_t mask;

	/* Wait on the native socket's queue: it is the one TCP wakes, and a
	 * merge hands the descriptor to that socket, so an epoll registered
	 * before the merge keeps receiving events after it.  RDMA completions
	 * wake the same queue (conn.c).
	 */
	if (native == sock)
		return READ_ONCE(native->ops)->poll(file, native, wait);
	exs = exs_sk(sock->sk);
	switch (READ_ONCE(exs->cstate)) {
	case EXS_CS_RDMA:
		sock_poll_wait(file, native, wait);
		return exs_rdma_poll(exs);
	case EXS_CS_CONNECTING:
		/* nothing to report until the connect work settles the
		 * socket (to RDMA or TCP), which then wakes the queue
		 */
		sock_poll_wait(file, native, wait);
		return 0;
	default:
		mask = READ_ONCE(native->ops)->poll(file, native, wait);
		if (exs->lsn && exs_rdma_accept_ready(exs))
			mask |= EPOLLIN | EPOLLRDNORM;
		return mask;
	}
}

static int exs_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct socket *native = exs_native(sock);

	if (native != sock && exs_on_rdma(exs_sk(sock->sk))) {
		int err = exs_rdma_ioctl(exs_sk(sock->sk), cmd, arg);

		if (err != -ENOIOCTLCMD)
			return err;
	}

	return READ_ONCE(native->ops)->ioctl(native, cmd, arg);
}

static int exs_gettstamp(struct socket *sock, void __user *userstamp,
			 bool timeval, bool time32)
{
	return sock_gettstamp(exs_native(sock), userstamp, timeval, time32);
}

static int exs_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct exs_sock *exs = exs_sk(sk);
	struct socket *native = exs->native;
	u32 old_backlog = 0;
	bool unmerged, first;
	int err, rdma_err = 0;

	lock_sock(sk);
	if (exs->cstate != EXS_CS_IDLE) {
		release_sock(sk);
		return -EINVAL;
	}
	unmerged = exs->transport == EXS_TRANSPORT_NONE;
	if (unmerged)
		exs_copy_settings_to_native(exs);
	/* RDMA first: once TCP's LISTEN shows (ss, an answered SYN), a peer
	 * may connect, and a request rdma_cm refused would send it to TCP
	 * and its negative cache.  The backlog is set first too: the
	 * acceptor checks requests against it.
	 */
	first = unmerged && !exs->lsn;
	if (first) {
		old_backlog = sk->sk_max_ack_backlog;
		WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		rdma_err = exs_rdma_listen(exs, backlog);
	}
	err = READ_ONCE(native->ops)->listen(native, backlog);
	if (err) {
		if (first) {
			exs_rdma_unlisten(exs);	/* none if it failed */
			WRITE_ONCE(sk->sk_max_ack_backlog, old_backlog);
		}
	} else if (unmerged) {
		if (rdma_err)
			EXS_INC_STATS(sock_net(sk), EXS_MIB_LISTENTCPONLY);
		/* mirrored for SO_ACCEPTCONN, which reads this sock */
		if (sk->sk_state != TCP_LISTEN)
			EXS_INC_STATS(sock_net(sk), EXS_MIB_LISTEN);
		sk->sk_state = TCP_LISTEN;
		WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	}
	release_sock(sk);
	return err;
}

static int exs_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct socket *native = exs_native(sock);
	int err;

	if (native != sock && exs_settled_on_rdma(exs_sk(sk), true))
		return exs_rdma_shutdown(exs_sk(sk), how);
	lock_sock(sk);
	err = READ_ONCE(native->ops)->shutdown(native, how);
	/* shutdown() of a listener closes it, as on TCP */
	if (sk->sk_state == TCP_LISTEN && native->sk->sk_state != TCP_LISTEN)
		sk->sk_state = TCP_CLOSE;
	release_sock(sk);
	return err;
}

static int exs_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct socket *native = exs_native(sock);

	if (native != sock &&
	    exs_settled_on_rdma(exs_sk(sock->sk),
				msg->msg_flags & MSG_DONTWAIT))
		return exs_rdma_sendmsg(exs_sk(sock->sk), msg, len);

	return READ_ONCE(native->ops)->sendmsg(native, msg, len);
}

static int exs_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	struct socket *native = exs_native(sock);

	/* the error queue is read without waiting for a connect to settle,
	 * as TCP's: the native socket's is empty until the merge
	 */
	if (native != sock &&
	    exs_settled_on_rdma(exs_sk(sock->sk),
				flags & (MSG_DONTWAIT | MSG_ERRQUEUE)))
		return exs_rdma_recvmsg(exs_sk(sock->sk), msg, len, flags);
	return READ_ONCE(native->ops)->recvmsg(native, msg, len, flags);
}

static int exs_mmap(struct file *file, struct socket *sock,
		    struct vm_area_struct *vma)
{
	struct socket *native = exs_native(sock);

	const struct proto_ops *ops = READ_ONCE(native->ops);

	if (!ops->mmap)
		return -ENODEV;
	return ops->mmap(file, native, vma);
}

static ssize_t exs_splice_read(struct socket *sock, loff_t *ppos,
			       struct pipe_inode_info *pipe, size_t len,
			       unsigned int flags)
{
	struct socket *native = exs_native(sock);

	if (native != sock && exs_on_rdma(exs_sk(sock->sk)))
		return exs_splice_read_generic(sock, ppos, pipe, len, flags);

	return READ_ONCE(native->ops)->splice_read(native, ppos, pipe, len,
						   flags);
}

static int exs_set_rcvlowat(struct sock *sk, int val)
{
	struct socket *native = exs_sk(sk)->native;

	WRITE_ONCE(sk->sk_rcvlowat, val ? : 1);
	return READ_ONCE(native->ops)->set_rcvlowat(native->sk, val);
}

static int exs_set_peek_off(struct sock *sk, int val)
{
	struct socket *native = exs_sk(sk)->native;

	WRITE_ONCE(sk->sk_peek_off, val);
	return READ_ONCE(native->ops)->set_peek_off(native->sk, val);
}

/* copied at init into exs_proto_ops, with the family of the module parameter */
const struct proto_ops exs_proto_ops_template = {
	.owner		= THIS_MODULE,
	.release	= exs_release,
	.bind		= exs_bind,
	.connect	= exs_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= exs_accept,
	.getname	= exs_getname,
	.poll		= exs_poll,
	.ioctl		= exs_ioctl,
	.gettstamp	= exs_gettstamp,
	.listen		= exs_listen,
	.shutdown	= exs_shutdown,
	.setsockopt	= exs_setsockopt,
	.getsockopt	= exs_getsockopt,
	.sendmsg	= exs_sendmsg,
	.recvmsg	= exs_recvmsg,
	.mmap		= exs_mmap,
	.splice_read	= exs_splice_read,
	.set_rcvlowat	= exs_set_rcvlowat,
	.set_peek_off	= exs_set_peek_off,
};
