// SPDX-License-Identifier: GPL-2.0
/*
 * test_vmemmap.c - what the mapping module says it obtained is what
 * /proc/self/smaps says, read here independently: a 4k mapping (and a 4k
 * memmap of every layout, its descriptor caches included) reports no huge
 * page even under THP "always"; a 2m mapping sits in a VMA of its own,
 * 2 MiB aligned, and reports exactly the AnonHugePages smaps shows for that
 * VMA.  The pool (vmemmap_pool_start()): pages drawn when asked for, zeroed,
 * reused, and a memmap built from it holding what one faulted in holds.
 * The 2m half is skipped (77) with its reason where THP is "never".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "test_common.h"

#define BYTES	(8UL << 20)

/* smaps' own figures for the VMA that starts at addr: its end, Rss and AnonHugePages. */
static int smaps_vma(const void *addr, unsigned long *end, size_t *rss, size_t *huge)
{
	char line[512], perms[8];
	unsigned long start, e, kb;
	bool in = false, found = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &e, perms) == 3 &&
		    strchr("r-", perms[0]) && strchr("w-", perms[1])) {
			in = start == (uintptr_t)addr;
			if (in) {
				*end = e;
				found = true;
			}
		} else if (in && sscanf(line, "Rss: %lu kB", &kb) == 1) {
			*rss = kb << 10;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			*huge = kb << 10;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static void touch(const struct vmemmap *v)
{
	size_t i;

	for (i = 0; i < v->bytes; i += 4096)
		((volatile char *)v->addr)[i] = 1;
}

static void test_4k(void)
{
	struct vmemmap v;
	struct vmemmap_usage u = { 0 };
	struct mdb_err err;
	unsigned long end = 0;
	size_t rss = 0, huge = 1;

	CHECK(!vmemmap_map(&v, BYTES, MEMMAP_PAGES_4K, NULL, NULL, &err), "%s", err.msg);
	touch(&v);
	vmemmap_settle(&v, v.bytes);
	CHECK(!vmemmap_usage(&v, &u) && u.rss == BYTES && u.huge == 0, "4k: rss %zu, huge %zu", u.rss,
	      u.huge);
	CHECK(!smaps_vma(v.addr, &end, &rss, &huge) && end == (uintptr_t)v.addr + v.bytes &&
	      rss == u.rss && huge == 0, "4k: smaps says rss %zu, huge %zu, end %#lx", rss, huge, end);
	vmemmap_unmap(&v);
}

/*
 * Three mappings of 1, 2 and 3 times BYTES, touched: vmemmap_usage_sum()
 * reads smaps once and gives what the three vmemmap_usage() calls add up
 * to, each mapping counted once (6 BYTES); an unmapped one adds nothing;
 * more than VMEMMAP_MAX_SPANS is refused.
 */
static void test_usage_sum(void)
{
	struct vmemmap v[3], none = { 0 };
	const struct vmemmap *p[4] = { &v[0], &v[1], &none, &v[2] }, *many[VMEMMAP_MAX_SPANS + 1];
	struct vmemmap_usage one = { 0 }, sum = { 0 };
	struct mdb_err err;
	int i;

	for (i = 0; i < 3; i++) {
		CHECK(!vmemmap_map(&v[i], (size_t)(i + 1) * BYTES, MEMMAP_PAGES_4K, NULL, NULL, &err),
		      "%s", err.msg);
		touch(&v[i]);
		CHECK(!vmemmap_usage(&v[i], &one), "usage of %d", i);
	}
	CHECK(!vmemmap_usage_sum(p, 4, &sum) && sum.rss == one.rss && sum.huge == one.huge &&
	      sum.rss == 6 * BYTES, "sum: rss %zu, huge %zu; one by one %zu, %zu", sum.rss, sum.huge,
	      one.rss, one.huge);
	for (i = 0; i <= VMEMMAP_MAX_SPANS; i++)
		many[i] = &v[0];
	CHECK(vmemmap_usage_sum(many, VMEMMAP_MAX_SPANS + 1, &sum), "%d spans taken", VMEMMAP_MAX_SPANS + 1);
	for (i = 0; i < 3; i++)
		vmemmap_unmap(&v[i]);
}

/* Every layout, 4k: nothing of the memmap or of the slabs in huge pages. */
static void test_4k_memmaps(void)
{
	struct memmap_opts opts = { .pages = MEMMAP_PAGES_4K, .seed = 1 };
	const struct layout_ops *const *l;
	struct mdb_err err;
	struct memmap *mm;
	struct mix mix;

	CHECK(!mix_builtin("desktop", &mix, &err), "%s", err.msg);
	for (l = mdb_layouts; *l; l++) {
		if ((*l)->memmap_create(&mm, 65536, &mix, &opts, &err)) {
			CHECK(0, "%s: %s", (*l)->name, err.msg);
			continue;
		}
		CHECK(mm->obtained.memmap.rss >= 65536 * (*l)->page_size &&
		      !mm->obtained.memmap.huge && !mm->obtained.desc.huge &&
		      (mm->obtained.desc.rss > 0) == layout_has_descriptors(*l),
		      "%s 4k: memmap %zu (%zu huge), descriptors %zu (%zu huge)", (*l)->name,
		      mm->obtained.memmap.rss, mm->obtained.memmap.huge, mm->obtained.desc.rss,
		      mm->obtained.desc.huge);
		(*l)->memmap_destroy(mm);
	}
}

/* Whether the n bytes at p are all c. */
static bool all_bytes(const void *p, size_t n, unsigned char c)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != c)
			return false;
	return true;
}

