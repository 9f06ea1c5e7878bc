// SPDX-License-Identifier: GPL-2.0
/*
 * exs_connect: move checked bytes through TCP or AF_EXS connections, in the
 * manner of the MPTCP selftests' mptcp_connect.
 *
 *   exs_connect -l [opts]          listen, accept -c connections, serve each
 *   exs_connect -a ADDR [opts]     open -c connections to ADDR
 *
 * With -r, each of the -c connections is opened, used and closed -r times
 * in turn (churn); the server's -b and -d give it a small backlog it leaves
 * unserved for a while (a full accept queue).  With -T, that many sender
 * and as many receiver threads share each connection's one socket.
 *
 * Every connection sends -n bytes of a known pattern, half-closes, and reads
 * and checks the peer's -n bytes (-R's, if given) up to EOF, so both
 * directions and shutdown are exercised.  -e names the family the connected
 * socket must report through SO_DOMAIN, which is how a test proves which
 * transport carried the data.  Exit status: 0 pass, 1 fail, 2 usage or
 * setup, 4 skip.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/af_exs.h>

#include "exs_family.h"

#define KSFT_SKIP 4

enum io_mode { IO_BLOCK, IO_POLL, IO_EPOLL };

static struct {
	bool listen, ipv6, exs, nb_connect, send_only, fail;
	const char *addr, *port, *expect;
	const char *accept_after;	/* -W: a file that must exist first */
	unsigned long long bytes;
	unsigned long long rbytes;	/* -R: what the peer sends, if not -n */
	int conns, rounds, backlog, accept_delay, threads, timeout;
	enum io_mode mode;
} cfg = {
	.port = "12000", .bytes = 1 << 20, .conns = 1, .rounds = 1,
	.threads = 1, .timeout = 60,
	.mode = IO_POLL,
};

static int exs_af = -1;

/* EXS_TALLY names a file (exs-vm sets one per host) that collects, one line
 * per connection, the bytes checked and the bytes found corrupted, for the
 * stress report.  O_APPEND: many processes add to it.
 */
static void tally(const char *what, unsigned long long n)
{
	const char *path = getenv("EXS_TALLY");
	char line[64];
	int fd, len;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%s %llu\n", what, n);
	if (write(fd, line, len) != len)
		perror("exs_connect: EXS_TALLY");
	close(fd);
}

struct xfer {
	int fd;
	uint8_t tx_seed, rx_seed;
	unsigned long long sent, rcvd;
	bool tx_done, rx_done;
};

/* The transfer this thread runs, for die() to say which connection of a
 * thousand failed and how far it got (the other end's log can then be
 * searched for the same ports).
 */
static __thread const struct xfer *cur_xfer;

static unsigned int port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void die(int code, const char *fmt, ...)
{
	const struct xfer *x = cur_xfer;
	struct sockaddr_storage self, peer;
	socklen_t sl = sizeof(self), pl = sizeof(peer);
	char msg[256];
	va_list ap;
	int n;

	/* one write: threads that die together must not mix their lines */
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(msg))
		n = strlen(msg);
	if (x && !getsockname(x->fd, (struct sockaddr *)&self, &sl) &&
	    !getpeername(x->fd, (struct sockaddr *)&peer, &pl))
		snprintf(msg + n, sizeof(msg) - n,
			 " (port %u to %u: %llu bytes out, %llu in)",
			 port_of(&self), port_of(&peer), x->sent, x->rcvd);
	else if (x)
		snprintf(msg + n, sizeof(msg) - n, " (%llu bytes out, %llu in)",
			 x->sent, x->rcvd);
	fprintf(stderr, "exs_connect: %s\n", msg);
	exit(code);
}

/* The socket's pending error (SO_ERROR): what a POLLERR or a finished
 * non-blocking connect stands for
 */
static int sock_error(int fd)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	return err;
}

static uint8_t pattern(uint64_t i, uint8_t seed)
{
	return (uint8_t)(((i ^ (i >> 9) ^ (i >> 17)) * 31) + seed);
}

static const char *family_name(int af)
{
	if (af == AF_INET)
		return "inet";
	if (af == AF_INET6)
		return "inet6";
	if (af == exs_af)
		return "exs";
	return "other";
}

/* SO_DOMAIN tells which socket the descriptor holds after connect/accept;
 * SO_PROTOCOL, for an AF_INET[6] one: TCP's, or an AF_EXS socket made as
 * IPPROTO_EXS (exs-run by BPF), which counts as "exs".
 */
