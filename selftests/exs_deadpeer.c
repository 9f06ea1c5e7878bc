// SPDX-License-Identifier: GPL-2.0
/*
 * exs_deadpeer: every kind of blocked call on AF_EXS connections whose peer
 * host dies must return, with the errno TCP would give.
 *
 *   exs_deadpeer -l -p PORT             accept and hold connections, read
 *                                       and send nothing (the peer to kill);
 *                                       echo UDP datagrams on PORT
 *   exs_deadpeer -a ADDR -p PORT -t SECS
 *
 * The client opens one RDMA connection per case, brings each call to the
 * point where it blocks, prints "ready" and waits.  The test then kills the
 * server's host.  The client learns when by itself, over the link, with no
 * word from the dying host: it pings the server's UDP echo every
 * PING_EVERY, and the peer died after its last echo.  Every call must
 * return after that (not before: the peer was alive, and answered later)
 * and within SECS:
 *
 *   send        blocking send into the peer's full ring: ETIMEDOUT
 *   poll        non-blocking sender polling POLLOUT on the full ring:
 *               POLLERR, then SO_ERROR ETIMEDOUT
 *   keepalive   blocking recv on an idle connection with SO_KEEPALIVE
 *               (TCP_KEEPIDLE 3 s): ETIMEDOUT
 *   recv+send   recv and send blocked on one socket in two threads: one
 *               of them ETIMEDOUT, the other EOF or EPIPE (on TCP the
 *               first call to look takes the error)
 *   linger      close() with SO_LINGER 30 s on a full ring: returns 0
 *               (at once is right too: the ring holds every byte sent)
 *   user-timeout blocking send into a full ring with TCP_USER_TIMEOUT
 *               1 s: ETIMEDOUT within USER_TIMEOUT_BOUND of the death,
 *               well before the 60 s stall bound would end it (rxe
 *               retries forever)
 *   request     a small send once the peer went silent, then a blocking
 *               recv: ETIMEDOUT, though the ring has room and nothing
 *               probes: the request's missing ack alone tells
 *
 * Exit status: 0 pass, 1 fail, 2 usage or setup.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/af_exs.h>

#include "exs_family.h"

enum {
	C_SEND, C_POLL, C_KEEPALIVE, C_RECV_SEND, C_LINGER, C_USER_TIMEOUT,
	C_REQUEST, C_NR
};

static const char *const case_name[C_NR] = {
	"send", "poll", "keepalive", "recv+send", "linger", "user-timeout",
	"request",
};

#define USER_TIMEOUT_MS		1000
#define USER_TIMEOUT_BOUND	12.0	/* s after the death */
#define PING_EVERY		0.05	/* s between the client's pings */
#define SILENT			1.5	/* s without an echo: the peer is gone */

static struct {
	const char *addr;
	int port, timeout;
	bool listen;
} cfg = { .timeout = 180 };

static int exs_af = -1;
static char buf[1 << 16];
static double last_echo;	/* when the peer last answered a ping */
static double died;		/* its last echo, once it went silent */

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "exs_deadpeer: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(code);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setint(int fd, int level, int name, int val)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)))
		die(2, "setsockopt %d/%d: %s", level, name, strerror(errno));
}

static double get_last_echo(void)
{
	double t;

	__atomic_load(&last_echo, &t, __ATOMIC_ACQUIRE);
	return t;
}

/* Wait up to @limit s for the peer to go silent; whether it did. */
static bool await_silence(double limit)
{
	double end = now() + limit;

	while (now() - get_last_echo() < SILENT) {
		if (now() > end)
			return false;
		usleep(100000);
	}
	return true;
}

/* The server's side of the pings: send each datagram back. */
static void *echo(void *arg)
{
	int fd = *(int *)arg;
	struct sockaddr_in from;
	socklen_t len;
	char b[16];
	ssize_t n;

	for (;;) {
		len = sizeof(from);
		n = recvfrom(fd, b, sizeof(b), 0, (struct sockaddr *)&from,
			     &len);
		if (n > 0)
			sendto(fd, b, n, 0, (struct sockaddr *)&from, len);
	}
	return NULL;
}

/* The client's side: ping, and note when the last echo came. */
static void *ping(void *arg)
{
	int fd = *(int *)arg;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char b[16] = "ping";

	for (;;) {
		double t;

		send(fd, b, sizeof(b), 0);
		while (poll(&pfd, 1, PING_EVERY * 1000) == 1)
			if (recv(fd, b, sizeof(b), 0) > 0) {
				t = now();
				__atomic_store(&last_echo, &t,
					       __ATOMIC_RELEASE);
			}
	}
	return NULL;
}

/* A UDP socket on @port, bound (server) or connected to @addr (client),
 * run by @fn in a thread of its own.
 */
