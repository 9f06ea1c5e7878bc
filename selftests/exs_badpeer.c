// SPDX-License-Identifier: GPL-2.0
/*
 * exs_badpeer: a peer that speaks the AF_EXS wire protocol wrongly, from
 * userspace verbs (librdmacm), against a real AF_EXS listener.  One run,
 * one case, one connection:
 *
 *   exs_badpeer -a ADDR -p PORT -c CASE      exit 0: the server reacted
 *   exs_badpeer -l                           list the cases
 *
 * Two more take another connection's ring, named in a file (-k FILE):
 * "hold" connects correctly, writes its server ring's address and key
 * there, and keeps the connection until the file is removed (exit 0: the
 * server left it alone); "other-ring" writes into that ring through a
 * connection of its own, with the key the server gave the other one.
 * A third, "no-rtu", never answers the server's REP and writes its port
 * there: it holds the server's child in the CM's handshake until the file
 * goes (exit 0: no REJ came meanwhile).  A fourth, "hog", connects
 * claiming a 1 MiB ring, which its server mirrors in a send buffer, says
 * "up" there and holds the connection until the file goes; exit 3 when
 * the server refused it (its ring memory limits: mem.c).  A fifth,
 * "join-stall", lets none of its server's sends through while it JOINs
 * and ABORTs streams its server writes to (the server says in the file
 * when it has written to one); a sixth, "leave-stall", does so until one
 * such stream is gone from the link with its sends stuck, and waits for
 * the server to give up on them; a seventh, "refuse-flood", asks a parked
 * stream of its own to OPEN, again and again, to no listener, while it
 * lets nothing through.
 *
 * REQ cases must be rejected (RDMA_CM_EVENT_REJECTED).  The others connect
 * as a correct client would (REQ, READY), then misbehave; the server must
 * end the connection: we see its DISCONNECTED event within -t seconds,
 * after its ABORT unless its device refused what we did.
 * What the server counted (ProtocolErrors, RdmaReject) is checked by the
 * calling script.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RING		(64 << 10)
#define NRECV		256	/* join-flood's 170 answers, none waiting */
#define MSGBUF		256	/* bytes of each of 8 send buffers */
#define MRLEN		(RING + NRECV * 64 + 8 * MSGBUF)
#define WIRE_READY	1
#define WIRE_CREDIT	2
#define WIRE_FIN		3
#define WIRE_ABORT	4
#define WIRE_DATA	5
#define WIRE_LAST	6
#define WIRE_OPEN	7
#define WIRE_REFUSE	8
#define WIRE_RESUME	9
#define WIRE_JOIN	10
#define WIRE_JOINED	11
#define WIRE_BATCH	12
#define WIRE_URG	13
#define WIRE_IMM_CHAN_SHIFT	24
#define WIRE_REQ_RESUME	1	/* a REQ's flags */
#define WIRE_REQ_SHARE	2
#define WIRE_VERSION	6	/* the REQ offers 3 to 6 (wire.h) */
#define WIRE_VERSION_MIN	3
#define WIRE_REQ_VMIN(v)	((v) << 8)
#define WIRE_REJ_BACKLOG	3	/* a REFUSE's cursor: enum exs_wire_reject */
#define SHARE_RIDERS	30	/* a shared link's streams past its first (link_sq.h) */
#define WIRE_CHAN_MAX	128	/* a link's channels, 0 its first stream's (wire.h) */
#define NJOIN		170	/* join-flood's JOINs: 43 past the 127 that may wait */

/* the wire structures of net/af_exs/wire.h, big endian: written again
 * here on purpose, so that a change of the kernel's layout breaks this test
 */
struct wire_req {
	uint8_t version, family;
	uint16_t flags, sport, dport;
	uint8_t saddr[16], daddr[16];
	uint64_t ring_addr;
	uint32_t ring_rkey, ring_len;
} __attribute__((packed));

struct wire_rep {
	uint8_t version, reason;
	uint16_t reserved;
	uint32_t ring_len;
	uint64_t ring_addr;
	uint32_t ring_rkey;
} __attribute__((packed));

struct wire_msg {
	uint8_t type, flags;
	uint16_t chan;
	uint32_t cursor;
} __attribute__((packed));

struct wire_open {
	struct wire_msg hdr;
	struct wire_req req;
} __attribute__((packed));

struct wire_rec {
	uint8_t chan, flags;
	uint16_t len;
} __attribute__((packed));

static struct {
	const char *addr, *port;
	const char *name;
	const char *keyfile;
	int timeout;
} cfg = { .port = "23100", .timeout = 30 };

static struct rdma_event_channel *ch;
static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static char *ring;			/* our ring, then receive buffers */
static struct wire_rep rep;		/* the server's ring */
static struct wire_req sent_req;	/* the REQ we sent */
static unsigned int nsent;
static bool heard_abort;		/* the server said ABORT */

static void die(const char *what)
{
	fprintf(stderr, "exs_badpeer: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct rdma_cm_event *next_event(int secs)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, secs * 1000) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	return ev;
}

static enum rdma_cm_event_type expect(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = next_event(cfg.timeout);
	enum rdma_cm_event_type got;

	if (!ev) {
		fprintf(stderr, "exs_badpeer: no %s\n", rdma_event_str(want));
		exit(1);
	}
	got = ev->event;
	if (got == RDMA_CM_EVENT_ESTABLISHED &&
	    ev->param.conn.private_data_len >= sizeof(rep))
		memcpy(&rep, ev->param.conn.private_data, sizeof(rep));
	rdma_ack_cm_event(ev);
	return got;
}

static void post_recv(int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ring + RING + i * 64,
		.length = 64, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(id->qp, &wr, &bad))
		die("ibv_post_recv");
}

static void post_recvs(void)
{
	for (int i = 0; i < NRECV; i++)
		post_recv(i);
}

/* A control message of @len bytes (8 is the real size), from the
 * registered area past the receive buffers.
 */
static void send_msg_to(uint8_t type, uint16_t chan, uint32_t cursor,
			size_t len)
{
	char *buf = ring + RING + NRECV * 64 + (nsent++ % 8) * MSGBUF;
	struct wire_msg m = { .type = type, .chan = htons(chan),
			      .cursor = htobe32(cursor) };
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memset(buf, 0x5a, MSGBUF);
	memcpy(buf, &m, sizeof(m) < len ? sizeof(m) : len);
	if (ibv_post_send(id->qp, &wr, &bad))
		die("ibv_post_send");
}

