// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_footprint.c - the bytes the footprint benchmark reports.
 *
 * Without arguments: for every layout, built-in mix and folio descriptor
 * size (the layout's own, 64, 96, 128), and a mix with 1 GiB and 2 MiB
 * hugetlb folios, ops->footprint() of a memmap equals what the mix's blocks
 * must cost, counted independently from the layout's desc_size[] and the
 * plan's block counts: sizeof(struct page) per pfn, one descriptor per folio
 * (an order-0 file folio its DESC_FOLIO, a larger one, hugetlb ones too,
 * its DESC_FOLIO_LARGE, an anon one its DESC_ANON or DESC_ANON_LARGE), slab
 * and bump block, one per page-table and zsmalloc page; a what-if folio
 * size moves every folio descriptor by the same bytes.
 *
 * With LAYOUT MIX RAM_BYTES SEED FOLIO_BYTES HVO: prints that memmap's
 * footprint as "memmap_bytes desc_bytes desc_count desc_reserved_bytes
 * folio_desc_bytes", then its HVO share, "folios optimised vmemmap kept
 * freed shared pgtable mappings" (hvo.h; 0s with HVO off), then what
 * memmap_measure() says, "memmap desc", then the held descriptor bytes
 * and the CPU count they are held for, "desc_held slab_cpus", for
 * test_bench_footprint.py to compare with mdbench's counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "test_common.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)

/* The --desc-cache option the printer builds with (its 7th argument; default rcu, the run's). */
static enum desc_cache_kind desc_cache;

/* mix_name, or NULL and the mix in *mix. */
static int build(struct memmap **mm, const struct layout_ops *ops, const char *mix_name,
		 unsigned long nr_pfns, uint64_t seed, unsigned int folio_bytes, enum hvo_mode hvo,
		 struct mix *mix)
{
	struct memmap_opts opts = { .seed = seed, .folio_desc_bytes = folio_bytes, .hvo = hvo,
				     .desc_cache = desc_cache };
	struct mdb_err merr;

	if (mix_name && mix_resolve(mix_name, mix, &merr)) {
		fprintf(stderr, "test_bench_footprint: mix %s: %s\n", mix_name, merr.msg);
		return -1;
	}
	if (ops->memmap_create(mm, nr_pfns, mix, &opts, &merr)) {
		fprintf(stderr, "test_bench_footprint: %s/%s: %s\n", ops->name, mix->name, merr.msg);
		return -1;
	}
	return 0;
}

/*
 * The bytes one descriptor counts for at folio_bytes: the layout's own
 * sizes, the folio ones moved by folio_bytes - sizeof(struct folio);
 * the others, from caches TYPESAFE_BY_RCU without freeptr_offset (the
 * default --desc-rcu=all), a free pointer word more, rounded to 16 bytes.
 */
static void sizes_at(const struct layout_ops *ops, unsigned int folio_bytes, size_t size[DESC_NR])
{
	long delta = folio_bytes ? (long)folio_bytes - (long)ops->desc_size[DESC_FOLIO] : 0;
	int t;

	for (t = 0; t < DESC_NR; t++)
		size[t] = desc_type_is_folio(t) || !ops->desc_size[t] ? ops->desc_size[t] :
			  (ops->desc_size[t] + sizeof(void *) + 15) / 16 * 16;
	if (!ops->desc_size[DESC_FOLIO])
		return;
	for (t = 0; t < DESC_NR; t++)
		if (desc_type_is_folio(t))
			size[t] += delta;
}

/* mix_name, or NULL and the mix in mix. */
static void expect(const struct layout_ops *ops, const char *mix_name, struct mix mix,
		   unsigned long nr_pfns, unsigned int folio_bytes)
{
	size_t size[DESC_NR];
	size_t want_bytes = 0, want_count = 0;
	struct mdb_err err;
	struct model_blocks b;
	struct footprint fp;
	struct memmap *mm;
	unsigned int k, o;

	if (build(&mm, ops, mix_name, nr_pfns, 1, folio_bytes, HVO_OFF, &mix) ||
	    model_count_blocks(&b, &mix, nr_pfns, 1, DESC_AGED, &err)) {
		CHECK(false, "%s: no memmap built, or no model of its blocks", ops->name);
		return;
	}
	mix_name = mix.name;
	ops->footprint(mm, &fp);
	ops->memmap_destroy(mm);
	sizes_at(ops, folio_bytes, size);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			/* One descriptor a folio, slab or page-pool block; one a page of the others. */
			const size_t per_block[PK_NR] = {
				[PK_ANON] = size[folio_desc_type(PK_ANON, o)],
				[PK_FILE] = size[folio_desc_type(PK_FILE, o)],
				[PK_HUGETLB] = size[folio_desc_type(PK_HUGETLB, o)],
				[PK_SLAB] = size[DESC_SLAB], [PK_NETMEM] = size[DESC_BUMP] };
			const size_t per_page[PK_NR] = { [PK_PGTABLE] = size[DESC_PTDESC],
							 [PK_ZSMALLOC] = size[DESC_ZPDESC] };
			size_t n = b.nr[k][o];

			if (per_block[k]) {
				want_bytes += n * per_block[k];
				want_count += n;
			} else if (per_page[k]) {
				want_bytes += (n << o) * per_page[k];
				want_count += n << o;
			}
		}
	CHECK(fp.memmap_bytes == nr_pfns * ops->page_size && fp.desc_bytes == want_bytes &&
	      fp.desc_count == want_count && fp.folio_desc_bytes == size[DESC_FOLIO],
	      "%s/%s/folio:%uB: memmap %zu, descriptors %zu bytes in %zu (folio %zu); expected %zu, "
	      "%zu in %zu (folio %zu)", ops->name, mix_name, folio_bytes, fp.memmap_bytes,
	      fp.desc_bytes, fp.desc_count, fp.folio_desc_bytes, nr_pfns * ops->page_size,
	      want_bytes, want_count, size[DESC_FOLIO]);
	CHECK(fp.desc_reserved_bytes >= fp.desc_bytes, "%s/%s: %zu descriptor bytes live in %zu reserved",
	      ops->name, mix_name, fp.desc_bytes, fp.desc_reserved_bytes);
	CHECK(fp.desc_held_bytes >= fp.desc_reserved_bytes &&
	      (desc_slab_cpus() > 1 || fp.desc_held_bytes == fp.desc_reserved_bytes),
	      "%s/%s: %zu bytes held on %u CPUs, %zu reserved on one", ops->name, mix_name,
	      fp.desc_held_bytes, desc_slab_cpus(), fp.desc_reserved_bytes);
}

