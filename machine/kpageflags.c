// SPDX-License-Identifier: GPL-2.0
/*
 * kpageflags.c - a mix from a /proc/kpageflags snapshot of the running
 * machine (mix_from_kpageflags()), its unflagged pfns told apart with
 * /proc/zoneinfo, /proc/buddyinfo and /proc/iomem beside it, and the
 * snapshot's placement kept for mix_plan_init() (struct mix_placed:
 * mix_release(), mix_placed_save(), mix_placed_load()).  The rest of a mix,
 * its kinds, built-in profiles, JSON and placement, is mix.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "grow.h"
#include "mix.h"
/*
 * Bits from include/uapi/linux/kernel-page-flags.h; KPF_RESERVED is one of
 * the "kernel hacking assistance" bits of include/linux/kernel-page-flags.h,
 * exported all the same by fs/proc/page.c:stable_page_flags().
 */
#define KPF_LRU			5
#define KPF_SLAB		7
#define KPF_BUDDY		10
#define KPF_MMAP		11
#define KPF_ANON		12
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_NOPAGE		20
#define KPF_THP			22
#define KPF_OFFLINE		23
#define KPF_ZERO_PAGE		24
#define KPF_IDLE		25
#define KPF_PGTABLE		26
#define KPF_RESERVED		32

#define KPF(bit)		(1ULL << KPF_##bit)

#define KPF_CHUNK_ENTRIES	8192	/* 64 KiB per read(): memory stays bounded */

/*
 * A run is the block being assembled while pfns stream by: a compound page
 * (head, then tails), or free pages.  Free pages come in two dialects:
 * current kernels flag every pfn of a free block KPF_BUDDY (stable_page_flags()
 * adds is_free_buddy_page() for pages with no references), older ones only its
 * first, leaving the rest without flags.  The second pfn of a free run says
 * which one this kernel speaks.
 */
enum kpf_run {
	RUN_NONE,
	RUN_COMPOUND,
	RUN_FREE,		/* only the first free pfn so far */
	RUN_FREE_FLAGGED,	/* every pfn KPF_BUDDY: exact */
	RUN_FREE_UNFLAGGED,	/* head, then unflagged pfns: order inferred */
	RUN_UNFLAGGED,		/* pfns without any flag, in one zone: decided at the end */
};

/*
 * A pfn with no flag at all is free memory on some kernels (a free block's
 * pages past its head; free pages of a VM's memory the kernel reports
 * unflagged) and reserved memory on others (present but never managed:
 * memblock reservations, a balloon), or not memory at all (a hole in the
 * physical map that has a memmap).  kpageflags alone cannot tell; beside it
 * in the same directory:
 *  - /proc/iomem: an unflagged pfn outside every "System RAM" range is a
 *    hole, left out of the mix like KPF_NOPAGE;
 *  - /proc/zoneinfo: each zone's span (start_pfn, spanned), and present -
 *    managed, the pages the buddy allocator never got (reported);
 *  - /proc/buddyinfo: each zone's free pages (the free_area counts the
 *    buddy keeps, mm/vmstat.c frag_show_print()).  Free pages the scan did
 *    not find flagged KPF_BUDDY in a zone are taken from its unflagged
 *    pfns, largest aligned blocks first; the rest of them is reserved.
 * Without zoneinfo and buddyinfo every unflagged pfn is reserved, and the
 * mix says so (mix->classified).
 */
#define KPF_MAX_ZONES		32	/* (node, zone) pairs; one more: pfns in none */

struct kpf_zone {
	int node;
	char name[16];
	uint64_t start, end;		/* [start_pfn, start_pfn + spanned) */
	unsigned long long spanned, present, managed;
	unsigned long long buddy_free;	/* /proc/buddyinfo */
	unsigned long long flagged_free;	/* free pfns the scan found flagged */
	unsigned long long unflagged[MIX_4K_MAX_PAGE_ORDER + 1];	/* aligned blocks, in pages */
	unsigned long long take[MIX_4K_MAX_PAGE_ORDER + 1];	/* of them, blocks counted free */
};

struct kpf_ram {
	uint64_t start, end;		/* pfns of a System RAM range: [start, end) */
};

