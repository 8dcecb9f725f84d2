// SPDX-License-Identifier: GPL-2.0
/*
 * test_kmod_client.c - the client library without the module: kernel
 * names, request checks, counter text, the kpageflags census and picks.
 * What needs the module runs in the qemu test (test_kmod_qemu.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel-page-flags.h>

#include "client.h"
#include "test_common.h"

#define KPF(b)	(1ULL << KPF_##b)

static void test_names(void)
{
	static const char *const names[] = MDB_KMOD_KERNEL_NAMES;
	unsigned int i;

	for (i = 0; i < MDB_KMOD_NR_KERNELS; i++) {
		CHECK(mdb_kmod_kernel_id(names[i]) == (int)i);
		CHECK(!strcmp(mdb_kmod_kernel_name(i), names[i]));
	}
	CHECK(mdb_kmod_kernel_id("lookup/sequential") == -1);
	CHECK(mdb_kmod_kernel_id("") == -1);
	CHECK(!strcmp(mdb_kmod_kernel_name(MDB_KMOD_NR_KERNELS), "?"));
	CHECK(mdb_kmod_kernel_takes_pfns(MDB_KMOD_FOLIO_TAIL));
	CHECK(!mdb_kmod_kernel_takes_pfns(MDB_KMOD_SCAN_COMPACTION));
	CHECK(mdb_kmod_kernel_takes_range(MDB_KMOD_LOOKUP_SEQ));
	CHECK(!mdb_kmod_kernel_takes_range(MDB_KMOD_ALLOC_ORDER9));
}

/* Requests the library refuses before any ioctl: no device needed. */
static void test_requests(void)
{
	struct mdb_kmod k = { .fd = -1 };
	struct mdb_kmod_req req = { .kernel = MDB_KMOD_LOOKUP_SEQ, .ops = 1 };
	struct mdb_kmod_result res;
	struct mdb_err err;
	uint64_t pfn = 5;

	k.info.min_pfn = 1;
	k.info.end_pfn = 100;
	req.ops = 0;
	CHECK(mdb_kmod_run(&k, &req, &res, &err) == -1 && strstr(err.msg, "at least 1"));
	req.ops = 1;
	req.kernel = MDB_KMOD_NR_KERNELS;
	CHECK(mdb_kmod_run(&k, &req, &res, &err) == -1 && strstr(err.msg, "no kernel"));
	req.kernel = MDB_KMOD_SCAN_COMPACTION;
	req.start = 100;
	CHECK(mdb_kmod_run(&k, &req, &res, &err) == -1 && strstr(err.msg, "start < hi_pfn"));
	req.kernel = MDB_KMOD_FOLIO_GETPUT;
	req.start = 0;
	CHECK(mdb_kmod_run(&k, &req, &res, &err) == -1 && strstr(err.msg, "needs a pfn array"));
	req.pfns = &pfn;
	req.nr_pfns = 1;
	req.start = 1;
	CHECK(mdb_kmod_run(&k, &req, &res, &err) == -1 && strstr(err.msg, "past the 1 pfns"));
	/* A good request reaches the ioctl, which fails on no device. */
	req.start = 0;
	CHECK(mdb_kmod_run(&k, &req, &res, &err) == -1 &&
	      !strcmp(err.msg, "folio/getput: Bad file descriptor"));
	CHECK(mdb_kmod_open(&k, "/nonexistent/mdbench", &err) == -1 &&
	      !strncmp(err.msg, "/nonexistent/mdbench: no such device", 36) && k.fd == -1);
}

static void test_counter_text(void)
{
	struct mdb_kmod k = { .fd = -1 };
	struct mdb_kmod_result res = { 0 };
	char buf[256];

	res.counter_valid[0] = true;
	res.counter[0] = 12345;
	CHECK(!strcmp(mdb_kmod_counter_text(&k, &res, 0, buf, sizeof(buf)), "12345"));
	res.counter_scaled[0] = true;
	CHECK(!strcmp(mdb_kmod_counter_text(&k, &res, 0, buf, sizeof(buf)), "12345 (scaled)"));
	res.counter_errno[1] = -ENOENT;
	strcpy(k.info.counter_reason[1], "no PMU");
	CHECK(!strcmp(mdb_kmod_counter_text(&k, &res, 1, buf, sizeof(buf)),
		      "unavailable: no PMU (ENOENT 2)"));
	res.counter_errno[2] = -EBUSY;
	CHECK(!strncmp(mdb_kmod_counter_text(&k, &res, 2, buf, sizeof(buf)),
		       "unavailable: never scheduled", 28));
	/* Never a bare number for a counter that did not count. */
	CHECK(!strncmp(mdb_kmod_counter_text(&k, &res, 3, buf, sizeof(buf)), "unavailable", 11));
}

