// SPDX-License-Identifier: GPL-2.0
/*
 * hvo.c - HugeTLB Vmemmap Optimisation (see hvo.h): what it leaves of a
 * memmap's hugetlb folios, computed; the memfd and the remapping that do it
 * for real; the static key of page64's fake-head check.  Compiled once.
 */
#define _GNU_SOURCE		/* memfd_create, fallocate */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef VALGRIND_DISCARD_TRANSLATIONS
#define VALGRIND_DISCARD_TRANSLATIONS(addr, len)	((void)(addr), (void)(len))
#endif

#include "err.h"
#include "hvo.h"
#include "units.h"

#define BITS_PER_LONG	(8 * sizeof(unsigned long))
/* Mappings left to everything else a process maps (libraries, descriptor caches, ...). */
#define MAPPINGS_SLACK	1024

static const char *const mode_name[HVO_MODE_NR] = {
	[HVO_OFF] = "off",
	[HVO_ON] = "on",
};

const char *hvo_mode_name(enum hvo_mode mode)
{
	return mdb_name_of(mode_name, HVO_MODE_NR, mode);
}

int hvo_mode_from_name(const char *name)
{
	return mdb_parse_name(name, mode_name, HVO_MODE_NR);
}

/* ------------------------------------------------------------------------ */
/* Computed.                                                                */

int hvo_walk_start(struct hvo_walk *w, const struct layout_hvo *h, size_t entry,
		   unsigned long nr_pfns)
{
	memset(w, 0, sizeof(*w));
	w->hvo = h;
	w->entry = entry;
	w->nr_pmds = (nr_pfns * entry + HVO_PMD_SIZE - 1) / HVO_PMD_SIZE;
	w->pmd_split = calloc((w->nr_pmds + BITS_PER_LONG - 1) / BITS_PER_LONG + 1,
			      sizeof(*w->pmd_split));
	return w->pmd_split ? 0 : -1;
}

/* Marks the 2 MiB vmemmap ranges [start, end) bytes touch; new ones cost a PTE page. */
static void split_pmds(struct hvo_walk *w, size_t start, size_t end)
{
	unsigned long pmd;

	for (pmd = start / HVO_PMD_SIZE; pmd < (end + HVO_PMD_SIZE - 1) / HVO_PMD_SIZE; pmd++) {
		unsigned long *word = &w->pmd_split[pmd / BITS_PER_LONG];
		unsigned long bit = 1UL << (pmd % BITS_PER_LONG);

		if (!(*word & bit))
			w->fp.pgtable_bytes += HVO_PAGE_SIZE;
		*word |= bit;
	}
}

void hvo_walk_folio(struct hvo_walk *w, unsigned long head_pfn, unsigned int order)
{
	unsigned long freed = hvo_freed_pages(w->hvo, w->entry, order);
	size_t start = head_pfn * w->entry, bytes = w->entry << order;

	w->fp.folios++;
	w->fp.vmemmap_bytes += bytes;
	if (!freed)
		return;
	w->fp.optimised++;
	w->fp.kept_bytes += bytes - freed * HVO_PAGE_SIZE;
	w->fp.freed_bytes += freed * HVO_PAGE_SIZE;
	if (w->hvo->scheme == HVO_SHARED_TAIL && order < MIX_NR_ORDERS && !w->order_shared[order]) {
		w->order_shared[order] = true;
		w->fp.shared_bytes += HVO_PAGE_SIZE;
	}
	split_pmds(w, start, start + bytes);
}

void hvo_walk_end(struct hvo_walk *w, struct hvo_footprint *out)
{
	*out = w->fp;
	free(w->pmd_split);
	memset(w, 0, sizeof(*w));
}

/* ------------------------------------------------------------------------ */
/* The remapping.                                                           */