static void udp_thread(const char *addr, void *(*fn)(void *))
{
	static int fd;	/* the thread's: one per process */
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(cfg.port),
	};
	pthread_t t;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die(2, "UDP socket: %s", strerror(errno));
	if (addr && inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		die(2, "bad address %s", addr);
	if (addr ? connect(fd, (struct sockaddr *)&sin, sizeof(sin)) :
		   bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die(2, "UDP bind/connect: %s", strerror(errno));
	if (pthread_create(&t, NULL, fn, &fd))
		die(2, "pthread_create");
}

static void serve(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(cfg.port),
	};
	int lfd = socket(exs_af, SOCK_STREAM, EXSPROTO_EXS);

	if (lfd < 0)
		die(2, "socket: %s", strerror(errno));
	setint(lfd, SOL_SOCKET, SO_REUSEADDR, 1);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 16))
		die(2, "bind/listen: %s", strerror(errno));
	udp_thread(NULL, echo);
	/* hold every connection open, untouched, until the host dies */
	for (;;)
		if (accept(lfd, NULL, NULL) < 0 && errno != EINTR)
			die(2, "accept: %s", strerror(errno));
}

/* A connected AF_EXS socket that really is on RDMA. */
static int dial(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(cfg.port),
	};
	struct exs_info info = {};
	socklen_t len = sizeof(info);
	int fd = socket(exs_af, SOCK_STREAM, EXSPROTO_EXS);

	if (fd < 0)
		die(2, "socket: %s", strerror(errno));
	if (inet_pton(AF_INET, cfg.addr, &sin.sin_addr) != 1)
		die(2, "bad address %s", cfg.addr);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die(2, "connect: %s", strerror(errno));
	if (getsockopt(fd, SOL_EXS, EXS_INFO, &info, &len) ||
	    info.exsi_transport != EXS_TRANSPORT_RDMA)
		die(1, "connection is not on RDMA (transport %u)",
		    info.exsi_transport);
	return fd;
}

