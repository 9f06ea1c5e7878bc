/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Urgent data's arithmetic (oob.c), pure so that KUnit can check it
 * against what Linux's TCP does (tcp_check_urg(), tcp_recvmsg(),
 * tcp_inq()): where the peer's urgent byte is, whether a read stops or
 * steps over it, what SIOCATMARK and SIOCINQ say.  Cursors are the ring's
 * (ring.h): our consumer cursor @rcons, the peer's producer cursor
 * @rprod; @inl is SO_OOBINLINE.
 */
#ifndef __EXS_URG_H
#define __EXS_URG_H

#include <linux/errno.h>
#include <linux/types.h>

/* urg.data, as TCP's urg_data */
#define EXS_URG_VALID	0x0100	/* the byte is here, in the low 8 bits */
#define EXS_URG_NOTYET	0x0200	/* announced, not yet written */
#define EXS_URG_READ	0x0400	/* taken by recv(MSG_OOB) */

struct exs_urg {
	/* ours: the byte MSG_OOB marked */
	bool	owed;		/* its URG not yet posted */
	bool	push;		/* ...or the byte not yet in the peer's
				 * ring: no gathering meanwhile
				 */
	u32	snd;		/* its cursor */
	bool	lsn_inline;	/* not yet accept()ed: its listener's
				 * SO_OOBINLINE as its handshake ended
				 */
	/* the peer's (TCP's urg_data and urg_seq) */
	u16	data;		/* EXS_URG_* */
	u32	seq;
	u32	skip;		/* bytes at rcons a read steps over: urgent
				 * bytes a newer one displaced while the
				 * reader stood on them
				 */
};

/* The consumer cursor where TCP's copied_seq would be. */
static inline u32 exs_urg_cons(const struct exs_urg *u, u32 rcons)
{
	return rcons + u->skip;
}

/* A read at @cons stands on the urgent byte: one that has bytes stops. */
static inline bool exs_urg_stops(const struct exs_urg *u, u32 cons)
{
	return u->data && u->seq == cons;
}

/* SIOCATMARK: the next byte read is the urgent one */
static inline bool exs_urg_at_mark(const struct exs_urg *u, u32 rcons)
{
	return exs_urg_stops(u, exs_urg_cons(u, rcons));
}

/* SIOCINQ, as tcp_inq(): the bytes queued, or those before an urgent
 * byte that is here and not yet passed (unless SO_OOBINLINE).
 */
static inline u32 exs_urg_inq(const struct exs_urg *u, u32 rcons, u32 rprod,
			      bool inl)
{
	u32 cons = exs_urg_cons(u, rcons);

	if (!inl && u->data && (s32)(u->seq - cons) >= 0 &&
	    (s32)(u->seq - rprod) < 0)
		return u->seq - cons;
	return rprod - cons;
}

/* poll()'s EPOLLIN, as tcp_poll(): @lowat bytes past any skip, and one
 * more at the mark, where a read steps over the urgent byte.
 */
static inline bool exs_urg_readable(const struct exs_urg *u, u32 rcons,
				    u32 rprod, bool inl, u32 lowat)
{
	u32 avail = rprod - exs_urg_cons(u, rcons);

	return avail && avail >= lowat + (!inl && exs_urg_at_mark(u, rcons));
}

/* How much of the @avail bytes at @cons (past any skip) a read may take
 * in one piece: up to the urgent byte; at it, the byte alone stepped over
 * (*@step) unless SO_OOBINLINE.  A byte behind @cons (a peek went past
 * it) makes @off wrap past @avail: no stop.
 */
static inline u32 exs_urg_clip(const struct exs_urg *u, bool inl, u32 cons,
			       u32 avail, bool *step)
{
	u32 off = u->seq - cons;

	*step = false;
	if (!avail || !u->data || off >= avail)
		return avail;
	if (off)
		return off;
	*step = !inl;
	return avail;
}

/* The consumer cursor passed the urgent byte: TCP forgets it. */
static inline void exs_urg_passed(struct exs_urg *u, u32 rcons)
{
	if (u->data && (s32)(rcons - u->seq) > 0)
		u->data = 0;
}

/* A URG naming @cursor, as tcp_check_urg(): -EPROTO for a byte the peer
 * could not write (past the ring from our consumer cursor); 0 for one it
 * already wrote (a replay) or no newer than the one we know; else 1, the
 * urgent byte now announced (*@signal: tell the owner, unless the last
 * is still on its way).  An older byte the reader stands on, unread and
 * not inline, is stepped over from now on, as TCP advances copied_seq.
 */
static inline int exs_urg_announce(struct exs_urg *u, u32 cursor, u32 rcons,
				   u32 rprod, u32 rsize, bool inl,
				   bool *signal)
{
	u32 cons = exs_urg_cons(u, rcons);

	*signal = false;
	if (cursor - rcons >= rsize)
		return (s32)(cursor - rprod) < 0 ? 0 : -EPROTO;
	if ((s32)(cursor - rprod) < 0 ||
	    (u->data && (s32)(cursor - u->seq) <= 0))
		return 0;
	*signal = !(u->data & EXS_URG_NOTYET);
	if (u->data && u->seq == cons && !inl && cons != rprod)
		u->skip++;
	u->data = EXS_URG_NOTYET;
	u->seq = cursor;
	return 1;
}

/* The announced byte came: the peer's producer cursor passed it. */
static inline bool exs_urg_due(const struct exs_urg *u, u32 rprod)
{
	return (u->data & EXS_URG_NOTYET) && (s32)(rprod - u->seq) > 0;
}

/* ...and is read out of band from now on: @byte. */
static inline bool exs_urg_arrives(struct exs_urg *u, u32 rprod, u8 byte)
{
	if (!exs_urg_due(u, rprod))
		return false;
	u->data = EXS_URG_VALID | byte;
	return true;
}

#endif /* __EXS_URG_H */