struct kpf_scan {
	unsigned long long pages[PK_NR][MIX_NR_ORDERS];
	unsigned long long total;	/* pfns that are memory: not holes */
	enum kpf_run run;
	enum page_kind kind;
	uint64_t start, len;
	unsigned int zone;		/* RUN_UNFLAGGED's */
	/* The evidence for unflagged pfns; nr_zones 0 or nr_ram 0: none. */
	struct kpf_zone zones[KPF_MAX_ZONES + 1];
	unsigned int nr_zones;
	struct kpf_ram *ram;
	unsigned int nr_ram, ram_at;
	unsigned long long holes;	/* unflagged pfns outside System RAM */
	bool have_buddy;		/* buddyinfo read for the zones */
	/* Where each block lies (struct mix_placed), the unflagged blocks decided last. */
	uint8_t *code;
	uint64_t nr_code;
	size_t cap_code;
	struct kpf_undecided {
		uint64_t pfn;
		unsigned int order, zone;
	} *und;
	uint64_t nr_und;
	size_t cap_und;
	bool oom;
};

/* Grows *buf (of *cap elements of size) to hold want, the new room zeroed; false when out of memory. */
static bool kpf_grow(void **buf, size_t *cap, size_t want, size_t size)
{
	size_t old = *cap;
	void *p = mdb_grow(*buf, cap, want, size);

	if (!p)
		return false;
	memset((char *)p + old * size, 0, (*cap - old) * size);
	*buf = p;
	return true;
}

/* Where the snapshot saw a block: its head's code (tails stay 0). */
static void kpf_place(struct kpf_scan *s, enum page_kind kind, uint64_t pfn, unsigned int order)
{
	if (!kpf_grow((void **)&s->code, &s->cap_code, pfn + (1ULL << order), 1)) {
		s->oom = true;
		return;
	}
	s->code[pfn] = mix_placed_code(kind, order);
	if (s->nr_code < pfn + (1ULL << order))
		s->nr_code = pfn + (1ULL << order);
}

/* A block of the mix, counted and placed where it lies. */
static void kpf_block(struct kpf_scan *s, enum page_kind kind, uint64_t pfn, unsigned int order)
{
	s->pages[kind][order] += 1ULL << order;
	kpf_place(s, kind, pfn, order);
}

static int read_error(struct mdb_err *err, const char *path, int error)
{
	return mdb_errf(err, "cannot read %s: %s%s", path, strerror(error),
			error == EACCES || error == EPERM ? " (needs root)" : "");
}

/*
 * stable_page_flags() sets KPF_HUGE on every page of a hugetlb folio
 * (folio_test_hugetlb() of page_folio()), whether hugetlbfs, SHM_HUGETLB or
 * MAP_HUGETLB|MAP_ANONYMOUS, in use or free in the pool: a kind of its own,
 * before anon.
 */
static enum page_kind kpf_kind(uint64_t flags)
{
	if (flags & KPF(HUGE))
		return PK_HUGETLB;
	if (flags & KPF(SLAB))
		return PK_SLAB;
	if (flags & KPF(PGTABLE))
		return PK_PGTABLE;
	if (flags & (KPF(RESERVED) | KPF(ZERO_PAGE) | KPF(OFFLINE)))
		return PK_RESERVED;
	if (flags & KPF(ANON))
		return PK_ANON;
	/* Not anon, so page cache: on an LRU, mapped, or a THP. */
	if (flags & (KPF(LRU) | KPF(MMAP) | KPF(THP)))
		return PK_FILE;
	/*
	 * Kernel allocations kpageflags does not name (vmalloc, stacks, page
	 * pools, zsmalloc, per-cpu free lists) and present but unmanaged memory.
	 */
	return PK_RESERVED;
}

/* The largest order a kind takes in a snapshot's blocks (hugetlb: count_hugetlb()). */
static unsigned int kpf_max_order(enum page_kind kind)
{
	return kind == PK_FREE ? MIX_4K_MAX_PAGE_ORDER : MIX_4K_MAX_FOLIO_ORDER;
}

/*
 * Cuts [start, start + len) into naturally aligned blocks, largest first, at
 * most the kind's largest order: a free run of 2048 pages counts as two
 * order-10 blocks, an order-10 slab (none exists on x86-64) as two order-9.
 */
static void count_aligned(struct kpf_scan *s, enum page_kind kind, uint64_t start, uint64_t len)
{
	while (len) {
		unsigned int order = mix_max_order_at(start, kpf_max_order(kind));

		if (order > mix_floor_log2(len))
			order = mix_floor_log2(len);
		kpf_block(s, kind, start, order);
		start += 1ULL << order;
		len -= 1ULL << order;
	}
}

/*
 * A hugetlb folio keeps its true order when it is one of the x86-64
 * hstates (2 MiB, 1 GiB).  Another size (another architecture's hstate,
 * arm64's 64 KiB or 32 MiB, or a run cut short) is cut into aligned pieces
 * of those orders, largest first; what is left under 2 MiB counts as file
 * blocks, as every hugetlb page did before hugetlb was a kind.
 */
