// SPDX-License-Identifier: GPL-2.0
/*
 * test_kpageflags.c - a mix from a /proc/kpageflags snapshot
 * (machine/kpageflags.c): built snapshots in the kernel's format, the
 * zoneinfo/buddyinfo/iomem evidence beside them, the placement they keep,
 * unreadable and hostile files, and the running machine's.  One binary, one
 * CTest test per subcommand (mix_kpageflags, mix_<test>):
 *
 *	test_kpageflags <test> <tests/machine/fixtures> <results/mixes>
 */
#include "test_mix_common.h"


/* The kernel's ABI, include/uapi/linux/kernel-page-flags.h and friends. */
#define F_LRU		(1ULL << 5)
#define F_SLAB		(1ULL << 7)
#define F_BUDDY		(1ULL << 10)
#define F_MMAP		(1ULL << 11)
#define F_ANON		(1ULL << 12)
#define F_HEAD		(1ULL << 15)
#define F_TAIL		(1ULL << 16)
#define F_HUGE		(1ULL << 17)
#define F_NOPAGE	(1ULL << 20)
#define F_THP		(1ULL << 22)
#define F_OFFLINE	(1ULL << 23)
#define F_ZERO_PAGE	(1ULL << 24)
#define F_PGTABLE	(1ULL << 26)
#define F_RESERVED	(1ULL << 32)
#define F_UPTODATE	(1ULL << 3)

struct kpf_file {
	uint64_t *flags;
	unsigned long nr;
	unsigned long long want[PK_NR][NR_ORDERS];	/* pages */
};

static void kpf_set(struct kpf_file *f, unsigned long pfn, uint64_t flags)
{
	f->flags[pfn] = flags;
}

/* A compound page of len pfns (a power of two, or cut short by what follows). */
static void kpf_compound(struct kpf_file *f, unsigned long pfn, unsigned long len, uint64_t flags)
{
	kpf_set(f, pfn, flags | F_HEAD);
	for (unsigned long i = 1; i < len; i++)
		kpf_set(f, pfn + i, flags | F_TAIL);
}

static void kpf_run(struct kpf_file *f, unsigned long pfn, unsigned long len, uint64_t flags)
{
	for (unsigned long i = 0; i < len; i++)
		kpf_set(f, pfn + i, flags);
}

static void want(struct kpf_file *f, enum page_kind kind, unsigned int order, unsigned long blocks)
{
	f->want[kind][order] += blocks << order;
}

/*
 * Every case the classifier knows, each with the blocks it must become.  The
 * 8192-pfn reads cut through the free run at 4096..16383, the order-14
 * hugetlb page at 16384..32767 and the gigantic (1 GiB) one at 262144.
 */