static void send_msg(uint8_t type, uint32_t cursor, size_t len)
{
	send_msg_to(type, 0, cursor, len);
}

/* A BATCH whose header says @count records, of @nrec records of 4 bytes,
 * for the channels in @chans.
 */
static void send_batch(uint32_t count, const uint8_t *chans, int nrec)
{
	char *buf = ring + RING + NRECV * 64 + (nsent++ % 8) * MSGBUF;
	struct wire_msg m = { .type = WIRE_BATCH, .cursor = htobe32(count) };
	size_t len = sizeof(m);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memcpy(buf, &m, sizeof(m));
	for (int i = 0; i < nrec; i++) {
		struct wire_rec r = { .chan = chans[i], .len = htons(4) };

		memcpy(buf + len, &r, sizeof(r));
		memcpy(buf + len + sizeof(r), "bat!", 4);
		len += sizeof(r) + 4;
	}
	sge.length = len;
	if (ibv_post_send(id->qp, &wr, &bad))
		die("ibv_post_send");
}

/* An OPEN (or JOIN, naming channel @cursor) naming the connection our REQ
 * named, @rkey for our ring's.
 */
static void send_open_type(uint8_t type, uint16_t chan, uint32_t cursor,
			   uint32_t rkey)
{
	char *buf = ring + RING + NRECV * 64 + (nsent++ % 8) * MSGBUF;
	struct wire_open o = {
		.hdr = { .type = type, .chan = htobe16(chan),
			 .cursor = htobe32(cursor) },
		.req = sent_req,
	};
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = sizeof(o),
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	o.req.ring_rkey = htobe32(rkey);
	/* the version the QP speaks, alone, as the server's QP wants it:
	 * each case breaks one rule, not this one
	 */
	o.req.flags = htons((ntohs(o.req.flags) & 0xff) |
			    WIRE_REQ_VMIN(WIRE_VERSION));
	memcpy(buf, &o, sizeof(o));
	if (ibv_post_send(id->qp, &wr, &bad))
		die("ibv_post_send");
}

static void send_open(uint32_t rkey)
{
	send_open_type(WIRE_OPEN, 0, 0, rkey);
}

/* An RDMA write of @len bytes to the server's address @addr. */
static void write_at(uint64_t addr, uint32_t len, uint32_t rkey, bool imm,
		     uint32_t imm_len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)ring, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(imm_len),
		.wr.rdma = { .remote_addr = addr, .rkey = rkey },
	}, *bad;

	if (ibv_post_send(id->qp, &wr, &bad))
		die("ibv_post_send");
}

/* ...at @off into the server's ring of this connection */
static void write_ring(uint64_t off, uint32_t len, uint32_t rkey, bool imm,
		       uint32_t imm_len)
{
	write_at(be64toh(rep.ring_addr) + off, len, rkey, imm, imm_len);
}

/* The REQ a correct client would send. */
static void good_req(struct wire_req *req, size_t *len)
{
	struct sockaddr_in *src = (void *)rdma_get_local_addr(id);
	struct sockaddr_in *dst = (void *)rdma_get_peer_addr(id);

	memset(req, 0, sizeof(*req));
	req->version = WIRE_VERSION;
	req->flags = htons(WIRE_REQ_VMIN(WIRE_VERSION_MIN));
	req->family = 4;
	req->sport = htons(40000 + getpid() % 20000);
	req->dport = dst->sin_port;
	memset(&req->saddr[10], 0xff, 2);
	memcpy(&req->saddr[12], &src->sin_addr, 4);
	memset(&req->daddr[10], 0xff, 2);
	memcpy(&req->daddr[12], &dst->sin_addr, 4);
	req->ring_addr = htobe64((uintptr_t)ring);
	req->ring_rkey = htobe32(mr->rkey);
	req->ring_len = htobe32(RING);
	*len = sizeof(*req);
}

/* The server's ABORT of our connection: on channel 0, not a rider's */
static bool is_abort(const struct wire_msg *m)
{
	return m->type == WIRE_ABORT && !m->chan;
}

/* The completions that came: did the server say ABORT? */
static void poll_abort(void)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq, 1, &wc) > 0)
		if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
		    is_abort((struct wire_msg *)(ring + RING + wc.wr_id * 64)))
			heard_abort = true;
}

/* Wait for the server to end the connection: its DISCONNECTED event.  Our
 * own QP failing proves nothing (a write the server's device refused fails
 * here at once, whatever the server made of it), so completions are only
 * drained, and an ABORT among them noted.  0 when it did, within -t
 * seconds and while @until (a file) is there, if given.
 */
static int await_end(const char *until)
{
	time_t end = time(NULL) + cfg.timeout;

	while (time(NULL) < end && (!until || !access(until, F_OK))) {
		struct rdma_cm_event *ev = next_event(1);

		poll_abort();	/* first: what came before the disconnect */
		if (ev) {
			enum rdma_cm_event_type t = ev->event;

			rdma_ack_cm_event(ev);
			if (t == RDMA_CM_EVENT_DISCONNECTED)
				return 0;
		}
	}
	return 1;
}

/* Until the server's message of @type (READY: the misbehaviour starts
 * from a sane state); its cursor.
 */
static uint32_t await_msg(uint8_t type)
{
	time_t end = time(NULL) + cfg.timeout;
	struct ibv_wc wc;

	while (time(NULL) < end) {
		while (ibv_poll_cq(cq, 1, &wc) > 0) {
			struct wire_msg *m;

			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "exs_badpeer: completion error %s before %u\n",
					ibv_wc_status_str(wc.status), type);
				exit(1);
			}
			if (wc.opcode != IBV_WC_RECV)
				continue;
			m = (void *)(ring + RING + wc.wr_id * 64);
			if (m->type == type)
				return be32toh(m->cursor);
		}
		usleep(10000);
	}
	fprintf(stderr, "exs_badpeer: no message %u from the server\n", type);
	exit(1);
}

/* The cases: a REQ case spoils a correct REQ, a run case misbehaves
 * once both sides are READY (it sends our READY itself if that is the
 * point).  @rkey and @rlen: the server's ring.
 */
