// SPDX-License-Identifier: GPL-2.0
/*
 * exs_bench: one program that drives every transport of make bench the same
 * way, so that only the socket family (or a preload) differs between them.
 *
 *   exs_bench -s [-f FAMILY] [-p PORT]           serve until killed
 *   exs_bench -c ADDR -w WORKLOAD [opts]         measure, print one JSON line
 *
 * FAMILY: tcp (AF_INET; rsockets is tcp under librspreload.so), exs
 * (AF_EXS), smc (AF_SMC).  WORKLOAD:
 *   pp      ping-pong of -z bytes: half round trip, median and 99th pct
 *   stream  -z byte writes for -t seconds: what the server received, Mbit/s
 *   conn    connect, one 1-byte exchange, close, for -t seconds: per second
 *   rr      -n clients, each a connection doing -z byte ping-pongs: per second
 *   fair    pp, alone and then while a second connection of the family
 *           streams 64 KiB writes, -t seconds each: lat_us under that
 *           load, lat_alone_us without, load_writes the stream's writes
 *           in between, load_outlived if the stream ended (at its own
 *           end, 2 -t + 30 s) before the ping-pong did (streams sharing
 *           a link, and two TCP connections, measured alike)
 *
 * Every connection opens with a struct hello naming what the server does
 * with it.  A control connection asks the server host's busy CPU time at the
 * start and the end, so the figure covers both hosts; the client also reads
 * its host's RDMA packet counters, so make bench can prove which transport
 * carried the bytes (a figure on the wrong transport is thrown away).
 * Options: -b US busy-polls AF_EXS sockets (EXS_BUSY_POLL, both ends);
 * -L LABEL names the transport in the output; -S N spreads rr's clients
 * over N servers, on ports PORT to PORT + N - 1 (client i on PORT + i % N):
 * rdma-core 44's rsockets loses a connection's CM events once a process
 * serves more than three at a time (make bench runs a server for each).
 * -A FAMILY [-M LABEL] measures pp or stream on two connections at once,
 * one of -f's family and one of -A's, taking turns every 100 ms (pp) or
 * 500 ms (stream) for -t seconds each, and prints a line for each: a pair
 * measured side by side, which the emulated machine's drift (percents
 * from one second to the next) hits alike, as it does not two runs one
 * after the other.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <glob.h>
#include <netdb.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/af_exs.h>

#include "exs_family.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0

#define HELLO_MAGIC	0x45585342	/* "EXSB" */
#define MAX_SIZE	(1024 * 1024)
#define MAX_CLIENTS	256
#define MAX_SAMPLES	(1024 * 1024)

enum mode { MODE_ECHO = 1, MODE_SINK, MODE_CPU };

struct hello {
	uint32_t magic, mode, size, busy_poll_us;
};

static struct {
	const char *family, *addr, *workload, *label, *family2, *label2;
	unsigned int port, size, clients, busy_poll_us, servers;
	double seconds;
	bool server;
} cfg = {
	.family = "tcp", .port = 18000, .workload = "pp", .size = 16,
	.clients = 1, .seconds = 2, .servers = 1,
};

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "exs_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the whole host spent: busy time in USER_HZ ticks (the RDMA and TCP
 * work done in softirqs and kernel threads is the transport's cost too),
 * and context switches (a send that needs a kernel thread's turn, as rxe's
 * on 6.12, shows there).
 */
struct host_usage {
	uint64_t busy;
	uint64_t ctxt;
};

static struct host_usage host_usage(void)
{
	unsigned long long v[8] = { 0 }, ctxt = 0;
	struct host_usage u = { 0 };
	char line[256];
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return u;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		memset(v, 0, sizeof(v));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &ctxt) == 1)
			break;
	fclose(f);
	/* all but idle (3) and iowait (4) */
	u.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	u.ctxt = ctxt;
	return u;
}