static void kpf_build(struct kpf_file *f)
{
	f->nr = (3UL << MIX_4K_HUGETLB_PUD) + 8;
	f->flags = calloc(f->nr, sizeof(*f->flags));
	memset(f->want, 0, sizeof(f->want));
	kpf_run(f, 0, f->nr, F_NOPAGE);

	kpf_compound(f, 0, 512, F_ANON | F_MMAP | F_LRU | F_THP);	/* PMD THP */
	want(f, PK_ANON, 9, 1);
	kpf_run(f, 512, 512, F_BUDDY);			/* free, every pfn flagged */
	want(f, PK_FREE, 9, 1);
	kpf_compound(f, 1024, 1024, F_HUGE | F_MMAP);	/* order 10: no x86-64 hstate */
	want(f, PK_HUGETLB, 9, 2);
	kpf_run(f, 2048, 8, 0);				/* free, older kernels: head only */
	kpf_set(f, 2048, F_BUDDY);
	want(f, PK_FREE, 3, 1);
	kpf_set(f, 2056, F_LRU | F_UPTODATE);		/* page cache */
	want(f, PK_FILE, 0, 1);
	/* 2057: hole */
	kpf_set(f, 2058, F_ANON | F_MMAP | F_LRU);
	want(f, PK_ANON, 0, 1);
	kpf_set(f, 2059, F_ZERO_PAGE);
	kpf_set(f, 2060, F_OFFLINE);
	kpf_set(f, 2061, F_RESERVED);
	kpf_set(f, 2062, 0);				/* unflagged, not after a free head */
	want(f, PK_RESERVED, 0, 4);
	kpf_set(f, 2063, F_PGTABLE);
	want(f, PK_PGTABLE, 0, 1);
	kpf_compound(f, 2064, 8, F_SLAB);
	want(f, PK_SLAB, 3, 1);
	kpf_set(f, 2072, F_MMAP);			/* mapped file page off the LRU */
	want(f, PK_FILE, 0, 1);
	kpf_set(f, 2073, F_SLAB);
	want(f, PK_SLAB, 0, 1);
	kpf_set(f, 2074, F_TAIL | F_ANON);		/* a tail whose head is not there */
	want(f, PK_ANON, 0, 1);
	/* 2075..2079: holes */
	kpf_run(f, 2080, 3, F_BUDDY);			/* flagged free run: 2 + 1 */
	want(f, PK_FREE, 1, 1);
	want(f, PK_FREE, 0, 1);
	kpf_set(f, 2083, F_LRU);
	want(f, PK_FILE, 0, 1);
	kpf_run(f, 2084, 3, 0);				/* head, 2 unflagged, then a file page */
	kpf_set(f, 2084, F_BUDDY);
	kpf_set(f, 2087, F_LRU);
	want(f, PK_FREE, 1, 1);
	want(f, PK_RESERVED, 0, 1);
	want(f, PK_FILE, 0, 1);
	kpf_run(f, 2088, 21, 0);			/* head aligned to 8, then 20 unflagged */
	kpf_set(f, 2088, F_BUDDY);
	kpf_set(f, 2109, F_LRU);
	want(f, PK_FREE, 3, 1);
	want(f, PK_RESERVED, 0, 13);
	want(f, PK_FILE, 0, 1);
	/* 2110, 2111: holes */
	kpf_compound(f, 2112, 16, F_ANON | F_THP);	/* mTHP */
	want(f, PK_ANON, 4, 1);
	kpf_set(f, 2128, F_LRU);
	kpf_set(f, 2129, F_BUDDY);			/* odd pfn: order 0 whatever follows */
	kpf_set(f, 2130, 0);
	want(f, PK_FILE, 0, 1);
	want(f, PK_FREE, 0, 1);
	want(f, PK_RESERVED, 0, 1);
	kpf_compound(f, 2136, 2, F_ANON);		/* two order-1 folios back to back */
	kpf_compound(f, 2138, 2, F_ANON);
	want(f, PK_ANON, 1, 2);
	kpf_compound(f, 2176, 40, F_LRU);		/* order 6 cut short by a hole */
	want(f, PK_FILE, 5, 1);
	want(f, PK_FILE, 3, 1);
	/* 2216..4095: holes */
	kpf_run(f, 4096, 12288, F_BUDDY);		/* up to MAX_PAGE_ORDER */
	want(f, PK_FREE, 10, 12);
	kpf_compound(f, 16384, 16384, F_HUGE | F_MMAP);	/* order 14: 32 order-9 blocks */
	want(f, PK_HUGETLB, 9, 32);
	kpf_compound(f, 32768, 8, F_LRU);		/* order 3, then a hole */
	want(f, PK_FILE, 3, 1);
	/* 32776..65535: holes */
	kpf_compound(f, 65536, 512, F_HUGE | F_ANON | F_MMAP);	/* MAP_HUGETLB|MAP_ANONYMOUS */
	kpf_compound(f, 66048, 512, F_HUGE);		/* free in the hugetlb pool */
	want(f, PK_HUGETLB, 9, 2);
	/* A gigantic page cut short by a hole: 2 MiB pieces, then file pages. */
	kpf_compound(f, 1UL << 18, (1UL << 17) + 512 + 100, F_HUGE | F_MMAP);
	want(f, PK_HUGETLB, 9, 257);
	want(f, PK_FILE, 6, 1);				/* 100 left: 64 + 32 + 4 */
	want(f, PK_FILE, 5, 1);
	want(f, PK_FILE, 2, 1);
	kpf_set(f, (2UL << 18) - 1, F_TAIL | F_HUGE);	/* a hugetlb tail without its head */
	want(f, PK_FILE, 0, 1);
	kpf_compound(f, 2UL << 18, 1UL << 18, F_HUGE | F_MMAP);	/* gigantic: one order-18 block */
	want(f, PK_HUGETLB, 18, 1);
	kpf_compound(f, 3UL << 18, 8, F_LRU);		/* order 4 cut short by the end */
	want(f, PK_FILE, 3, 1);
}

