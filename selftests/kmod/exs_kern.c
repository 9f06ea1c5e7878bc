// SPDX-License-Identifier: GPL-2.0
/*
 * A test-only in-kernel socket user, for selftests/exs_kern.sh: what a
 * kernel consumer (a block driver, a file system) does with a socket it
 * creates itself, through the kernel_*() socket API, with no file and no
 * user space in between.
 *
 * Loaded with role=server, it listens on @port and serves one connection;
 * with role=client, it connects to @addr:@port; with role=pair, it does
 * both, for one host talking to itself.  A socket is of @family: AF_EXS's
 * number (the af_exs module's "family" parameter), or AF_INET for a plain
 * TCP peer; a pair's server is of @server_family.  The client sends
 * @bytes of a pattern and the server, having checked them, sends them
 * back to be checked.  The outcome is the "result" parameter (a pair's
 * server's: "server_result"): "running", then "ok BYTES" or "error ERRNO
 * STEP".  Every wait is bounded (EXS_KERN_WAIT) and ends at rmmod, so a
 * lost peer never leaves a task blocked.
 */
#define pr_fmt(fmt) "exs_kern: " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <linux/af_exs.h>

#define EXS_KERN_WAIT	(60 * HZ)
#define EXS_KERN_CHUNK	(64 * 1024)

static char *role = "client";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "server, client, or pair (both)");
static char *addr = "10.0.0.2";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "the server's IPv4 address (client)");
static ushort port;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "the TCP port");
static int family;
module_param(family, int, 0444);
MODULE_PARM_DESC(family, "AF_EXS's family number, or AF_INET");
static int server_family;
module_param(server_family, int, 0444);
MODULE_PARM_DESC(server_family, "a pair's server's family (default: family)");
static uint bytes = 1 << 20;
module_param(bytes, uint, 0444);
MODULE_PARM_DESC(bytes, "bytes each way");
static char result[48] = "running";
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "running, ok BYTES, or error ERRNO STEP");
static char server_result[48] = "running";
module_param_string(server_result, server_result, sizeof(server_result),
		    0444);
MODULE_PARM_DESC(server_result, "a pair's server's result");

/* one end: a server or a client, its family and where it says how it went */
struct exs_kern_end {
	bool			server;
	int			family;
	char			*result;
	size_t			size;
	struct task_struct	*task;
};

static struct exs_kern_end exs_kern_ends[2];
/* a pair's client connects once its server listens (or could not) */
static DECLARE_COMPLETION(exs_kern_listening);

/* the byte at offset @i of the exchange, the same both ways */
static u8 exs_kern_pattern(u32 i)
{
	return (i * 7 + (i >> 12)) & 0xff;
}

/* Move all of @buf's @len bytes through @sock, a chunk at a time, without
 * ever blocking past the deadline or an rmmod: MSG_DONTWAIT and a nap
 * where a socket would have slept.
 */
static int exs_kern_xfer(struct socket *sock, u8 *buf, u32 len, bool send,
			 unsigned long deadline)
{
	u32 done = 0;

	while (done < len) {
		struct kvec iov = {
			.iov_base	= buf + done,
			.iov_len	= min_t(u32, len - done, EXS_KERN_CHUNK),
		};
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
		int ret;

		if (send)
			ret = kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len);
		else
			ret = kernel_recvmsg(sock, &msg, &iov, 1, iov.iov_len,
					     msg.msg_flags);
		if (ret == -EAGAIN) {
			if (kthread_should_stop() || time_after(jiffies, deadline))
				return -ETIMEDOUT;
			usleep_range(1000, 5000);
			continue;
		}
		if (ret < 0)
			return ret;
		if (!ret)
			return -ENODATA;	/* the peer's EOF */
		done += ret;
	}
	return 0;
}

