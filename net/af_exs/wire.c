// SPDX-License-Identifier: GPL-2.0
/*
 * Building and validating what goes on the wire.  Nothing received is
 * used before it passed through here; pure code, tested by KUnit.
 */
#include <linux/errno.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "ring.h"
#include "wire.h"

/* The version an acceptor speaking EXS_WIRE_VERSION_MIN to @max answers a
 * REQ offering @lo to @hi in: the highest both speak, or 0 for none.
 */
u8 exs_wire_pick_version(u8 lo, u8 hi, u8 max)
{
	u8 v = min(hi, max);

	return v >= lo && v >= EXS_WIRE_VERSION_MIN ? v : 0;
}

/* A REQ offering versions the acceptor, speaking up to @max, can answer
 * in: the one it picks in peer->version.  -EPROTONOSUPPORT: none in
 * common; -EPROTO: malformed.
 */
int exs_wire_parse_req(const void *data, unsigned int len, u8 max,
		       struct exs_wire_peer *peer)
{
	const struct exs_wire_req *req = data;
	u16 flags, known = EXS_WIRE_REQ_RESUME | EXS_WIRE_REQ_SHARE;
	u8 lo, v;

	if (!data || !len)
		return -EPROTO;
	/* an older version is told apart even from a short message */
	if (req->version < EXS_WIRE_VERSION_MIN)
		return -EPROTONOSUPPORT;
	if (len < sizeof(*req))
		return -EPROTO;
	flags = be16_to_cpu(req->flags);
	lo = req->version;
	if (req->version >= EXS_WIRE_V_RANGE) {
		lo = flags >> EXS_WIRE_REQ_VMIN_SHIFT;
		flags &= (1 << EXS_WIRE_REQ_VMIN_SHIFT) - 1;
		if (!lo || lo > req->version)
			return -EPROTO;
	}
	v = exs_wire_pick_version(lo, req->version, max);
	if (!v)
		return -EPROTONOSUPPORT;

	memset(peer, 0, sizeof(*peer));
	peer->version = v;
	peer->version_min = lo;
	memcpy(&peer->saddr, req->saddr, sizeof(peer->saddr));
	memcpy(&peer->daddr, req->daddr, sizeof(peer->daddr));
	switch (req->family) {
	case EXS_WIRE_INET:
		if (!ipv6_addr_v4mapped(&peer->saddr) ||
		    !ipv6_addr_v4mapped(&peer->daddr))
			return -EPROTO;
		peer->family = AF_INET;
		break;
	case EXS_WIRE_INET6:
		if (ipv6_addr_v4mapped(&peer->saddr) ||
		    ipv6_addr_v4mapped(&peer->daddr))
			return -EPROTO;
		peer->family = AF_INET6;
		break;
	default:
		return -EPROTO;
	}
	if ((flags & ~known) || !req->sport || !req->dport)
		return -EPROTO;
	peer->resume = flags & EXS_WIRE_REQ_RESUME;
	peer->share = flags & EXS_WIRE_REQ_SHARE;
	peer->sport = req->sport;
	peer->dport = req->dport;
	peer->ring_addr = be64_to_cpu(req->ring_addr);
	peer->ring_rkey = be32_to_cpu(req->ring_rkey);
	peer->ring_len = be32_to_cpu(req->ring_len);
	if (!exs_ring_size_ok(peer->ring_len))
		return -EPROTO;
	return 0;
}

/* The REP to a REQ that offered @self's versions: it must pick one. */
int exs_wire_parse_rep(const void *data, unsigned int len,
		       const struct exs_wire_peer *self,
		       struct exs_wire_peer *peer)
{
	const struct exs_wire_rep *rep = data;