static int test_kpageflags(void)
{
	unsigned long long total = 0, sum = 0;
	char path[4096], host[256] = "";
	struct mdb_err err;
	unsigned int nr_want = 0;
	struct kpf_file f;
	struct mix m;

	if (!mkdtemp(tmpdir))
		return fprintf(stderr, "mkdtemp: %s\n", strerror(errno)), 1;
	kpf_build(&f);
	for (unsigned long i = 0; i < f.nr; i++)
		total += !(f.flags[i] & F_NOPAGE);
	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = 0; o < NR_ORDERS; o++) {
			sum += f.want[k][o];
			nr_want += f.want[k][o] != 0;
		}
	CHECK(sum == total, "the test's own expectations cover %llu of %llu pfns", sum, total);

	tmp_path(path, sizeof(path), "kpageflags");
	write_file(path, f.flags, f.nr * sizeof(*f.flags));
	CHECK(mix_from_kpageflags(path, &m, &err) == 0, "%s", err.msg);
	CHECK(m.nr == nr_want, "%u entries, want %u", m.nr, nr_want);
	for (unsigned int i = 0; i < m.nr; i++) {
		const struct mix_entry *e = &m.entry[i];
		double want = (double)f.want[e->kind][e->order] / (double)total;

		CHECK(e->fraction == want, "(%s, %u): fraction %.17g, want %.17g (%llu of %llu pfns)",
		      page_kind_name(e->kind), e->order, e->fraction, want,
		      f.want[e->kind][e->order], total);
	}
	gethostname(host, sizeof(host) - 1);
	CHECK(!strncmp(m.name, "kpageflags:", 11) && !strncmp(m.name + 11, host, strlen(m.name + 11)),
	      "name %s for host %s", m.name, host);
	CHECK(mix_validate(&m, &err) == 0, "%s", err.msg);
	roundtrip(&m, "kpageflags");

	/* Bad files. */
	write_file(path, f.flags, 12);
	CHECK(mix_from_kpageflags(path, &m, &err) == -1 &&
	      strstr(err.msg, "ends in a partial entry (4 bytes; entries are 8)"), "%s", err.msg);
	write_file(path, "", 0);
	CHECK(mix_from_kpageflags(path, &m, &err) == -1 && strstr(err.msg, "no memory in it"), "%s", err.msg);
	for (unsigned long i = 0; i < 100; i++)
		f.flags[i] = F_NOPAGE;
	write_file(path, f.flags, 100 * sizeof(*f.flags));
	CHECK(mix_from_kpageflags(path, &m, &err) == -1 && strstr(err.msg, "no memory in it"), "%s", err.msg);
	unlink(path);
	CHECK(mix_from_kpageflags(path, &m, &err) == -1 && strstr(err.msg, "No such file or directory"),
	      "%s", err.msg);
	CHECK(mix_from_kpageflags(tmpdir, &m, &err) == -1 && strstr(err.msg, "Is a directory"), "%s", err.msg);
	rmdir(tmpdir);
	free(f.flags);
	return 0;
}

/* Copies fixtures/kpageflags-vm/NAME into the scratch directory, beside its kpageflags. */
static void copy_fixture(const char *name)
{
	char from[4096], to[4096], buf[4096];
	FILE *in, *out;
	size_t n;

	path_join(from, sizeof(from), fixtures, "kpageflags-vm");
	path_join(from + strlen(from), sizeof(from) - strlen(from), "", name);
	in = fopen(from, "r");
	out = fopen(tmp_path(to, sizeof(to), name), "w");
	CHECK(in && out, "copy %s", from);
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)))
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/*
 * fixtures/kpageflags-vm's machine in the scratch directory: its zoneinfo,
 * buddyinfo and iomem, and the kpageflags (4096 pfns in flags) whose first
 * 1024 pfns are free, 3072..3583 anon, the rest unflagged; the kpageflags
 * path in path.  0, or 1 when no scratch directory could be made.
 */