static void req_version(struct wire_req *q, size_t *len)
{
	q->version = 200;
	q->flags = htons(WIRE_REQ_VMIN(200));
}

static void req_family(struct wire_req *q, size_t *len)
{
	q->family = 5;
}

static void req_short(struct wire_req *q, size_t *len)
{
	*len = 20;
}

static void req_empty(struct wire_req *q, size_t *len)
{
	*len = 0;
}

static void req_ring_zero(struct wire_req *q, size_t *len)
{
	q->ring_len = 0;
}

static void req_ring_huge(struct wire_req *q, size_t *len)
{
	q->ring_len = htobe32(0x80000000u);
}

static void req_port(struct wire_req *q, size_t *len)
{
	q->dport = htons(ntohs(q->dport) + 1);
}

static void req_flags(struct wire_req *q, size_t *len)
{
	q->flags |= htons(4);
}

static void req_resume(struct wire_req *q, size_t *len)
{
	q->flags |= htons(WIRE_REQ_RESUME);
}

static void req_mapped(struct wire_req *q, size_t *len)
{
	q->saddr[10] = 0;
}

/* 127.0.0.1, IPv4-mapped: a source an RDMA peer can never prove */
static void claim_loopback(uint8_t *saddr)
{
	static const uint8_t lo[16] = { [10] = 0xff, [11] = 0xff,
					[12] = 127, [15] = 1 };

	memcpy(saddr, lo, sizeof(lo));
}

static void req_source(struct wire_req *q, size_t *len)
{
	claim_loopback(q->saddr);
}

/* a destination no TCP segment from another host reaches: the server's
 * loopback address
 */
static void req_dest(struct wire_req *q, size_t *len)
{
	claim_loopback(q->daddr);
}

static void overrun(uint32_t rkey, uint32_t rlen)
{
	write_ring(0, 4096, rkey, true, rlen + 1);
}

/* the write carries more bytes than its immediate announces */
static void short_imm(uint32_t rkey, uint32_t rlen)
{
	write_ring(0, 4096, rkey, true, 16);
}

static void zero_write(uint32_t rkey, uint32_t rlen)
{
	write_ring(0, 0, rkey, true, 0);
}

static void outside_ring(uint32_t rkey, uint32_t rlen)
{
	write_ring(rlen, 4096, rkey, true, 4096);
}

/* the same without an immediate: no receive to report it on */
static void outside_ring_plain(uint32_t rkey, uint32_t rlen)
{
	write_ring(rlen, 4096, rkey, false, 0);
}

static void bad_rkey(uint32_t rkey, uint32_t rlen)
{
	write_ring(0, 4096, rkey ^ 0x100, true, 4096);
}

static void unknown_op(uint32_t rkey, uint32_t rlen)
{
	send_msg(99, 0, 8);
}

static void dup_ready(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_READY, 0, 8);	/* our second */
}

static void ready_cursor(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_READY, 1, 8);
}

static void credit_ahead(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_CREDIT, 1 << 20, 8);
}

static void short_msg(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_CREDIT, 0, 3);
}

static void long_msg(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_CREDIT, 0, 200);
}

static void fin_twice(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_msg(WIRE_FIN, 0, 8);
}

static void fin_cursor(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 12345, 8);
}

/* Reuse (net/af_exs/reuse.c): LAST follows FIN, says what was consumed,
 * and is the last word; OPEN comes only on a parked QP, REFUSE only as
 * the answer to one.
 */
static void last_early(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_LAST, 0, 8);
}

static void last_twice(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_msg(WIRE_LAST, 0, 8);
	send_msg(WIRE_LAST, 0, 8);
}

static void last_cursor(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_msg(WIRE_LAST, 4096, 8);	/* the server sent nothing */
}

static void after_last(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_msg(WIRE_LAST, 0, 8);
	send_msg(WIRE_CREDIT, 0, 8);
}

static void open_busy(uint32_t rkey, uint32_t rlen)
{
	send_open(mr->rkey);
}

/* channels (share.c): on a QP our REQ did not build for sharing, none
 * but 0 exists, and a JOIN is not for it
 */
static void chan_write(uint32_t rkey, uint32_t rlen)
{
	write_ring(0, 16, rkey, true, 5u << WIRE_IMM_CHAN_SHIFT | 16);
}

static void chan_msg(uint32_t rkey, uint32_t rlen)
{
	send_msg_to(WIRE_CREDIT, 3, 0, 8);
}

/* BATCH (batch.c): only on a QP built to share, whole, for channels that
 * exist, bytes as a write's are
 */
static void batch_unshared(uint32_t rkey, uint32_t rlen)
{
	send_batch(1, (uint8_t[]){ 0 }, 1);
}

static void batch_chan(uint32_t rkey, uint32_t rlen)
{
	send_batch(2, (uint8_t[]){ 0, 5 }, 2);
}

static void batch_count(uint32_t rkey, uint32_t rlen)
{
	send_batch(2, (uint8_t[]){ 0 }, 1);
}

static void batch_after_fin(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_batch(1, (uint8_t[]){ 0 }, 1);
}

static void join_unshared(uint32_t rkey, uint32_t rlen)
{
	send_open_type(WIRE_JOIN, 0, 1, mr->rkey);
}

/* a JOIN whose stream claims a source the QP does not come from: the
 * server REFUSEs it; then a message of no known type ends the case as
 * the others end
 */
static void join_source(uint32_t rkey, uint32_t rlen)
{
	claim_loopback(sent_req.saddr);
	send_open_type(WIRE_JOIN, 0, 1, mr->rkey);
	await_msg(WIRE_REFUSE);
	send_msg(99, 0, 8);
}

/* a JOIN for the listener bound to the server's 127.0.0.1, at the port
 * after the bystander's (exs_badpeer.sh): on TCP no other host reaches
 * it.  REFUSEd, as join-source is.
 */
static void join_dest(uint32_t rkey, uint32_t rlen)
{
	claim_loopback(sent_req.daddr);
	sent_req.dport = htobe16(be16toh(sent_req.dport) + 2);
	send_open_type(WIRE_JOIN, 0, 1, mr->rkey);
	await_msg(WIRE_REFUSE);
	send_msg(99, 0, 8);
}

