// SPDX-License-Identifier: GPL-2.0
/*
 * exs_fuzz: random system calls on AF_EXS sockets, seeded and reproducible
 * per thread (thread i draws from seed + i).  Threads share one table of
 * sockets, so calls race on the same socket: socket, bind, listen, connect,
 * accept, send and recv with random flags and sizes, setsockopt and
 * getsockopt with random levels, names and lengths, shutdown, close, poll,
 * ioctl, sendfile, dup and fork.  Addresses are a few ports on loopback and
 * on -a (an address with an RDMA device behind it, so connections go RDMA),
 * so binds collide and connects find listeners.
 *
 * Every socket is non-blocking and a lingering close is capped at a second,
 * so no call may block for long: a monitor fails the run when the calls
 * stop moving for -w seconds (a hang in the kernel), after dumping the
 * stuck threads' kernel stacks.  The kernel's own checkers (KASAN,
 * lockdep, kmemleak) judge the rest from dmesg.
 *
 *   exs_fuzz [-s SEED] [-n CALLS] [-t THREADS] [-a ADDR] [-p PORT] [-w S]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "exs_rng.h"
#include "exs_tap.h"

#define SLOTS		64
#define NPORTS		8
#define MAXBUF		(256 << 10)
#define MAXTHREADS	64

static int family;
static int slot[SLOTS];			/* fds, -1 when empty */
static atomic_ulong calls;		/* made, all threads */
static atomic_ulong oks;		/* that returned >= 0 */
static unsigned long ncalls = 100000;
static unsigned int nthreads = 4, stall = 120;
static unsigned long seed = 1;
static struct in_addr rdma_addr;
static unsigned short port_base = 24000;
static int filefd = -1;			/* sendfile's source */

/* sizes spread over every power of two up to MAXBUF, 0 included */
static size_t rnd_size(struct rng *r)
{
	unsigned int bits = below(r, 19);

	return bits ? below(r, 1u << bits) + (1u << (bits - 1)) - 1 : 0;
}

static int pick_fd(struct rng *r)
{
	/* now and then a number that is not one of ours, or none: never
	 * 0 to 2, where a blocking write to the console would wait for the
	 * host, not for AF_EXS
	 */
	if (!below(r, 50))
		return below(r, 20) ? 3 + (int)below(r, 1021) : -1;
	return slot[below(r, SLOTS)];
}

static void put_fd(struct rng *r, int fd)
{
	int old;

	if (fd < 0)
		return;
	old = __atomic_exchange_n(&slot[below(r, SLOTS)], fd, __ATOMIC_SEQ_CST);
	if (old >= 0)
		close(old);
}

static socklen_t rnd_addr(struct rng *r, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	unsigned short port = htons(port_base + below(r, NPORTS));

	memset(ss, 0, sizeof(*ss));
	switch (below(r, 8)) {
	case 0: case 1: case 2:
		s4->sin_family = AF_INET;
		s4->sin_port = port;
		s4->sin_addr = rdma_addr;
		return sizeof(*s4);
	case 3:
		s4->sin_family = AF_INET;
		s4->sin_port = port;
		s4->sin_addr.s_addr = htonl(below(r, 4) ? INADDR_LOOPBACK :
					    INADDR_ANY);
		return sizeof(*s4);
	case 4:
		s6->sin6_family = AF_INET6;
		s6->sin6_port = port;
		s6->sin6_addr = in6addr_loopback;
		return sizeof(*s6);
	case 5:		/* v4-mapped */
		s6->sin6_family = AF_INET6;
		s6->sin6_port = port;
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], &rdma_addr, 4);
		return sizeof(*s6);
	case 6:		/* AF_UNSPEC, or the family with a short length */
		s4->sin_family = below(r, 2) ? AF_UNSPEC : AF_INET;
		s4->sin_port = port;
		return below(r, sizeof(*s4) + 1);
	default: {	/* anything */
		unsigned char *p = (unsigned char *)ss;
		size_t i;

		for (i = 0; i < sizeof(*ss); i++)
			p[i] = rnd(r);
		return below(r, sizeof(*ss) + 8);
	}
	}
}

static int rnd_flags(struct rng *r)
{
	static const int bits[] = {
		MSG_OOB, MSG_PEEK, MSG_DONTROUTE, MSG_TRUNC, MSG_EOR,
		MSG_WAITALL, MSG_MORE, MSG_CONFIRM, MSG_ERRQUEUE, MSG_ZEROCOPY,
		MSG_FASTOPEN, MSG_CMSG_CLOEXEC,
	};
	int f = MSG_DONTWAIT | MSG_NOSIGNAL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (!below(r, 6))
			f |= bits[i];
	if (!below(r, 100))
		f |= (int)rnd(r) & ~MSG_WAITFORONE;
	return f;
}