static int bind_nothing(void *addr, size_t len, void *arg)
{
	(void)addr;
	(void)len;
	(void)arg;
	return 0;
}

/*
 * The pool: a 2m mapping gets no page until vmemmap_back() asks, then
 * whole 2 MiB pages, zeroed, and keeps those it has; its pages go back to
 * the pool with the mapping and the next mapping draws them (no new
 * mmap), zeroed again; renewed, it holds no free page and maps new ones
 * for the next draw; 4k and bound mappings never come from it; stopped,
 * it holds nothing and hands nothing out.
 */
static void test_pool(void)
{
	struct vmemmap_pool_stats st, before;
	struct vmemmap v, w;
	struct vmemmap_usage u = { 0 };
	struct mdb_err err;
	size_t off;

	CHECK(vmemmap_pool_start(4096, 1, &err) && strstr(err.msg, "less than one 2 MiB page"),
	      "a pool of less than a page taken");
	CHECK(!vmemmap_pool_start(2 * VMEMMAP_HUGE, 1, &err), "%s", err.msg);
	CHECK(!vmemmap_map(&v, BYTES, MEMMAP_PAGES_2M, NULL, NULL, &err), "%s", err.msg);
	CHECK(v.pooled && !v.backed && !vmemmap_usage(&v, &u) && !u.rss,
	      "pooled %d, backed %zu, rss %zu before vmemmap_back()", v.pooled, v.backed, u.rss);
	CHECK(!vmemmap_back(&v, 1, &err) && v.backed == VMEMMAP_HUGE, "back 1 byte: %zu", v.backed);
	memset(v.addr, 0xab, VMEMMAP_HUGE);
	CHECK(!vmemmap_back(&v, 2 * BYTES, &err) && v.backed == BYTES, "back past the end: %zu",
	      v.backed);
	CHECK(all_bytes(v.addr, VMEMMAP_HUGE, 0xab), "the first page was drawn again");
	CHECK(all_bytes((char *)v.addr + VMEMMAP_HUGE, BYTES - VMEMMAP_HUGE, 0), "drawn pages not zero");
	memset(&u, 0, sizeof(u));
	CHECK(!vmemmap_usage(&v, &u) && u.rss == BYTES, "rss %zu of a backed %lu", u.rss, BYTES);
	memset(v.addr, 0xcd, BYTES);
	vmemmap_pool_stats(&before);
	CHECK(before.drawn == BYTES && before.target == 2 * VMEMMAP_HUGE &&
	      before.free >= before.target && before.mapped == before.free + BYTES,
	      "drawn %zu, target %zu, free %zu, mapped %zu", before.drawn, before.target, before.free,
	      before.mapped);
	vmemmap_unmap(&v);
	vmemmap_pool_stats(&st);
	CHECK(st.free == before.free + BYTES, "free %zu after the unmap, %zu before", st.free,
	      before.free);

	CHECK(!vmemmap_map(&w, BYTES, MEMMAP_PAGES_2M, NULL, NULL, &err) &&
	      !vmemmap_back(&w, w.bytes, &err), "%s", err.msg);
	for (off = 0; off < BYTES; off += VMEMMAP_HUGE)
		CHECK(all_bytes((char *)w.addr + off, VMEMMAP_HUGE, 0), "page %zu not zeroed",
		      off / VMEMMAP_HUGE);
	vmemmap_pool_stats(&st);
	CHECK(st.mapped == before.mapped && st.drawn == 2 * BYTES,
	      "second mapping: mapped %zu (was %zu), drawn %zu", st.mapped, before.mapped, st.drawn);
	vmemmap_unmap(&w);

	/* renewed: no free page left, still on; the next draw maps new ones */
	vmemmap_pool_stats(&before);
	vmemmap_pool_renew();
	vmemmap_pool_stats(&st);
	CHECK(before.free >= BYTES && !st.free && vmemmap_pool_on() && st.mapped == before.mapped,
	      "renewed: free %zu (was %zu), on %d", st.free, before.free, vmemmap_pool_on());
	CHECK(!vmemmap_map(&w, BYTES, MEMMAP_PAGES_2M, NULL, NULL, &err) && w.pooled &&
	      !vmemmap_back(&w, w.bytes, &err), "%s", err.msg);
	vmemmap_pool_stats(&st);
	CHECK(st.mapped >= before.mapped + BYTES && st.drawn == before.drawn + BYTES &&
	      all_bytes(w.addr, BYTES, 0), "after the renewal: mapped %zu (was %zu), drawn %zu",
	      st.mapped, before.mapped, st.drawn);
	vmemmap_unmap(&w);

	CHECK(!vmemmap_map(&v, BYTES, MEMMAP_PAGES_4K, NULL, NULL, &err) && !v.pooled, "4k pooled");
	vmemmap_unmap(&v);
	CHECK(!vmemmap_map(&v, BYTES, MEMMAP_PAGES_2M, bind_nothing, NULL, &err) && !v.pooled,
	      "a bound mapping pooled");
	vmemmap_unmap(&v);

	vmemmap_pool_stop();
	vmemmap_pool_stats(&st);
	CHECK(!vmemmap_pool_on() && !st.free, "stopped: on %d, free %zu", vmemmap_pool_on(), st.free);
	CHECK(!vmemmap_map(&v, BYTES, MEMMAP_PAGES_2M, NULL, NULL, &err) && !v.pooled,
	      "pooled after the stop");
	vmemmap_unmap(&v);
}