	if (!data || len < sizeof(*rep))
		return -EPROTO;
	if (rep->version < self->version_min || rep->version > self->version)
		return -EPROTONOSUPPORT;
	if (rep->reason || rep->reserved)
		return -EPROTO;
	peer->version = rep->version;
	peer->ring_addr = be64_to_cpu(rep->ring_addr);
	peer->ring_rkey = be32_to_cpu(rep->ring_rkey);
	peer->ring_len = be32_to_cpu(rep->ring_len);
	if (!exs_ring_size_ok(peer->ring_len))
		return -EPROTO;
	return 0;
}

/* A reject that carries no AF_EXS data came from the CM itself (nothing
 * listens there with AF_EXS): that is EXS_WIRE_REJ_NO_LISTENER.
 */
int exs_wire_parse_rej(const void *data, unsigned int len,
		       struct exs_wire_peer *peer)
{
	const struct exs_wire_rep *rep = data;

	peer->reject = EXS_WIRE_REJ_NO_LISTENER;
	if (!data || len < sizeof(*rep) || !rep->version)
		return 0;
	peer->version = rep->version;
	if (rep->version < EXS_WIRE_VERSION_MIN ||
	    rep->reason == EXS_WIRE_REJ_VERSION) {
		peer->reject = EXS_WIRE_REJ_VERSION;
		return 0;
	}
	if (rep->reason == EXS_WIRE_REJ_NONE ||
	    rep->reason > EXS_WIRE_REJ_NOMEM)
		return -EPROTO;
	peer->reject = rep->reason;
	return 0;
}

/* The record of a BATCH (@data, @len bytes) at *@off: its header, and its
 * bytes within the message, which start at the new *@off.  -EPROTO when
 * there is none whole there.
 */
int exs_wire_parse_rec(const void *data, unsigned int len, unsigned int *off,
		       u8 *chan, u8 *flags, u16 *rlen)
{
	const struct exs_wire_rec *rec;

	if (*off > len || len - *off < sizeof(*rec))
		return -EPROTO;
	rec = data + *off;
	*chan = rec->chan;
	*flags = rec->flags;
	*rlen = be16_to_cpu(rec->len);
	*off += sizeof(*rec);
	if (*chan >= EXS_CHAN_MAX || (*flags & ~EXS_REC_LOW_WINDOW) ||
	    !*rlen || *rlen > len - *off)
		return -EPROTO;
	return 0;
}

/* A BATCH is @count records, at least one, that fill it exactly. */
static int exs_wire_check_batch(const void *data, unsigned int len,
				u32 count)
{
	unsigned int off = sizeof(struct exs_wire_msg);
	u8 chan, flags;
	u16 rlen;
	u32 n;

	if (!count || count > EXS_BATCH_MAX)
		return -EPROTO;
	for (n = 0; n < count; n++) {
		if (exs_wire_parse_rec(data, len, &off, &chan, &flags, &rlen))
			return -EPROTO;
		off += rlen;
	}
	return off == len ? 0 : -EPROTO;
}

/* An OPEN carries a REQ (exs_wire_parse_req() checks it), and no cursor,
 * or, to a parked rider's channel, the sender's channel as a JOIN does;
 * a BATCH its records, whole; every other message is the bare header,
 * with flags in a RESUME only.
 */
int exs_wire_parse_msg(const void *data, unsigned int len,
		       enum exs_wire_msg_type *type, u32 *cursor, u8 *chan)
{
	const struct exs_wire_msg *msg = data;
	bool open;
	u16 ch;