static const int levels[] = {
	SOL_SOCKET, IPPROTO_TCP, IPPROTO_IP, IPPROTO_IPV6, SOL_EXS, 0, -1,
	IPPROTO_UDP, 279 /* SOL_TLS */, 284 /* SOL_MPTCP */,
};

/* a value for setsockopt: random bytes, now and then a small int */
static socklen_t rnd_optval(struct rng *r, unsigned char *buf, size_t cap)
{
	socklen_t len;
	size_t i;

	for (i = 0; i < 64; i++)
		buf[i] = rnd(r);
	if (below(r, 2)) {
		int v = below(r, 4) ? (int)below(r, 1 << below(r, 24)) :
				      (int)rnd(r);

		memcpy(buf, &v, sizeof(v));
		len = sizeof(v);
	} else {
		len = below(r, 80);
	}
	if (!below(r, 50))
		len = (socklen_t)rnd(r);	/* huge or negative */
	return len > cap ? (below(r, 2) ? len : cap) : len;
}

static int do_setsockopt(struct rng *r, int fd, unsigned char *buf)
{
	int level = levels[below(r, ARRAY_SIZE(levels))];
	int name = below(r, 10) ? (int)below(r, 80) : (int)rnd(r);
	socklen_t len = rnd_optval(r, buf, MAXBUF);

	/* a lingering close on a non-blocking socket still waits: cap it
	 * so that the run measures hangs, not linger timeouts
	 */
	if (level == SOL_SOCKET && name == SO_LINGER && len >= sizeof(struct linger)) {
		struct linger *l = (struct linger *)buf;

		l->l_linger &= 1;
	}
	/* names of things the kernel would modprobe for: known ones only */
	if (level == IPPROTO_TCP && name == TCP_ULP)
		return -1;
	if (level == IPPROTO_TCP && name == TCP_CONGESTION) {
		strcpy((char *)buf, below(r, 2) ? "cubic" : "reno");
		len = 6;	/* the name and its NUL, no shorter */
	}
	return setsockopt(fd, level, name, below(r, 30) ? buf : NULL, len);
}

static int do_getsockopt(struct rng *r, int fd, unsigned char *buf)
{
	int level = levels[below(r, ARRAY_SIZE(levels))];
	int name = below(r, 10) ? (int)below(r, 80) : (int)rnd(r);
	socklen_t len = below(r, 10) ? below(r, 300) : (socklen_t)rnd(r);

	if (len > MAXBUF)
		len = below(r, 2) ? len : MAXBUF;
	return getsockopt(fd, level, name, below(r, 30) ? buf : NULL,
			  below(r, 30) ? &len : NULL);
}

static int do_ioctl(struct rng *r, int fd)
{
	static const unsigned long cmds[] = {
		FIONREAD, SIOCINQ, SIOCOUTQ, SIOCOUTQNSD, SIOCATMARK,
		SIOCGSTAMP, SIOCGIFNAME, FIOASYNC, SIOCGPGRP,
	};
	unsigned long cmd = cmds[below(r, ARRAY_SIZE(cmds))];
	int v = 0;

	if (!below(r, 10))
		cmd = (unsigned int)rnd(r);
	if (cmd == FIONBIO)	/* sockets stay non-blocking */
		return -1;
	return ioctl(fd, cmd, below(r, 20) ? &v : NULL);
}

static void one_call(struct rng *r, unsigned char *buf);

/* a msghdr of one to four pieces of @buf, with no address or control */
static void rnd_msg(struct rng *r, struct msghdr *msg, struct iovec *iov,
		    unsigned char *buf)
{
	memset(msg, 0, sizeof(*msg));
	msg->msg_iov = iov;
	msg->msg_iovlen = 1 + below(r, 4);
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		iov[i].iov_base = buf + below(r, 4096);
		iov[i].iov_len = rnd_size(r) / 4;
	}
}

