// SPDX-License-Identifier: GPL-2.0
/*
 * The merge: an AF_EXS socket whose connection is carried by TCP becomes a
 * plain TCP socket.  This is the only place a connection falls back.
 */
#include <linux/fs.h>
#include <net/sock.h>

#include "protocol.h"
#include "mib.h"
#include "trace.h"

/* The tracepoint's peer: connect()'s address, or an accepted child's. */
static void exs_fallback_trace(struct exs_sock *exs, int reason)
{
	struct sockaddr_storage peer = {};
	struct in6_addr addr = {};
	__be16 port = 0;

	if (!trace_exs_fallback_enabled())
		return;
	if (exs->daddr_len)
		peer = exs->daddr;
	else if (kernel_getpeername(exs->native, (struct sockaddr *)&peer) < 0)
		peer.ss_family = AF_UNSPEC;
	if (peer.ss_family == AF_INET || peer.ss_family == AF_INET6)
		exs_addr_to_v6((struct sockaddr *)&peer, &addr, &port);
	trace_exs_fallback(&addr, port, reason);
}

/* Hand the program's descriptor to the native TCP socket.
 *
 * Every socket system call finds its struct socket through
 * file->private_data (sock_from_file()); close finds it through the inode.
 * So pointing private_data at the native socket sends every later call
 * straight to TCP's proto_ops and TCP's sock: SO_DOMAIN reads AF_INET[6]
 * and no AF_EXS code runs on the data path.  SMC-R's fallback does the same
 * (smc_switch_to_fallback()).
 *
 * Why this cannot race with a concurrent system call on the same file:
 *  - nothing is freed.  The AF_EXS socket, its sock and the native socket
 *    all live until the file's last reference goes (exs_release()), and a
 *    system call holds a reference for its whole duration (fdget), so a
 *    call that picked up the AF_EXS socket just before the switch runs to
 *    the end on valid objects;
 *  - both paths act on the same TCP sock.  A call that started on the
 *    AF_EXS socket forwards to the native socket (socket.c); a call that
 *    starts after the switch reaches it directly.  TCP's own sk_lock orders
 *    them, exactly as two threads on one TCP socket;
 *  - readiness lives in one place.  exs_poll() has always waited on the
 *    native socket's wait queue, so poll, select and epoll entries made
 *    before the merge are woken by TCP after it;
 *  - the switch is serialised by the AF_EXS sock lock, which bind, listen,
 *    connect and sock_fasync() also take, so the fasync list moves whole.
 *    One window stays: an fcntl(O_ASYNC) that looked up the AF_EXS socket
 *    before the switch but locks it after adds its entry to the old list,
 *    where TCP never signals it (exs_release() frees it).  Such a program
 *    enables O_ASYNC while another thread connects; SIGIO is lost for it.
 *
 * KCSAN reports the switch as a data race: the socket layer reads
 * private_data with a plain load (sock_from_file()), which a module cannot
 * annotate.  It is one aligned pointer, and either value it yields leads
 * to live objects, as above.  make stress keeps these reports apart
 * (exs-vm-finish: kcsan_known).
 *
 * In-kernel users (kernel_sendmsg() and friends) hold the AF_EXS struct
 * socket itself and have no file: they keep calling AF_EXS proto_ops, which
 * forward to the native socket at the cost of one indirect call.
 */
void exs_fallback(struct exs_sock *exs, enum exs_fallback_reason reason)
{
	struct socket *sock = exs->sk.sk_socket;
	struct socket *native = exs->native;
	struct file *file;

	sock_owned_by_me(&exs->sk);
	if (WARN_ON_ONCE(reason <= EXS_FALLBACK_NONE ||
			 reason > EXS_FALLBACK_MAX))
		reason = EXS_FALLBACK_NO_RDMA;

	exs->fallback_reason = reason;
	WRITE_ONCE(exs->transport, EXS_TRANSPORT_TCP);
	EXS_INC_STATS(sock_net(&exs->sk), exs_mib_fallback(reason));
	exs_fallback_trace(exs, reason);

	file = sock ? sock->file : NULL;
	if (!file)
		return;

	native->file = file;
	native->wq.fasync_list = sock->wq.fasync_list;
	sock->wq.fasync_list = NULL;
	if (sock_flag(&exs->sk, SOCK_FASYNC))
		sock_set_flag(native->sk, SOCK_FASYNC);
	/* publish the native socket only once it is complete */
	smp_store_release(&file->private_data, native);
}