/*
 * Every layout's 2m memmap built with the pool holds what one built without
 * it holds: a descriptor cache's pages come as its slabs need them, as
 * faults would bring them.
 */
static void test_pool_memmaps(void)
{
	struct memmap_opts opts = { .pages = MEMMAP_PAGES_2M, .seed = 1 };
	struct footprint_measured fm[2];
	const struct layout_ops *const *l;
	struct mdb_err err;
	struct memmap *mm;
	struct mix mix;
	int pooled;

	CHECK(!mix_builtin("desktop", &mix, &err), "%s", err.msg);
	for (l = mdb_layouts; *l; l++) {
		for (pooled = 0; pooled < 2; pooled++) {
			if (pooled && vmemmap_pool_start(16 * VMEMMAP_HUGE, 1, &err))
				CHECK(0, "%s", err.msg);
			if ((*l)->memmap_create(&mm, 65536, &mix, &opts, &err)) {
				CHECK(0, "%s: %s", (*l)->name, err.msg);
				vmemmap_pool_stop();
				break;
			}
			CHECK(mm->vmap.pooled == pooled, "%s: pooled %d", (*l)->name, mm->vmap.pooled);
			CHECK(!memmap_measure(mm, &fm[pooled]), "%s: measure", (*l)->name);
			(*l)->memmap_destroy(mm);
			vmemmap_pool_stop();
		}
		if (pooled == 2)
			CHECK(fm[0].memmap_bytes == fm[1].memmap_bytes &&
			      fm[0].desc_bytes == fm[1].desc_bytes,
			      "%s: memmap %zu, descriptors %zu faulted; %zu, %zu pooled", (*l)->name,
			      fm[0].memmap_bytes, fm[0].desc_bytes, fm[1].memmap_bytes,
			      fm[1].desc_bytes);
	}
}

static int test_2m(void)
{
	char buf[128];
	const char *mode = vmemmap_thp_mode(buf, sizeof(buf));
	struct vmemmap v;
	struct vmemmap_usage u = { 0 };
	struct mdb_err err;
	unsigned long end = 0;
	size_t rss = 0, huge = 0;

	if (!mode || !strcmp(mode, "never")) {
		printf("skipped 2m: transparent huge pages are \"%s\" here\n", mode ? mode : "absent");
		return 77;
	}
	CHECK(!vmemmap_map(&v, BYTES, MEMMAP_PAGES_2M, NULL, NULL, &err), "%s", err.msg);
	CHECK((uintptr_t)v.addr % VMEMMAP_HUGE == 0 && v.bytes == BYTES, "2m: %p, %zu bytes", v.addr,
	      v.bytes);
	touch(&v);
	vmemmap_settle(&v, v.bytes);
	CHECK(!vmemmap_usage(&v, &u), "usage");
	CHECK(!smaps_vma(v.addr, &end, &rss, &huge) && end == (uintptr_t)v.addr + v.bytes &&
	      rss == u.rss && huge == u.huge, "2m: smaps says rss %zu, huge %zu; we say %zu, %zu",
	      rss, huge, u.rss, u.huge);
	printf("2m (THP \"%s\"): %zu of %zu bytes in huge pages\n", mode, u.huge, u.rss);
	vmemmap_unmap(&v);
	return 0;
}

int main(void)
{
	int ret;

	test_4k();
	test_usage_sum();
	test_4k_memmaps();
	test_pool();
	test_pool_memmaps();
	ret = test_2m();
	if (failures) {
		fprintf(stderr, "test_vmemmap: %d failures\n", failures);
		return 1;
	}
	printf("test_vmemmap: ok\n");
	return ret;
}
