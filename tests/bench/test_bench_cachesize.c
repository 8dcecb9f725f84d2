// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_cachesize.c - cache_knees() and cache_llc_knee() (bench/cachesize.h)
 * on recorded latency curves: the development VM quiet and loaded, a
 * server whose last level lies past the probe's bound, a flat curve, and
 * a clean curve with noise laid over it.  No timing is measured here.
 */
#include <stdio.h>
#include <string.h>

#include "cachesize.h"
#include "test_common.h"

#define KiB	(1ULL << 10)
#define MiB	(1ULL << 20)

/* A curve from 8 KiB, doubling, of n points. */
static struct cache_curve curve(const double *ns, unsigned int n)
{
	struct cache_curve c = { .n = n };
	unsigned int i;

	for (i = 0; i < n; i++) {
		c.bytes[i] = CACHE_PROBE_MIN << i;
		c.ns[i] = ns[i];
	}
	return c;
}

/* The knees' sizes, then the last level's ("32K 512K | 512K"), into buf. */
static const char *knees_of(const struct cache_curve *c, char *buf, size_t len)
{
	struct cache_knee k[CACHE_MAX_KNEES];
	unsigned int n = cache_knees(c, k, CACHE_MAX_KNEES), i;
	int llc = cache_llc_knee(c, k, n);
	size_t at = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		at += (size_t)snprintf(buf + at, len - at, "%lluK ", (unsigned long long)(k[i].bytes >> 10));
	snprintf(buf + at, len - at, "| %lluK", llc < 0 ? 0ULL : (unsigned long long)(k[llc].bytes >> 10));
	return buf;
}

static void expect(const char *what, const double *ns, unsigned int n, const char *want)
{
	struct cache_curve c = curve(ns, n);
	char got[256];

	knees_of(&c, got, sizeof(got));
	CHECK(!strcmp(got, want), "%s: knees %s, want %s", what, got, want);
}

int main(void)
{
	/* The 2-CPU VM (Zen 5 host) at load average 2: L1d 48K, L2 1M, L3 knee at 16M. */
	static const double quiet[] = { 1.2, 1.2, 1.2, 4.1, 4.1, 4.2, 4.4, 5.5, 11.8, 12.6, 13.4,
					15.1, 58.0, 121.0, 135.0, 141.0 };
	/* The same VM at load average 13-16: the L3 shared with the others' builds. */
	static const double loaded_a[] = { 1.2, 1.2, 1.2, 4.2, 4.2, 4.2, 4.8, 9.7, 55.1, 117.6, 146.2,
					   161.5, 182.8, 249.5, 310.3 };
	static const double loaded_b[] = { 1.2, 1.2, 1.2, 4.0, 4.4, 4.0, 4.5, 9.3, 80.1, 29.0, 143.2,
					   175.3, 222.7, 292.0, 321.8 };
	static const double loaded_c[] = { 1.2, 1.2, 1.2, 4.2, 4.2, 4.2, 4.8, 10.7, 16.7, 123.0,
					   142.9, 163.1, 192.3, 261.7, 306.9 };
	/* A large-L3 server: L1 48K, L2 2M, a 30x-L1 L3 past 256M: the probe never reaches memory. */
	static const double big_l3[] = { 1.1, 1.1, 1.1, 4.6, 4.6, 4.7, 4.9, 5.3, 12.0, 28.0, 29.0,
					 29.5, 30.0, 30.5, 31.0, 31.5 };
	static const double flat[] = { 90.0, 91.0, 89.5, 90.2, 90.0, 92.0, 90.5, 90.0 };
	double noisy[16];
	unsigned int i;

	expect("quiet", quiet, 16, "32K 512K 16384K | 16384K");
	/* Loaded: the last level between L2 and memory shows only as a valley, or not at all. */
	expect("loaded a", loaded_a, 15, "32K 512K 32768K | 512K");
	expect("loaded b", loaded_b, 15, "32K 512K 4096K | 4096K");
	expect("loaded c", loaded_c, 15, "32K 512K 2048K | 2048K");
	expect("big L3", big_l3, 16, "32K 1024K | 0K");
	expect("flat", flat, 8, "| 0K");
	expect("two points", quiet, 2, "| 0K");
	/* Spikes up (another process ran during every timing of a size): the same knees. */
	memcpy(noisy, quiet, sizeof(noisy));
	noisy[1] *= 2.5;
	noisy[5] *= 3;
	noisy[9] *= 4;
	noisy[10] *= 1.5;
	expect("quiet with spikes", noisy, 16, "32K 512K 16384K | 16384K");
	/* A level scaled by a constant (another clock): the same knees. */
	for (i = 0; i < 16; i++)
		noisy[i] = quiet[i] * 3.7;
	expect("quiet, slower clock", noisy, 16, "32K 512K 16384K | 16384K");
	/* No time measured (a zero) is no curve. */
	memcpy(noisy, quiet, sizeof(noisy));
	noisy[4] = 0;
	expect("a zero", noisy, 16, "| 0K");
	return test_done("bench_cachesize");
}
