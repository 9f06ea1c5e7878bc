/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring and credit arithmetic.  Cursors are free-running u32 byte counts;
 * a ring's size is a power of two no larger than 2^30, so "prod - cons"
 * is the number of bytes in use even across the 2^32 wrap.  Pure
 * functions, tested by KUnit (ring_test.c).
 */
#ifndef __EXS_RING_H
#define __EXS_RING_H

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/af_exs.h>	/* EXS_RING_MIN, EXS_RING_MAX */

static inline bool exs_ring_size_ok(u32 size)
{
	return is_power_of_2(size) && size >= EXS_RING_MIN &&
	       size <= EXS_RING_MAX;
}

/* The ring size for a requested buffer size (SO_RCVBUF or a default). */
static inline u32 exs_ring_size_for(u64 bytes)
{
	if (bytes <= EXS_RING_MIN)
		return EXS_RING_MIN;
	if (bytes >= EXS_RING_MAX)
		return EXS_RING_MAX;
	return rounddown_pow_of_two((u32)bytes);
}

static inline u32 exs_ring_used(u32 prod, u32 cons)
{
	return prod - cons;
}

/* Free space, or 0 when the cursors are inconsistent. */
static inline u32 exs_ring_free(u32 size, u32 prod, u32 cons)
{
	u32 used = prod - cons;

	return used >= size ? 0 : size - used;
}

static inline u32 exs_ring_off(u32 size, u32 cursor)
{
	return cursor & (size - 1);
}

/* How much of @len bytes at @cursor fits before the ring wraps. */
static inline u32 exs_ring_contig(u32 size, u32 cursor, u32 len)
{
	return min(len, size - exs_ring_off(size, cursor));
}

/* Copy @len bytes at @cursor out of a ring of @size bytes at @ring. */
static inline void exs_ring_read(void *dst, const void *ring, u32 size,
				 u32 cursor, u32 len)
{
	u32 n = exs_ring_contig(size, cursor, len);

	memcpy(dst, ring + exs_ring_off(size, cursor), n);
	memcpy(dst + n, ring, len - n);
}

/* Copy @len bytes from @src into a ring of @size bytes at @ring, at
 * @cursor.
 */
static inline void exs_ring_write(void *ring, u32 size, u32 cursor,
				  const void *src, u32 len)
{
	u32 n = exs_ring_contig(size, cursor, len);

	memcpy(ring + exs_ring_off(size, cursor), src, n);
	memcpy(ring, src + n, len - n);
}

/* A cursor may only move forward, and never past @limit: true when
 * @new lies in [@old, @limit] modulo 2^32.
 */
static inline bool exs_cursor_advance_ok(u32 old, u32 new, u32 limit)
{
	return new - old <= limit - old;
}

/* Receiver side: return credits (the consumer cursor) once 1/@fraction
 * of the ring has been consumed since the last update (the delayed-ack
 * fraction), or at once when the sender said it is short of space and
 * anything was consumed.
 */
static inline bool exs_credit_due(u32 size, u32 cons, u32 acked,
				  unsigned int fraction, bool sender_low)
{
	u32 pending = cons - acked;

	if (!pending)
		return false;
	return sender_low || pending >= size / fraction;
}

/* Sender side: flag a write that leaves less than a quarter ring of
 * window.  The receiver answers a flagged write as soon as it consumes
 * anything, whatever its own fraction, so a sender never waits on a
 * receiver sitting on credits.
 */
#define EXS_WINDOW_LOW_SHIFT	2

static inline bool exs_window_low(u32 size, u32 free_after)
{
	return free_after < (size >> EXS_WINDOW_LOW_SHIFT);
}

/* Sender side: which ring writes ask for a completion.  Every completion
 * costs both hosts' CPUs (the device's completer, a softirq, our handler),
 * so a write is unsignaled unless something waits on it: Nagle's "a write
 * in flight" (@nagle) must end with a completion; at most
 * EXS_SIGNAL_EVERY requests go unsignaled, so the send queue's slots come
 * back; and bytes whose delivery is unknown stay under a quarter ring
 * (@unknown: written since the last completed cursor, this write
 * included), so the send buffer's space does.
 */
#define EXS_SIGNAL_EVERY	16

static inline bool exs_signal_due(bool nagle, u32 unsignaled, u32 unknown,
				  u32 size)
{
	return nagle || unsignaled + 1 >= EXS_SIGNAL_EVERY ||
	       unknown >= (size >> EXS_WINDOW_LOW_SHIFT);
}

/* Resuming on a new queue pair (resume.c): the peer says it holds our
 * bytes up to @cursor, which must lie between what it already returned
 * as credit and what we posted; it can hold our FIN only if we sent one,
 * after every byte.  From @cursor on, we write again.
 */
static inline bool exs_resume_cursor_ok(u32 credit, u32 cursor, u32 posted,
					bool fin_sent, bool peer_has_fin)
{
	if (!exs_cursor_advance_ok(credit, cursor, posted))
		return false;
	return !peer_has_fin || (fin_sent && cursor == posted);
}

#endif /* __EXS_RING_H */