/* join-flood's own messages; its failures end the case */
#define flood_say(...)	fprintf(stderr, "exs_badpeer: join-flood: " __VA_ARGS__)
#define flood_fail(...)	do { flood_say(__VA_ARGS__); exit(1); } while (0)

/* A message the link cannot parse ends the link, not only our first
 * stream (ABORT, on channel 0): the streams it carries end with it, and
 * the server disconnects.  Exits: 0 when it did.
 */
static void end_link(const char *who)
{
	time_t end;

	send_msg(99, 0, 8);
	for (end = time(NULL) + cfg.timeout; !heard_abort && time(NULL) < end;
	     usleep(10000))
		poll_abort();
	if (!heard_abort) {
		fprintf(stderr, "exs_badpeer: %s: no ABORT for our last message\n",
			who);
		exit(1);
	}
	if (await_end(NULL)) {
		fprintf(stderr, "exs_badpeer: %s: the link stayed up with its streams\n",
			who);
		exit(1);
	}
	exit(0);
}

/* NJOIN JOINs, more than a link has channels, each naming one of ours
 * (its cursor, 1 to 127 in turn), none waiting for its answer.  The
 * server sets up exactly as many streams as its link carries besides
 * its first (the listener takes them all; they stay open, unused), and
 * while its join work is held (EXS_JOINS_HELD of them wait:
 * exs_badpeer.sh holds it) every JOIN past those is refused before any
 * is JOINED.  Each JOIN gets exactly one answer, on the channel it
 * named, and the link stays up through it all; then a message of no
 * known type ends the link, with every stream on it (the server's
 * disconnect ends the case).
 */
static void join_flood(uint32_t rkey, uint32_t rlen)
{
	unsigned int sent = 0, acked = 0, joined = 0, refused = 0;
	unsigned int early = 0, backlog = 0, bad = 0, c;
	unsigned int asked[WIRE_CHAN_MAX] = { 0 }, answered[WIRE_CHAN_MAX] = { 0 };
	const char *held_env = getenv("EXS_JOINS_HELD");
	unsigned int held = held_env ? atoi(held_env) : 0;
	time_t end = time(NULL) + cfg.timeout;
	struct rdma_cm_event *ev;
	struct wire_msg *m;
	struct ibv_wc wc;

	while (joined + refused < NJOIN && time(NULL) < end) {
		/* our 8 send buffers, each reused once its send is done:
		 * sends complete in order, READY's (before this) first
		 */
		while (sent < NJOIN && nsent - acked < 8) {
			c = sent++ % (WIRE_CHAN_MAX - 1) + 1;
			asked[c]++;
			send_open_type(WIRE_JOIN, 0, c, mr->rkey);
		}
		if (ibv_poll_cq(cq, 1, &wc) <= 0) {
			ev = next_event(0);
			if (ev)
				flood_fail("%s after %u JOINs\n",
					   rdma_event_str(ev->event), sent);
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			flood_fail("completion error %s after %u JOINs\n",
				   ibv_wc_status_str(wc.status), sent);
		if (wc.opcode != IBV_WC_RECV) {
			acked++;
			continue;
		}
		m = (void *)(ring + RING + wc.wr_id * 64);
		c = be16toh(m->chan);
		if (m->type == WIRE_JOINED) {
			joined++;
		} else if (m->type == WIRE_REFUSE) {
			refused++;
			early += !joined;
			backlog += be32toh(m->cursor) == WIRE_REJ_BACKLOG;
		} else {
			bad++;
			flood_say("message %u on channel %u\n", m->type, c);
		}
		if (c < WIRE_CHAN_MAX)
			answered[c]++;
		post_recv(wc.wr_id);
	}
	/* an answer too many would come soon after the last */
	for (end = time(NULL) + 2; time(NULL) < end; usleep(10000))
		while (ibv_poll_cq(cq, 1, &wc) > 0)
			if (wc.status != IBV_WC_SUCCESS ||
			    wc.opcode == IBV_WC_RECV)
				bad++;
	flood_say("%u JOINs, %u JOINED, %u REFUSEd\n", sent, joined, refused);
	flood_say("%u before the first JOINED, %u for the backlog\n",
		  early, backlog);
	for (c = 1; c < WIRE_CHAN_MAX; c++)
		if (answered[c] != asked[c])
			bad++;
	if (bad || joined + refused < NJOIN)
		flood_fail("%s\n",
			   bad ? "answers not one to a JOIN, on its channel" :
				 "JOINs unanswered");
	if (joined != SHARE_RIDERS)
		flood_fail("%u streams set up, not the %u a link carries\n",
			   joined, SHARE_RIDERS);
	/* the link's room, or the JOINs waiting: the backlog either way */
	if (backlog != refused || (held && early != NJOIN - held))
		flood_fail("not %u refused for the backlog (%u while %u waited)\n",
			   refused, NJOIN - held, held);
	/* the 30 streams it carries end with the link */
	end_link("join-flood");
}

/* The counter @name of this host's AF_EXS (/proc/net/exs_stat): the
 * server is on this host, and join-stall paces itself by it.
 */
static unsigned long long host_stat(const char *name)
{
	unsigned long long val = 0, v;
	char key[64];
	FILE *f = fopen("/proc/net/exs_stat", "r");

	if (!f)
		die("/proc/net/exs_stat");
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		if (!strcmp(key, name))
			val = v;
	fclose(f);
	return val;
}

/* the lines in @path: the streams the server has written to */
static unsigned int lines_in(const char *path)
{
	unsigned int n = 0;
	FILE *f = fopen(path, "r");
	int ch;

	if (!f)
		return 0;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

#define stall_say(fmt, ...) \
	fprintf(stderr, "exs_badpeer: %s: " fmt, cfg.name, ##__VA_ARGS__)
#define stall_fail(...)	do { stall_say(__VA_ARGS__); exit(1); } while (0)

static unsigned int stall_acked;	/* of our sends */
static unsigned int stall_refused;	/* REFUSEs that came */
static bool stall_leaving;		/* leave-stall: the link's end is the aim */

static unsigned int stall_streams;	/* set up and left */

/* leave-stall met its aim: the server ended the link (its DISCONNECTED,
 * within -t: our QP's failure alone proves nothing)
 */
static void stall_ended(void)
{
	if (await_end(NULL))
		return;
	fprintf(stderr, "exs_badpeer: %s: the server ended the link, %u streams in\n",
		cfg.name, stall_streams);
	exit(0);
}

/* leave-stall: the server's DISCONNECTED, if it came */
static bool stall_gone;

static bool stall_disconnected(void)
{
	struct rdma_cm_event *ev;

	if (!stall_leaving || stall_gone)
		return stall_gone;
	ev = next_event(0);
	if (!ev)
		return false;
	stall_gone = ev->event == RDMA_CM_EVENT_DISCONNECTED;
	rdma_ack_cm_event(ev);
	return stall_gone;
}

/* The completions that came: our sends' counted, the server's messages
 * used up (their receives never posted again).
 */
static void stall_poll(void)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq, 1, &wc) > 0) {
		/* the server's end flushes ours, or its QP went silent
		 * (6.12's rxe fails a stalled one) and our retries ran
		 * out: either way only its DISCONNECTED says it gave up
		 */
		if (wc.status != IBV_WC_SUCCESS && stall_leaving)
			stall_ended();
		if (wc.status != IBV_WC_SUCCESS)
			stall_fail("completion error %s\n",
				   ibv_wc_status_str(wc.status));
		if (wc.opcode != IBV_WC_RECV &&
		    wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM)
			stall_acked++;
		else if (wc.opcode == IBV_WC_RECV &&
			 ((struct wire_msg *)(ring + RING + wc.wr_id * 64))->type ==
			 WIRE_REFUSE)
			stall_refused++;
	}
}