static int print_one(char **argv)
{
	const struct layout_ops *ops = layout_by_name(argv[1]);
	unsigned long long ram = strtoull(argv[3], NULL, 10);
	int hvo = hvo_mode_from_name(argv[6]);
	int cache = argv[7] ? desc_cache_kind_from_name(argv[7]) : (int)DESC_CACHE_RCU;
	struct footprint_measured m;
	struct footprint fp;
	struct memmap *mm;
	struct mix mix;

	if (!ops || !ram || ram % MDB_PAGE_SIZE || hvo < 0 || cache < 0) {
		fprintf(stderr, "test_bench_footprint: bad layout, RAM size, HVO mode or cache option\n");
		return 2;
	}
	desc_cache = (enum desc_cache_kind)cache;
	if (build(&mm, ops, argv[2], ram / MDB_PAGE_SIZE, strtoull(argv[4], NULL, 10),
		  (unsigned int)strtoul(argv[5], NULL, 10), (enum hvo_mode)hvo, &mix))
		return 1;
	ops->footprint(mm, &fp);
	if (memmap_measure(mm, &m)) {
		ops->memmap_destroy(mm);
		return 1;
	}
	printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %lu %zu %zu %zu %u\n", fp.memmap_bytes,
	       fp.desc_bytes, fp.desc_count, fp.desc_reserved_bytes, fp.folio_desc_bytes,
	       fp.hvo.folios, fp.hvo.optimised, fp.hvo.vmemmap_bytes, fp.hvo.kept_bytes,
	       fp.hvo.freed_bytes, fp.hvo.shared_bytes, fp.hvo.pgtable_bytes, mm->hvo.nr_mappings,
	       m.memmap_bytes, m.desc_bytes, fp.desc_held_bytes, desc_slab_cpus());
	ops->memmap_destroy(mm);
	return 0;
}

/*
 * "-": one request a line on stdin (the arguments above, blank-separated),
 * one line printed for each: one process for all of a test's builds, so
 * the allocation trace of a mix and size runs once (age_memo.h) rather
 * than in a process per build.
 */
static int print_each(void)
{
	char line[1024], *arg[9], *save;
	int n, ret;

	while (fgets(line, sizeof(line), stdin)) {
		arg[0] = "-";
		for (n = 1; n < 9 && (arg[n] = strtok_r(n == 1 ? line : NULL, " \t\n", &save)); n++)
			;
		if (n != 7 && n != 8) {
			fprintf(stderr, "test_bench_footprint: want 6 or 7 fields a line, got %d\n", n - 1);
			return 2;
		}
		arg[n] = NULL;
		ret = print_one(arg);
		fflush(stdout);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int folio_bytes[] = { 0, 64, 96, 128 };
	/* 2 GiB and a bit: one 1 GiB folio, 2 MiB ones, free order-10 blocks. */
	static const struct mix_entry hugetlb[] = {
		{ PK_HUGETLB, MIX_4K_HUGETLB_PUD, 0.5 }, { PK_HUGETLB, MIX_4K_HUGETLB_PMD, 0.2 },
		{ PK_FILE, 3, 0.1 }, { PK_FREE, 10, 0.1 }, { PK_SLAB, 1, 0.05 },
		{ PK_PGTABLE, 0, 0.05 },
	};
	struct mix none = { .name = "" }, big = { .name = "hugetlb", .nr = 6 };
	unsigned int l, m, f;

	if (argc == 7 || argc == 8)
		return print_one(argv);
	if (argc == 2 && !strcmp(argv[1], "-"))
		return print_each();
	if (argc != 1) {
		fprintf(stderr, "usage: test_bench_footprint [LAYOUT MIX RAM_BYTES SEED FOLIO_BYTES HVO [DESC_CACHE] | -]\n");
		return 2;
	}
	memcpy(big.entry, hugetlb, sizeof(hugetlb));
	for (l = 0; mdb_layouts[l]; l++) {
		for (m = 0; mix_builtin_names[m]; m++)
			for (f = 0; f < sizeof(folio_bytes) / sizeof(folio_bytes[0]); f++)
				expect(mdb_layouts[l], mix_builtin_names[m], none, NR_PFNS, folio_bytes[f]);
		expect(mdb_layouts[l], NULL, big, (1UL << 19) + 3 * 512 + 1, 0);
	}
	if (failures) {
		fprintf(stderr, "test_bench_footprint: %d checks failed\n", failures);
		return 1;
	}
	printf("test_bench_footprint: all layouts and mixes as expected\n");
	return 0;
}
