/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_EXS on the wire.  All multi-byte fields are big endian.
 *
 * Connection setup rides on rdma_cm private data (56 bytes in a RoCE/IB
 * REQ, the smallest transport limit), data on RDMA WRITE WITH IMMEDIATE
 * into the peer's ring, control on small SENDs.
 */
#ifndef __EXS_WIRE_H
#define __EXS_WIRE_H

#include <linux/in6.h>
#include <linux/types.h>

/* 2: parked connections carry new ones (LAST, OPEN, REFUSE); a REQ may
 * resume a connection (its flags, RESUME), which a peer without it
 * refuses as malformed; 3: a QP carries several (JOIN, JOINED); 4: a
 * shared QP takes BATCH messages; 5: a REQ names the versions its sender
 * speaks, the lowest in its flags' high byte, and the REP the one the
 * acceptor picked, the highest both speak (a host's own is capped by the
 * module parameter wire_version).  A REQ of 3 or 4 names that version
 * alone; one of ours to such a host is refused as another version.  6:
 * urgent data (URG).  7: a closed socket's end says LAST before its
 * teardown with reuse off too, so a disconnect after a FIN alone is a
 * failure to resume from (the stream may be half-closed), not an end.
 */
#define EXS_WIRE_VERSION	7	/* the newest this module speaks */
#define EXS_WIRE_VERSION_MIN	3	/* the oldest */
#define EXS_WIRE_V_BATCH	4	/* the first that takes BATCH */
#define EXS_WIRE_V_RANGE	5	/* the first whose REQ names a range */
#define EXS_WIRE_V_URG		6	/* the first that takes URG */
#define EXS_WIRE_V_LAST		7	/* ...whose closing end says LAST */
#define EXS_WIRE_PDATA_MAX	56	/* IB CM REQ minus the rdma_cm header */

enum {
	EXS_WIRE_INET	= 4,
	EXS_WIRE_INET6	= 6,
};

/* REQ: who the client is at TCP level and where its ring lives.  With
 * EXS_WIRE_REQ_RESUME it names a connection both ends still hold, whose
 * queue pair failed: the same four-tuple and the same ring (resume.c).
 */
struct exs_wire_req {
	u8	version;
	u8	family;		/* EXS_WIRE_INET or _INET6 */
	__be16	flags;		/* EXS_WIRE_REQ_* */
	__be16	sport;		/* TCP-level ports and addresses; IPv4 */
	__be16	dport;		/* addresses are IPv4-mapped IPv6 */
	u8	saddr[16];
	u8	daddr[16];
	__be64	ring_addr;	/* the client's receive ring */
	__be32	ring_rkey;
	__be32	ring_len;	/* also the initial credit */
} __packed;

#define EXS_WIRE_REQ_RESUME	0x0001
#define EXS_WIRE_REQ_SHARE	0x0002	/* the QP may carry more (share.c) */
#define EXS_WIRE_REQ_VMIN_SHIFT	8	/* from 5: the lowest version spoken */

/* REP (accept) and REJ (reject): the server's ring, or why not. */
struct exs_wire_rep {
	u8	version;	/* the one picked; in a REJ: the highest the
				 * server speaks
				 */
	u8	reason;		/* in a REJ: enum exs_wire_reject */
	__be16	reserved;
	__be32	ring_len;
	__be64	ring_addr;
	__be32	ring_rkey;
} __packed;

enum exs_wire_reject {
	EXS_WIRE_REJ_NONE,
	EXS_WIRE_REJ_VERSION,
	EXS_WIRE_REJ_NO_LISTENER,
	EXS_WIRE_REJ_BACKLOG,
	EXS_WIRE_REJ_INVALID,
	EXS_WIRE_REJ_NOMEM,
};

/* Control messages, sent with IB SEND. */
enum exs_wire_msg_type {
	EXS_MSG_READY = 1,	/* my ring is registered: you may write */
	EXS_MSG_CREDIT,		/* cursor: bytes of your data I consumed */
	EXS_MSG_FIN,		/* cursor: my final producer cursor */
	EXS_MSG_ABORT,		/* reset the connection */
	EXS_MSG_DATA,		/* cursor: what the immediate of the write
				 * just before would have said, from devices
				 * without immediate data
				 */
	EXS_MSG_LAST,		/* cursor: my consumer cursor; after my FIN,
				 * my last message on this connection: keep
				 * the QP for the next one (reuse.c)
				 */
	EXS_MSG_OPEN,		/* on a parked QP, from its connector: a new
				 * connection, struct exs_wire_open; to a
				 * parked rider's channel, cursor: the
				 * connector's (share.c)
				 */
	EXS_MSG_REFUSE,		/* cursor: enum exs_wire_reject; the OPEN is
				 * refused, the QP stays parked
				 */
	EXS_MSG_RESUME,		/* on a resumed connection's new QP, first:
				 * cursor: my producer cursor of your bytes
				 * (what I hold); flags: EXS_RESUME_FIN, or
				 * EXS_RESUME_LINK alone, with cursor 0
				 */
	EXS_MSG_JOIN,		/* to channel 0, from a connector: a new
				 * connection on this QP, beside the others,
				 * struct exs_wire_open; cursor: its channel
				 * at the connector (share.c)
				 */
	EXS_MSG_JOINED,		/* the answer, struct exs_wire_open with the
				 * acceptor's ring; cursor: its channel
				 */
	EXS_MSG_BATCH,		/* on a QP built to share, to channel 0:
				 * cursor: how many records follow, each a
				 * struct exs_wire_rec and its bytes (batch.c)
				 */
	EXS_MSG_URG,		/* cursor: my producer cursor of my urgent
				 * byte, TCP's urgent pointer (oob.c); sent
				 * before the write that carries it
				 */
	__EXS_MSG_MAX,
};