	if (len < sizeof(*msg))
		return -EPROTO;
	ch = be16_to_cpu(msg->chan);
	if (msg->type < EXS_MSG_READY || msg->type >= __EXS_MSG_MAX ||
	    ch >= EXS_CHAN_MAX ||
	    (msg->flags & ~(msg->type == EXS_MSG_RESUME ?
			    EXS_RESUME_FIN | EXS_RESUME_LINK : 0)))
		return -EPROTO;
	open = msg->type == EXS_MSG_OPEN || msg->type == EXS_MSG_JOIN ||
	       msg->type == EXS_MSG_JOINED;
	if (msg->type == EXS_MSG_BATCH ? len > EXS_BATCH_MAX :
	    len != (open ? sizeof(struct exs_wire_open) : sizeof(*msg)))
		return -EPROTO;
	*type = msg->type;
	*cursor = be32_to_cpu(msg->cursor);
	*chan = ch;
	switch (*type) {
	case EXS_MSG_BATCH:
		return ch ? -EPROTO : exs_wire_check_batch(data, len, *cursor);
	case EXS_MSG_OPEN:
		if (!ch)
			return *cursor ? -EPROTO : 0;
		return !*cursor || *cursor >= EXS_CHAN_MAX ? -EPROTO : 0;
	case EXS_MSG_JOIN:
		/* to the QP's first connection, naming the joiner's channel */
		return ch || !*cursor || *cursor >= EXS_CHAN_MAX ? -EPROTO : 0;
	case EXS_MSG_JOINED:
		return !ch || !*cursor || *cursor >= EXS_CHAN_MAX ? -EPROTO : 0;
	case EXS_MSG_RESUME:
		/* a QP's, for its riders: no stream, so nothing else */
		if (!(msg->flags & EXS_RESUME_LINK))
			return 0;
		return ch || *cursor || msg->flags != EXS_RESUME_LINK ?
		       -EPROTO : 0;
	default:
		return 0;
	}
}

void exs_wire_build_req(struct exs_wire_req *req,
			const struct exs_wire_peer *self)
{
	u16 flags = (self->resume ? EXS_WIRE_REQ_RESUME : 0) |
		    (self->share ? EXS_WIRE_REQ_SHARE : 0);

	memset(req, 0, sizeof(*req));
	/* an older version's REQ names that version alone */
	req->version = self->version;
	if (self->version >= EXS_WIRE_V_RANGE)
		flags |= self->version_min << EXS_WIRE_REQ_VMIN_SHIFT;
	req->family = self->family == AF_INET ? EXS_WIRE_INET : EXS_WIRE_INET6;
	req->flags = cpu_to_be16(flags);
	req->sport = self->sport;
	req->dport = self->dport;
	memcpy(req->saddr, &self->saddr, sizeof(req->saddr));
	memcpy(req->daddr, &self->daddr, sizeof(req->daddr));
	req->ring_addr = cpu_to_be64(self->ring_addr);
	req->ring_rkey = cpu_to_be32(self->ring_rkey);
	req->ring_len = cpu_to_be32(self->ring_len);
}

void exs_wire_build_msg(struct exs_wire_msg *msg,
			enum exs_wire_msg_type type, u8 flags, u32 cursor,
			u8 chan)
{
	msg->type = type;
	msg->flags = flags;
	msg->chan = cpu_to_be16(chan);
	msg->cursor = cpu_to_be32(cursor);
}

/* OPEN, JOIN or JOINED: the message header, then @self as a REQ says it */
void exs_wire_build_open(struct exs_wire_open *open,
			 enum exs_wire_msg_type type, u8 chan, u8 cursor,
			 const struct exs_wire_peer *self)
{
	exs_wire_build_msg(&open->hdr, type, 0, cursor, chan);
	exs_wire_build_req(&open->req, self);
}

/* A BATCH's record header; its bytes follow */
void exs_wire_build_rec(struct exs_wire_rec *rec, u8 chan, u8 flags, u16 len)
{
	rec->chan = chan;
	rec->flags = flags;
	rec->len = cpu_to_be16(len);
}

void exs_wire_build_rep(struct exs_wire_rep *rep, u8 version, u64 addr,
			u32 rkey, u32 len)
{
	memset(rep, 0, sizeof(*rep));
	rep->version = version;
	rep->ring_len = cpu_to_be32(len);
	rep->ring_addr = cpu_to_be64(addr);
	rep->ring_rkey = cpu_to_be32(rkey);
}

void exs_wire_build_rej(struct exs_wire_rep *rep, enum exs_wire_reject why,
			u8 version)
{
	memset(rep, 0, sizeof(*rep));
	rep->version = version;
	rep->reason = why;
}