static unsigned long read_ulong(const char *path)
{
	unsigned long v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

unsigned long hvo_max_map_count(void)
{
	return read_ulong("/proc/sys/vm/max_map_count");
}

unsigned long hvo_map_count(void)
{
	unsigned long n = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strchr(line, '\n') != NULL;
	fclose(f);
	return n;
}

int hvo_map_init(struct hvo_map *h, struct vmemmap *v, unsigned long nr_pfns, bool on,
		 vmemmap_bind_fn *bind, void *bind_arg, struct mdb_err *err)
{
	unsigned long max, now;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (!on)
		return 0;
	/* Only an HVO memmap maps page by page: the budget is read for it alone. */
	max = hvo_max_map_count();
	now = hvo_map_count();
	h->fd = memfd_create("mdb-memmap", MFD_CLOEXEC);
	if (h->fd < 0)
		return mdb_errf(err, "memfd_create: %s", strerror(errno));
	if (ftruncate(h->fd, (off_t)v->bytes)) {
		mdb_errf(err, "ftruncate of the memmap's memfd to %zu bytes: %s", v->bytes,
			 strerror(errno));
		goto fail;
	}
	h->optimised = calloc((nr_pfns >> HUGETLB_ORDER_PMD) / BITS_PER_LONG + 1,
			      sizeof(*h->optimised));
	if (!h->optimised) {
		mdb_errf(err, "out of memory for the HVO bitmap");
		goto fail;
	}
	if (vmemmap_populate_shared(v, h->fd, bind, bind_arg, err))
		goto fail;
	h->base = v->addr;
	h->memmap_bytes = h->file_bytes = v->bytes;
	h->nr_pfns = nr_pfns;
	h->max_mappings = !max ? ~0UL : max > now + MAPPINGS_SLACK ? max - now - MAPPINGS_SLACK : 0;
	return 0;
fail:
	hvo_map_release(h);
	return -1;
}

void hvo_map_release(struct hvo_map *h)
{
	if (h->fd >= 0)
		close(h->fd);
	free(h->optimised);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

off_t hvo_shared_page(struct hvo_map *h, unsigned int order, hvo_fill_fn *fill,
		      struct mdb_err *err)
{
	static unsigned char buf[HVO_MAX_PAGE_SIZE] __attribute__((aligned(64)));
	off_t off = (off_t)h->file_bytes;

	if (order >= MIX_NR_ORDERS)
		return mdb_errf(err, "no shared tail page for order %u", order);
	if (h->shared[order])
		return h->shared[order];
	memset(buf, 0, HVO_PAGE_SIZE);
	fill(buf, order);
	if (ftruncate(h->fd, off + (off_t)HVO_PAGE_SIZE) ||
	    pwrite(h->fd, buf, HVO_PAGE_SIZE, off) != (ssize_t)HVO_PAGE_SIZE)
		return mdb_errf(err, "the shared tail page of order %u: %s", order, strerror(errno));
	h->file_bytes += HVO_PAGE_SIZE;
	h->shared[order] = off;
	return off;
}

static unsigned long *optimised_word(const struct hvo_map *h, unsigned long head_pfn,
				     unsigned long *bit)
{
	unsigned long i = head_pfn >> HUGETLB_ORDER_PMD;

	*bit = 1UL << (i % BITS_PER_LONG);
	return &h->optimised[i / BITS_PER_LONG];
}

bool hvo_folio_optimised(const struct hvo_map *h, unsigned long head_pfn)
{
	unsigned long bit;

	return hvo_map_on(h) && head_pfn < h->nr_pfns && (*optimised_word(h, head_pfn, &bit) & bit);
}

static off_t file_offset(const struct hvo_map *h, const char *addr)
{
	return (off_t)(addr - h->base);
}

/* [addr, addr + len) onto its own file offsets again, read-write: one mapping. */
static int map_own(const struct hvo_map *h, char *addr, size_t len)
{
	return mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, h->fd,
		    file_offset(h, addr)) == MAP_FAILED ? -1 : 0;
}

int hvo_optimise(struct hvo_map *h, const struct hvo_folio *f, struct mdb_err *err)
{
	unsigned long n = f->pages - f->reserve, i, bit;
	char *tails = f->vaddr + f->reserve * HVO_PAGE_SIZE;

	if (!hvo_map_on(h) || f->pages <= f->reserve || hvo_folio_optimised(h, f->head_pfn))
		return 0;
	/*
	 * n pages mapped one by one in the middle of the memmap's own mapping
	 * make n + 1 mappings of one: the own pages after them become one of
	 * their own (restoring merges them back).  Counted as n, a 32 GiB
	 * database-256g memmap passed the budget unseen, and the mmap that
	 * failed left no mapping to undo it with.
	 */
	if (h->nr_mappings + n + 1 > h->max_mappings)
		return mdb_errf(err, "HVO: remapping the vmemmap of the folio at pfn %lu takes %lu "
				"more mappings, past what vm.max_map_count (%lu) leaves this "
				"process: model less RAM, or raise vm.max_map_count",
				f->head_pfn, n + 1, hvo_max_map_count());
	/* vmemmap_remap_pte(): each tail page read-only onto the target. */
	for (i = 0; i < n; i++)
		if (mmap(tails + i * HVO_PAGE_SIZE, HVO_PAGE_SIZE, PROT_READ,
			 MAP_SHARED | MAP_FIXED, h->fd, f->target) == MAP_FAILED)
			goto undo;
	/* free_vmemmap_page_list(): the pages they mapped go back. */
	if (fallocate(h->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, file_offset(h, tails),
		      (off_t)(n * HVO_PAGE_SIZE)))
		goto undo;
	h->nr_mappings += n + 1;
	h->nr_optimised++;
	*optimised_word(h, f->head_pfn, &bit) |= bit;
	return 0;
undo:
	mdb_errf(err, "HVO: remapping the vmemmap of the folio at pfn %lu: %s", f->head_pfn,
		 strerror(errno));
	if (map_own(h, tails, n * HVO_PAGE_SIZE))
		abort();	/* the memmap would have a hole: nothing sane is left to run */
	return -1;
}

int hvo_restore(struct hvo_map *h, const struct hvo_folio *f, struct mdb_err *err)
{
	static unsigned char buf[HVO_MAX_PAGE_SIZE] __attribute__((aligned(64)));
	unsigned long n = f->pages - f->reserve, i, bit;
	char *tails = f->vaddr + f->reserve * HVO_PAGE_SIZE;

	if (!hvo_folio_optimised(h, f->head_pfn))
		return 0;
	/* What every tail page reads now, the head's copies reset (reset_struct_pages()). */
	memcpy(buf, tails, HVO_PAGE_SIZE);
	if (f->reset_bytes)
		memcpy(buf, buf + f->reset_bytes, f->reset_bytes);
	/* vmemmap_remap_alloc(): the range read-write on pages of its own, each a copy. */
	if (map_own(h, tails, n * HVO_PAGE_SIZE))
		return mdb_errf(err, "HVO: restoring the vmemmap of the folio at pfn %lu: %s",
				f->head_pfn, strerror(errno));
	for (i = 0; i < n; i++)
		memcpy(tails + i * HVO_PAGE_SIZE, buf, HVO_PAGE_SIZE);
	h->nr_mappings -= n + 1;
	h->nr_optimised--;
	*optimised_word(h, f->head_pfn, &bit) &= ~bit;
	return 0;
}

int hvo_map_held(const struct hvo_map *h, size_t *bytes)
{
	struct stat st;

	if (!hvo_map_on(h) || fstat(h->fd, &st))
		return -1;
	*bytes = (size_t)st.st_blocks * 512;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The static key.                                                          */

/* An entry of mdb_hvo_key: the NOP's address and the jump's target, each relative to itself. */
struct hvo_key_site {
	int32_t site, target;
};

extern const struct hvo_key_site __start_mdb_hvo_key[] __attribute__((weak));
extern const struct hvo_key_site __stop_mdb_hvo_key[] __attribute__((weak));

unsigned long hvo_key_counter;

unsigned int hvo_key_sites(void)
{
	return __start_mdb_hvo_key ? (unsigned int)(__stop_mdb_hvo_key - __start_mdb_hvo_key) : 0;
}

unsigned long hvo_key_count(void)
{
	return hvo_key_counter;
}

#ifdef HVO_KEY_NOP
static unsigned char *site_addr(const struct hvo_key_site *s)
{
	return (unsigned char *)&s->site + s->site;
}

static unsigned char *target_addr(const struct hvo_key_site *s)
{
	return (unsigned char *)&s->target + s->target;
}

#if defined(__x86_64__)
#define INSN_LEN	5
static const unsigned char nop[INSN_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* jmp rel32 */
static void jump(unsigned char insn[INSN_LEN], const unsigned char *site, const unsigned char *to)
{
	int32_t rel = (int32_t)(to - (site + INSN_LEN));

	insn[0] = 0xe9;
	memcpy(insn + 1, &rel, sizeof(rel));
}
#else
#define INSN_LEN	4
static const unsigned char nop[INSN_LEN] = { 0x1f, 0x20, 0x03, 0xd5 };	/* d503201f */

/* b imm26 */
static void jump(unsigned char insn[INSN_LEN], const unsigned char *site, const unsigned char *to)
{
	uint32_t b = 0x14000000u | ((uint32_t)((to - site) >> 2) & 0x03ffffffu);

	memcpy(insn, &b, sizeof(b));
}
#endif

/* One site rewritten: its text page writable for the store, then as it was. */
static int patch(unsigned char *site, const unsigned char insn[INSN_LEN], struct mdb_err *err)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)site & ~(pg - 1);
	size_t len = ((uintptr_t)site + INSN_LEN + pg - 1 - start) & ~(pg - 1);

	if (mprotect((void *)start, len, PROT_READ | PROT_WRITE | PROT_EXEC))
		return mdb_errf(err, "the fake-head key: cannot make its text writable (%s)",
				strerror(errno));
	memcpy(site, insn, INSN_LEN);
	mprotect((void *)start, len, PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)site, (char *)site + INSN_LEN);
	VALGRIND_DISCARD_TRANSLATIONS(site, INSN_LEN);
	return 0;
}