static void check_domain(int fd, const char *who)
{
	socklen_t len = sizeof(int);
	int dom, proto = -1;

	if (!cfg.expect)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len))
		die(1, "%s: SO_DOMAIN: %s", who, strerror(errno));
	len = sizeof(int);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len);
	if (proto > 0 && proto == exs_ipproto())
		dom = exs_af;
	if (strcmp(family_name(dom), cfg.expect))
		die(1, "%s: SO_DOMAIN is %s (%d), expected %s", who,
		    family_name(dom), dom, cfg.expect);
}

/* -F: from here on the kernel may fail this process's allocations
 * (failslab and fail_page_alloc with task-filter).  Only its socket calls
 * may meet them: its code is faulted in first and it has read every file
 * it needs (getaddrinfo's), for the root file system is 9p under exs-vm,
 * whose client stops working for every process once a failure hit it.
 */
static void make_it_fail(void)
{
	FILE *f;

	if (!cfg.fail)
		return;
	f = fopen("/proc/self/make-it-fail", "we");
	if (!f)
		die(2, "make-it-fail: %s", strerror(errno));
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die(2, "mlockall: %s", strerror(errno));
	if (fprintf(f, "1\n") < 0 || fclose(f))
		die(2, "make-it-fail: %s", strerror(errno));
}

/* Each connection holds a socket and, with -m epoll, an epoll instance:
 * a thousand of them need more descriptors than the usual soft limit.
 */
static void raise_nofile(void)
{
	rlim_t need = 2 * (rlim_t)cfg.conns + 16;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		die(2, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur >= need)
		return;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;	/* root may */
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die(2, "setrlimit to %llu descriptors: %s",
		    (unsigned long long)need, strerror(errno));
}

static int make_socket(int af)
{
	int fd;

	if (cfg.exs)
		fd = socket(exs_af, SOCK_STREAM,
			    af == AF_INET6 ? EXSPROTO_EXS6 : EXSPROTO_EXS);
	else
		fd = socket(af, SOCK_STREAM, IPPROTO_TCP);
	if (fd < 0)
		die(2, "socket: %s", strerror(errno));
	return fd;
}

static struct addrinfo *resolve(const char *host, bool passive)
{
	struct addrinfo hints = {
		.ai_family = cfg.ipv6 ? AF_INET6 : AF_INET,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = passive ? AI_PASSIVE : 0,
	};
	struct addrinfo *ai;
	int err = getaddrinfo(host, cfg.port, &hints, &ai);

	if (err)
		die(2, "getaddrinfo %s: %s", host ? host : "*",
		    gai_strerror(err));
	return ai;
}

static void xfer_send(struct xfer *x)
{
	uint8_t buf[16384];
	size_t n = sizeof(buf);
	ssize_t r;

	if (cfg.bytes - x->sent < n)
		n = cfg.bytes - x->sent;
	for (size_t i = 0; i < n; i++)
		buf[i] = pattern(x->sent + i, x->tx_seed);
	r = send(x->fd, buf, n, MSG_NOSIGNAL);
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		die(1, "send: %s", strerror(errno));
	}
	x->sent += r;
	if (x->sent == cfg.bytes) {
		if (shutdown(x->fd, SHUT_WR))
			die(1, "shutdown: %s", strerror(errno));
		x->tx_done = true;
	}
}

static void xfer_recv(struct xfer *x)
{
	uint8_t buf[16384];
	ssize_t r = recv(x->fd, buf, sizeof(buf), 0);

	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		die(1, "recv: %s", strerror(errno));
	}
	if (r == 0) {
		if (x->rcvd != cfg.rbytes)
			die(1, "EOF after %llu of %llu bytes", x->rcvd,
			    cfg.rbytes);
		x->rx_done = true;
		tally("checked", x->rcvd);
		return;
	}
	for (ssize_t i = 0; i < r; i++) {
		unsigned long long bad = 0;

		if (buf[i] == pattern(x->rcvd + i, x->rx_seed))
			continue;
		for (ssize_t j = i; j < r; j++)
			bad += buf[j] != pattern(x->rcvd + j, x->rx_seed);
		tally("corrupt", bad);
		die(1, "byte %llu differs", x->rcvd + i);
	}
	x->rcvd += r;
	if (x->rcvd > cfg.rbytes)
		die(1, "more than %llu bytes", cfg.rbytes);
}