static int evidence_machine(uint64_t *flags, char *path, size_t len)
{
	if (!mkdtemp(tmpdir))
		return fprintf(stderr, "mkdtemp: %s\n", strerror(errno)), 1;
	for (unsigned int i = 0; i < 1024; i++)
		flags[i] = F_BUDDY;
	for (unsigned int i = 3072; i < 3584; i++)
		flags[i] = F_ANON | F_MMAP | F_LRU;
	write_file(tmp_path(path, len, "kpageflags"), flags, 4096 * sizeof(*flags));
	copy_fixture("zoneinfo");
	copy_fixture("buddyinfo");
	copy_fixture("iomem");
	return 0;
}

/*
 * Unflagged pfns told apart with /proc/zoneinfo, buddyinfo and iomem beside
 * the snapshot (fixtures/kpageflags-vm/README): free up to buddyinfo's free
 * pages beyond those flagged, reserved the rest, holes outside System RAM
 * left out; and what the mix says it decided.  Without the three files,
 * every unflagged pfn is reserved, said so.
 */
static int test_kpageflags_evidence(void)
{
	uint64_t *flags = calloc(4096, sizeof(*flags));
	char path[4096];
	struct mdb_err err;
	struct mix m;

	if (evidence_machine(flags, path, sizeof(path)))
		return 1;
	CHECK(mix_from_kpageflags(path, &m, &err) == 0, "%s", err.msg);
	CHECK(m.nr == 3, "%u entries, want free 10, anon 0, reserved 0", m.nr);
	for (unsigned int i = 0; i < m.nr; i++) {
		const struct mix_entry *e = &m.entry[i];
		double want = e->kind == PK_FREE && e->order == 10 ? 2048.0 / 3584 :
			      e->kind == PK_ANON && e->order == 0 ? 512.0 / 3584 :
			      e->kind == PK_RESERVED && e->order == 0 ? 1024.0 / 3584 : -1;

		CHECK(e->fraction == want, "(%s, %u): fraction %.17g, want %.17g",
		      page_kind_name(e->kind), e->order, e->fraction, want);
	}
	CHECK(!strcmp(m.classified, "pfns without any kpageflags bit: 1024 counted free "
		      "(/proc/buddyinfo's 2048 free pages per zone beyond the 1024 found flagged "
		      "KPF_BUDDY), 1024 counted reserved (the rest; /proc/zoneinfo present - managed: "
		      "1024); 512 outside System RAM in /proc/iomem left out as holes"),
	      "classified: %s", m.classified);
	roundtrip(&m, "kpageflags with evidence");

	/* No evidence: the old reading, and said so. */
	unlink(tmp_path(path, sizeof(path), "zoneinfo"));
	unlink(tmp_path(path, sizeof(path), "buddyinfo"));
	unlink(tmp_path(path, sizeof(path), "iomem"));
	CHECK(mix_from_kpageflags(tmp_path(path, sizeof(path), "kpageflags"), &m, &err) == 0,
	      "%s", err.msg);
	for (unsigned int i = 0; i < m.nr; i++)
		if (m.entry[i].kind == PK_RESERVED)
			CHECK(m.entry[i].fraction == 2560.0 / 4096, "reserved %.17g without evidence",
			      m.entry[i].fraction);
	CHECK(!strcmp(m.classified, "pfns without any kpageflags bit: 2560 counted reserved (no "
		      "/proc/zoneinfo and /proc/buddyinfo to tell free from reserved); none left out "
		      "as holes (no /proc/iomem with addresses)"), "classified: %s", m.classified);
	unlink(path);
	rmdir(tmpdir);
	free(flags);
	return 0;
}

/* mix_from_kpageflags(path) fails with a message holding want. */
static void kpf_refused(const char *path, const char *want)
{
	struct mdb_err err;
	struct mix m;

	CHECK(mix_from_kpageflags(path, &m, &err) == -1 && strstr(err.msg, want),
	      "got \"%s\", want \"%s\"", err.msg, want);
}