/* Every site a jump (on) or the NOP (off); on failure, every site the NOP again. */
static int patch_all(bool on, struct mdb_err *err)
{
	const struct hvo_key_site *s;
	unsigned char insn[INSN_LEN];

	for (s = __start_mdb_hvo_key; s && s < __stop_mdb_hvo_key; s++) {
		if (on)
			jump(insn, site_addr(s), target_addr(s));
		if (patch(site_addr(s), on ? insn : nop, err)) {
			if (on)
				patch_all(false, err);
			return -1;
		}
	}
	return 0;
}
#else
static int patch_all(bool on, struct mdb_err *err)
{
	(void)on;
	(void)err;
	return 0;
}
#endif

int hvo_key_inc(struct mdb_err *err)
{
	if (!hvo_key_counter && patch_all(true, err))
		return -1;
	__atomic_store_n(&hvo_key_counter, hvo_key_counter + 1, __ATOMIC_RELAXED);
	return 0;
}

void hvo_key_dec(void)
{
	struct mdb_err err;

	if (!hvo_key_counter)
		return;
	__atomic_store_n(&hvo_key_counter, hvo_key_counter - 1, __ATOMIC_RELAXED);
	if (!hvo_key_counter)
		patch_all(false, &err);	/* putting the NOP back where a jump went cannot fail */
}