/* until @cond (polling our completions meanwhile), or -t seconds */
#define stall_until(cond) ({					\
	time_t __end = time(NULL) + cfg.timeout;			\
	bool __met;							\
									\
	while (!(__met = (cond)) && time(NULL) < __end) {		\
		stall_poll();						\
		usleep(10000);						\
	}								\
	__met;								\
})

/* JOIN @c: set up and its stream written to and reset by the server
 * (true), or refused (false: the host's RdmaReject moved past @rej).
 */
static bool stall_join(unsigned int c, unsigned long long rej)
{
	unsigned long long shared = host_stat("AcceptShared");

	/* a send buffer of our 8 free (sends complete in order) */
	if (!stall_until(nsent - stall_acked < 8 || stall_disconnected()))
		stall_fail("our sends stopped completing\n");
	if (stall_gone)
		return true;
	send_open_type(WIRE_JOIN, 0, c, mr->rkey);
	if (!stall_until(host_stat("AcceptShared") != shared ||
			 host_stat("RdmaReject") != rej ||
			 stall_disconnected()))
		stall_fail("JOIN %u neither set up nor refused\n", c);
	if (stall_gone)
		return true;
	if (host_stat("RdmaReject") != rej)
		return false;
	/* its writes posted, and its reset (the first stream's line too) */
	if (!stall_until(lines_in(cfg.keyfile) >= c + 1 ||
			 stall_disconnected()))
		stall_fail("the server never wrote to stream %u\n", c);
	return true;
}

/* "join-stall": a peer that lets nothing through.  It posts no more
 * receives, so once those it had are used every send on the server's
 * link waits at its head (RNR), and JOINs streams its server (-p: one
 * that writes 60 KiB to each but the first in 1 KiB sends, then resets
 * it, SO_LINGER 0, and says so in -k's file) writes to: the server's
 * streams leave with their sends in flight, which count against the
 * link's send queue.  Once they would leave a stream no room, the next
 * JOIN must be refused (the host's RdmaReject says when, read here to
 * end the flood): the queue once overflowed, and the link's post failed.
 */
static void join_stall(uint32_t rkey, uint32_t rlen)
{
	unsigned long long rej = host_stat("RdmaReject");
	unsigned int c;

	for (c = 1; c < WIRE_CHAN_MAX; c++)
		if (!stall_join(c, rej))
			break;
	if (c == WIRE_CHAN_MAX)
		stall_fail("no JOIN refused with %u streams' sends stuck\n",
			   c - 1);
	stall_say("%u streams set up and left, JOIN %u refused\n", c - 1, c);
	rdma_disconnect(id);
	exit(0);
}

/* "leave-stall": join-stall's flood, its aim the link's end: the
 * streams its server wrote to and reset are gone from the link with
 * their requests in flight for ever, which no stream's watch bounds.  The
 * link's must (link_watch.c, net.exs.stall_timeout_ms): the server ends
 * the link, during the flood or after its refusal, within -t of it, and
 * the streams' rings go with it.
 */
static void leave_stall(uint32_t rkey, uint32_t rlen)
{
	unsigned long long rej = host_stat("RdmaReject");

	stall_leaving = true;
	for (stall_streams = 0; stall_streams + 1 < WIRE_CHAN_MAX;
	     stall_streams++) {
		if (!stall_join(stall_streams + 1, rej))
			break;
		if (stall_gone) {
			stall_say("the server ended the link, %u streams in\n",
				  stall_streams);
			exit(0);
		}
	}
	stall_ended();
	stall_fail("the link stayed up with %u gone streams' sends stuck\n",
		   stall_streams);
}

/* "refuse-flood": a stream of ours JOINed and ended cleanly both ways
 * (FIN, LAST), so that the server's end parks on its channel; then
 * OPENs for it, NFLOOD of them, to a port nobody listens on.  Each is
 * refused from the link's own slots (link_tx.c): once the REFUSEs used
 * up our receives, those stick at the head of the server's send queue
 * (RNR), the next is owed to the channel, the rest are dropped.  The
 * server's send queue never overflows (a parked stream's REFUSE once
 * went on its own slots, which count against nothing), so the link stays
 * up, and no more REFUSEs are posted than our receives, the link's slots
 * and one owed: the calling script reads RdmaReject.  Exit 4 when the
 * server ended the link instead.
 */
#define NFLOOD		600