/*
 * What a careless or hostile /proc gives the snapshot (fixtures/kpageflags-vm
 * otherwise): buddyinfo counts no zone can hold (-1, 2^64 - 1, 10^9) refused,
 * not turned into free pages; a zone spanning past the address space
 * refused; iomem's 0-ffffffffffffffff all RAM, not wrapped to no RAM; a
 * FIFO over zoneinfo, /dev/zero over kpageflags, a snapshot longer than
 * the zones refused at once.  A reader that blocked or read on would hang:
 * alarm() makes that a failure.
 */
static int test_kpageflags_hostile(void)
{
	static const char *const bad_counts[] = { "-1", "18446744073709551615", "1000000000" };
	uint64_t *flags = calloc(4096, sizeof(*flags));
	char path[4096], kpf[4096], text[512];
	struct mdb_err err = { "" };
	struct mix m = { .classified = "" };
	int fd;

	alarm(60);
	if (evidence_machine(flags, kpf, sizeof(kpf)))
		return 1;
	for (unsigned int i = 0; i < 3; i++) {
		char want[256];

		snprintf(text, sizeof(text), "Node 0, zone   Normal      0      0      0      0      0"
			 "      0      0      0      0      0      %s \n", bad_counts[i]);
		write_file(tmp_path(path, sizeof(path), "buddyinfo"), text, strlen(text));
		if (i)
			snprintf(want, sizeof(want), "buddyinfo: node 0, zone Normal: %s free blocks at "
				 "order 10, more than the 2560 pages the zone manages (/proc/zoneinfo) "
				 "hold", bad_counts[i]);
		else
			snprintf(want, sizeof(want), "buddyinfo: node 0, zone Normal: not a count at "
				 "order 10");
		kpf_refused(kpf, want);
	}
	copy_fixture("buddyinfo");
	/* All of the address space System RAM: every unflagged pfn memory, none a hole. */
	snprintf(text, sizeof(text), "0-ffffffffffffffff : System RAM\n");
	write_file(tmp_path(path, sizeof(path), "iomem"), text, strlen(text));
	CHECK(mix_from_kpageflags(kpf, &m, &err) == 0 && strstr(m.classified,
	      "; 0 outside System RAM in /proc/iomem left out as holes"), "%s %s", err.msg, m.classified);
	copy_fixture("iomem");
	/* A zone past the address space. */
	snprintf(text, sizeof(text), "Node 0, zone   Normal\n  pages free 0\n        spanned  "
		 "18446744073709551615\n        present  3584\n        managed  2560\n  start_pfn: 0\n");
	write_file(tmp_path(path, sizeof(path), "zoneinfo"), text, strlen(text));
	kpf_refused(kpf, "zoneinfo: node 0, zone Normal: spans 18446744073709551615 pfns from pfn 0");
	/* A FIFO over zoneinfo: refused, never waited on. */
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
	kpf_refused(kpf, "zoneinfo: not a regular file (a FIFO, a device or a socket)");
	unlink(path);
	copy_fixture("zoneinfo");
	/* More pfns than the zones span (4096, to 2^18 with a section's slack): refused. */
	fd = open(kpf, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && ftruncate(fd, ((1 << 18) + 1) * 8) == 0, "%s", strerror(errno));
	close(fd);
	kpf_refused(kpf, "kpageflags: more than 262144 pfns, past the end of the zones and System RAM");
	/* /dev/zero over kpageflags: not a snapshot. */
	unlink(kpf);
	CHECK(symlink("/dev/zero", kpf) == 0, "symlink: %s", strerror(errno));
	kpf_refused(kpf, "kpageflags: not a regular file (a FIFO, a device or a socket)");
	unlink(kpf);
	unlink(tmp_path(path, sizeof(path), "buddyinfo"));
	unlink(tmp_path(path, sizeof(path), "zoneinfo"));
	unlink(tmp_path(path, sizeof(path), "iomem"));
	rmdir(tmpdir);
	free(flags);
	alarm(0);
	return 0;
}

/* As an unprivileged user, which we may have to become first. */
/* A run of placed blocks: count blocks of kind and order from pfn on, end to end. */
struct placed_run {
	unsigned long pfn, count;
	unsigned int order;
	enum page_kind kind;
};

