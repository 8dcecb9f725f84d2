/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvo.h - HugeTLB Vmemmap Optimisation (HVO): which memmap pages of a
 * hugetlb folio each layout gives back, the remapping that gives them back
 * for real, and the static key behind page64's fake-head check.  Layout
 * independent: compiled once; memmap.c (per layout) says which folios and
 * onto which page.
 *
 * Documentation/mm/vmemmap_dedup.rst, mm/hugetlb_vmemmap.c: the 2^order
 * struct pages of a hugetlb folio fill 2^order * sizeof(struct page) /
 * PAGE_SIZE vmemmap pages (8 for 2 MiB, 4096 for 1 GiB at 64 bytes).  HVO
 * keeps HUGETLB_VMEMMAP_RESERVE_SIZE of them (one page since 5.18) and maps
 * the rest, read-only, onto a page with the same bytes;
 * hugetlb_vmemmap_optimizable_size() is what that frees.  What the rest map
 * onto is what the layouts differ in:
 *
 *  HVO_FAKE_HEAD	page64 (6.18): onto the folio's own first vmemmap
 *			page.  A tail at a page-aligned address then reads as
 *			the head (PG_head set): a fake head, which
 *			compound_head() must detect (page_fixed_fake_head(),
 *			behind hugetlb_optimize_vmemmap_key).
 *  HVO_SHARED_TAIL	page64ci (the compound_info series, v6/v7, 2026):
 *			every tail of an order holds the same mask, so the
 *			rest map onto one pre-initialised page of tails per
 *			order (vmemmap_shared_tail_page(): per node in v6, per
 *			zone in v7; one zone here); the head keeps its own
 *			page.  No fake heads.
 *  HVO_SAME_ENTRY	page64md, page32, memdesc8: every entry of a folio is the same
 *			bytes (the memdesc of the one folio descriptor; in
 *			page64md and page32 also the per-page flags fields, _mapcount -1
 *			and _refcount 0, which hugetlb never sets per page),
 *			so all pages of the folio's entries but the first map
 *			onto the first.  Entries of different folios differ
 *			(the pointer), so nothing is shared between folios.
 *			It frees a page only when the entries fill two or
 *			more: from order 10 in memdesc8 (512 entries a page:
 *			an order-9 folio's fill exactly one) and from order 8
 *			in page32 (128 a page: order 7 fills exactly one);
 *			page64md frees what 6.18 frees (7 of 8 at order 9).
 *			No kernel does this; it is the same opportunity,
 *			taken so that the comparison is like for like.
 *
 * For real (--hvo=on, struct hvo_map): the memmap is a memfd mapped shared
 * over the reserved vmemmap range, file offset = vmemmap offset, shared tail
 * pages after it.  Optimising a folio (hugetlb_vmemmap_optimize_folio() ->
 * vmemmap_remap_free()) maps each of its vmemmap pages beyond the reserve
 * read-only (MAP_FIXED) onto the target page's file offset, one mmap() per
 * page: the kernel rewrites one PTE each; replacing a mapping zaps the old
 * PTEs and flushes their TLB entries, as flush_tlb_kernel_range() does.
 * Then the pages they mapped are given back (fallocate(PUNCH_HOLE):
 * free_vmemmap_page_list()).  Restoring (hugetlb_vmemmap_restore_folio() ->
 * vmemmap_remap_alloc()) maps the range read-write back onto its own,
 * now empty, offsets in one mmap() and copies into every page what it read
 * through the shared page (vmemmap_restore_pte(): alloc, copy_page(), set
 * the PTE); page64's copies of the head page are reset as
 * reset_struct_pages() does (its first 4 entries from the next 4).  Left
 * out: the cross-CPU TLB shootdown (the process is one CPU's), the split of
 * a 2 MiB vmemmap PMD and its PTE page (the memfd is mapped with 4 KiB pages
 * from the start: a user-space mapping cannot be split from a 2 MiB page
 * into 4 KiB ones of other pages, so the whole memmap is 4 KiB-mapped where
 * the kernel keeps 2 MiB mappings outside the hugetlb folios), and the copy
 * of the head's vmemmap page to a new page that vmemmap_remap_free() makes
 * to keep the old vmemmap contiguous.  Each remapped page is a mapping of
 * its own (its file offset is not its neighbour's + 4 KiB), so a process
 * holds about one mapping per freed page: vm.max_map_count (65530 by
 * default) bounds the RAM a run can model with HVO on (hvo_map checks).
 * One thread at a time remaps (memmaps are built and changed from one), and
 * the key below changes only then.
 */
#ifndef MDB_HVO_H
#define MDB_HVO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mix.h"
#include "vmemmap.h"

struct mdb_err;

/*
 * The run's base page (basepage.h mdb_base): the vmemmap's pages, what HVO
 * keeps (HUGETLB_VMEMMAP_RESERVE_SIZE is PAGE_SIZE) and remaps.  The host
 * maps the memfd with its own 4 KiB pages; a 16 or 64 KiB tail page is
 * remapped as one mapping of that many bytes onto the whole target page,
 * so every 4 KiB of it reads what the kernel's would (fake heads at each
 * base-page-aligned entry, and only there).
 */
#define HVO_PAGE_SHIFT		(mdb_base.shift)
#define HVO_PAGE_SIZE		(1UL << HVO_PAGE_SHIFT)
#define HVO_MAX_PAGE_SIZE	(64UL << 10)	/* the largest base page: static buffers */
/* What one PTE page maps (a vmemmap PMD split): 2 MiB at 4k, 32 MiB at 16k, 512 MiB at 64k. */
#define HVO_PMD_SIZE		(1UL << (mdb_base.pmd_order + mdb_base.shift))
/* mm/hugetlb_vmemmap.c NR_RESET_STRUCT_PAGE (4 since struct folio spans 4 pages). */
#define HVO_RESET_STRUCT_PAGES	4

enum hvo_scheme {
	HVO_NONE,		/* nothing to give back */
	HVO_FAKE_HEAD,
	HVO_SHARED_TAIL,
	HVO_SAME_ENTRY,
};

/* A layout's HVO, its LAYOUT_HVO. */
struct layout_hvo {
	enum hvo_scheme scheme;
	unsigned int reserve_pages;	/* vmemmap pages a folio keeps its own */
};

/*
 * --hvo: whether the memmap is remapped.  Off is what Debian, Ubuntu and
 * Fedora kernels boot with: they build CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP
 * but not ..._DEFAULT_ON, so vm.hugetlb_optimize_vmemmap reads 0 until
 * hugetlb_free_vmemmap=on or the sysctl turns it on.
 */
enum hvo_mode {
	HVO_OFF,
	HVO_ON,
	HVO_MODE_NR
};

/* "off", "on"; and back, -1 for anything else. */
const char *hvo_mode_name(enum hvo_mode mode);
int hvo_mode_from_name(const char *name);

/*
 * vmemmap pages of 2^shift bytes (the base page: the vmemmap is mapped with
 * base pages) the entries of a 2^order folio fill; 0 when not whole pages.
 */
static inline unsigned long hvo_vmemmap_pages_at(size_t entry, unsigned int order,
						 unsigned int shift)
{
	size_t bytes = entry << order;

	return bytes & ((1UL << shift) - 1) ? 0 : bytes >> shift;
}

/*
 * What HVO gives back of one folio at that base page:
 * hugetlb_vmemmap_optimizable_size() in pages (HUGETLB_VMEMMAP_RESERVE_SIZE
 * is PAGE_SIZE: reserve_pages base pages are kept).
 */
static inline unsigned long hvo_freed_pages_at(const struct layout_hvo *h, size_t entry,
					       unsigned int order, unsigned int shift)
{
	unsigned long pages = hvo_vmemmap_pages_at(entry, order, shift);

	if (h->scheme == HVO_NONE || pages <= h->reserve_pages)
		return 0;
	return pages - h->reserve_pages;
}

/* The same at the run's base page. */
static inline unsigned long hvo_vmemmap_pages(size_t entry, unsigned int order)
{
	return hvo_vmemmap_pages_at(entry, order, HVO_PAGE_SHIFT);
}

static inline unsigned long hvo_freed_pages(const struct layout_hvo *h, size_t entry,
					    unsigned int order)
{
	return hvo_freed_pages_at(h, entry, order, HVO_PAGE_SHIFT);
}

/* A memmap's hugetlb folios as HVO leaves them; bytes throughout. */
struct hvo_footprint {
	size_t folios;		/* hugetlb folios */
	size_t optimised;	/* of them, those with pages to give back */
	size_t vmemmap_bytes;	/* their memmap entries, HVO off */
	size_t kept_bytes;	/* of those, the pages the optimised ones keep */
	size_t freed_bytes;	/* the pages given back */
	size_t shared_bytes;	/* pages all folios of an order map (HVO_SHARED_TAIL) */
	size_t pgtable_bytes;	/* PTE pages of the vmemmap PMDs the kernel splits */
};

/*
 * Accumulates a memmap's hugetlb folios (memmap.c walks them): start, one
 * call per folio, end.  The model is one node and one zone, so
 * HVO_SHARED_TAIL costs one shared page per order in use.
 */
struct hvo_walk {
	const struct layout_hvo *hvo;
	size_t entry;			/* sizeof(struct page) */
	unsigned long *pmd_split;	/* bitmap: the memmap's 2 MiB ranges split */
	unsigned long nr_pmds;
	bool order_shared[MIX_NR_ORDERS];
	struct hvo_footprint fp;
};

/* 0, or -1 when out of memory for the bitmap. */
int hvo_walk_start(struct hvo_walk *w, const struct layout_hvo *h, size_t entry,
		   unsigned long nr_pfns);
void hvo_walk_folio(struct hvo_walk *w, unsigned long head_pfn, unsigned int order);
void hvo_walk_end(struct hvo_walk *w, struct hvo_footprint *out);

/* ------------------------------------------------------------------------ */
/* The remapping.                                                           */

/*
 * One memmap's HVO state.  fd < 0: HVO off, the memmap is anonymous memory
 * and nothing here is used.
 */
struct hvo_map {
	int fd;				/* the memfd behind the memmap */
	char *base;			/* the memmap's first byte: file offset 0 */
	size_t memmap_bytes;		/* the memmap's own pages in the file */
	size_t file_bytes;		/* and the shared tail pages after them */
	off_t shared[MIX_NR_ORDERS];	/* HVO_SHARED_TAIL: each order's page; 0: none yet */
	unsigned long *optimised;	/* a bit per 2 MiB of pfns: the folio heading it is */
	unsigned long nr_pfns;
	unsigned long nr_optimised;	/* folios whose vmemmap is remapped */
	unsigned long nr_mappings;	/* mappings the remapped pages added */
	unsigned long max_mappings;	/* what vm.max_map_count leaves this memmap */
};

/* One folio's vmemmap, as memmap.c describes it to the remapping. */
struct hvo_folio {
	char *vaddr;			/* its first vmemmap page (page aligned) */
	unsigned long head_pfn;
	unsigned long pages;		/* vmemmap pages its entries fill */
	unsigned int reserve;		/* of them, those it keeps its own */
	off_t target;			/* file offset the others map onto */
	size_t reset_bytes;		/* restore: bytes of the copy reset from the next as many */
};

/* Fills a page of tail entries for a 2^order folio (HVO_SHARED_TAIL). */
typedef void hvo_fill_fn(void *page, unsigned int order);

/*
 * HVO off: nothing (fd -1).  HVO on: the reserved range v (4 KiB pages) made
 * a shared mapping of a new memfd of v->bytes, bind run before the first
 * touch.  0, or -1 with err (nothing left open).
 */
int hvo_map_init(struct hvo_map *h, struct vmemmap *v, unsigned long nr_pfns, bool on,
		 vmemmap_bind_fn *bind, void *bind_arg, struct mdb_err *err);
/* Closes the memfd; the caller unmaps the range (vmemmap_unmap()). */
void hvo_map_release(struct hvo_map *h);
static inline bool hvo_map_on(const struct hvo_map *h)
{
	return h->fd >= 0;
}

/* The file offset of order's shared tail page, filled by fill at its first use; -1 with err. */
off_t hvo_shared_page(struct hvo_map *h, unsigned int order, hvo_fill_fn *fill,
		      struct mdb_err *err);
/* Whether the folio heading head_pfn (order >= 9) is optimised. */
bool hvo_folio_optimised(const struct hvo_map *h, unsigned long head_pfn);
/* Remaps f as hugetlb_vmemmap_optimize_folio() does.  0, or -1 with err (f unchanged). */
int hvo_optimise(struct hvo_map *h, const struct hvo_folio *f, struct mdb_err *err);
/* Undoes it as hugetlb_vmemmap_restore_folio() does.  0, or -1 with err. */
int hvo_restore(struct hvo_map *h, const struct hvo_folio *f, struct mdb_err *err);
/*
 * What the process holds of the memmap, measured: the memfd's allocated
 * pages (each shared page once, however often it is mapped).  0, or -1.
 */
int hvo_map_held(const struct hvo_map *h, size_t *bytes);

/* vm.max_map_count, and the mappings this process has now; 0 when unknown. */
unsigned long hvo_max_map_count(void);
unsigned long hvo_map_count(void);

/* ------------------------------------------------------------------------ */
/* The static key.                                                          */

/*
 * hugetlb_optimize_vmemmap_key, which page_fixed_fake_head() tests first:
 * the kernel's static_branch_unlikely() is a 5-byte NOP while the key is off
 * and a jump to out-of-line code once on; 6.18 increments it for every folio
 * hugetlb_vmemmap_optimize_folio() remaps and decrements it on restore.
 * hvo_fake_head_key() compiles to the same NOP and the same out-of-line
 * block (asm goto); each site is listed in the section mdb_hvo_key as two
 * self-relative words (site, target), as the kernel's __jump_table.
 * hvo_key_inc() patches every site into a jump on the first increment
 * (arch_jump_label_transform(): text made writable for the store, then
 * read-only again; valgrind told to drop its translations), hvo_key_dec()
 * back into the NOP on the last decrement.  The key is process-wide, as
 * the kernel's is; it changes only while a memmap is built, optimised or
 * destroyed, never while a kernel runs.  Architectures without a patcher
 * here test a counter instead (a load and a branch: the key's cost is then
 * not the kernel's).
 */
#if defined(__x86_64__)
#define HVO_KEY_NOP	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"	/* nopl 0x0(%rax,%rax,1) */
#elif defined(__aarch64__)
#define HVO_KEY_NOP	"nop"
#endif

/* 0, or -1 with err when the text cannot be patched. */
int hvo_key_inc(struct mdb_err *err);
void hvo_key_dec(void);
/* How many increments it holds; the sites in the binary. */
unsigned long hvo_key_count(void);
unsigned int hvo_key_sites(void);

#ifdef HVO_KEY_NOP
static inline __attribute__((always_inline)) bool hvo_fake_head_key(void)
{
	asm goto("1:\t" HVO_KEY_NOP "\n\t"
		 ".pushsection mdb_hvo_key, \"aw\"\n\t"
		 ".balign 4\n\t"
		 ".long 1b - ., %l[on] - .\n\t"
		 ".popsection"
		 : : : : on);
	return false;
on:
	return true;
}
#else
extern unsigned long hvo_key_counter;

static inline bool hvo_fake_head_key(void)
{
	return __builtin_expect(__atomic_load_n(&hvo_key_counter, __ATOMIC_RELAXED) != 0, 0);
}
#endif

#endif /* MDB_HVO_H */