static void count_hugetlb(struct kpf_scan *s, uint64_t start, uint64_t len)
{
	while (len >= 1ULL << MIX_4K_HUGETLB_PMD) {
		unsigned int order = mix_max_order_at(start, MIX_MAX_ORDER);

		if (order > mix_floor_log2(len))
			order = mix_floor_log2(len);
		if (order >= MIX_4K_HUGETLB_PUD)
			order = MIX_4K_HUGETLB_PUD;
		else if (order >= MIX_4K_HUGETLB_PMD)
			order = MIX_4K_HUGETLB_PMD;
		else
			break;		/* not 2 MiB aligned */
		kpf_block(s, PK_HUGETLB, start, order);
		start += 1ULL << order;
		len -= 1ULL << order;
	}
	count_aligned(s, PK_FILE, start, len);
}

/* The zone whose span holds pfn; nr_zones (no zone) if none does. */
static unsigned int kpf_zone_of(const struct kpf_scan *s, uint64_t pfn)
{
	unsigned int z;

	for (z = 0; z < s->nr_zones; z++)
		if (pfn >= s->zones[z].start && pfn < s->zones[z].end)
			return z;
	return s->nr_zones;
}

/* Whether pfn lies in a System RAM range of /proc/iomem (pfns come in ascending order). */
static bool kpf_in_ram(struct kpf_scan *s, uint64_t pfn)
{
	if (!s->nr_ram)
		return true;
	while (s->ram_at < s->nr_ram && s->ram[s->ram_at].end <= pfn)
		s->ram_at++;
	return s->ram_at < s->nr_ram && pfn >= s->ram[s->ram_at].start;
}

/* Unflagged pfns [start, start + len) of zone z: aligned blocks, decided at the end. */
static void add_unflagged(struct kpf_scan *s, unsigned int z, uint64_t start, uint64_t len)
{
	while (len) {
		unsigned int order = mix_max_order_at(start, MIX_4K_MAX_PAGE_ORDER);

		if (order > mix_floor_log2(len))
			order = mix_floor_log2(len);
		s->zones[z].unflagged[order] += 1ULL << order;
		if (kpf_grow((void **)&s->und, &s->cap_und, s->nr_und + 1, sizeof(*s->und)))
			s->und[s->nr_und++] = (struct kpf_undecided){ start, order, z };
		else
			s->oom = true;
		start += 1ULL << order;
		len -= 1ULL << order;
	}
}

static void run_close(struct kpf_scan *s)
{
	unsigned int order;

	switch (s->run) {
	case RUN_NONE:
		break;
	case RUN_COMPOUND:
		if (s->kind == PK_HUGETLB)
			count_hugetlb(s, s->start, s->len);
		else
			count_aligned(s, s->kind, s->start, s->len);
		break;
	case RUN_FREE:
	case RUN_FREE_FLAGGED:
		count_aligned(s, PK_FREE, s->start, s->len);
		s->zones[kpf_zone_of(s, s->start)].flagged_free += s->len;
		break;
	case RUN_FREE_UNFLAGGED:
		/* The block is the largest power of two; what follows it is unknown. */
		order = mix_floor_log2(s->len);
		kpf_block(s, PK_FREE, s->start, order);
		s->zones[kpf_zone_of(s, s->start)].flagged_free += 1ULL << order;
		add_unflagged(s, kpf_zone_of(s, s->start), s->start + (1ULL << order),
			      s->len - (1ULL << order));
		break;
	case RUN_UNFLAGGED:
		add_unflagged(s, s->zone, s->start, s->len);
		break;
	}
	s->run = RUN_NONE;
}

static bool kpf_unflagged(uint64_t flags)
{
	return !(flags & ~KPF(IDLE));
}

static bool kpf_free(uint64_t flags)
{
	return (flags & (KPF(BUDDY) | KPF(NOPAGE) | KPF(COMPOUND_HEAD) | KPF(COMPOUND_TAIL))) ==
	       KPF(BUDDY);
}

/* Whether the pfn after the run belongs to it; may settle a free run's dialect. */
static bool run_extends(struct kpf_scan *s, uint64_t pfn, uint64_t flags)
{
	switch (s->run) {
	case RUN_UNFLAGGED:
		return kpf_unflagged(flags) && kpf_zone_of(s, pfn) == s->zone && kpf_in_ram(s, pfn);
	case RUN_COMPOUND:
		return (flags & (KPF(COMPOUND_TAIL) | KPF(NOPAGE))) == KPF(COMPOUND_TAIL);
	case RUN_FREE:
		if (kpf_free(flags)) {
			s->run = RUN_FREE_FLAGGED;
			return true;
		}
		if (kpf_unflagged(flags) && mix_max_order_at(s->start, MIX_4K_MAX_PAGE_ORDER) > 0) {
			s->run = RUN_FREE_UNFLAGGED;
			return true;
		}
		return false;
	case RUN_FREE_FLAGGED:
		return kpf_free(flags);
	case RUN_FREE_UNFLAGGED:
		return kpf_unflagged(flags) && s->len < 1ULL << mix_max_order_at(s->start, MIX_4K_MAX_PAGE_ORDER);
	case RUN_NONE:
		break;
	}
	return false;
}