/* mix_plan_next() over nr_pfns gives exactly these runs, in pfn order, whatever the seed. */
static void expect_placed(const struct mix *m, unsigned long nr_pfns, const struct placed_run *want,
			  unsigned int nr_want)
{
	unsigned long placed[PK_NR][MIX_NR_ORDERS] = { { 0 } }, left[PK_NR][MIX_NR_ORDERS];
	struct mix_plan plan;
	struct mix_block b;
	struct mdb_err err;
	unsigned int r = 0;
	unsigned long i = 0, next = 0;
	uint64_t seed;

	for (seed = 1; seed <= 2; seed++) {
		CHECK(mix_plan_init(&plan, m, nr_pfns, seed, &err) == 0, "%lu pfns: %s", nr_pfns, err.msg);
		memcpy(left, plan.remaining, sizeof(left));
		memset(placed, 0, sizeof(placed));
		r = 0;
		i = 0;
		next = 0;
		while (mix_plan_next(&plan, &b)) {
			const struct placed_run *w = r < nr_want ? &want[r] : NULL;
			unsigned long pfn = w ? w->pfn + (i << w->order) : 0;

			CHECK(w && b.pfn == pfn && b.order == w->order && b.kind == w->kind && b.pfn == next,
			      "%lu pfns, seed %llu: block at pfn %lu order %u %s, want pfn %lu order %u %s",
			      nr_pfns, (unsigned long long)seed, b.pfn, b.order, page_kind_name(b.kind),
			      pfn, w ? w->order : 0, w ? page_kind_name(w->kind) : "(none)");
			if (!w)
				break;
			placed[b.kind][b.order]++;
			next = b.pfn + (1UL << b.order);
			if (++i == w->count) {
				r++;
				i = 0;
			}
		}
		CHECK(r == nr_want && next == nr_pfns, "%lu pfns: %u of %u runs placed, up to pfn %lu",
		      nr_pfns, r, nr_want, next);
		CHECK(!memcmp(placed, left, sizeof(left)), "%lu pfns: the plan's counts are not what it "
		      "placed", nr_pfns);
		mix_plan_release(&plan);
	}
}

/*
 * A snapshot's blocks stay where it saw them (struct mix_placed): each
 * kind's blocks at their pfns, the unflagged ones decided free or reserved
 * as the fractions count them (the first of a zone's blocks of an order
 * free), holes (KPF_NOPAGE, outside System RAM) reserved pages in place.
 * Over fewer pfns the block crossing the end is cut into free blocks; past
 * the snapshot the rest is free.  The 4096 pfns of the made-up machine of
 * fixtures/kpageflags-vm (its zoneinfo and iomem; the buddyinfo written
 * here: two order-10 blocks and an order-2 one):
 *   0..1023     free, every pfn KPF_BUDDY: one order-10 block
 *   1024..2559  no flag: an order-10 block counted free, an order-9 reserved
 *   2560..2567  an order-3 file folio
 *   2568, 2569  an anon page, a slab page
 *   2570, 2571  KPF_NOPAGE: holes
 *   2572..2575  free, KPF_BUDDY: an order-2 block
 *   2576..3071  anon pages
 *   3072..3583  an anon THP
 *   3584..4095  no flag outside System RAM: holes
 */