static void *xfer_sender(void *arg)
{
	struct xfer *x = arg;

	cur_xfer = x;
	while (!x->tx_done)
		xfer_send(x);
	return NULL;
}

/* Both directions at once: the send side must never wait for the receiver. */
static void run_xfer(int fd, bool server)
{
	struct xfer x = {
		.fd = fd, .tx_seed = server ? 0xa5 : 0x5a,
		.rx_seed = server ? 0x5a : 0xa5,
	};
	struct epoll_event ev;
	pthread_t tid;
	int ep;

	cur_xfer = &x;
	if (cfg.bytes == 0) {
		x.tx_done = true;
		shutdown(fd, SHUT_WR);
	}
	if (cfg.send_only) {	/* one thread, so its error is the one seen */
		while (!x.tx_done)
			xfer_send(&x);
		cur_xfer = NULL;
		return;
	}

	switch (cfg.mode) {
	case IO_BLOCK:
		if (!x.tx_done && pthread_create(&tid, NULL, xfer_sender, &x))
			die(2, "pthread_create");
		while (!x.rx_done)
			xfer_recv(&x);
		if (cfg.bytes)
			pthread_join(tid, NULL);
		break;
	case IO_POLL:
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		while (!x.rx_done || !x.tx_done) {
			struct pollfd p = { .fd = fd, .events = 0 };

			if (!x.rx_done)
				p.events |= POLLIN;
			if (!x.tx_done)
				p.events |= POLLOUT;
			if (poll(&p, 1, cfg.timeout * 1000) <= 0)
				die(1, "poll: timeout or error");
			if (p.revents & (POLLERR | POLLNVAL))
				die(1, "poll: revents %#x: %s", p.revents,
				    strerror(sock_error(fd)));
			if (p.revents & POLLOUT)
				xfer_send(&x);
			if (p.revents & (POLLIN | POLLHUP))
				xfer_recv(&x);
		}
		break;
	case IO_EPOLL:
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		ep = epoll_create1(EPOLL_CLOEXEC);
		ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
		ev.data.fd = fd;
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			die(2, "epoll: %s", strerror(errno));
		while (!x.rx_done || !x.tx_done) {
			unsigned long long s, r;

			if (epoll_wait(ep, &ev, 1, cfg.timeout * 1000) <= 0)
				die(1, "epoll_wait: timeout or error");
			/* edge triggered: drain until neither side moves */
			do {
				s = x.sent;
				r = x.rcvd;
				if (!x.tx_done)
					xfer_send(&x);
				if (!x.rx_done)
					xfer_recv(&x);
			} while ((s != x.sent || r != x.rcvd) &&
				 (!x.rx_done || !x.tx_done));
		}
		close(ep);
		break;
	}
	cur_xfer = NULL;
}

/* -T: threads that share one socket.  Sends from several threads may
 * interleave (on TCP too), so what is checked is what interleaving cannot
 * change: how many bytes of each value arrived.  Sender t writes its share
 * of -n in records of 1..16 KiB, record i all of value (t * 37 + i).
 */
struct shared {
	int fd;
	pthread_mutex_t lock;
	unsigned long long hist[256];
};

struct shared_thread {
	struct shared *sh;
	int t;
};

static size_t shared_record(int t, unsigned long long i,
			    unsigned long long left, uint8_t *val)
{
	size_t n = 1 + ((t + 1) * 2654435761ULL * (i + 1) >> 7) % 16384;

	*val = (t * 37 + i) & 0xff;
	return n < left ? n : left;
}

static void *shared_sender(void *arg)
{
	const struct shared_thread *st = arg;
	unsigned long long left = cfg.bytes / cfg.threads, i;
	uint8_t buf[16384], v;

	for (i = 0; left; i++) {
		size_t n = shared_record(st->t, i, left, &v), off = 0;

		memset(buf, v, n);
		while (off < n) {
			ssize_t r = send(st->sh->fd, buf + off, n - off,
					 MSG_NOSIGNAL);

			if (r < 0 && errno != EINTR)
				die(1, "send: %s", strerror(errno));
			off += r > 0 ? r : 0;
		}
		left -= n;
	}
	return NULL;
}