static void run_open(struct kpf_scan *s, enum kpf_run run, enum page_kind kind, uint64_t pfn)
{
	s->run = run;
	s->kind = kind;
	s->start = pfn;
	s->len = 1;
}

static void kpf_pfn(struct kpf_scan *s, uint64_t pfn, uint64_t flags)
{
	if (s->run != RUN_NONE && run_extends(s, pfn, flags)) {
		s->len++;
		s->total++;
		return;
	}
	run_close(s);
	/* Holes stay where they are: placed as reserved pages, outside the fractions. */
	if (flags & KPF(NOPAGE)) {
		kpf_place(s, PK_RESERVED, pfn, 0);
		return;
	}
	if (kpf_unflagged(flags) && !kpf_in_ram(s, pfn)) {
		s->holes++;		/* a memmap over no RAM: not memory */
		kpf_place(s, PK_RESERVED, pfn, 0);
		return;
	}
	s->total++;
	if (kpf_unflagged(flags)) {
		run_open(s, RUN_UNFLAGGED, PK_RESERVED, pfn);
		s->zone = kpf_zone_of(s, pfn);
	} else if (flags & KPF(COMPOUND_HEAD))
		run_open(s, RUN_COMPOUND, kpf_kind(flags), pfn);
	else if (flags & KPF(BUDDY))
		run_open(s, RUN_FREE, PK_FREE, pfn);
	else if (kpf_kind(flags) == PK_HUGETLB)
		count_hugetlb(s, pfn, 1);	/* a tail without its head: a file page */
	else
		kpf_block(s, kpf_kind(flags), pfn, 0);	/* order 0, or a tail without its head */
}

static void kpf_mix_name(char *name)
{
	static const char prefix[] = "kpageflags:";
	char host[MIX_NAME_LEN - sizeof(prefix) + 1];

	if (gethostname(host, sizeof(host)) || !host[0])
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	snprintf(name, MIX_NAME_LEN, "%s%s", prefix, host);
	for (char *c = name; *c; c++)
		if (!mix_name_char_ok(*c))
			*c = '_';
}

/*
 * What the snapshot's text siblings may be: /proc/zoneinfo of a large NUMA
 * machine (its per-CPU pagesets) runs to a few MiB; the rest is smaller.
 * The pfns the snapshot may hold past the end its zones and System RAM
 * span: kpageflags runs to get_max_dump_pfn(), max_pfn rounded up to a
 * memory section (128 MiB on x86-64 and arm64), here to 1 GiB.  Without
 * either, a 46-bit physical address space (x86-64's MAX_PHYSMEM_BITS
 * with 4-level paging).  Anything more is not /proc.
 */
#define KPF_TEXT_MAX		(64UL << 20)
#define KPF_SECTION_PFNS	(1ULL << 18)
#define KPF_MAX_PFNS		(1ULL << (46 - 12))

/* A text sibling of the snapshot, read line by line with a bound on its bytes. */
struct kpf_text {
	FILE *f;
	char path[4096];
	unsigned long bytes;
};

/*
 * path's sibling name (/proc/kpageflags -> /proc/zoneinfo) opened into t:
 * 1, 0 if absent, or -1 with err when it is not a regular file (a FIFO
 * would block the open, /dev/zero never end).
 */