static void refuse_flood(uint32_t rkey, uint32_t rlen)
{
	unsigned long long parked = host_stat("Parked");
	uint16_t dport = sent_req.dport;
	struct rdma_cm_event *ev;
	uint32_t srv;
	unsigned int i;

	send_open_type(WIRE_JOIN, 0, 1, mr->rkey);
	srv = await_msg(WIRE_JOINED);	/* the server's channel of it */
	send_msg_to(WIRE_FIN, srv, 0, 8);
	send_msg_to(WIRE_LAST, srv, 0, 8);
	await_msg(WIRE_LAST);	/* its server's close, 5 s after our FIN */
	if (!stall_until(host_stat("Parked") != parked))
		stall_fail("the server's end of our stream never parked\n");
	stall_acked = nsent;	/* what came before: acked by now */
	sent_req.dport = htobe16(be16toh(dport) + 9);
	for (i = 0; i < NFLOOD; i++) {
		if (!stall_until(nsent - stall_acked < 8))
			stall_fail("our OPEN %u was never acked\n", i);
		send_open_type(WIRE_OPEN, srv, 1, mr->rkey);
	}
	sent_req.dport = dport;
	/* what the server makes of the last ones; its link stays */
	stall_until(false);
	ev = next_event(0);
	if (ev && ev->event == RDMA_CM_EVENT_DISCONNECTED) {
		/* the calling script tells a failed QP from our fault */
		stall_say("the server ended the link (%u REFUSEs came)\n",
			  stall_refused);
		exit(4);
	}
	if (ev)
		rdma_ack_cm_event(ev);
	stall_say("%u OPENs, %u REFUSEs came, the link up\n", NFLOOD,
		  stall_refused);
	rdma_disconnect(id);
	exit(0);
}

/* "stray-link-only": our first stream reset (ABORT), the server's end of
 * the link kept for the stream JOINed on it; then a message for a
 * channel nobody has, an error in the link's own framing, ends the link
 * all the same (no ABORT: its first stream is gone), and counts.
 */
static void stray_link_only(uint32_t rkey, uint32_t rlen)
{
	send_open_type(WIRE_JOIN, 0, 1, mr->rkey);
	await_msg(WIRE_JOINED);
	send_msg(WIRE_ABORT, 0, 8);
	send_msg_to(WIRE_CREDIT, WIRE_CHAN_MAX - 1, 0, 8);
	if (await_end(NULL)) {
		fprintf(stderr, "exs_badpeer: stray-link-only: the link stayed up\n");
		exit(1);
	}
	exit(0);
}

/* a parked rider's OPEN names its channel, and ours in the cursor */
static void open_chan(uint32_t rkey, uint32_t rlen)
{
	send_open_type(WIRE_OPEN, 4, 1, mr->rkey);
}

static void refuse_unasked(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_REFUSE, 2, 8);
}

static void resume_unasked(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_RESUME, 0, 8);
}

/* a clean close, both LASTs: the server's end parks; then an OPEN
 * whose ring is not the one the QP has
 */
static void open_ring(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_msg(WIRE_LAST, 0, 8);
	await_msg(WIRE_LAST);
	sleep(1);
	send_open(mr->rkey + 1);
}

/* URG (oob.c) must name a byte inside the ring's window, before FIN,
 * on a QP of version 6 or later; each case below breaks one rule.  (A
 * replayed or older URG is ignored, not an error: KUnit's af_exs_urg.)
 */
static void urg_past_ring(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_URG, rlen, 8);	/* the first cursor past it */
}

/* well placed: wrong only on a QP that speaks version 5 (urg-v5) */
static void urg_in_window(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_URG, 0, 8);
}

static void urg_after_fin(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	send_msg(WIRE_URG, 0, 8);
}

static void write_after_fin(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_FIN, 0, 8);
	write_ring(0, 4096, rkey, true, 4096);
}

static void abort_cursor(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_ABORT, 7, 8);
}

static void data_no_write(uint32_t rkey, uint32_t rlen)
{
	send_msg(WIRE_DATA, 0, 8);
}

/* a plain write lands unannounced (harmless by itself); a DATA claiming
 * more than the ring holds is not
 */
static void no_imm(uint32_t rkey, uint32_t rlen)
{
	write_ring(0, 4096, rkey, false, 0);
	send_msg(WIRE_DATA, rlen + 4096, 8);
}

/* "hold": publish this connection's server ring, keep the connection
 * until the file goes; it must not end before
 */
/* -k FILE's contents, whole or not at all: the script waits for it */
static void publish(const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", cfg.keyfile);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, cfg.keyfile))
		die(cfg.keyfile);
}

/* Say @text in the keyfile, then keep the connection until it goes:
 * exit 0 if the server left the connection alone meanwhile.
 */
static void hold_until_gone(const char *text)
{
	publish(text);
	if (!await_end(cfg.keyfile)) {
		fprintf(stderr, "exs_badpeer: the held connection ended\n");
		exit(1);
	}
	if (!access(cfg.keyfile, F_OK)) {
		fprintf(stderr, "exs_badpeer: held: %s still there after %d s\n",
			cfg.keyfile, cfg.timeout);
		exit(1);
	}
	rdma_disconnect(id);
	exit(0);
}

static void hold(uint32_t rkey, uint32_t rlen)
{
	char text[64];

	snprintf(text, sizeof(text), "%llu %u\n",
		 (unsigned long long)be64toh(rep.ring_addr), rkey);
	hold_until_gone(text);
}

/* "no-rtu": the server's REP came (main() connected without a QP, so
 * librdmacm leaves the RTU to rdma_establish(), never called): its child
 * stays in the CM's handshake.  -k FILE gets our port; we hold the
 * handshake until the file goes.  A CM event before then (a REJ: the
 * server gave the child up itself) fails.
 */
static void no_rtu(uint32_t rkey, uint32_t rlen)
{
	time_t end = time(NULL) + cfg.timeout;
	char text[16];

	snprintf(text, sizeof(text), "%u\n", ntohs(rdma_get_src_port(id)));
	publish(text);
	while (time(NULL) < end && !access(cfg.keyfile, F_OK)) {
		struct rdma_cm_event *ev = next_event(1);

		if (ev) {
			fprintf(stderr, "exs_badpeer: no-rtu: %s before our RTU\n",
				rdma_event_str(ev->event));
			exit(1);
		}
	}
	if (!access(cfg.keyfile, F_OK)) {
		fprintf(stderr, "exs_badpeer: no-rtu: %s still there after %d s\n",
			cfg.keyfile, cfg.timeout);
		exit(1);
	}
	exit(0);
}

