// SPDX-License-Identifier: GPL-2.0
/*
 * test_btf.c - page64's struct page, folio, slab, ptdesc and zpdesc against
 * the running kernel's own layout, as `pahole -C <struct>
 * /sys/kernel/btf/vmlinux` prints it.  Compiled with page64.
 *
 * Prints one "struct.field ours btf" line per modelled field.  A field whose
 * offset differs, or that BTF lacks, fails the test on the kernel page64
 * models (6.18); on another kernel it is reported and the test is skipped,
 * since a different kernel is allowed to lay struct page out differently.
 * Without BTF or pahole the test is skipped with the reason (exit 77).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "layout.h"

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
#define MODELLED	"6.18"
#define MAX_MEMBERS	256

struct field {
	const char *type;
	const char *name;	/* as BTF spells it */
	size_t ours;
};

#define F(type, member)	{ #type, #member, offsetof(struct type, member) }
static const struct field fields[] = {
	F(page, flags), F(page, lru), F(page, buddy_list), F(page, pcp_list), F(page, mapping),
	F(page, __folio_index), F(page, private), F(page, pp_magic), F(page, pp),
	F(page, _pp_mapping_pad), F(page, dma_addr), F(page, pp_ref_count),
	F(page, compound_head), F(page, page_type), F(page, _mapcount), F(page, _refcount),
	F(page, memcg_data),

	F(folio, flags), F(folio, lru), F(folio, mlock_count), F(folio, mapping),
	F(folio, index), F(folio, private), F(folio, _mapcount), F(folio, _refcount),
	F(folio, memcg_data), F(folio, page), F(folio, _flags_1), F(folio, _head_1),
	F(folio, _large_mapcount), F(folio, _nr_pages_mapped), F(folio, _entire_mapcount),
	F(folio, _pincount), F(folio, _mm_id_mapcount), F(folio, _mm_ids),
	F(folio, _mapcount_1), F(folio, _refcount_1), F(folio, _nr_pages), F(folio, __page_1),
	F(folio, _flags_2), F(folio, _head_2), F(folio, _deferred_list), F(folio, __page_2),
	F(folio, _flags_3), F(folio, _head_3), F(folio, _hugetlb_subpool),
	F(folio, _hugetlb_cgroup), F(folio, _hugetlb_cgroup_rsvd), F(folio, _hugetlb_hwpoison),
	F(folio, __page_3),

	F(slab, flags), F(slab, slab_cache), F(slab, slab_list), F(slab, freelist),
	F(slab, counters), F(slab, __page_type), F(slab, __page_refcount), F(slab, obj_exts),

	F(ptdesc, pt_flags), F(ptdesc, pt_list), F(ptdesc, pmd_huge_pte),
	F(ptdesc, __page_mapping), F(ptdesc, pt_index), F(ptdesc, pt_mm), F(ptdesc, ptl),
	F(ptdesc, __page_type), F(ptdesc, __page_refcount), F(ptdesc, pt_memcg_data),

	F(zpdesc, flags), F(zpdesc, lru), F(zpdesc, movable_ops), F(zpdesc, next),
	F(zpdesc, zspage), F(zpdesc, first_obj_offset), F(zpdesc, _refcount),
};
#undef F

static const struct {
	const char *type;
	size_t size;
} sizes[] = {
	{ "page", sizeof(struct page) }, { "folio", sizeof(struct folio) },
	{ "slab", sizeof(struct slab) }, { "ptdesc", sizeof(struct ptdesc) },
	{ "zpdesc", sizeof(struct zpdesc) },
};

struct btf_struct {
	char name[MAX_MEMBERS][64];
	size_t offset[MAX_MEMBERS];
	int nr;
	long size;
};