/* Packets this host's RDMA devices sent and received so far. */
static uint64_t rdma_pkts(void)
{
	const char *pat = "/sys/class/infiniband/*/ports/*/hw_counters/*_pkts";
	unsigned long long n, sum = 0;
	glob_t g;
	size_t i;

	if (glob(pat, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		FILE *f;

		if (strcmp(base, "sent_pkts") && strcmp(base, "rcvd_pkts"))
			continue;
		f = fopen(g.gl_pathv[i], "re");
		if (f && fscanf(f, "%llu", &n) == 1)
			sum += n;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return sum;
}

/* IP packets this host received and sent so far (InReceives and
 * OutRequests): every transport's packets on the link, rxe's in UDP,
 * acknowledgments included.
 */
static uint64_t link_pkts(void)
{
	unsigned long long in, out;
	char line[512];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/net/snmp", "re");

	if (!f)
		return 0;
	/* the Ip header line does not scan; its values line does */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Ip: %*u %*u %llu %*u %*u %*u %*u %*u %*u %llu",
			   &in, &out) == 2) {
			sum = in + out;
			break;
		}
	fclose(f);
	return sum;
}

static int open_socket(const char *family, int *domain)
{
	int fd;

	if (!strcmp(family, "exs")) {
		*domain = exs_family();
		if (*domain < 0) {
			fprintf(stderr, "exs_bench: af_exs is not loaded\n");
			exit(4);
		}
		fd = socket(*domain, SOCK_STREAM, EXSPROTO_EXS);
	} else if (!strcmp(family, "smc")) {
		*domain = AF_SMC;
		fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	} else {
		*domain = AF_INET;
		fd = socket(AF_INET, SOCK_STREAM, 0);
	}
	if (fd < 0)
		die("socket");
	return fd;
}

static void set_busy_poll(int fd, unsigned int us)
{
	int v = us;

	/* only an AF_EXS socket on RDMA knows the option; TCP says so */
	if (us)
		setsockopt(fd, SOL_EXS, EXS_BUSY_POLL, &v, sizeof(v));
}

static int full_io(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;

	while (len) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) :
				  recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* --- server ------------------------------------------------------------ */

static void *serve(void *arg)
{
	int fd = (intptr_t)arg, one = 1;
	struct hello h;
	uint64_t total = 0;
	char *buf = NULL;
	ssize_t n;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (full_io(fd, &h, sizeof(h), false) || h.magic != HELLO_MAGIC ||
	    h.size == 0 || h.size > MAX_SIZE)
		goto out;
	buf = malloc(h.size);
	if (!buf)
		goto out;
	set_busy_poll(fd, h.busy_poll_us);
	switch (h.mode) {
	case MODE_ECHO:
		while (!full_io(fd, buf, h.size, false) &&
		       !full_io(fd, buf, h.size, true))
			;
		break;
	case MODE_SINK:
		while ((n = recv(fd, buf, h.size, 0)) > 0 ||
		       (n < 0 && errno == EINTR))
			total += n > 0 ? n : 0;
		full_io(fd, &total, sizeof(total), true);
		break;
	case MODE_CPU:
		while (!full_io(fd, buf, 1, false)) {
			struct host_usage u = host_usage();

			if (full_io(fd, &u, sizeof(u), true))
				break;
		}
		break;
	}
out:
	free(buf);
	close(fd);
	return NULL;
}

static void __attribute__((noreturn)) run_server(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int lfd, fd, one = 1, domain;
	pthread_attr_t attr;
	pthread_t t;

	lfd = open_socket(cfg.family, &domain);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = htons(cfg.port);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(lfd, 512))
		die("listen");
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (pthread_create(&t, &attr, serve, (void *)(intptr_t)fd))
			close(fd);
	}
}

/* --- client ------------------------------------------------------------ */

static struct sockaddr_in peer;	/* run_client() asks for AF_INET */