static int kpf_sibling(const char *path, const char *name, struct kpf_text *t,
		       struct mdb_err *err)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	int fd;

	t->f = NULL;
	t->bytes = 0;
	if (snprintf(t->path, sizeof(t->path), "%.*s%s", slash ? (int)(slash - path + 1) : 0, path,
		     name) >= (int)sizeof(t->path))
		return 0;
	fd = open(t->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return mdb_errf(err, "%s: not a regular file (a FIFO, a device or a socket)", t->path);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(t->f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	return 1;
}

/* The next line of t into line: 1, 0 at its end, -1 with err past KPF_TEXT_MAX bytes. */
static int kpf_line(struct kpf_text *t, char *line, int size, struct mdb_err *err)
{
	if (!fgets(line, size, t->f))
		return 0;
	t->bytes += strlen(line);
	if (t->bytes > KPF_TEXT_MAX)
		return mdb_errf(err, "%s: longer than %lu bytes", t->path, KPF_TEXT_MAX);
	return 1;
}

/* A count of a /proc text file: an unsigned decimal (no sign: "-1" is not 2^64 - 1). */
static bool kpf_count(const char *s, unsigned long long *v, int *used)
{
	const char *p = s;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	*v = strtoull(p, &end, 10);
	*used = (int)(end - s);
	return !errno;
}

/* The zone named on a "Node N, zone NAME" line, made if new (zoneinfo) or found (buddyinfo). */
static struct kpf_zone *kpf_zone_line(struct kpf_scan *s, const char *line, bool make, int *used)
{
	struct kpf_zone *z;
	char name[16];
	int node;

	if (sscanf(line, "Node %d, zone %15s%n", &node, name, used) != 2)
		return NULL;
	for (unsigned int i = 0; i < s->nr_zones; i++)
		if (s->zones[i].node == node && !strcmp(s->zones[i].name, name))
			return &s->zones[i];
	if (!make || s->nr_zones == KPF_MAX_ZONES)
		return NULL;
	z = &s->zones[s->nr_zones++];
	z->node = node;
	snprintf(z->name, sizeof(z->name), "%s", name);
	return z;
}

/*
 * A zone of zoneinfo, its end set: 0, or -1 with err for one no machine
 * has (a span past the physical address space, more pages present than
 * spanned, more managed than present).
 */
static int kpf_zone_check(const struct kpf_text *t, struct kpf_zone *z, struct mdb_err *err)
{
	if (z->start > KPF_MAX_PFNS || z->spanned > KPF_MAX_PFNS - z->start)
		return mdb_errf(err, "%s: node %d, zone %s: spans %llu pfns from pfn %llu, past the "
				"%llu a machine has", t->path, z->node, z->name, z->spanned,
				(unsigned long long)z->start, KPF_MAX_PFNS);
	if (z->present > z->spanned || z->managed > z->present)
		return mdb_errf(err, "%s: node %d, zone %s: %llu pages present, %llu managed in a span "
				"of %llu", t->path, z->node, z->name, z->present, z->managed, z->spanned);
	z->end = z->start + z->spanned;
	return 0;
}

/* /proc/zoneinfo: spans, present and managed pages, each checked against the zone. */
static int kpf_read_zoneinfo(struct kpf_scan *s, const char *path, struct mdb_err *err)
{
	struct kpf_zone *z = NULL;
	struct kpf_text t;
	unsigned long long v;
	char line[512];
	int used, r;

	r = kpf_sibling(path, "zoneinfo", &t, err);
	if (r <= 0)
		return r;
	while ((r = kpf_line(&t, line, sizeof(line), err)) > 0) {
		struct kpf_zone *n = kpf_zone_line(s, line, true, &used);

		if (n) {
			if (z && kpf_zone_check(&t, z, err))
				break;
			z = n;
		} else if (z && sscanf(line, " spanned %llu", &v) == 1) {
			z->spanned = v;
		} else if (z && sscanf(line, " present %llu", &v) == 1) {
			z->present = v;
		} else if (z && sscanf(line, " managed %llu", &v) == 1) {
			z->managed = v;
		} else if (z && sscanf(line, " start_pfn: %llu", &v) == 1) {
			z->start = v;
		}
	}
	if (!r && z)
		r = kpf_zone_check(&t, z, err);
	else if (r > 0)		/* broke out on a zone that failed its check */
		r = -1;
	fclose(t.f);
	return r < 0 ? -1 : 0;
}

/*
 * A zone's line of /proc/buddyinfo: its free blocks of each order, each
 * count and their sum of pages checked against the pages the zone manages
 * (free pages are managed pages).  0, or -1 with err.
 */
static int kpf_buddy_line(const struct kpf_text *t, struct kpf_zone *z, const char *p,
			  struct mdb_err *err)
{
	unsigned long long v, sum = 0;
	unsigned int order = 0;
	int n;

	for (; kpf_count(p, &v, &n); p += n, order++) {
		if (order >= 64 || v > (z->managed - sum) >> order)
			return mdb_errf(err, "%s: node %d, zone %s: %llu free blocks at order %u, more "
					"than the %llu pages the zone manages (/proc/zoneinfo) hold",
					t->path, z->node, z->name, v, order, z->managed);
		sum += v << order;
	}
	if (*p && strspn(p, " \t\n") != strlen(p))
		return mdb_errf(err, "%s: node %d, zone %s: not a count at order %u", t->path,
				z->node, z->name, order);
	z->buddy_free = sum;
	return 0;
}

/* /proc/zoneinfo's zones, then /proc/buddyinfo's free pages of each; 0, or -1 with err. */
static int kpf_read_zones(struct kpf_scan *s, const char *path, struct mdb_err *err)
{
	struct kpf_text t;
	char line[512];
	int used, r;

	if (kpf_read_zoneinfo(s, path, err))
		return -1;
	r = kpf_sibling(path, "buddyinfo", &t, err);
	if (r < 0)
		return -1;
	if (!r) {
		s->nr_zones = 0;	/* spans alone tell nothing */
		return 0;
	}
	while ((r = kpf_line(&t, line, sizeof(line), err)) > 0) {
		struct kpf_zone *z = kpf_zone_line(s, line, false, &used);

		if (!z)
			continue;
		if (kpf_buddy_line(&t, z, line + used, err)) {
			r = -1;
			break;
		}
		s->have_buddy = true;
	}
	fclose(t.f);
	if (!s->have_buddy)
		s->nr_zones = 0;
	return r < 0 ? -1 : 0;
}

static int ram_cmp(const void *a, const void *b)
{
	const struct kpf_ram *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * /proc/iomem's "System RAM" ranges, as pfns in ascending order (root sees
 * the addresses, others 0): [a >> 12, (b >> 12) + 1), b the range's last
 * byte, which never wraps (0-ffffffffffffffff is pfns 0 to 2^52).
 */
static int kpf_read_ram(struct kpf_scan *s, const char *path, struct mdb_err *err)
{
	unsigned long long a, b;
	struct kpf_text t;
	bool any = false;
	char line[512];
	int n, r;

	r = kpf_sibling(path, "iomem", &t, err);
	if (r <= 0)
		return r;
	while ((r = kpf_line(&t, line, sizeof(line), err)) > 0) {
		struct kpf_ram *ram;

		if (sscanf(line, "%llx-%llx : %n", &a, &b, &n) != 2 || strncmp(line + n, "System RAM", 10))
			continue;
		if (a > b) {
			r = mdb_errf(err, "%s: System RAM %llx-%llx ends before it starts", t.path, a, b);
			break;
		}
		ram = realloc(s->ram, (s->nr_ram + 1) * sizeof(*s->ram));
		if (!ram) {
			r = mdb_errf(err, "%s: out of memory", t.path);
			break;
		}
		s->ram = ram;
		ram[s->nr_ram].start = a >> 12;
		ram[s->nr_ram++].end = (b >> 12) + 1;
		any |= b != 0;
	}
	fclose(t.f);
	if (!any)
		s->nr_ram = 0;		/* addresses hidden: no evidence */
	if (s->nr_ram)
		qsort(s->ram, s->nr_ram, sizeof(*s->ram), ram_cmp);
	return r < 0 ? -1 : 0;
}

/*
 * The most pfns the snapshot may hold: the end of its zones and System RAM
 * rounded up to KPF_SECTION_PFNS, or KPF_MAX_PFNS without them.
 */
static uint64_t kpf_pfn_limit(const struct kpf_scan *s)
{
	uint64_t end = 0;

	for (unsigned int z = 0; z < s->nr_zones; z++)
		if (s->zones[z].end > end)
			end = s->zones[z].end;
	for (unsigned int i = 0; i < s->nr_ram; i++)
		if (s->ram[i].end > end)
			end = s->ram[i].end;
	if (!end)
		return KPF_MAX_PFNS;
	end = (end + KPF_SECTION_PFNS - 1) & ~(KPF_SECTION_PFNS - 1);
	return end < KPF_MAX_PFNS ? end : KPF_MAX_PFNS;
}

/*
 * The unflagged blocks where they lie, as kpf_decide() counted them: of each
 * zone's blocks of an order, the first take (in pfn order) free, the rest
 * reserved pages.
 */
static void kpf_place_decided(struct kpf_scan *s)
{
	for (uint64_t i = 0; i < s->nr_und; i++) {
		const struct kpf_undecided *u = &s->und[i];
		unsigned long long *take = &s->zones[u->zone].take[u->order];

		if (*take) {
			(*take)--;
			kpf_place(s, PK_FREE, u->pfn, u->order);
			continue;
		}
		for (uint64_t pfn = u->pfn; pfn < u->pfn + (1ULL << u->order); pfn++)
			kpf_place(s, PK_RESERVED, pfn, 0);
	}
}

/*
 * The unflagged pfns, decided (see struct kpf_zone): free up to what each
 * zone's buddyinfo has beyond the free pfns flagged in it, largest blocks
 * first; reserved the rest.  how says on what evidence.
 */
static void kpf_decide(struct kpf_scan *s, char *how, size_t len)
{
	unsigned long long to_free = 0, to_reserved = 0, unmanaged = 0, flagged = 0, buddy = 0;
	char holes[160];

	for (unsigned int z = 0; z <= s->nr_zones; z++) {
		struct kpf_zone *zn = &s->zones[z];
		unsigned long long want = zn->buddy_free > zn->flagged_free ?
					  zn->buddy_free - zn->flagged_free : 0;

		for (int o = MIX_4K_MAX_PAGE_ORDER; o >= 0; o--) {
			unsigned long long take = zn->unflagged[o] >> o;

			if (take > want >> o)
				take = want >> o;
			zn->take[o] = take;
			s->pages[PK_FREE][o] += take << o;
			to_free += take << o;
			want -= take << o;
			s->pages[PK_RESERVED][0] += zn->unflagged[o] - (take << o);
			to_reserved += zn->unflagged[o] - (take << o);
		}
		if (z < s->nr_zones) {
			unmanaged += zn->present > zn->managed ? zn->present - zn->managed : 0;
			flagged += zn->flagged_free;
			buddy += zn->buddy_free;
		}
	}
	kpf_place_decided(s);
	if (s->nr_ram)
		snprintf(holes, sizeof(holes), "%llu outside System RAM in /proc/iomem left out as "
			 "holes", s->holes);
	else
		snprintf(holes, sizeof(holes), "none left out as holes (no /proc/iomem with addresses)");
	if (!s->nr_zones)
		snprintf(how, len, "pfns without any kpageflags bit: %llu counted reserved (no "
			 "/proc/zoneinfo and /proc/buddyinfo to tell free from reserved); %s",
			 to_reserved, holes);
	else
		snprintf(how, len, "pfns without any kpageflags bit: %llu counted free (/proc/buddyinfo's "
			 "%llu free pages per zone beyond the %llu found flagged KPF_BUDDY), %llu "
			 "counted reserved (the rest; /proc/zoneinfo present - managed: %llu); %s",
			 to_free, buddy, flagged, to_reserved, unmanaged, holes);
}

/* Every snapshot's placement read, kept while the process lives: mixes are copied by value. */
static struct mix_placed *placed_kept;

void mix_release(struct mix *mix)
{
	struct mix_placed **p;

	for (p = &placed_kept; *p; p = &(*p)->next)
		if (*p == mix->placed) {
			struct mix_placed *gone = *p;

			*p = gone->next;
			free(gone->code);
			free(gone);
			break;
		}
	mix->placed = NULL;
}

/*
 * code[0, n) as a placement handed to m (taking code), once checked: every
 * pfn in one block, each a kind at an order it may have, naturally aligned.
 */
static int keep_placed(uint8_t *code, uint64_t n, const char *path, const char *bug,
		       struct mix *m, struct mdb_err *err)
{
	struct mix_placed *p;
	uint64_t pfn = 0;

	while (pfn < n && code[pfn] && code[pfn] <= mix_placed_code(PK_NR - 1, MIX_NR_ORDERS - 1) &&
	       (pfn & ((1ULL << mix_placed_order(code[pfn])) - 1)) == 0 &&
	       mix_order_valid(mix_placed_kind(code[pfn]), mix_placed_order(code[pfn])))
		pfn += 1ULL << mix_placed_order(code[pfn]);
	if (pfn != n)
		return mdb_errf(err, "%s: no block placed at pfn %llu%s", path,
				(unsigned long long)pfn, bug);
	p = malloc(sizeof(*p));
	if (!p)
		return mdb_errf(err, "%s: out of memory for the snapshot's placement", path);
	*p = (struct mix_placed){ .nr_pfns = n, .code = code, .next = placed_kept };
	placed_kept = p;
	m->placed = p;
	return 0;
}

/* The scan's placement, handed to m. */
static int kpf_keep_placed(struct kpf_scan *s, const char *path, struct mix *m,
			   struct mdb_err *err)
{
	if (s->oom)
		return mdb_errf(err, "%s: out of memory for the snapshot's placement", path);
	if (keep_placed(s->code, s->nr_code, path, " (bug)", m, err))
		return -1;
	s->code = NULL;
	return 0;
}

int mix_placed_save(const struct mix *mix, const char *path, struct mdb_err *err)
{
	FILE *f = fopen(path, "wbe");
	const struct mix_placed *p = mix->placed;
	int ok;

	if (!f)
		return mdb_errf(err, "%s: %s", path, strerror(errno));
	ok = fwrite(&p->nr_pfns, sizeof(p->nr_pfns), 1, f) == 1 &&
	     fwrite(p->code, 1, p->nr_pfns, f) == p->nr_pfns;
	if (fclose(f) || !ok)
		return mdb_errf(err, "%s: cannot write the placement", path);
	return 0;
}

int mix_placed_load(struct mix *mix, const char *path, struct mdb_err *err)
{
	FILE *f = fopen(path, "rbe");
	uint64_t n = 0;
	uint8_t *code = NULL;
	int ok;

	if (!f)
		return mdb_errf(err, "%s: %s", path, strerror(errno));
	ok = fread(&n, sizeof(n), 1, f) == 1 && n && n <= 1ULL << 40 &&
	     (code = malloc(n)) && fread(code, 1, n, f) == n && fgetc(f) == EOF;
	fclose(f);
	if (!ok || keep_placed(code, n, path, " (not a placement)", mix, err)) {
		free(code);
		return ok ? -1 : mdb_errf(err, "%s: not a placement", path);
	}
	return 0;
}

static int kpf_to_mix(struct kpf_scan *s, const char *path, const char *how,
		      struct mix *mix, struct mdb_err *err)
{
	unsigned long long sum = 0;
	struct mix m;

	memset(&m, 0, sizeof(m));
	kpf_mix_name(m.name);
	for (int k = 0; k < PK_NR; k++) {
		for (unsigned int o = 0; o < MIX_NR_ORDERS; o++) {
			if (!s->pages[k][o])
				continue;
			m.entry[m.nr].kind = (enum page_kind)k;
			m.entry[m.nr].order = o;
			m.entry[m.nr].fraction = (double)s->pages[k][o] / (double)s->total;
			m.nr++;
			sum += s->pages[k][o];
		}
	}
	if (sum != s->total)
		return mdb_errf(err, "%s: classified %llu of %llu pfns (bug)", path, sum, s->total);
	snprintf(m.classified, sizeof(m.classified), "%s", how);
	if (mix_validate_4k(&m, err))
		return -1;
	if (kpf_keep_placed(s, path, &m, err))
		return -1;
	*mix = m;
	return 0;
}

/*
 * /proc/kpageflags is a regular file (of size 0) in procfs: a FIFO or a
 * device in its place is not a snapshot.  fd in blocking mode again.
 */
static int kpf_snapshot_ok(int fd, const char *path, struct mdb_err *err)
{
	struct stat st;

	if (fstat(fd, &st))
		return read_error(err, path, errno);
	if (S_ISDIR(st.st_mode))
		return read_error(err, path, EISDIR);
	if (!S_ISREG(st.st_mode))
		return mdb_errf(err, "%s: not a regular file (a FIFO, a device or a socket)", path);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		return read_error(err, path, errno);
	return 0;
}

int mix_from_kpageflags(const char *path, struct mix *mix, struct mdb_err *err)
{
	const size_t chunk = KPF_CHUNK_ENTRIES * sizeof(uint64_t);
	char how[MIX_CLASSIFIED_LEN];
	struct kpf_scan *s = calloc(1, sizeof(*s));
	uint64_t *buf = malloc(chunk), pfn = 0, limit;
	size_t have = 0;	/* bytes in buf, less than one entry between reads */
	int fd = -1, ret = -1;

	if (!s || !buf) {
		mdb_errf(err, "%s: out of memory", path);
		goto out;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		read_error(err, path, errno);
		goto out;
	}
	if (kpf_snapshot_ok(fd, path, err) || kpf_read_zones(s, path, err) || kpf_read_ram(s, path, err))
		goto out;
	limit = kpf_pfn_limit(s);
	for (;;) {
		ssize_t r = read(fd, (char *)buf + have, chunk - have);
		size_t nr;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			read_error(err, path, errno);
			goto out;
		}
		if (r == 0)
			break;
		have += (size_t)r;
		nr = have / sizeof(uint64_t);
		if (pfn + nr > limit) {
			mdb_errf(err, "%s: more than %llu pfns, past the end of the zones and System RAM "
				 "beside it (or of a 46-bit physical address space)", path,
				 (unsigned long long)limit);
			goto out;
		}
		for (size_t i = 0; i < nr; i++)
			kpf_pfn(s, pfn++, buf[i]);
		have -= nr * sizeof(uint64_t);
		memmove(buf, buf + nr, have);
	}
	run_close(s);
	if (have)
		mdb_errf(err, "%s: ends in a partial entry (%zu bytes; entries are 8)", path, have);
	else if (!s->total)
		mdb_errf(err, "%s: no memory in it (empty, or only holes)", path);
	else {
		kpf_decide(s, how, sizeof(how));
		ret = kpf_to_mix(s, path, how, mix, err);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (s) {
		free(s->ram);
		free(s->code);
		free(s->und);
	}
	free(s);
	return ret;
}