/* "type name;  / *  off  size * /" -> name, off.  Bitfields and closers are skipped. */
static void parse_member(struct btf_struct *s, const char *line)
{
	const char *comment = strstr(line, "/*"), *semi, *end, *start;
	size_t off, size;

	if (!comment || s->nr == MAX_MEMBERS)
		return;
	for (semi = comment; semi > line && semi[-1] != ';'; semi--)
		;
	if (semi == line)
		return;
	end = semi - 1;		/* the ';' */
	while (end > line && end[-1] == ' ')
		end--;
	if (end > line && end[-1] == ']')
		while (end > line && end[-1] != '[')
			end--;
	if (end > line && end[-1] == '[')
		end--;
	for (start = end; start > line && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
					   (start[-1] >= 'A' && start[-1] <= 'Z') ||
					   (start[-1] >= '0' && start[-1] <= '9')); start--)
		;
	if (start == end || (size_t)(end - start) >= sizeof(s->name[0]) ||
	    (start > line && start[-1] == ':'))
		return;
	if (sscanf(comment, "/* %zu %zu */", &off, &size) != 2)
		return;
	memcpy(s->name[s->nr], start, end - start);
	s->name[s->nr][end - start] = '\0';
	s->offset[s->nr++] = off;
}

static int read_btf(const char *type, struct btf_struct *s)
{
	char cmd[128], line[512];
	const char *p;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->size = -1;
	snprintf(cmd, sizeof(cmd), "pahole -C %s " BTF_PATH " 2>/dev/null", type);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "/* size: ");
		if (p)
			s->size = strtol(p + 9, NULL, 10);
		else
			parse_member(s, line);
	}
	return pclose(f) == 0 && s->size > 0 ? 0 : -1;
}

static long btf_offset(const struct btf_struct *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->name[i], name))
			return s->offset[i];
	return -1;
}

static int have_pahole(void)
{
	char buf[64] = "";
	FILE *f = popen("pahole --version 2>/dev/null", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	return pclose(f) == 0 && buf[0];
}

int main(void)
{
	static struct btf_struct btf[sizeof(sizes) / sizeof(sizes[0])];
	size_t nr_types = sizeof(sizes) / sizeof(sizes[0]), i, t;
	int mismatches = 0;
	struct utsname u;

	if (access(BTF_PATH, R_OK)) {
		printf("SKIP: no kernel BTF at " BTF_PATH " (CONFIG_DEBUG_INFO_BTF)\n");
		return 77;
	}
	if (!have_pahole()) {
		printf("SKIP: pahole not found (Debian package pahole)\n");
		return 77;
	}
	for (t = 0; t < nr_types; t++) {
		if (read_btf(sizes[t].type, &btf[t])) {
			printf("SKIP: pahole -C %s " BTF_PATH " printed no struct\n", sizes[t].type);
			return 77;
		}
		printf("%s.size %zu %ld\n", sizes[t].type, sizes[t].size, btf[t].size);
		if ((long)sizes[t].size != btf[t].size) {
			fprintf(stderr, "struct %s: %zu bytes here, %ld in BTF\n", sizes[t].type,
				sizes[t].size, btf[t].size);
			mismatches++;
		}
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];
		long off = -1;

		for (t = 0; t < nr_types; t++)
			if (!strcmp(sizes[t].type, f->type))
				off = btf_offset(&btf[t], f->name);
		printf("%s.%s %zu %ld\n", f->type, f->name, f->ours, off);
		if (off != (long)f->ours) {
			fprintf(stderr, "%s.%s: offset %zu here, %s%ld in BTF\n", f->type, f->name,
				f->ours, off < 0 ? "missing " : "", off < 0 ? 0 : off);
			mismatches++;
		}
	}
	uname(&u);
	if (!mismatches) {
		printf("page64 matches the BTF of %s: %zu fields, %zu structs\n", u.release,
		       sizeof(fields) / sizeof(fields[0]), nr_types);
		return 0;
	}
	if (strncmp(u.release, MODELLED ".", strlen(MODELLED) + 1)) {
		printf("SKIP: page64 models Linux " MODELLED "; this kernel (%s) differs in %d places\n",
		       u.release, mismatches);
		return 77;
	}
	fprintf(stderr, "page64 differs from the BTF of %s in %d places\n", u.release, mismatches);
	return 1;
}
