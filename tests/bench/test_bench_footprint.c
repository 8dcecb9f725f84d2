// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_footprint.c - the bytes the footprint benchmark reports.
 *
 * Without arguments: for every layout and built-in mix, ops->footprint() of a
 * fresh memmap equals what the mix's blocks must cost, counted independently:
 * sizeof(struct page) per pfn, and for the memdesc layouts one descriptor per
 * folio, slab and netmem block and one per page-table and zsmalloc page, of
 * the sizes memdesc.h fixes (slab 64, ptdesc 64, zpdesc 48, netmem 48).
 *
 * With LAYOUT MIX RAM_BYTES SEED: prints that memmap's footprint as
 * "memmap_bytes desc_bytes desc_count desc_reserved_bytes", for
 * test_bench_footprint.py to compare with mdbench's counters.
 */
#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "test_common.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)

static int build(struct memmap **mm, const struct layout_ops *ops, const char *mix_name,
		 unsigned long nr_pfns, uint64_t seed, struct mix *mix)
{
	struct memmap_opts opts = { .seed = seed };
	struct mdb_err merr;

	if (mix_resolve(mix_name, mix, &merr)) {
		fprintf(stderr, "test_bench_footprint: mix %s: %s\n", mix_name, merr.msg);
		return -1;
	}
	if (ops->memmap_create(mm, nr_pfns, mix, &opts, &merr)) {
		fprintf(stderr, "test_bench_footprint: %s/%s: %s\n", ops->name, mix_name, merr.msg);
		return -1;
	}
	return 0;
}

static void expect(const struct layout_ops *ops, const char *mix_name)
{
	/* One descriptor a folio, slab or page-pool block; one a page of the others. */
	const size_t per_block[PK_NR] = { [PK_ANON] = ops->desc_size[DESC_FOLIO],
					  [PK_FILE] = ops->desc_size[DESC_FOLIO],
					  [PK_SLAB] = ops->desc_size[DESC_SLAB],
					  [PK_NETMEM] = ops->desc_size[DESC_NETMEM] };
	const size_t per_page[PK_NR] = { [PK_PGTABLE] = ops->desc_size[DESC_PTDESC],
					 [PK_ZSMALLOC] = ops->desc_size[DESC_ZPDESC] };
	size_t want_bytes = 0, want_count = 0;
	struct mdb_err err;
	struct model_blocks b;
	struct footprint fp;
	struct memmap *mm;
	struct mix mix;
	unsigned int k, o;

	if (build(&mm, ops, mix_name, NR_PFNS, 1, &mix) ||
	    model_count_blocks(&b, &mix, NR_PFNS, 1, &err)) {
		failures++;
		return;
	}
	ops->footprint(mm, &fp);
	ops->memmap_destroy(mm);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o <= MAX_FOLIO_ORDER; o++) {
			size_t n = b.nr[k][o];

			if (per_block[k]) {
				want_bytes += n * per_block[k];
				want_count += n;
			} else if (per_page[k]) {
				want_bytes += (n << o) * per_page[k];
				want_count += n << o;
			}
		}
	CHECK(fp.memmap_bytes == NR_PFNS * ops->page_size && fp.desc_bytes == want_bytes &&
	      fp.desc_count == want_count,
	      "%s/%s: memmap %zu, descriptors %zu bytes in %zu; expected %zu, %zu in %zu", ops->name,
	      mix_name, fp.memmap_bytes, fp.desc_bytes, fp.desc_count, NR_PFNS * ops->page_size,
	      want_bytes, want_count);
	CHECK(fp.desc_reserved_bytes >= fp.desc_bytes, "%s/%s: %zu descriptor bytes live in %zu reserved",
	      ops->name, mix_name, fp.desc_bytes, fp.desc_reserved_bytes);
}

static int print_one(char **argv)
{
	const struct layout_ops *ops = layout_by_name(argv[1]);
	unsigned long long ram = strtoull(argv[3], NULL, 10);
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
	ops->memmap_destroy(mm);
	printf("%zu %zu %zu %zu\n", fp.memmap_bytes, fp.desc_bytes, fp.desc_count,
	       fp.desc_reserved_bytes);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int l, m;

	if (argc == 5)
		return print_one(argv);
	if (argc != 1) {
		fprintf(stderr, "usage: test_bench_footprint [LAYOUT MIX RAM_BYTES SEED]\n");
		return 2;
	}
	for (l = 0; mdb_layouts[l]; l++)
		for (m = 0; mix_builtin_names[m]; m++)
			expect(mdb_layouts[l], mix_builtin_names[m]);
	if (failures) {
		fprintf(stderr, "test_bench_footprint: %d checks failed\n", failures);
		return 1;
	}
	printf("test_bench_footprint: all layouts and mixes as expected\n");
	return 0;
}
