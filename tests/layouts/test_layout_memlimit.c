// SPDX-License-Identifier: GPL-2.0
/*
 * test_layout_memlimit.c - a memmap larger than MemAvailable is refused up
 * front with one clear line, in every layout, before anything is mapped.
 */
#include <sys/resource.h>

#include "meminfo.h"
#include "test_layout_common.h"

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void check_refused(const struct layout_ops *ops, unsigned long long avail)
{
	/* Twice what is available, in whole GiB of modelled RAM. */
	unsigned long gib_pfns = 1UL << (30 - MDB_PAGE_SHIFT);
	unsigned long nr_pfns = ((2 * avail / ops->page_size) / gib_pfns + 1) * gib_pfns;
	unsigned long long need_mib = (unsigned long long)nr_pfns * ops->page_size >> 20;
	unsigned long ram_gib = 0, got_need = 0, got_avail = 0;
	struct mdb_err err = { { 0 } };
	struct memmap *mm = (struct memmap *)1;
	long rss0 = max_rss_kb();
	struct mix mix;
	char tail[32] = "", unit[8] = "";
	int n;

	CHECK(!mix_builtin("free", &mix, &err), "%s", err.msg);
	CHECK(ops->memmap_create(&mm, nr_pfns, &mix, NULL, &err) == -1 && !mm,
	      "%s: a %lu-pfn memmap was not refused", ops->name, nr_pfns);
	n = sscanf(err.msg, "memmap for %lu%3[KMGTi]B needs %lu MiB, only %lu MiB %31s", &ram_gib,
		   unit, &got_need, &got_avail, tail);
	CHECK(n == 5 && !strcmp(tail, "available"), "%s: message \"%s\"", ops->name, err.msg);
	if (!strcmp(unit, "Ti"))	/* the size is written in its largest exact unit */
		ram_gib <<= 10;
	CHECK(ram_gib == nr_pfns / gib_pfns && got_need == need_mib,
	      "%s: \"%s\", expected %lu GiB and %llu MiB", ops->name, err.msg, nr_pfns / gib_pfns,
	      need_mib);
	CHECK(got_avail < got_need, "%s: \"%s\"", ops->name, err.msg);
	CHECK(!strchr(err.msg, '\n'), "one line");
	CHECK(max_rss_kb() - rss0 < 64 * 1024, "%s: refusing cost %ld KiB of memory", ops->name,
	      max_rss_kb() - rss0);
}

int main(void)
{
	unsigned long long avail = mdb_mem_available();
	const struct layout_ops *const *ops;

	if (!avail) {
		printf("SKIP: /proc/meminfo has no MemAvailable\n");
		return 77;
	}
	for (ops = mdb_layouts; *ops; ops++)
		check_refused(*ops, avail);
	if (failures)
		return 1;
	printf("memlimit: ok\n");
	return 0;
}