static void *shared_receiver(void *arg)
{
	struct shared *sh = arg;
	unsigned long long hist[256] = { 0 };
	uint8_t buf[16384];

	for (;;) {
		ssize_t r = recv(sh->fd, buf, sizeof(buf), 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die(1, "recv: %s", strerror(errno));
		if (r == 0)
			break;
		for (ssize_t j = 0; j < r; j++)
			hist[buf[j]]++;
	}
	pthread_mutex_lock(&sh->lock);
	for (int v = 0; v < 256; v++)
		sh->hist[v] += hist[v];
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

static void run_shared(int fd)
{
	struct shared sh = { .fd = fd, .lock = PTHREAD_MUTEX_INITIALIZER };
	struct shared_thread *st = calloc(cfg.threads, sizeof(*st));
	pthread_t *tx = calloc(cfg.threads, sizeof(*tx));
	pthread_t *rx = calloc(cfg.threads, sizeof(*rx));
	unsigned long long want[256] = { 0 }, got = 0, bad = 0;
	int t, v;

	if (!st || !tx || !rx)
		die(2, "calloc");
	for (t = 0; t < cfg.threads; t++) {
		st[t] = (struct shared_thread){ .sh = &sh, .t = t };
		if (pthread_create(&tx[t], NULL, shared_sender, &st[t]) ||
		    pthread_create(&rx[t], NULL, shared_receiver, &sh))
			die(2, "pthread_create");
	}
	for (t = 0; t < cfg.threads; t++)
		pthread_join(tx[t], NULL);
	if (shutdown(fd, SHUT_WR))
		die(1, "shutdown: %s", strerror(errno));
	for (t = 0; t < cfg.threads; t++)
		pthread_join(rx[t], NULL);

	/* what the peer's senders wrote: the same records as ours */
	for (t = 0; t < cfg.threads; t++) {
		unsigned long long left = cfg.bytes / cfg.threads, i;
		uint8_t val;

		for (i = 0; left; i++) {
			size_t n = shared_record(t, i, left, &val);

			want[val] += n;
			left -= n;
		}
	}
	for (v = 0; v < 256; v++) {
		got += sh.hist[v];
		bad += sh.hist[v] > want[v] ? sh.hist[v] - want[v] :
					      want[v] - sh.hist[v];
	}
	if (bad) {
		tally("corrupt", bad);
		die(1, "%llu bytes arrived, %llu of them not as sent", got,
		    bad);
	}
	tally("checked", got);
	free(st);
	free(tx);
	free(rx);
}

static void *serve_one(void *arg)
{
	int fd = (int)(long)arg;

	check_domain(fd, "server");
	if (cfg.threads > 1)
		run_shared(fd);
	else
		run_xfer(fd, true);
	close(fd);
	return NULL;
}

static void do_server(void)
{
	struct addrinfo *ai = resolve(cfg.addr, true);
	int total = cfg.conns * cfg.rounds, one = 1, lfd, i;
	pthread_t *tids = calloc(total, sizeof(*tids));

	make_it_fail();

	if (!tids)
		die(2, "calloc");
	lfd = make_socket(ai->ai_family);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, ai->ai_addr, ai->ai_addrlen))
		die(2, "bind: %s", strerror(errno));
	if (listen(lfd, cfg.backlog ? cfg.backlog :
			cfg.conns > 128 ? cfg.conns : 128))
		die(2, "listen: %s", strerror(errno));
	freeaddrinfo(ai);
	/* tell the driving script we are ready */
	printf("listening\n");
	fflush(stdout);
	sleep(cfg.accept_delay);	/* while the accept queue fills */
	/* ...or until the driving script says (the alarm bounds it) */
	while (cfg.accept_after && access(cfg.accept_after, F_OK))
		usleep(100 * 1000);

	for (i = 0; i < total; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			die(1, "accept: %s", strerror(errno));
		if (pthread_create(&tids[i], NULL, serve_one, (void *)(long)fd))
			die(2, "pthread_create");
	}
	for (i = 0; i < total; i++)
		pthread_join(tids[i], NULL);
	close(lfd);
	free(tids);
}

static int connect_nonblocking(int fd, const struct addrinfo *ai)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	if (poll(&p, 1, cfg.timeout * 1000) != 1)
		die(1, "connect: no POLLOUT");
	errno = sock_error(fd);
	if (errno)
		return -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