/*
 * pfn 0..7 free (one order-3 block), 8..12 free (order 2 + order 0, since
 * 12 is not aligned to 8), 13 a hole, 14 a plain page, 16..19 a slab folio
 * of order 2, 15 another plain page; then 2048 free pages from 2048, which
 * the largest order (10) splits in two.
 */
static void test_census(void)
{
	uint64_t n = 4096, *f = calloc(n, sizeof(*f)), i;
	struct mdb_kmod_scan s;

	for (i = 0; i <= 12; i++)
		f[i] = KPF(BUDDY);
	f[13] = KPF(NOPAGE);
	f[14] = KPF(LRU);
	f[16] = KPF(COMPOUND_HEAD) | KPF(SLAB);
	for (i = 17; i < 20; i++)
		f[i] = KPF(COMPOUND_TAIL) | KPF(SLAB);
	for (i = 2048; i < 4096; i++)
		f[i] = KPF(BUDDY);
	mdb_kmod_census(f, 0, n, 10, &s);
	CHECK(s.pfns == n);
	CHECK(s.free_pages == 13 + 2048);
	CHECK(s.free_blocks == 3 + 2);
	CHECK(s.offline == 1);
	CHECK(s.heads == 1 && s.tails == 3 && s.slab_pages == 4);
	CHECK(s.others == n - s.free_pages - s.offline - s.heads - s.tails);
	/* The same pfns one higher: the first run is no longer aligned. */
	mdb_kmod_census(f, 1, 13, 10, &s);
	CHECK(s.free_blocks == 5);	/* 1, 2..3, 4..7, 8..11, 12..13 */
	free(f);
}

static void test_pick(void)
{
	uint64_t f[64] = { 0 }, a[8], b[8], c[64];
	struct mdb_kmod_picker p;
	unsigned int i, seen[64] = { 0 };
	size_t n;

	for (i = 0; i < 64; i++)
		f[i] = i % 2 ? KPF(LRU) : KPF(NOPAGE);
	f[10] = KPF(COMPOUND_TAIL) | KPF(THP);
	f[12] = KPF(COMPOUND_TAIL) | KPF(SLAB);		/* not a folio's tail */
	CHECK(mdb_kmod_pick_ok(MDB_KMOD_PICK_TAIL, f[10]));
	CHECK(!mdb_kmod_pick_ok(MDB_KMOD_PICK_TAIL, f[12]));
	CHECK(mdb_kmod_pick_ok(MDB_KMOD_PICK_FOLIO, f[10]));
	CHECK(!mdb_kmod_pick_ok(MDB_KMOD_PICK_ANY, KPF(NOPAGE)));

	/* All 32 LRU pages plus the THP tail, each once, shuffled. */
	mdb_kmod_pick_init(&p, MDB_KMOD_PICK_FOLIO, 7, c, 64);
	mdb_kmod_pick_feed(&p, f, 1000, 64);
	n = mdb_kmod_pick_done(&p);
	CHECK(n == 33);
	for (i = 0; i < n; i++) {
		CHECK(c[i] >= 1000 && c[i] < 1064);
		seen[c[i] - 1000]++;
	}
	for (i = 0; i < 64; i++)
		CHECK(seen[i] == (i % 2 || i == 10));

	/* A subset when more qualify, the same for the same seed, fed in two chunks. */
	mdb_kmod_pick_init(&p, MDB_KMOD_PICK_FOLIO, 3, a, 8);
	mdb_kmod_pick_feed(&p, f, 0, 64);
	CHECK(mdb_kmod_pick_done(&p) == 8);
	mdb_kmod_pick_init(&p, MDB_KMOD_PICK_FOLIO, 3, b, 8);
	mdb_kmod_pick_feed(&p, f, 0, 20);
	mdb_kmod_pick_feed(&p, f + 20, 20, 44);
	CHECK(mdb_kmod_pick_done(&p) == 8);
	CHECK(!memcmp(a, b, sizeof(a)));
}

int main(void)
{
	test_names();
	test_requests();
	test_counter_text();
	test_census();
	test_pick();
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	printf("test_kmod_client: all checks passed\n");
	return 0;
}
