/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzers' random numbers: splitmix64, small, good enough, and the
 * same everywhere, so a seed replays a run.
 */
#ifndef EXS_RNG_H
#define EXS_RNG_H

struct rng {
	unsigned long long s;
};

static inline unsigned long long rnd(struct rng *r)
{
	unsigned long long z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform enough in [0, n); 0 for n == 0 */
static inline unsigned int below(struct rng *r, unsigned int n)
{
	return n ? rnd(r) % n : 0;
}

#endif /* EXS_RNG_H */