/* Send @len bytes of the pattern (@send), or receive and check them. */
static int exs_kern_stream(struct socket *sock, u32 len, bool send,
			   const char **step)
{
	unsigned long deadline = jiffies + EXS_KERN_WAIT;
	u32 off, i, n;
	u8 *buf;
	int err = 0;

	buf = kmalloc(EXS_KERN_CHUNK, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	*step = send ? "send" : "recv";
	for (off = 0; off < len && !err; off += n) {
		n = min_t(u32, len - off, EXS_KERN_CHUNK);
		for (i = 0; send && i < n; i++)
			buf[i] = exs_kern_pattern(off + i);
		err = exs_kern_xfer(sock, buf, n, send, deadline);
		for (i = 0; !send && !err && i < n; i++) {
			if (buf[i] != exs_kern_pattern(off + i)) {
				*step = "check";
				err = -EILSEQ;
			}
		}
	}
	kfree(buf);
	return err;
}

static int exs_kern_socket(int fam, struct socket **sock)
{
	return sock_create_kern(&init_net, fam, SOCK_STREAM,
				fam == AF_INET ? IPPROTO_TCP : EXSPROTO_EXS,
				sock);
}

static int exs_kern_server(int fam, const char **step)
{
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_port	= htons(port),
	};
	unsigned long deadline = jiffies + EXS_KERN_WAIT;
	struct socket *lsock, *sock = NULL;
	int err;

	*step = "socket";
	err = exs_kern_socket(fam, &lsock);
	if (err)
		goto out_listening;
	*step = "bind";
	err = kernel_bind(lsock, (struct sockaddr *)&sin, sizeof(sin));
	if (!err) {
		*step = "listen";
		err = kernel_listen(lsock, 8);
	}
	complete(&exs_kern_listening);
	if (!err)
		*step = "accept";
	while (!err) {
		err = kernel_accept(lsock, &sock, O_NONBLOCK);
		if (err != -EAGAIN)
			break;
		if (kthread_should_stop() || time_after(jiffies, deadline)) {
			err = -ETIMEDOUT;
			break;
		}
		usleep_range(1000, 5000);
		err = 0;
	}
	if (!err) {
		err = exs_kern_stream(sock, bytes, false, step);
		if (!err)
			err = exs_kern_stream(sock, bytes, true, step);
		if (!err) {
			/* the client's EOF: everything it sent was read */
			u8 c;

			err = exs_kern_xfer(sock, &c, 1, false,
					    jiffies + EXS_KERN_WAIT);
			err = err == -ENODATA ? 0 : err ?: -EPROTO;
			*step = "eof";
		}
		sock_release(sock);
	}
	sock_release(lsock);
	return err;

out_listening:
	complete(&exs_kern_listening);
	return err;
}

static int exs_kern_client(int fam, const char **step)
{
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_port	= htons(port),
	};
	struct socket *sock;
	int err;

	*step = "addr";
	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	*step = "socket";
	err = exs_kern_socket(fam, &sock);
	if (err)
		return err;
	*step = "connect";
	err = kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (!err)
		err = exs_kern_stream(sock, bytes, true, step);
	if (!err)
		err = exs_kern_stream(sock, bytes, false, step);
	if (!err) {
		*step = "shutdown";
		err = kernel_sock_shutdown(sock, SHUT_WR);
	}
	sock_release(sock);
	return err;
}

static int exs_kern_run(void *arg)
{
	struct exs_kern_end *end = arg;
	const char *step;
	int err;

	err = end->server ? exs_kern_server(end->family, &step) :
			    exs_kern_client(end->family, &step);
	if (err) {
		pr_info("%s: %s failed: %d\n", end->server ? "server" : "client",
			step, err);
		snprintf(end->result, end->size, "error %d %s", err, step);
	} else {
		snprintf(end->result, end->size, "ok %u", bytes);
	}

	/* kthread_stop() wants us still here */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int exs_kern_start(struct exs_kern_end *end, bool server, int fam,
			  char *res, size_t size)
{
	if (fam != AF_INET && (fam <= AF_INET6 || fam >= AF_MAX))
		return -EINVAL;
	end->server = server;
	end->family = fam;
	end->result = res;
	end->size = size;
	end->task = kthread_run(exs_kern_run, end, "exs_kern_%s",
				server ? "server" : "client");
	if (IS_ERR(end->task)) {
		int err = PTR_ERR(end->task);

		end->task = NULL;
		return err;
	}
	return 0;
}

static void exs_kern_stop(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(exs_kern_ends); i++)
		if (exs_kern_ends[i].task)
			kthread_stop(exs_kern_ends[i].task);
}

static int __init exs_kern_init(void)
{
	int err;

	if (!port || !bytes)
		return -EINVAL;
	if (!strcmp(role, "server"))
		return exs_kern_start(&exs_kern_ends[0], true, family, result,
				      sizeof(result));
	if (!strcmp(role, "client"))
		return exs_kern_start(&exs_kern_ends[0], false, family,
				      result, sizeof(result));
	if (strcmp(role, "pair"))
		return -EINVAL;
	err = exs_kern_start(&exs_kern_ends[0], true,
			     server_family ?: family, server_result,
			     sizeof(server_result));
	if (err)
		return err;
	wait_for_completion(&exs_kern_listening);
	err = exs_kern_start(&exs_kern_ends[1], false, family, result,
			     sizeof(result));
	if (err)
		exs_kern_stop();
	return err;
}

static void __exit exs_kern_exit(void)
{
	exs_kern_stop();
}

module_init(exs_kern_init);
module_exit(exs_kern_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AF_EXS selftests: an in-kernel socket user");