static int test_kpageflags_placed(void)
{
	static const char buddyinfo[] =
		"Node 0, zone      DMA      0      0      0      0      0      0      0      0      0      0      0 \n"
		"Node 0, zone   Normal      0      0      1      0      0      0      0      0      0      0      2 \n";
	static const struct placed_run whole[] = {
		{ 0, 2, 10, PK_FREE }, { 2048, 512, 0, PK_RESERVED }, { 2560, 1, 3, PK_FILE },
		{ 2568, 1, 0, PK_ANON }, { 2569, 1, 0, PK_SLAB }, { 2570, 2, 0, PK_RESERVED },
		{ 2572, 1, 2, PK_FREE }, { 2576, 496, 0, PK_ANON }, { 3072, 1, 9, PK_ANON },
		{ 3584, 512, 0, PK_RESERVED },
	};
	/* Cut at 3100: the THP's pfns free, 16 + 8 + 4. */
	static const struct placed_run cut[] = {
		{ 0, 2, 10, PK_FREE }, { 2048, 512, 0, PK_RESERVED }, { 2560, 1, 3, PK_FILE },
		{ 2568, 1, 0, PK_ANON }, { 2569, 1, 0, PK_SLAB }, { 2570, 2, 0, PK_RESERVED },
		{ 2572, 1, 2, PK_FREE }, { 2576, 496, 0, PK_ANON }, { 3072, 1, 4, PK_FREE },
		{ 3088, 1, 3, PK_FREE }, { 3096, 1, 2, PK_FREE },
	};
	/* Past the snapshot, to 5000: free 512 + 256 + 128 + 8. */
	struct placed_run more[sizeof(whole) / sizeof(whole[0]) + 4];
	const unsigned int nr_whole = sizeof(whole) / sizeof(whole[0]);
	uint64_t *flags = calloc(4096, sizeof(*flags));
	char path[4096];
	struct mdb_err err;
	struct mix m, copy;
	unsigned int i;

	if (!mkdtemp(tmpdir))
		return fprintf(stderr, "mkdtemp: %s\n", strerror(errno)), 1;
	for (i = 0; i < 1024; i++)
		flags[i] = F_BUDDY;
	flags[2560] = F_HEAD | F_LRU | F_MMAP;
	for (i = 2561; i < 2568; i++)
		flags[i] = F_TAIL | F_LRU | F_MMAP;
	flags[2568] = F_ANON | F_LRU | F_MMAP;
	flags[2569] = F_SLAB;
	flags[2570] = flags[2571] = F_NOPAGE;
	for (i = 2572; i < 2576; i++)
		flags[i] = F_BUDDY;
	for (i = 2576; i < 3072; i++)
		flags[i] = F_ANON | F_LRU | F_MMAP;
	flags[3072] = F_HEAD | F_ANON | F_THP | F_LRU | F_MMAP;
	for (i = 3073; i < 3584; i++)
		flags[i] = F_TAIL | F_ANON | F_THP | F_LRU | F_MMAP;
	write_file(tmp_path(path, sizeof(path), "kpageflags"), flags, 4096 * sizeof(*flags));
	write_file(tmp_path(path, sizeof(path), "buddyinfo"), buddyinfo, strlen(buddyinfo));
	copy_fixture("zoneinfo");
	copy_fixture("iomem");
	CHECK(mix_from_kpageflags(tmp_path(path, sizeof(path), "kpageflags"), &m, &err) == 0,
	      "%s", err.msg);
	CHECK(m.placed && m.placed->nr_pfns == 4096, "no placement of 4096 pfns kept");
	if (!m.placed)
		return 1;
	expect_placed(&m, 4096, whole, nr_whole);
	expect_placed(&m, 3100, cut, sizeof(cut) / sizeof(cut[0]));
	memcpy(more, whole, sizeof(whole));
	more[nr_whole] = (struct placed_run){ 4096, 1, 9, PK_FREE };
	more[nr_whole + 1] = (struct placed_run){ 4608, 1, 8, PK_FREE };
	more[nr_whole + 2] = (struct placed_run){ 4864, 1, 7, PK_FREE };
	more[nr_whole + 3] = (struct placed_run){ 4992, 1, 3, PK_FREE };
	expect_placed(&m, 5000, more, nr_whole + 4);
	/* A copy keeps it; the JSON round trip is the fractions alone, placed as before. */
	copy = m;
	expect_placed(&copy, 4096, whole, nr_whole);
	CHECK(mix_parse_json("{\"name\": \"x\", \"entries\": [{\"kind\": \"free\", \"order\": 0, "
			     "\"fraction\": 1}]}", &copy, &err) == 0 && !copy.placed, "a JSON mix placed");
	for (const char *const *n = mix_builtin_names; *n; n++)
		CHECK(mix_builtin(*n, &copy, &err) == 0 && !copy.placed, "built-in %s placed", *n);
	/* Through a file, as --simulate hands it to its children; a damaged one refused. */
	CHECK(mix_placed_save(&m, tmp_path(path, sizeof(path), "placed"), &err) == 0, "%s", err.msg);
	copy = m;
	copy.placed = NULL;
	CHECK(mix_placed_load(&copy, path, &err) == 0 && copy.placed != m.placed, "%s", err.msg);
	expect_placed(&copy, 4096, whole, nr_whole);
	mix_release(&copy);
	CHECK(!copy.placed, "mix_release() left the placement");
	flags[0] = 4096;
	write_file(path, flags, 8 + 4096);	/* pfn 0 says 0: inside a block */
	CHECK(mix_placed_load(&copy, path, &err) == -1 && !copy.placed &&
	      strstr(err.msg, "no block placed at pfn 0 (not a placement)"), "%s", err.msg);
	write_file(path, flags, 8 + 100);
	CHECK(mix_placed_load(&copy, path, &err) == -1 && strstr(err.msg, "not a placement"),
	      "%s", err.msg);
	unlink(path);
	unlink(tmp_path(path, sizeof(path), "kpageflags"));
	unlink(tmp_path(path, sizeof(path), "buddyinfo"));
	unlink(tmp_path(path, sizeof(path), "zoneinfo"));
	unlink(tmp_path(path, sizeof(path), "iomem"));
	rmdir(tmpdir);
	free(flags);
	return 0;
}