/* a child inherits the table: a few calls of its own, then it leaves */
static int do_fork(struct rng *r, unsigned char *buf)
{
	pid_t pid = fork();
	int i;

	if (pid == 0) {
		for (i = 0; i < 50; i++)
			one_call(r, buf);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static void one_call(struct rng *r, unsigned char *buf)
{
	struct sockaddr_storage ss;
	unsigned int op = below(r, 1000);
	int fd = pick_fd(r), ret = -1;
	struct iovec iov[4];
	struct msghdr msg;
	socklen_t alen;
	size_t len;

	atomic_fetch_add(&calls, 1);
	if (op < 80) {			/* socket */
		static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET };
		int type = types[below(r, 2)] | SOCK_NONBLOCK;
		int fam = below(r, 8) ? family : AF_INET;
		int proto = below(r, 2) ? 0 : (int)below(r, 300);

		if (!below(r, 20))
			type = (int)below(r, 12) | SOCK_NONBLOCK;
		/* plain TCP sockets to talk to: anything else makes the
		 * kernel run modprobe for a protocol it does not have
		 */
		if (fam == AF_INET) {
			type = SOCK_STREAM | SOCK_NONBLOCK;
			proto = below(r, 2) ? 0 : IPPROTO_TCP;
		}
		if (below(r, 2))
			type |= SOCK_CLOEXEC;
		ret = socket(fam, type, proto);
		put_fd(r, ret);
	} else if (op < 150) {		/* bind */
		alen = rnd_addr(r, &ss);
		ret = bind(fd, (struct sockaddr *)&ss, alen);
	} else if (op < 200) {		/* listen */
		ret = listen(fd, (int)below(r, 130) - 1);
	} else if (op < 290) {		/* connect */
		alen = rnd_addr(r, &ss);
		ret = connect(fd, (struct sockaddr *)&ss, alen);
	} else if (op < 360) {		/* accept */
		alen = sizeof(ss);
		ret = accept4(fd, below(r, 4) ? (struct sockaddr *)&ss : NULL,
			      below(r, 4) ? &alen : NULL,
			      SOCK_NONBLOCK | (below(r, 2) ? SOCK_CLOEXEC : 0));
		put_fd(r, ret);
	} else if (op < 480) {		/* send */
		len = rnd_size(r);
		switch (below(r, 3)) {
		case 0:
			ret = send(fd, below(r, 100) ? buf : NULL, len,
				   rnd_flags(r));
			break;
		case 1:
			alen = rnd_addr(r, &ss);
			ret = sendto(fd, buf, len, rnd_flags(r),
				     below(r, 2) ? (struct sockaddr *)&ss : NULL,
				     alen);
			break;
		default:
			rnd_msg(r, &msg, iov, buf);
			ret = sendmsg(fd, &msg, rnd_flags(r));
		}
	} else if (op < 600) {		/* recv */
		len = rnd_size(r);
		if (below(r, 2)) {
			ret = recv(fd, below(r, 100) ? buf : NULL, len,
				   rnd_flags(r));
		} else {
			rnd_msg(r, &msg, iov, buf);
			if (below(r, 4) == 0) {
				msg.msg_control = buf + MAXBUF / 2;
				msg.msg_controllen = below(r, 256);
			}
			ret = recvmsg(fd, &msg, rnd_flags(r));
		}
	} else if (op < 700) {
		ret = do_setsockopt(r, fd, buf);
	} else if (op < 790) {
		ret = do_getsockopt(r, fd, buf);
	} else if (op < 820) {		/* shutdown */
		ret = shutdown(fd, (int)below(r, 5));
	} else if (op < 860) {		/* close */
		int i = below(r, SLOTS);
		int old = __atomic_exchange_n(&slot[i], -1, __ATOMIC_SEQ_CST);

		ret = old >= 0 ? close(old) : -1;
	} else if (op < 910) {		/* poll */
		struct pollfd p[4];
		int i;

		for (i = 0; i < 4; i++) {
			p[i].fd = pick_fd(r);
			p[i].events = (short)rnd(r);
		}
		ret = poll(p, 1 + below(r, 4), below(r, 4) ? 0 : 1);
	} else if (op < 940) {
		ret = do_ioctl(r, fd);
	} else if (op < 960) {		/* names */
		alen = below(r, 10) ? sizeof(ss) : below(r, sizeof(ss));
		ret = below(r, 2) ? getsockname(fd, (struct sockaddr *)&ss, &alen) :
				    getpeername(fd, (struct sockaddr *)&ss, &alen);
	} else if (op < 980) {		/* sendfile, the splice path */
		off_t off = below(r, 4096);

		ret = sendfile(fd, filefd, &off, rnd_size(r));
	} else if (op < 995) {		/* dup */
		ret = dup(fd);
		put_fd(r, ret);
	} else {
		ret = do_fork(r, buf);
	}
	if (ret >= 0)
		atomic_fetch_add(&oks, 1);
}

/* Three sockets of a live connection on the RDMA address (listener,
 * client, accepted), put in the table before the calls start: whatever
 * the draw, there are RDMA connections to fuzz.  0, or -1 if none could
 * be made (the caller says so).
 */
static int seed_connection(unsigned int i)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port_base + i),
				   .sin_addr = rdma_addr };
	int l, c, a, one = 1;

	l = socket(family, SOCK_STREAM, 0);
	c = socket(family, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || c < 0 ||
	    bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 16) ||
	    connect(c, (struct sockaddr *)&sin, sizeof(sin)))
		goto err;
	a = accept4(l, NULL, NULL, SOCK_NONBLOCK);
	if (a < 0)
		goto err;
	fcntl(l, F_SETFL, O_NONBLOCK);
	fcntl(c, F_SETFL, O_NONBLOCK);
	/* slots of their own: before the threads start, no race */
	slot[3 * i] = l;
	slot[3 * i + 1] = c;
	slot[3 * i + 2] = a;
	return 0;