/* connect a socket of @family to the server @server ports above -p's */
static int dial_family(const char *family, enum mode mode, unsigned int size,
		       unsigned int server)
{
	struct hello h = { HELLO_MAGIC, mode, size, cfg.busy_poll_us };
	struct sockaddr_in to = peer;
	int fd, one = 1, domain;

	to.sin_port = htons(ntohs(to.sin_port) + server);
	fd = open_socket(family, &domain);
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)))
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_busy_poll(fd, cfg.busy_poll_us);
	if (full_io(fd, &h, sizeof(h), true))
		die("hello");
	return fd;
}

static int dial(enum mode mode, unsigned int size, unsigned int server)
{
	return dial_family(cfg.family, mode, size, server);
}

/* What carried a connection: AF_EXS says, and after a fallback the socket
 * is a plain TCP one; other families are told by the packet counters.
 */
static const char *carrier(int fd)
{
	int domain, exs_af = exs_family();
	socklen_t len = sizeof(domain);
	struct exs_info info;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len))
		return "unknown";
	if (exs_af < 0 || domain != exs_af)
		return domain == AF_INET || domain == AF_INET6 ? "tcp-socket" :
		       "unknown";
	len = sizeof(info);
	if (getsockopt(fd, SOL_EXS, EXS_INFO, &info, &len))
		return "unknown";
	return info.exsi_transport == EXS_TRANSPORT_RDMA ? "rdma" : "tcp";
}

static struct host_usage server_usage(int ctl)
{
	struct host_usage u;
	char c = 0;