/* "other-ring": the held connection's ring, through this connection */
static void other_ring(uint32_t rkey, uint32_t rlen)
{
	unsigned long long addr;
	unsigned int key;
	FILE *f = fopen(cfg.keyfile, "r");

	if (!f || fscanf(f, "%llu %u", &addr, &key) != 2)
		die(cfg.keyfile);
	fclose(f);
	write_at(addr, 4096, key, false, 0);
}

/* A REQ claiming a 1 MiB ring: the server mirrors it in a send buffer
 * that size, pinned while the connection lives.
 */
static void req_ring_big(struct wire_req *q, size_t *len)
{
	q->ring_len = htobe32(1u << 20);
}

/* A correct connection that costs its server as much as one can, held
 * until the keyfile goes (it says "up" there meanwhile)
 */
static void hog(uint32_t rkey, uint32_t rlen)
{
	hold_until_gone("up\n");
}

struct bad_case {
	const char *name;
	const char *what;
	void (*req)(struct wire_req *q, size_t *len);
	void (*run)(uint32_t rkey, uint32_t rlen);
	bool own_ready;		/* @run sends our READY */
	bool keyfile;		/* needs -k: not in -l's list */
	bool solo;		/* the script runs it on its own: nor */
	bool no_qp;		/* @run after the REP, with no QP */
	/* the server's device refuses it: its QP fails, it cannot say
	 * ABORT (every other case must hear one before the disconnect)
	 */
	bool refused;
	bool share;		/* our REQ builds a QP to carry more */
	uint8_t only;		/* our REQ speaks this version alone */
	bool may_reject;	/* @req's REQ is good: refused, exit 3 */
};

#define REQ(n, f, w)	{ .name = n, .what = w, .req = f }
#define RUN(n, f, w)	{ .name = n, .what = w, .run = f }
#define DEV(n, f, w)	{ .name = n, .what = w, .run = f, .refused = true }
#define SHR(n, f, w)	{ .name = n, .what = w, .run = f, .share = true }

static const struct bad_case cases[] = {
	REQ("req-version", req_version, "a REQ of a version nobody speaks"),
	REQ("req-family", req_family, "a REQ of an unknown address family"),
	REQ("req-short", req_short, "a REQ shorter than its structure"),
	REQ("req-empty", req_empty, "a REQ with no private data"),
	REQ("req-ring-zero", req_ring_zero, "a REQ whose ring has no bytes"),
	REQ("req-ring-huge", req_ring_huge, "a REQ whose ring is 2 GiB"),
	REQ("req-port", req_port, "a REQ for a TCP port nobody listens on"),
	REQ("req-mapped", req_mapped, "an IPv4 REQ with IPv6 addresses"),
	REQ("req-flags", req_flags, "a REQ with a flag nobody defined"),
	REQ("req-resume", req_resume, "a REQ resuming a connection the server never had"),
	REQ("req-source", req_source, "a REQ claiming TCP source 127.0.0.1"),
	REQ("req-dest", req_dest, "a REQ claiming TCP destination 127.0.0.1"),
	RUN("overrun", overrun, "a write longer than the ring's free space"),
	RUN("short-imm", short_imm, "a write longer than its immediate announces"),
	RUN("zero-write", zero_write, "a write announcing zero bytes"),
	DEV("outside-ring", outside_ring, "a write beyond the end of the server's ring"),
	DEV("outside-ring-plain", outside_ring_plain,
	    "a plain write beyond the end of the server's ring"),
	DEV("bad-rkey", bad_rkey, "a write with a key that is not the ring's"),
	RUN("unknown-op", unknown_op, "a control message of an unknown type"),
	RUN("dup-ready", dup_ready, "READY twice"),
	{ .name = "ready-cursor", .what = "READY with a cursor",
	  .run = ready_cursor, .own_ready = true },
	RUN("credit-ahead", credit_ahead, "credits for bytes never sent"),
	RUN("short-msg", short_msg, "a control message of 3 bytes"),
	DEV("long-msg", long_msg, "a control message longer than a receive"),
	RUN("fin-twice", fin_twice, "FIN twice"),
	RUN("fin-cursor", fin_cursor, "FIN at a cursor the data never reached"),
	RUN("write-after-fin", write_after_fin, "a write after FIN"),
	RUN("abort-cursor", abort_cursor, "ABORT with a cursor"),
	RUN("data-no-write", data_no_write, "a DATA message with no write before it"),
	RUN("no-imm", no_imm, "an RDMA write without immediate data, then DATA"),
	RUN("last-early", last_early, "LAST before FIN"),
	RUN("last-twice", last_twice, "LAST twice"),
	RUN("last-cursor", last_cursor, "LAST consuming bytes never sent"),
	RUN("after-last", after_last, "a CREDIT after LAST"),
	RUN("open-busy", open_busy, "an OPEN on a connection in use"),
	RUN("refuse-unasked", refuse_unasked, "a REFUSE nobody asked for"),
	RUN("chan-write", chan_write, "a write to a channel nobody has"),
	RUN("chan-msg", chan_msg, "a CREDIT to a channel nobody has"),
	RUN("join-unshared", join_unshared, "a JOIN on a QP not built to carry more"),
	RUN("batch-unshared", batch_unshared, "a BATCH on a QP not built to carry more"),
	SHR("join-source", join_source, "a JOIN claiming TCP source 127.0.0.1"),
	SHR("join-dest", join_dest,
	    "a JOIN for a listener bound to 127.0.0.1, claiming that destination"),
	SHR("join-flood", join_flood,
	    "170 JOINs, more than a link has channels, none waiting for its answer"),
	SHR("stray-link-only", stray_link_only,
	    "a CREDIT to a channel nobody has, once the link's first stream was reset"),
	SHR("batch-chan", batch_chan, "a BATCH with bytes for a channel nobody has"),
	SHR("batch-count", batch_count, "a BATCH of fewer records than it says"),
	SHR("batch-after-fin", batch_after_fin, "a BATCH after FIN"),
	{ .name = "batch-v3", .what = "a BATCH on a shared QP that speaks version 3",
	  .run = batch_unshared, .share = true, .only = 3 },
	RUN("urg-past-ring", urg_past_ring, "an urgent byte beyond the ring's window"),
	RUN("urg-after-fin", urg_after_fin, "an urgent byte after FIN"),
	{ .name = "urg-v5", .what = "an urgent byte on a QP that speaks version 5",
	  .run = urg_in_window, .only = 5 },
	RUN("open-chan", open_chan, "an OPEN for a parked rider, on a QP not built to carry more"),
	RUN("resume-unasked", resume_unasked, "a RESUME on a connection whose QP never failed"),
	RUN("open-ring", open_ring, "an OPEN on a parked QP naming another ring"),
	{ .name = "hold", .what = "a correct connection, held open",
	  .run = hold, .keyfile = true },
	{ .name = "other-ring", .what = "a write into another connection's ring with its key",
	  .run = other_ring, .keyfile = true, .refused = true },
	{ .name = "no-rtu", .what = "a REP never answered with an RTU",
	  .run = no_rtu, .keyfile = true, .no_qp = true },
	{ .name = "hog", .what = "a connection claiming a 1 MiB ring, held open",
	  .req = req_ring_big, .run = hog, .keyfile = true,
	  .may_reject = true },
	{ .name = "join-stall",
	  .what = "JOINs of streams written to and reset, with nothing let through",
	  .run = join_stall, .keyfile = true, .share = true },
	{ .name = "refuse-flood",
	  .what = "OPENs for a parked stream, refused, with nothing let through",
	  .run = refuse_flood, .share = true, .solo = true },
	{ .name = "leave-stall",
	  .what = "a stream reset and gone with its sends stuck, nothing let through",
	  .run = leave_stall, .keyfile = true, .share = true },
};