static int test_kpageflags_unreadable(void)
{
	static const char want[] = "cannot read /proc/kpageflags: Permission denied (needs root)";
	struct mdb_err err;
	struct mix m;
	int status;
	pid_t pid;

	CHECK(mix_from_kpageflags("/nonexistent/kpageflags", &m, &err) == -1 &&
	      !strcmp(err.msg, "cannot read /nonexistent/kpageflags: No such file or directory"), "%s", err.msg);
	if (geteuid() != 0) {
		CHECK(mix_from_kpageflags("/proc/kpageflags", &m, &err) == -1 && !strcmp(err.msg, want),
		      "%s", err.msg);
		CHECK(mix_resolve("kpageflags", &m, &err) == -1 && !strcmp(err.msg, want), "%s", err.msg);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			fprintf(stderr, "cannot drop root to test the error: %s\n", strerror(errno));
			_exit(SKIP);
		}
		if (mix_resolve("kpageflags", &m, &err) == 0 || strcmp(err.msg, want)) {
			fprintf(stderr, "FAIL: as nobody: got \"%s\", want \"%s\"\n", err.msg, want);
			_exit(1);
		}
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status), "child");
	if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP && !failures)
		return SKIP;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unprivileged read");
	return 0;
}

/* The running machine: only validity can be checked. */
static int test_kpageflags_real(void)
{
	struct mdb_err err;
	char *text;
	int fd = open("/proc/kpageflags", O_RDONLY);
	double sum = 0;
	struct mix m;

	if (fd < 0) {
		printf("skip: cannot read /proc/kpageflags: %s\n", strerror(errno));
		return SKIP;
	}
	close(fd);
	CHECK(mix_resolve("kpageflags", &m, &err) == 0, "%s", err.msg);
	CHECK(mix_validate(&m, &err) == 0, "%s", err.msg);
	CHECK(!strncmp(m.name, "kpageflags:", 11), "name %s", m.name);
	for (unsigned int i = 0; i < m.nr; i++) {
		CHECK(mix_order_valid(m.entry[i].kind, m.entry[i].order) &&
		      m.entry[i].fraction > 0, "entry %u", i);
		sum += m.entry[i].fraction;
	}
	CHECK(fabs(sum - 1) < 1e-9, "fractions sum to %.12g", sum);
	roundtrip(&m, "kpageflags");
	text = mix_text(&m);
	printf("%s\n", text);
	free(text);
	return 0;
}

/* ------------------------------------------------------------------------ */

static const struct mix_test tests[] = {
	{ "kpageflags", test_kpageflags },
	{ "kpageflags_evidence", test_kpageflags_evidence },
	{ "kpageflags_placed", test_kpageflags_placed },
	{ "kpageflags_unreadable", test_kpageflags_unreadable },
	{ "kpageflags_hostile", test_kpageflags_hostile },
	{ "kpageflags_real", test_kpageflags_real },
};

int main(int argc, char **argv)
{
	return mix_test_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