/* Send without blocking until the peer's ring (and our buffer) is full. */
static void fill(int fd)
{
	while (send(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	if (errno != EAGAIN)
		die(2, "filling: %s", strerror(errno));
}

struct call {
	int c, fd;
	bool second;		/* the recv of recv+send */
	pthread_t thread;
	int ret, err;
	double ended;		/* when it returned, once done */
	int done;
	bool before_death;	/* the peer answered after it returned */
};

static pthread_barrier_t set;

static void ended(struct call *k, int ret)
{
	k->ret = ret;
	k->err = ret < 0 ? errno : 0;
	k->ended = now();
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
}

static void *run_call(void *arg)
{
	struct call *k = arg;
	struct pollfd pfd = { .fd = k->fd, .events = POLLOUT };
	struct linger lg = { .l_onoff = 1, .l_linger = 30 };
	socklen_t len = sizeof(int);
	int ret, soerr = 0;

	pthread_barrier_wait(&set);
	switch (k->c) {
	case C_SEND:
	case C_USER_TIMEOUT:
		while ((ret = send(k->fd, buf, sizeof(buf), 0)) > 0)
			;
		break;
	case C_POLL:
		ret = poll(&pfd, 1, -1);
		if (ret == 1 && !(pfd.revents & POLLERR)) {
			ret = 0;	/* POLLOUT without an error: wrong */
			break;
		}
		if (getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
			die(2, "SO_ERROR: %s", strerror(errno));
		errno = soerr;
		ret = -1;
		break;
	case C_KEEPALIVE:
		ret = recv(k->fd, buf, sizeof(buf), 0);
		break;
	case C_REQUEST:	/* no call at all (0) if the peer never died */
		ret = 0;
		if (await_silence(cfg.timeout))
			ret = send(k->fd, buf, 64, 0);
		if (ret > 0)
			ret = recv(k->fd, buf, sizeof(buf), 0);
		break;
	case C_RECV_SEND:
		if (k->second) {
			ret = recv(k->fd, buf, sizeof(buf), 0);
			break;
		}
		while ((ret = send(k->fd, buf, sizeof(buf), 0)) > 0)
			;
		break;
	default:
		if (setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			die(2, "SO_LINGER: %s", strerror(errno));
		ret = close(k->fd);
		break;
	}
	ended(k, ret);
	return NULL;
}

/* Did the call end the way TCP's would? */
static bool as_tcp(const struct call *k)
{
	switch (k->c) {
	case C_LINGER:
		return k->ret == 0;
	case C_USER_TIMEOUT:
		return k->ret < 0 && k->err == ETIMEDOUT &&
		       k->ended - died < USER_TIMEOUT_BOUND;
	case C_RECV_SEND:
		/* the other call took the error: EOF, or EPIPE for a send */
		return (k->second && k->ret == 0) ||
		       (!k->second && k->ret < 0 && k->err == EPIPE) ||
		       (k->ret < 0 && k->err == ETIMEDOUT);
	default:
		return k->ret < 0 && k->err == ETIMEDOUT;
	}
}

static int run_client(void)
{
	struct call calls[C_NR + 1] = {};
	double start;
	int i, fails = 0, n = C_NR + 1;
	bool gone;

	memset(buf, 0x5a, sizeof(buf));
	udp_thread(cfg.addr, ping);
	for (i = 0; i < 100 && !get_last_echo(); i++)
		usleep(100000);
	if (!get_last_echo())
		die(2, "the peer does not echo UDP on port %d", cfg.port);
	for (i = 0; i < n; i++) {
		struct call *k = &calls[i];

		k->c = i < C_NR ? i : C_RECV_SEND;
		k->second = i == C_NR;
		k->fd = k->second ? calls[C_RECV_SEND].fd : dial();
		if (k->second)
			continue;
		switch (k->c) {
		case C_KEEPALIVE:
			setint(k->fd, SOL_SOCKET, SO_KEEPALIVE, 1);
			setint(k->fd, SOL_TCP, TCP_KEEPIDLE, 3);
			setint(k->fd, SOL_TCP, TCP_KEEPINTVL, 1);
			setint(k->fd, SOL_TCP, TCP_KEEPCNT, 3);
			break;
		case C_USER_TIMEOUT:
			setint(k->fd, SOL_TCP, TCP_USER_TIMEOUT,
			       USER_TIMEOUT_MS);
			fill(k->fd);
			break;
		case C_REQUEST:	/* sends once the peer is gone */
			break;
		default:	/* everything else waits on a full ring */
			fill(k->fd);
			break;
		}
	}
	pthread_barrier_init(&set, NULL, n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&calls[i].thread, NULL, run_call, &calls[i]))
			die(2, "pthread_create");
	pthread_barrier_wait(&set);
	sleep(1);	/* into their calls */
	start = now();
	printf("ready\n");
	fflush(stdout);

	for (;;) {
		int left = 0;

		for (i = 0; i < n; i++)
			left += !__atomic_load_n(&calls[i].done,
						 __ATOMIC_ACQUIRE);
		if (!left || now() - start > cfg.timeout)
			break;
		usleep(100000);
	}
	/* a peer that still answers now was alive when the calls returned */
	gone = await_silence(5.0);
	died = get_last_echo();
	if (!gone)
		printf("not ok the peer still answers pings\n");
	fails += !gone;

	for (i = 0; i < n; i++) {
		struct call *k = &calls[i];
		const char *name = case_name[k->c];
		const char *who = k->c == C_RECV_SEND ?
				  (k->second ? " (recv)" : " (send)") : "";
		if (!__atomic_load_n(&k->done, __ATOMIC_ACQUIRE)) {
			printf("not ok %s%s: still blocked after %d s\n", name,
			       who, cfg.timeout);
			fails++;
			continue;
		}
		/* an echo sent after the call returned: PING_EVERY is more
		 * than its way back takes.  A lingering close may end at
		 * once: every byte is in the peer's ring (acknowledged, as
		 * TCP would say), only the FIN was left.
		 */
		k->before_death = k->c != C_LINGER &&
				  k->ended < died - PING_EVERY;
		printf("%s %s%s: returned %d (%s) %.1f s after ready, %.1f s after last echo%s\n",
		       as_tcp(k) && !k->before_death ? "ok" : "not ok", name,
		       who, k->ret, k->ret < 0 ? strerror(k->err) : "-",
		       k->ended - start, k->ended - died,
		       k->before_death ? ", before the peer died" : "");
		fails += !as_tcp(k) || k->before_death;
	}
	/* one of recv+send must have taken the error */
	if (calls[C_RECV_SEND].done && calls[C_NR].done &&
	    calls[C_RECV_SEND].err != ETIMEDOUT &&
	    calls[C_NR].err != ETIMEDOUT) {
		printf("not ok recv+send: neither call saw ETIMEDOUT\n");
		fails++;
	}
	fflush(stdout);
	/* blocked threads, if any, go with the process */
	exit(fails ? 1 : 0);
}

int main(int argc, char *argv[])
{
	int opt;

	while ((opt = getopt(argc, argv, "la:p:t:")) != -1) {
		switch (opt) {
		case 'l':
			cfg.listen = true;
			break;
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.port = atoi(optarg);
			break;
		case 't':
			cfg.timeout = atoi(optarg);
			break;
		default:
			die(2, "usage: -l -p PORT | -a ADDR -p PORT [-t SECS]");
		}
	}
	signal(SIGPIPE, SIG_IGN);	/* EPIPE is an answer, not a death */
	exs_af = exs_family();
	if (exs_af < 0)
		die(2, "af_exs is not loaded");
	if (!cfg.port || (!cfg.listen && !cfg.addr))
		die(2, "usage: -l -p PORT | -a ADDR -p PORT [-t SECS]");
	if (cfg.listen)
		serve();
	return run_client();
}