static void client_round(const struct addrinfo *ai)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = make_socket(ai->ai_family), tries = 0, r;

	/* the server may still be starting: retry refusals for a while */
	for (;;) {
		if (cfg.nb_connect)
			r = connect_nonblocking(fd, ai);
		else
			r = connect(fd, ai->ai_addr, ai->ai_addrlen);
		if (!r)
			break;
		if (errno != ECONNREFUSED || ++tries > cfg.timeout * 10)
			die(1, "connect: %s", strerror(errno));
		close(fd);
		usleep(100000);
		fd = make_socket(ai->ai_family);
	}
	/* a refused AF_EXS attempt puts the server in the negative cache,
	 * so the retries that follow go by TCP
	 */
	if (tries)
		fprintf(stderr, "client: connected after %d refusals\n", tries);
	check_domain(fd, "client");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) ||
	    ss.ss_family != ai->ai_family)
		die(1, "getpeername: %s", strerror(errno));
	if (cfg.threads > 1)
		run_shared(fd);
	else
		run_xfer(fd, false);
	close(fd);
}

static void *client_one(void *arg)
{
	for (int i = 0; i < cfg.rounds; i++)
		client_round(arg);
	return NULL;
}

static void do_client(void)
{
	struct addrinfo *ai = resolve(cfg.addr, false);
	pthread_t *tids = calloc(cfg.conns, sizeof(*tids));
	int i;

	make_it_fail();

	if (!tids)
		die(2, "calloc");
	for (i = 0; i < cfg.conns; i++)
		if (pthread_create(&tids[i], NULL, client_one, ai))
			die(2, "pthread_create");
	for (i = 0; i < cfg.conns; i++)
		pthread_join(tids[i], NULL);
	freeaddrinfo(ai);
	free(tids);
}

static void usage(void)
{
	fprintf(stderr,
		"%s [-l] [-a ADDR] [-p PORT] [-6] [-x] [-n BYTES] [-R PEER-BYTES]\n"
		"\t[-c CONNS] [-m block|poll|epoll] [-N] [-e inet|inet6|exs]\n"
		"\t[-t SECONDS] [-o (send only, block mode)] [-r ROUNDS]\n"
		"\t[-b BACKLOG] [-d ACCEPT-DELAY-SECONDS] [-T THREADS]\n"
		"\t[-W FILE (with -l: accept once FILE exists)]\n"
		"\t[-F (let failslab/fail_page_alloc fail this process)]\n",
		"exs_connect");
	exit(2);
}

int main(int argc, char *argv[])
{
	bool rbytes = false;
	int c;

	while ((c = getopt(argc, argv, "la:p:6xn:R:c:m:Ne:t:or:b:d:W:T:F")) != -1) {
		switch (c) {
		case 'l':
			cfg.listen = true;
			break;
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.port = optarg;
			break;
		case '6':
			cfg.ipv6 = true;
			break;
		case 'x':
			cfg.exs = true;
			break;
		case 'n':
			cfg.bytes = strtoull(optarg, NULL, 0);
			break;
		case 'R':
			cfg.rbytes = strtoull(optarg, NULL, 0);
			rbytes = true;
			break;
		case 'c':
			cfg.conns = atoi(optarg);
			break;
		case 'T':
			cfg.threads = atoi(optarg);
			break;
		case 'r':
			cfg.rounds = atoi(optarg);
			break;
		case 'b':
			cfg.backlog = atoi(optarg);
			break;
		case 'd':
			cfg.accept_delay = atoi(optarg);
			break;
		case 'W':
			cfg.accept_after = optarg;
			break;
		case 'N':
			cfg.nb_connect = true;
			break;
		case 'o':
			cfg.send_only = true;
			break;
		case 'F':
			cfg.fail = true;
			break;
		case 'e':
			cfg.expect = optarg;
			break;
		case 't':
			cfg.timeout = atoi(optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "block"))
				cfg.mode = IO_BLOCK;
			else if (!strcmp(optarg, "poll"))
				cfg.mode = IO_POLL;
			else if (!strcmp(optarg, "epoll"))
				cfg.mode = IO_EPOLL;
			else
				usage();
			break;
		default:
			usage();
		}
	}
	if ((!cfg.listen && !cfg.addr) || cfg.conns < 1 || cfg.rounds < 1 ||
	    cfg.rounds > INT_MAX / cfg.conns || cfg.threads < 1 ||
	    cfg.backlog < 0 || cfg.accept_delay < 0 ||
	    (rbytes && cfg.threads > 1))
		usage();
	if (!rbytes)
		cfg.rbytes = cfg.bytes;

	exs_af = exs_family();
	if (cfg.exs && exs_af < 0) {
		fprintf(stderr, "exs_connect: af_exs not loaded\n");
		return KSFT_SKIP;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(cfg.timeout * 2);
	raise_nofile();

	if (cfg.listen)
		do_server();
	else
		do_client();
	return 0;
}