static const struct bad_case *find_case(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

static const char usage[] =
	"exs_badpeer -a ADDR [-p PORT] -c CASE [-k FILE] [-t S] | -l";

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
	};
	/* the server's sends wait for our receives, as an AF_EXS peer's
	 * do (rnr_retry_count 7: for ever)
	 */
	struct rdma_conn_param param = { .retry_count = 3,
					 .rnr_retry_count = 7 };
	struct addrinfo *ai, hints = { .ai_family = AF_INET };
	const struct bad_case *c;
	enum rdma_cm_event_type got;
	struct wire_req req;
	size_t len;
	int opt;

	while ((opt = getopt(argc, argv, "a:p:c:k:t:l")) != -1) {
		switch (opt) {
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.port = optarg;
			break;
		case 'c':
			cfg.name = optarg;
			break;
		case 'k':
			cfg.keyfile = optarg;
			break;
		case 't':
			cfg.timeout = atoi(optarg);
			break;
		case 'l':
			for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
				if (!cases[i].keyfile && !cases[i].solo)
					printf("%s\t%s\n", cases[i].name,
					       cases[i].what);
			return 0;
		default:
			fprintf(stderr, "usage: %s\n", usage);
			return 2;
		}
	}
	c = cfg.name ? find_case(cfg.name) : NULL;
	if (!cfg.addr || !c || (c->keyfile && !cfg.keyfile)) {
		fprintf(stderr, "exs_badpeer: -a ADDR and a known -c CASE (and -k it needs)\n");
		return 2;
	}
	if (getaddrinfo(cfg.addr, cfg.port, &hints, &ai))
		return 2;

	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel (no RDMA device?)");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000))
		die("rdma_resolve_addr");
	if (expect(RDMA_CM_EVENT_ADDR_RESOLVED) != RDMA_CM_EVENT_ADDR_RESOLVED)
		return 2;
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	if (expect(RDMA_CM_EVENT_ROUTE_RESOLVED) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return 2;

	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, NRECV + 64, NULL, NULL, 0) : NULL;
	ring = aligned_alloc(4096, MRLEN + 4096);
	if (!cq || !ring)
		die("resources");
	memset(ring, 0xa5, RING);
	mr = ibv_reg_mr(pd, ring, MRLEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	if (c->no_qp)
		param.qp_num = 0x1234;	/* the server's QP aims at nothing */
	else if (rdma_create_qp(id, pd, &qpa))
		die("rdma_create_qp");
	else
		post_recvs();

	good_req(&req, &len);
	if (c->only == 3) {	/* as a version-3 host's REQ reads */
		req.version = 3;
		req.flags = 0;
	} else if (c->only) {	/* as an older host's REQ reads */
		req.version = c->only;
		req.flags = htons(WIRE_REQ_VMIN(c->only));
	}
	if (c->share)
		req.flags |= htons(WIRE_REQ_SHARE);
	sent_req = req;
	if (c->req)
		c->req(&req, &len);
	param.private_data = len ? &req : NULL;
	param.private_data_len = len;
	if (rdma_connect(id, &param))
		die("rdma_connect");
	if (c->no_qp) {
		got = expect(RDMA_CM_EVENT_CONNECT_RESPONSE);
		if (got != RDMA_CM_EVENT_CONNECT_RESPONSE) {
			fprintf(stderr, "exs_badpeer: %s: %s, not the REP\n",
				c->name, rdma_event_str(got));
			return 2;
		}
		c->run(0, 0);
	}
	got = expect(RDMA_CM_EVENT_ESTABLISHED);
	if (c->may_reject && got == RDMA_CM_EVENT_REJECTED)
		return 3;
	if (c->req && !c->may_reject) {
		if (got == RDMA_CM_EVENT_REJECTED)
			return 0;
		fprintf(stderr, "exs_badpeer: %s: %s, not rejected\n", c->name,
			rdma_event_str(got));
		return 1;
	}
	if (got != RDMA_CM_EVENT_ESTABLISHED) {
		fprintf(stderr, "exs_badpeer: %s: %s\n", c->name,
			rdma_event_str(got));
		return 2;
	}
	await_msg(WIRE_READY);
	/* our READY, as a correct client sends once its ring is ready */
	if (!c->own_ready)
		send_msg(WIRE_READY, 0, 8);
	c->run(be32toh(rep.ring_rkey), be32toh(rep.ring_len));
	if (await_end(NULL)) {
		fprintf(stderr, "exs_badpeer: %s: the server did not end the connection in %d s\n",
			c->name, cfg.timeout);
		return 1;
	}
	/* a reset the peer hears, not a QP failure to resume from */
	if (!c->refused && !heard_abort) {
		fprintf(stderr, "exs_badpeer: %s: the server disconnected without an ABORT\n",
			c->name);
		return 1;
	}
	rdma_disconnect(id);
	return 0;
}
