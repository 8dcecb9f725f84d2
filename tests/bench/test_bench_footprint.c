// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_footprint.c - the bytes the footprint benchmark reports.
 *
 * Without arguments: for every layout and built-in mix, and a mix with 1 GiB
 * and 2 MiB hugetlb folios, ops->footprint() of a fresh memmap equals what
 * the mix's blocks must cost, counted independently: sizeof(struct page) per
 * pfn, and for the memdesc layouts one descriptor per folio (hugetlb ones
 * too), slab and netmem block and one per page-table and zsmalloc page, of
 * the sizes memdesc.h fixes (slab 64, ptdesc 64, zpdesc 48, netmem 48).
 *
 * With LAYOUT MIX RAM_BYTES SEED: prints that memmap's footprint as
 * "memmap_bytes desc_bytes desc_count desc_reserved_bytes", then what
 * ops->footprint_hvo() says, "folios optimised vmemmap kept freed shared
 * pgtable" (hvo.h), for test_bench_footprint.py to compare with mdbench's
 * counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "test_common.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)

static int build(struct memmap **mm, const struct layout_ops *ops, const char *mix_name,
		 unsigned long nr_pfns, uint64_t seed, struct mix *mix)
{
	struct memmap_opts opts = { .seed = seed };
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

/* mix_name, or NULL and the mix in *mix. */
static void expect(const struct layout_ops *ops, const char *mix_name, struct mix mix,
		   unsigned long nr_pfns)
{
	/* One descriptor a folio, slab or page-pool block; one a page of the others. */
	const size_t per_block[PK_NR] = { [PK_ANON] = ops->desc_size[DESC_FOLIO],
					  [PK_FILE] = ops->desc_size[DESC_FOLIO],
					  [PK_HUGETLB] = ops->desc_size[DESC_FOLIO],
					  [PK_SLAB] = ops->desc_size[DESC_SLAB],
					  [PK_NETMEM] = ops->desc_size[DESC_NETMEM] };
	const size_t per_page[PK_NR] = { [PK_PGTABLE] = ops->desc_size[DESC_PTDESC],
					 [PK_ZSMALLOC] = ops->desc_size[DESC_ZPDESC] };
	size_t want_bytes = 0, want_count = 0;
	struct mdb_err err;
	struct model_blocks b;
	struct footprint fp;
	struct memmap *mm;
	unsigned int k, o;

	if (build(&mm, ops, mix_name, nr_pfns, 1, &mix) ||
	    model_count_blocks(&b, &mix, nr_pfns, 1, &err)) {
		failures++;
		return;
	}
	mix_name = mix.name;
	ops->footprint(mm, &fp);
	ops->memmap_destroy(mm);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
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
	      fp.desc_count == want_count,
	      "%s/%s: memmap %zu, descriptors %zu bytes in %zu; expected %zu, %zu in %zu", ops->name,
	      mix_name, fp.memmap_bytes, fp.desc_bytes, fp.desc_count, nr_pfns * ops->page_size,
	      want_bytes, want_count);
	CHECK(fp.desc_reserved_bytes >= fp.desc_bytes, "%s/%s: %zu descriptor bytes live in %zu reserved",
	      ops->name, mix_name, fp.desc_bytes, fp.desc_reserved_bytes);
}

static int print_one(char **argv)
{
	const struct layout_ops *ops = layout_by_name(argv[1]);
	unsigned long long ram = strtoull(argv[3], NULL, 10);
	struct hvo_footprint h;
	struct footprint fp;
	struct memmap *mm;
	struct mix mix;

	if (!ops || !ram || ram % MDB_PAGE_SIZE) {
		fprintf(stderr, "test_bench_footprint: bad layout or RAM size\n");
		return 2;
	}
	if (build(&mm, ops, argv[2], ram / MDB_PAGE_SIZE, strtoull(argv[4], NULL, 10), &mix))
		return 1;
	ops->footprint(mm, &fp);
	if (ops->footprint_hvo(mm, &h)) {
		ops->memmap_destroy(mm);
		return 1;
	}
	ops->memmap_destroy(mm);
	printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\n", fp.memmap_bytes, fp.desc_bytes,
	       fp.desc_count, fp.desc_reserved_bytes, h.folios, h.optimised, h.vmemmap_bytes,
	       h.kept_bytes, h.freed_bytes, h.shared_bytes, h.pgtable_bytes);
	return 0;
}

int main(int argc, char **argv)
{
	/* 2 GiB and a bit: one 1 GiB folio, 2 MiB ones, free order-10 blocks. */
	static const struct mix_entry hugetlb[] = {
		{ PK_HUGETLB, HUGETLB_ORDER_PUD, 0.5 }, { PK_HUGETLB, HUGETLB_ORDER_PMD, 0.2 },
		{ PK_FILE, 3, 0.1 }, { PK_FREE, 10, 0.1 }, { PK_SLAB, 1, 0.05 },
		{ PK_PGTABLE, 0, 0.05 },
	};
	struct mix none = { .name = "" }, big = { .name = "hugetlb", .nr = 6 };
	unsigned int l, m;

	if (argc == 5)
		return print_one(argv);
	if (argc != 1) {
		fprintf(stderr, "usage: test_bench_footprint [LAYOUT MIX RAM_BYTES SEED]\n");
		return 2;
	}
	memcpy(big.entry, hugetlb, sizeof(hugetlb));
	for (l = 0; mdb_layouts[l]; l++) {
		for (m = 0; mix_builtin_names[m]; m++)
			expect(mdb_layouts[l], mix_builtin_names[m], none, NR_PFNS);
		expect(mdb_layouts[l], NULL, big, (1UL << 19) + 3 * 512 + 1);
	}
	if (failures) {
		fprintf(stderr, "test_bench_footprint: %d checks failed\n", failures);
		return 1;
	}
	printf("test_bench_footprint: all layouts and mixes as expected\n");
	return 0;
}