err:
	close(l);	/* close(-1) is harmless: EBADF */
	close(c);
	return -1;
}

static void *worker(void *arg)
{
	struct rng r = { .s = seed + (unsigned long)arg };
	unsigned long n = ncalls / nthreads, i;
	unsigned char *buf;

	buf = mmap(NULL, MAXBUF + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return (void *)1;
	for (i = 0; i < n; i++)
		one_call(&r, buf);
	munmap(buf, MAXBUF + 4096);
	return NULL;
}

/* Calls stopped moving: say where every thread is in the kernel. */
static void dump_stacks(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do echo \"# $t\"; sed 's/^/#   /' $t/stack; done",
		 getpid());
	fflush(stdout);
	if (system(cmd) < 0)
		perror("system");
}

static void *monitor(void *arg)
{
	unsigned long last = 0, now;
	unsigned int still = 0;

	(void)arg;
	for (unsigned int t = 1; ; t++) {
		sleep(1);
		now = atomic_load(&calls);
		still = now == last ? still + 1 : 0;
		last = now;
		if (!(t % 60))
			fprintf(stderr, "%u s: %lu calls\n", t, now);
		if (still >= stall) {
			tap_report(false, "the calls kept moving", "none for %u s after %lu calls",
				   stall, now);
			dump_stacks();
			_exit(1);
		}
	}
	return NULL;
}

static const char usage[] =
	"exs_fuzz [-s SEED] [-n CALLS] [-t THREADS] [-a ADDR] [-p PORT] [-w S]";

int main(int argc, char **argv)
{
	pthread_t tid[MAXTHREADS], mon;
	unsigned char pattern[4096];
	unsigned int i, nseed, bad_seed = 0;
	int c, bad = 0;

	rdma_addr.s_addr = htonl(INADDR_LOOPBACK);
	while ((c = getopt(argc, argv, "s:n:t:a:p:w:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			ncalls = strtoul(optarg, NULL, 0);
			break;
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &rdma_addr) != 1)
				return 2;
			break;
		case 'p':
			port_base = atoi(optarg);
			break;
		case 'w':
			stall = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s\n", usage);
			return 2;
		}
	}
	if (!nthreads || nthreads > MAXTHREADS)
		return 2;
	/* What the harness left open is not ours to fuzz: a sendfile() into
	 * one of virtme's virtio ports (fds 3 to 5) waited for the host, not
	 * for AF_EXS, and stalled a run.
	 */
	close_range(3, ~0U, 0);
	family = tap_begin(0);
	printf("# seed %lu, %lu calls, %u threads\n", seed, ncalls, nthreads);

	for (i = 0; i < SLOTS; i++)
		slot[i] = -1;
	filefd = memfd_create("exs_fuzz", 0);
	memset(pattern, 0x5a, sizeof(pattern));
	if (filefd < 0 || write(filefd, pattern, sizeof(pattern)) < 0)
		return 2;

	/* one per thread, one port each */
	nseed = nthreads < NPORTS ? nthreads : NPORTS;
	for (i = 0; i < nseed; i++)
		if (seed_connection(i))
			bad_seed++;
	tap_report(!bad_seed, "connections to fuzz were made",
		   "%u of %u failed: %s", bad_seed, nseed, strerror(errno));

	pthread_create(&mon, NULL, monitor, NULL);
	for (i = 0; i < nthreads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(unsigned long)i);
	for (i = 0; i < nthreads; i++) {
		void *rv;

		pthread_join(tid[i], &rv);
		bad |= !!rv;
	}
	for (i = 0; i < SLOTS; i++)
		if (slot[i] >= 0)
			close(slot[i]);

	tap_report(!bad, "every thread ran", "a thread could not start");
	tap_report(atomic_load(&calls) >= ncalls / nthreads * nthreads,
		   "the calls all returned", "%lu made", atomic_load(&calls));
	printf("# syscalls=%lu succeeded=%lu\n", atomic_load(&calls),
	       atomic_load(&oks));
	return tap_end();
}