/* RESUME's flags */
#define EXS_RESUME_FIN		0x01	/* and your FIN */
#define EXS_RESUME_LINK		0x02	/* my end of this QP's first stream is
					 * gone: the QP resumes for its riders
					 * only (resume.c)
					 */

struct exs_wire_msg {
	u8	type;
	u8	flags;		/* RESUME's; 0 in any other */
	__be16	chan;		/* the receiver's channel (share.c) */
	__be32	cursor;
} __packed;

/* Connections one QP carries: channel 0 is the one that built it. */
#define EXS_CHAN_MAX		128

/* A record of a BATCH: bytes for the receiver's channel @chan, which go
 * into its ring as a ring write with the same immediate would put them.
 */
struct exs_wire_rec {
	u8	chan;
	u8	flags;		/* EXS_REC_LOW_WINDOW */
	__be16	len;		/* bytes that follow, at least 1 */
} __packed;

#define EXS_REC_LOW_WINDOW	0x01	/* as EXS_IMM_LOW_WINDOW */
/* A BATCH at most, its header included: what a shared QP's receives hold */
#define EXS_BATCH_MAX		256

/* OPEN: the REQ's fields, for a connection a parked QP carries; its ring
 * fields repeat the rings the QP has.
 */
struct exs_wire_open {
	struct exs_wire_msg	hdr;
	struct exs_wire_req	req;
} __packed;

/* What a posted receive holds: any control message. */
union exs_wire_rx {
	struct exs_wire_msg	msg;
	struct exs_wire_open	open;
};

/* Immediate data of a ring write: its length, the receiver's channel,
 * and a flag asking for the next credit update at once (the sender's
 * window is running out).  One write carries at most EXS_IMM_LEN_MASK.
 */
#define EXS_IMM_LOW_WINDOW	0x80000000U
#define EXS_IMM_CHAN_SHIFT	24
#define EXS_IMM_CHAN_MASK	0x7f000000U
#define EXS_IMM_LEN_MASK	0x00ffffffU

/* A BATCH record's length and flags, as a ring write's immediate */
static inline u32 exs_wire_rec_imm(u16 len, u8 flags)
{
	return len | (flags & EXS_REC_LOW_WINDOW ? EXS_IMM_LOW_WINDOW : 0);
}

/* What the parsers extract, in host order. */
struct exs_wire_peer {
	u8		family;		/* AF_INET or AF_INET6 */
	__be16		sport, dport;
	struct in6_addr	saddr, daddr;	/* IPv4 as IPv4-mapped */
	u64		ring_addr;
	u32		ring_rkey;
	u32		ring_len;
	u8		reject;		/* enum exs_wire_reject */
	bool		resume;		/* a REQ's EXS_WIRE_REQ_RESUME */
	bool		share;		/* a REQ's EXS_WIRE_REQ_SHARE */
	/* Built: the versions a REQ offers.  Parsed: a REQ's, the one the
	 * acceptor picks (version_min, the lowest it offered); a REP's, the
	 * one picked; a REJ's, the highest the acceptor speaks.
	 */
	u8		version;
	u8		version_min;
};

u8 exs_wire_pick_version(u8 lo, u8 hi, u8 max);
int exs_wire_parse_req(const void *data, unsigned int len, u8 max,
		       struct exs_wire_peer *peer);
int exs_wire_parse_rep(const void *data, unsigned int len,
		       const struct exs_wire_peer *self,
		       struct exs_wire_peer *peer);
int exs_wire_parse_rej(const void *data, unsigned int len,
		       struct exs_wire_peer *peer);
int exs_wire_parse_msg(const void *data, unsigned int len,
		       enum exs_wire_msg_type *type, u32 *cursor, u8 *chan);
int exs_wire_parse_rec(const void *data, unsigned int len, unsigned int *off,
		       u8 *chan, u8 *flags, u16 *rlen);
void exs_wire_build_req(struct exs_wire_req *req,
			const struct exs_wire_peer *self);
void exs_wire_build_msg(struct exs_wire_msg *msg,
			enum exs_wire_msg_type type, u8 flags, u32 cursor,
			u8 chan);
void exs_wire_build_open(struct exs_wire_open *open,
			 enum exs_wire_msg_type type, u8 chan, u8 cursor,
			 const struct exs_wire_peer *self);
void exs_wire_build_rec(struct exs_wire_rec *rec, u8 chan, u8 flags,
			u16 len);
void exs_wire_build_rep(struct exs_wire_rep *rep, u8 version, u64 addr,
			u32 rkey, u32 len);
void exs_wire_build_rej(struct exs_wire_rep *rep, enum exs_wire_reject why,
			u8 version);

#endif /* __EXS_WIRE_H */