	if (full_io(ctl, &c, 1, true) || full_io(ctl, &u, sizeof(u), false))
		die("control connection");
	return u;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Both hosts' CPU time and switches, and this host's packets, while a
 * figure was measured: the control connection's own exchange stays out
 * of the packet counts (taken after it at the start, before it at the end).
 */
struct tally {
	uint64_t busy, ctxt, srv_busy, srv_ctxt, pkts, link;
};

struct snap {
	struct host_usage cpu, srv;
	uint64_t pkts, link;
};

static void snap_begin(int ctl, struct snap *s)
{
	s->srv = server_usage(ctl);
	s->cpu = host_usage();
	s->pkts = rdma_pkts();
	s->link = link_pkts();
}

static void snap_end(int ctl, struct snap *s)
{
	s->pkts = rdma_pkts();
	s->link = link_pkts();
	s->cpu = host_usage();
	s->srv = server_usage(ctl);
}

static void tally_add(struct tally *t, const struct snap *a,
		      const struct snap *b)
{
	t->busy += b->cpu.busy - a->cpu.busy;
	t->ctxt += b->cpu.ctxt - a->cpu.ctxt;
	t->srv_busy += b->srv.busy - a->srv.busy;
	t->srv_ctxt += b->srv.ctxt - a->srv.ctxt;
	t->pkts += b->pkts - a->pkts;
	t->link += b->link - a->link;
}

struct result {
	uint64_t iters, bytes;
	double elapsed, lat_us, lat_p99_us, lat_alone_us;
	uint64_t load_writes;	/* fair: the load's writes beside the pp */
	bool load_outlived;	/* fair: the load ended before the pp did */
	const char *carrier;
	struct tally use;
};

/* One ping-pong connection: its round trips, which may come in turns. */
struct pp {
	int fd;
	char *buf;
	double *rtt;
	uint64_t n;
	double elapsed;
};

static void pp_open(struct pp *p, const char *family, struct result *r)
{
	int i;

	p->fd = dial_family(family, MODE_ECHO, cfg.size, 0);
	p->rtt = calloc(MAX_SAMPLES, sizeof(*p->rtt));
	p->buf = calloc(1, cfg.size);
	if (!p->rtt || !p->buf)
		die("calloc");
	for (i = 0; i < 10; i++)	/* warm up: rings, credits, caches */
		if (full_io(p->fd, p->buf, cfg.size, true) ||
		    full_io(p->fd, p->buf, cfg.size, false))
			die("ping-pong");
	r->carrier = carrier(p->fd);
}

/* round trips until @end */
static void pp_run(struct pp *p, double end)
{
	double t0 = now(), t;

	do {
		t = now();
		if (full_io(p->fd, p->buf, cfg.size, true) ||
		    full_io(p->fd, p->buf, cfg.size, false))
			die("ping-pong");
		if (p->n < MAX_SAMPLES)
			p->rtt[p->n] = now() - t;
		p->n++;
	} while (now() < end);
	p->elapsed += now() - t0;
}

/* the median one-way latency, in us; sorts the samples */
static double pp_median(struct pp *p)
{
	uint64_t n = p->n < MAX_SAMPLES ? p->n : MAX_SAMPLES;

	qsort(p->rtt, n, sizeof(*p->rtt), cmp_double);
	return p->rtt[n / 2] / 2 * 1e6;
}

static void pp_close(struct pp *p, struct result *r)
{
	uint64_t n = p->n < MAX_SAMPLES ? p->n : MAX_SAMPLES;

	r->elapsed = p->elapsed;
	r->iters = p->n;
	r->bytes = 2 * p->n * cfg.size;
	r->lat_us = pp_median(p);
	r->lat_p99_us = p->rtt[n * 99 / 100] / 2 * 1e6;
	close(p->fd);
	free(p->rtt);
	free(p->buf);
}

static void ping_pong(struct result *r)
{
	struct pp p = { 0 };

	pp_open(&p, cfg.family, r);
	pp_run(&p, now() + cfg.seconds);
	pp_close(&p, r);
}

/* One streaming connection: its writes, which may come in turns. */
struct sink {
	int fd;
	char *buf;
	unsigned int size;	/* of each write */
	uint64_t n;
	double elapsed;
	bool stop;	/* fair's load: stop before the end (atomic) */
	bool outlived;	/* fair's load: it ended at its own end, not on stop */
};

static void sink_open(struct sink *k, const char *family, struct result *r,
		      unsigned int size)
{
	k->size = size;
	k->fd = dial_family(family, MODE_SINK, size, 0);
	k->buf = calloc(1, size);
	if (!k->buf)
		die("calloc");
	r->carrier = carrier(k->fd);
}

/* writes until @end; with @drain, until what they queued is acked too
 * (SIOCOUTQ; a socket that does not say is not waited for), so that no
 * turn's bytes cross into the other connection's
 */
static void sink_run(struct sink *k, double end, bool drain)
{
	double t0 = now();
	int queued;

	do {
		if (full_io(k->fd, k->buf, k->size, true))
			die("send");
		/* fairness() reads it from the ping-pong's thread */
		__atomic_add_fetch(&k->n, 1, __ATOMIC_RELAXED);
	} while (now() < end && !__atomic_load_n(&k->stop, __ATOMIC_RELAXED));
	while (drain && !ioctl(k->fd, SIOCOUTQ, &queued) && queued > 0)
		usleep(200);
	k->elapsed += now() - t0;
}

/* what the server received, and the time it took: the last turn's
 * writes still in flight count in it
 */
static void sink_close(struct sink *k, struct result *r)
{
	double t0 = now();
	uint64_t got = 0;

	shutdown(k->fd, SHUT_WR);
	if (full_io(k->fd, &got, sizeof(got), false))
		die("the server's count of streamed bytes");
	r->elapsed = k->elapsed + now() - t0;
	if (got != k->n * k->size)
		fprintf(stderr, "exs_bench: sent %llu bytes, server got %llu\n",
			(unsigned long long)(k->n * k->size),
			(unsigned long long)got);
	r->iters = k->n;
	r->bytes = got;
	close(k->fd);
	free(k->buf);
}

static void stream(struct result *r)
{
	struct sink k = { 0 };

	sink_open(&k, cfg.family, r, cfg.size);
	sink_run(&k, now() + cfg.seconds, false);
	sink_close(&k, r);
}

/* fair: a ping-pong's median alone, then beside a stream of 64 KiB
 * writes on a second connection of the same family (on AF_EXS, the
 * same link, with net.exs.share_qp on)
 */
#define FAIR_LOAD_SIZE	65536

/* The load's own end comes well after the ping-pong's: a ping-pong that
 * was starved makes its round trip only once the load ends, and says so.
 */
static void *fair_load(void *arg)
{
	struct sink *k = arg;

	sink_run(k, now() + 2 * cfg.seconds + 30, false);
	k->outlived = !__atomic_load_n(&k->stop, __ATOMIC_RELAXED);
	return NULL;
}

static void fairness(struct result *r)
{
	struct sink k = { 0 };
	struct result load = { 0 };
	struct pp p = { 0 };
	uint64_t writes;
	pthread_t t;

	pp_open(&p, cfg.family, r);
	pp_run(&p, now() + cfg.seconds);
	r->lat_alone_us = pp_median(&p);
	p.n = 0;
	p.elapsed = 0;
	sink_open(&k, cfg.family, &load, FAIR_LOAD_SIZE);
	if (pthread_create(&t, NULL, fair_load, &k))
		die("pthread_create");
	usleep(200000);		/* the stream up to speed */
	writes = __atomic_load_n(&k.n, __ATOMIC_RELAXED);
	pp_run(&p, now() + cfg.seconds);
	r->load_writes = __atomic_load_n(&k.n, __ATOMIC_RELAXED) - writes;
	__atomic_store_n(&k.stop, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	r->load_outlived = k.outlived;
	pp_close(&p, r);
	sink_close(&k, &load);
	if (strcmp(load.carrier, r->carrier))
		r->carrier = "mixed";
}

/* -A: the workload on a connection of each family, in turns; each turn's
 * CPU time, switches and packets are its connection's
 */
static void alternate(int ctl, struct result r[2])
{
	bool pp = !strcmp(cfg.workload, "pp");
	double turn = pp ? 0.1 : 0.5, done = 0;
	const char *fam[2] = { cfg.family, cfg.family2 };
	struct sink k[2] = { 0 };
	struct pp p[2] = { 0 };
	struct snap a, b;
	int i;

	for (i = 0; i < 2; i++) {
		if (pp)
			pp_open(&p[i], fam[i], &r[i]);
		else
			sink_open(&k[i], fam[i], &r[i], cfg.size);
	}
	while (done < cfg.seconds) {
		for (i = 0; i < 2; i++) {
			snap_begin(ctl, &a);
			if (pp)
				pp_run(&p[i], now() + turn);
			else
				sink_run(&k[i], now() + turn, true);
			snap_end(ctl, &b);
			tally_add(&r[i].use, &a, &b);
		}
		done += turn;
	}
	for (i = 0; i < 2; i++) {
		if (pp) {
			pp_close(&p[i], &r[i]);
			continue;
		}
		snap_begin(ctl, &a);
		sink_close(&k[i], &r[i]);
		snap_end(ctl, &b);
		tally_add(&r[i].use, &a, &b);
	}
}

static void conn_rate(struct result *r)
{
	double t0 = now(), end = t0 + cfg.seconds;
	uint64_t n = 0;
	char c = 1;
	int fd;

	do {
		fd = dial(MODE_ECHO, 1, 0);
		if (full_io(fd, &c, 1, true) || full_io(fd, &c, 1, false))
			die("exchange");
		if (!n)
			r->carrier = carrier(fd);
		close(fd);
		n++;
	} while (now() < end);
	r->elapsed = now() - t0;
	r->iters = n;
	r->bytes = 2 * n;
}

static pthread_barrier_t start_line;
static double rr_end;

struct rr_client {
	pthread_t thread;
	int fd;
	uint64_t n;
};

static void *rr_run(void *arg)
{
	struct rr_client *c = arg;
	char *buf = calloc(1, cfg.size);

	if (!buf)
		die("calloc");
	pthread_barrier_wait(&start_line);
	do {
		if (full_io(c->fd, buf, cfg.size, true) ||
		    full_io(c->fd, buf, cfg.size, false))
			die("request/response");
		c->n++;
	} while (now() < rr_end);
	free(buf);
	return NULL;
}

static void request_response(struct result *r)
{
	struct rr_client *c = calloc(cfg.clients, sizeof(*c));
	unsigned int i;
	double t0;

	if (!c)
		die("calloc");
	for (i = 0; i < cfg.clients; i++)
		c[i].fd = dial(MODE_ECHO, cfg.size, i % cfg.servers);
	r->carrier = carrier(c[0].fd);
	pthread_barrier_init(&start_line, NULL, cfg.clients + 1);
	t0 = now();
	rr_end = t0 + cfg.seconds;
	for (i = 0; i < cfg.clients; i++)
		if (pthread_create(&c[i].thread, NULL, rr_run, &c[i]))
			die("pthread_create");
	pthread_barrier_wait(&start_line);
	for (i = 0; i < cfg.clients; i++) {
		pthread_join(c[i].thread, NULL);
		r->iters += c[i].n;
		close(c[i].fd);
	}
	r->elapsed = now() - t0;
	r->bytes = 2 * r->iters * cfg.size;
	free(c);
}

static void print_result(const struct result *r, const char *label,
			 const char *family)
{
	long hz = sysconf(_SC_CLK_TCK);

	printf("{\"transport\": \"%s\", \"family\": \"%s\", ", label,
	       family);
	printf("\"workload\": \"%s\", \"size\": %u, \"clients\": %u, ",
	       cfg.workload, cfg.size, cfg.clients);
	printf("\"busy_poll_us\": %u, \"seconds\": %.3f, ", cfg.busy_poll_us,
	       r->elapsed);
	printf("\"iters\": %llu, \"bytes\": %llu, ",
	       (unsigned long long)r->iters, (unsigned long long)r->bytes);
	printf("\"lat_us\": %.2f, \"lat_p99_us\": %.2f, ", r->lat_us,
	       r->lat_p99_us);
	if (r->lat_alone_us)
		printf("\"lat_alone_us\": %.2f, \"load_writes\": %llu, \"load_outlived\": %s, ",
		       r->lat_alone_us, (unsigned long long)r->load_writes,
		       r->load_outlived ? "true" : "false");
	printf("\"mbit_s\": %.3f, \"per_s\": %.2f, ",
	       r->bytes * 8 / r->elapsed / 1e6, r->iters / r->elapsed);
	printf("\"cpu_client_s\": %.2f, \"cpu_server_s\": %.2f, ",
	       (double)r->use.busy / hz, (double)r->use.srv_busy / hz);
	printf("\"ctxt_client\": %llu, \"ctxt_server\": %llu, ",
	       (unsigned long long)r->use.ctxt,
	       (unsigned long long)r->use.srv_ctxt);
	printf("\"rdma_pkts\": %llu, \"link_pkts\": %llu, ",
	       (unsigned long long)r->use.pkts,
	       (unsigned long long)r->use.link);
	printf("\"carrier\": \"%s\"}\n", r->carrier);
}

static int run_client(void)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct result r[2] = { { .carrier = "unknown" },
			       { .carrier = "unknown" } };
	struct addrinfo *ai;
	struct snap a, b;
	int ctl;

	if (getaddrinfo(cfg.addr, NULL, &hints, &ai))
		die("getaddrinfo");
	memcpy(&peer, ai->ai_addr, sizeof(peer));
	freeaddrinfo(ai);
	peer.sin_port = htons(cfg.port);

	ctl = dial(MODE_CPU, 1, 0);
	if (cfg.family2) {
		alternate(ctl, r);
		close(ctl);
		print_result(&r[0], cfg.label ? cfg.label : cfg.family,
			     cfg.family);
		print_result(&r[1], cfg.label2 ? cfg.label2 : cfg.family2,
			     cfg.family2);
		return 0;
	}
	snap_begin(ctl, &a);
	if (!strcmp(cfg.workload, "pp"))
		ping_pong(&r[0]);
	else if (!strcmp(cfg.workload, "stream"))
		stream(&r[0]);
	else if (!strcmp(cfg.workload, "conn"))
		conn_rate(&r[0]);
	else if (!strcmp(cfg.workload, "fair"))
		fairness(&r[0]);
	else
		request_response(&r[0]);
	snap_end(ctl, &b);
	tally_add(&r[0].use, &a, &b);
	close(ctl);
	print_result(&r[0], cfg.label ? cfg.label : cfg.family, cfg.family);
	return 0;
}

static const char help[] =
	"exs_bench -s [-f tcp|exs|smc] [-p PORT]\n"
	"exs_bench -c ADDR [-f tcp|exs|smc] [-p PORT] [-w pp|stream|conn|rr|fair]\n"
	"          [-z SIZE] [-n CLIENTS] [-t SECONDS] [-b BUSY_US] [-L LABEL]\n"
	"          [-S SERVERS] [-A tcp|exs|smc [-M LABEL]]\n";

static bool known_family(const char *family)
{
	return !strcmp(family, "tcp") || !strcmp(family, "exs") ||
	       !strcmp(family, "smc");
}

static void __attribute__((noreturn)) bad_args(void)
{
	fputs(help, stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long port;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "sc:f:p:w:z:n:t:b:L:S:A:M:")) != -1) {
		switch (opt) {
		case 's':
			cfg.server = true;
			break;
		case 'c':
			cfg.addr = optarg;
			break;
		case 'f':
			cfg.family = optarg;
			break;
		case 'p':
			port = strtoul(optarg, &end, 10);
			if (*end || !port || port > 65535)
				bad_args();
			cfg.port = port;
			break;
		case 'w':
			cfg.workload = optarg;
			break;
		case 'z':
			cfg.size = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			cfg.clients = strtoul(optarg, NULL, 0);
			break;
		case 't':
			cfg.seconds = strtod(optarg, NULL);
			break;
		case 'b':
			cfg.busy_poll_us = strtoul(optarg, NULL, 0);
			break;
		case 'L':
			cfg.label = optarg;
			break;
		case 'S':
			cfg.servers = strtoul(optarg, NULL, 0);
			break;
		case 'A':
			cfg.family2 = optarg;
			break;
		case 'M':
			cfg.label2 = optarg;
			break;
		default:
			bad_args();
		}
	}
	if (!known_family(cfg.family) ||
	    (cfg.family2 && !known_family(cfg.family2)))
		bad_args();
	if (!cfg.size || cfg.size > MAX_SIZE || !cfg.clients ||
	    cfg.clients > MAX_CLIENTS || cfg.seconds <= 0 || !cfg.servers ||
	    cfg.servers > MAX_CLIENTS ||
	    cfg.port + cfg.servers - 1 > 65535)
		bad_args();
	signal(SIGPIPE, SIG_IGN);
	if (cfg.server)
		run_server();
	if (!cfg.addr || (strcmp(cfg.workload, "pp") &&
			  strcmp(cfg.workload, "stream") &&
			  strcmp(cfg.workload, "conn") && strcmp(cfg.workload, "rr") &&
			  strcmp(cfg.workload, "fair")))
		bad_args();
	/* turns of pp or stream only */
	if (cfg.family2 && strcmp(cfg.workload, "pp") &&
	    strcmp(cfg.workload, "stream"))
		bad_args();
	return run_client();
}
