// SPDX-License-Identifier: GPL-2.0
/*
 * context.c - what a dump says of its run: the memdesc_bench object in
 * mdbench.json's (and sim.json's) context, the short form of it in Google
 * Benchmark's own context, mix.json and topology.xml.  Every field is in
 * results/SCHEMA.md; change both together.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "basepage.h"
#include "false_sharing.h"
#include "git_commit.h"
#include "grow.h"
#include "jsonio.h"
#include "mdbench.h"
#include "rounds.h"
#include "shim.h"
#include "units.h"

/* First line of a small file, without its newline; NULL if unreadable. */
static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *ret = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

/* "always [madvise] never" -> "madvise". */
static json_t *thp_mode(void)
{
	char buf[256];
	const char *mode = vmemmap_thp_mode(buf, sizeof(buf));

	return mode ? json_string(mode) : json_null();
}

static json_t *paranoid(void)
{
	char buf[32];
	long v;
	char *end;

	if (!read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)))
		return json_null();
	v = strtol(buf, &end, 10);
	return end != buf && !*end ? json_integer(v) : json_null();
}

/*
 * The frequency policy the run was taken under: cpufreq's driver and
 * governor of the CPU the run is pinned to (cpu0 when not pinned), and
 * whether boost (turbo) was on.  Boost is the global
 * cpufreq/boost (acpi-cpufreq, amd-pstate) or intel_pstate's no_turbo
 * (inverted); null where the machine has neither (a guest without
 * cpufreq), never a guess.
 */
static json_t *cpufreq_json(const struct mdb_run *run)
{
	char path[128], buf[64];
	json_t *o = json_object();
	const char *boost_file = NULL;
	json_t *boost = json_null();
	int cpu = run->cpu >= 0 ? run->cpu : 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpu);
	json_object_set_new(o, "driver", read_line(path, buf, sizeof(buf)) ? json_string(buf) :
			    json_null());
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
	json_object_set_new(o, "governor", read_line(path, buf, sizeof(buf)) ? json_string(buf) :
			    json_null());
	json_object_set_new(o, "cpu", json_integer(cpu));
	if (read_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf))) {
		boost_file = "/sys/devices/system/cpu/cpufreq/boost";
		json_decref(boost);
		boost = json_boolean(!strcmp(buf, "1"));
	} else if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf))) {
		boost_file = "/sys/devices/system/cpu/intel_pstate/no_turbo";
		json_decref(boost);
		boost = json_boolean(!strcmp(buf, "0"));
	}
	json_object_set_new(o, "boost", boost);
	json_object_set_new(o, "boost_file", boost_file ? json_string(boost_file) : json_null());
	return o;
}

static json_t *int_or_null(long v, bool present)
{
	return present ? json_integer(v) : json_null();
}

static json_t *git_dirty(void)
{
	if (!strcmp(MDB_GIT_DIRTY, "true"))
		return json_true();
	if (!strcmp(MDB_GIT_DIRTY, "false"))
		return json_false();
	return json_null();
}

json_t *mdb_layout_json(const struct layout_ops *ops)
{
	json_t *sizes = json_object();
	int t;

	for (t = 0; t < DESC_NR; t++)
		json_object_set_new(sizes, desc_type_name[t], json_integer((json_int_t)ops->desc_size[t]));
	return json_pack("{s:s, s:I, s:I, s:b, s:o}", "name", ops->name,
			 "sizeof_page", (json_int_t)ops->page_size,
			 "sizeof_folio", (json_int_t)ops->desc_size[DESC_FOLIO],
			 "descriptors", layout_has_descriptors(ops), "desc_sizes", sizes);
}

/* [{counter, ops_per_event}] of the vmstat counters that count k's op (scripts/project). */
static json_t *vmstat_json(const struct mdb_vmstat *v)
{
	json_t *a = json_array();

	for (; v && v->counter; v++)
		json_array_append_new(a, json_pack("{s:s, s:f}", "counter", v->counter,
						   "ops_per_event", v->ops_per_event));
	return a;
}

json_t *mdb_kernel_json(const struct mdb_kernel *k)
{
	const char *hvo = k->flags & MDB_K_HVO_ON ? "on" :
			  k->flags & MDB_K_HVO || k->class == MDB_REPORT ? "off,on" : "off";

	return json_pack("{s:s, s:s, s:s, s:b, s:b, s:b, s:I, s:s, s:s?, s:o, s:f}", "name", k->name,
			 "class", mdb_kernel_class_name(k->class), "unit", k->unit,
			 "mutates", !!(k->flags & MDB_K_MUTATES), "threaded", !!(k->flags & MDB_K_THREADED),
			 "model", k->model != NULL, "sim_ops", (json_int_t)k->sim_ops, "hvo", hvo,
			 "metadata_share_of", k->share_of, "vmstat", vmstat_json(k->vmstat),
			 "min_misses_per_op", k->min_misses);
}

/* The modelled layouts, then the live kernel if asked for (brief: for Google Benchmark's context). */
static json_t *layouts_json(const struct mdb_run *run, bool brief)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < run->nr_layouts; i++)
		json_array_append_new(a, mdb_layout_json(run->layouts[i]));
	if (run->real)
		json_array_append_new(a, mdb_real_layout_json(run->real, brief));
	return a;
}

static json_t *kernels_json(const struct mdb_run *run)
{
	const struct mdb_kernel **k = mdb_run_kernels(run);
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; k && k[i]; i++)
		json_array_append_new(a, mdb_kernel_json(k[i]));
	free(k);
	return a;
}

static json_t *sizes_json(const uint64_t *sizes, unsigned int n, bool names)
{
	json_t *a = json_array();
	char buf[32];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (names) {
			mdb_format_size(sizes[i], buf, sizeof(buf));
			json_array_append_new(a, json_string(buf));
		} else {
			json_array_append_new(a, json_integer((json_int_t)sizes[i]));
		}
	}
	return a;
}

/* Which PMU counted (counters.h: struct mdb_pmu_info); "" fields as null. */
static json_t *pmu_json(void)
{
	struct mdb_pmu_info p;

	mdb_pmu_describe(&p);
	return json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?}", "libpfm", *p.libpfm ? p.libpfm : NULL,
			 "libpfm_desc", *p.libpfm_desc ? p.libpfm_desc : NULL,
			 "midr_el1", *p.midr ? p.midr : NULL, "virtual", *p.virt ? p.virt : NULL,
			 "note", *p.virt ? "a virtual machine's PMU: the host's lent through KVM, or "
			 "emulated (qemu's TCG counts instructions, exactly under -icount, where cycles "
			 "are instructions x 2^shift; its cache events read 0)" : NULL);
}

static json_t *counters_json(const struct mdb_counters *set)
{
	json_t *avail = json_array(), *unavail = json_array();
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		const struct mdb_counter *c = &set->c[i];

		char config[24];
		json_t *o;

		/* Hex, as perf prints it; a 64-bit config may not fit a JSON integer. */
		snprintf(config, sizeof(config), "0x%llx", (unsigned long long)c->config);
		o = json_pack("{s:s, s:s, s:I, s:s, s:s}", "name", c->name, "event", c->event,
			      "type", (json_int_t)c->type, "config", config, "pfm", c->pfm);

		if (c->available) {
			json_object_set_new(o, "unscheduled_runs", json_integer((json_int_t)c->unscheduled));
			json_object_set_new(o, "group", json_integer(c->grp));
			json_object_set_new(o, "counts_misses", json_boolean(mdb_counter_counts_misses(c)));
			json_array_append_new(avail, o);
		} else {
			json_object_set_new(o, "reason", json_string(c->reason));
			json_array_append_new(unavail, o);
		}
	}
	return json_pack("{s:o, s:o, s:I, s:o*, s:o}", "available", avail, "unavailable", unavail,
			 "hw_groups", (json_int_t)mdb_counters_nr_hw_groups(set), "hw_group_limit",
			 set->hw_limit ? json_pack("{s:I, s:s}", "events", (json_int_t)set->hw_limit,
						   "why", set->hw_limit_why) : NULL,
			 "pmu", pmu_json());
}

static json_t *hwloc_json(const struct mdb_run *run)
{
	const struct mdb_topology *t = &run->topo;
	json_t *caches;
	unsigned int i;

	if (!run->topo_loaded)
		return json_null();
	caches = json_array();
	for (i = 0; i < t->nr_caches; i++) {
		const struct mdb_cache_info *c = &t->cache[i];

		json_array_append_new(caches, json_pack("{s:I, s:s, s:I, s:I, s:I, s:I}",
							"level", (json_int_t)c->level, "type", c->type,
							"size", (json_int_t)c->size,
							"line_size", (json_int_t)c->line_size,
							"associativity", (json_int_t)c->associativity,
							"count", (json_int_t)c->count));
	}
	return json_pack("{s:o, s:I, s:I, s:I, s:I}", "caches", caches,
			 "packages", (json_int_t)t->packages, "cores", (json_int_t)t->cores,
			 "pus", (json_int_t)t->pus, "numa_nodes", (json_int_t)t->numa_nodes);
}

static json_t *uname_json(void)
{
	struct utsname u;

	if (uname(&u))
		return json_null();
	return json_pack("{s:s, s:s, s:s}", "release", u.release, "version", u.version,
			 "machine", u.machine);
}

static json_t *strings_json(int argc, char **argv)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < argc; i++) {
		json_t *s = json_string(argv[i]);	/* NULL: not UTF-8 */

		json_array_append_new(a, s ? s : json_string("(not UTF-8)"));
	}
	return a;
}

static json_t *mixes_json(const struct mdb_run *run)
{
	json_t *a = json_array();
	unsigned int i;

	/* As given, in 4 KiB orders: --mix=FILE reads them back; conditions.base_page says how each was placed. */
	for (i = 0; i < run->nr_mixes; i++)
		json_array_append_new(a, mix_to_json(run->given_mixes ? &run->given_mixes[i] :
							    &run->mixes[i]));
	return a;
}

/* One hstate of the run's base page: its order, bytes and the entry that maps it. */
static json_t *hstate_json(const struct base_page *b, unsigned int order)
{
	const char *level = "";
	unsigned int h;

	for (h = 0; h < b->nr_hstates; h++)
		if (b->hstate[h].order == order)
			level = b->hstate[h].level;
	return json_pack("{s:i, s:I, s:s}", "order", (int)order,
			 "bytes", (json_int_t)(1ULL << (order + b->shift)), "level", level);
}

/* Per mix, what each entry given in 4 KiB orders became (mix_translate()). */
static json_t *translations_json(const struct mdb_run *run)
{
	json_t *a = json_array();
	unsigned int m, i;

	for (m = 0; m < run->nr_mixes && run->mix_how; m++) {
		const struct mix *given = &run->given_mixes[m];
		json_t *entries = json_array();

		for (i = 0; i < given->nr; i++) {
			const struct mix_translation *t = &run->mix_how[m][i];

			json_array_append_new(entries, json_pack("{s:s, s:i, s:i, s:I, s:I, s:f}",
				"kind", page_kind_name(t->kind), "order_4k", (int)t->from,
				"order", (int)t->to,
				"bytes_4k", (json_int_t)(1ULL << (t->from + BASE_PAGE_MIN_SHIFT)),
				"bytes", (json_int_t)(1ULL << (t->to + run->cond.base->shift)),
				"fraction", t->fraction));
		}
		json_array_append_new(a, json_pack("{s:s, s:o}", "mix", given->name,
						   "entries", entries));
	}
	return a;
}

/*
 * conditions.base_page: the kernel modelled (--base-page), its orders, how
 * the mixes were placed in its pages, and what stays fixed at this
 * machine's 4 KiB whatever the base page (named, never silently wrong).
 */
static json_t *base_page_json(const struct mdb_run *run)
{
	const struct base_page *b = run->cond.base ? run->cond.base : &base_pages[0];

	return json_pack("{s:s, s:b, s:I, s:i, s:i, s:i, s:{s:o, s:o}, s:s, s:s, s:o, s:{s:s, s:s, s:s, s:s, s:s, s:s}}",
		"name", b->name, "given", run->base_given,
		"page_bytes", (json_int_t)(1ULL << b->shift),
		"max_page_order", (int)b->max_page_order,
		"pageblock_order", (int)b->pageblock_order,
		"section_bits", (int)b->section_bits,
		"hugetlb", "pmd", hstate_json(b, b->pmd_order), "pud", hstate_json(b, b->top_order),
		"hugetlb_choice", "a mix's PMD-level (2 MiB) hugetlb at the base page's PMD hstate, "
				  "its PUD-level (1 GiB) at the largest; fractions of RAM kept",
		"mix_translation", "fractions of RAM kept; anon, file, slab, ... and free orders "
				   "lowered by log2(base page / 4 KiB), one base page where that is "
				   "below 0",
		"mixes", translations_json(run),
		"fixed_4k",
		"memmap_host_pages", "the memmap is mapped with this machine's pages (--memmap-pages; "
				     "4 KiB under HVO): by default 2 MiB at 4k, 4 KiB at 16k and 64k "
				     "for arm64's base-page vmemmap (vmemmap_populate(), "
				     "arch/arm64/mm/mmu.c), whose entries map 16 or 64 KiB there",
		"kpageflags", "--mix=kpageflags counts /proc/kpageflags entries as 4 KiB pages; off "
			      "4k its fractions are placed, not the snapshot's pfn-for-pfn placement",
		"vmstat_projection", "scripts/project counts a THP as 512 pages (HPAGE_PMD_NR of a "
				     "4 KiB host)",
		"kernel_names", "hugetlb kernel names keep 4 KiB sizes: -2m is the PMD-level hstate, "
				"-1g the largest (conditions.base_page.hugetlb)",
		"cold_buffer", "the cold-cache eviction buffer walks this machine's 4 KiB pages",
		"page_data", "clear_page()/copy_page() are this machine's instructions, over a base "
			     "page's bytes");
}

/* ------------------------------------------------------------------ */
/* Conditions: what the run asked for, and what it obtained             */

/* One memmap's conditions, over every time it was built. */
struct memmap_note {
	struct mdb_cond cond;
	unsigned int folio_desc_bytes;	/* what the small folio counted for; 0: none */
	unsigned long hvo_folios;	/* folios remapped, and the mappings that took */
	unsigned long hvo_mappings;
	unsigned long builds;
	struct memmap_obtained first;	/* adjacency and digest: the same every build */
	struct memmap_obtained worst;	/* the build with the least in huge pages */
};

static struct {
	struct memmap_note *note;
	size_t nr, cap;
	bool short_said;
} notes;

/*
 * Resident bytes, and of them in huge pages, of what --memmap-pages asked
 * for: the memmap and the descriptor caches; an HVO memmap is 4 KiB-mapped
 * whatever was asked (hvo.h), so only its caches count.
 */
static void asked_pages(const struct memmap_obtained *ob, enum hvo_mode hvo, size_t *rss,
			size_t *huge)
{
	*rss = ob->desc.rss + (hvo == HVO_ON ? 0 : ob->memmap.rss);
	*huge = ob->desc.huge + (hvo == HVO_ON ? 0 : ob->memmap.huge);
}

static double huge_share(const struct memmap_obtained *ob, enum hvo_mode hvo)
{
	size_t rss, huge;

	asked_pages(ob, hvo, &rss, &huge);
	return rss ? (double)huge / rss : 1;
}

/* One line on stderr the first time 2 MiB pages were asked and not all given. */
static void say_short(const struct mdb_run *run, const struct mdb_instance *in,
		      const struct memmap_obtained *ob)
{
	size_t rss, huge;
	char buf[64];
	const char *thp = vmemmap_thp_mode(buf, sizeof(buf));

	asked_pages(ob, in->cond.opts.hvo, &rss, &huge);
	if (run->cond.opts.pages != MEMMAP_PAGES_2M || huge >= rss || notes.short_said)
		return;
	notes.short_said = true;
	fprintf(stderr, "mdbench: note: --memmap-pages=2m, but THP (\"%s\") backed only %zu of %zu KiB "
		"of %s's memmap and descriptor caches with 2 MiB pages: the rest is measured on 4 KiB "
		"pages (conditions.memmaps in the dump, memmap by memmap)\n", thp ? thp : "?",
		huge >> 10, rss >> 10, in->name);
}

void mdb_note_memmap(const struct mdb_run *run, const struct mdb_instance *in,
		     const struct memmap *mm)
{
	const struct memmap_obtained *ob = &mm->obtained;
	struct footprint fp;
	struct memmap_note *n;
	size_t i;

	in->cond.ops->footprint(mm, &fp);
	say_short(run, in, ob);
	for (i = 0; i < notes.nr; i++) {
		n = &notes.note[i];
		if (mdb_cond_equal(&n->cond, &in->cond)) {
			n->builds++;
			if (huge_share(ob, n->cond.opts.hvo) < huge_share(&n->worst, n->cond.opts.hvo))
				n->worst = *ob;
			return;
		}
	}
	n = mdb_grow(notes.note, &notes.cap, notes.nr + 1, sizeof(*n));
	if (!n)
		return;		/* the dump then lacks one entry; the run goes on */
	notes.note = n;
	notes.note[notes.nr++] = (struct memmap_note){
		.cond = in->cond, .folio_desc_bytes = (unsigned int)fp.folio_desc_bytes,
		.hvo_folios = mm->hvo.nr_optimised, .hvo_mappings = mm->hvo.nr_mappings,
		.builds = 1, .first = *ob, .worst = *ob,
	};
}

static json_t *memmap_note_json(const struct memmap_note *n)
{
	char digest[24];
	json_t *o;

	snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)n->first.age_digest);
	o = json_pack("{s:s, s:s, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:s?}",
			 "layout", n->cond.ops->name, "mix", n->cond.mix->name,
			 "ram_bytes", (json_int_t)n->cond.ram_bytes,
			 "folio_desc_bytes", (json_int_t)n->folio_desc_bytes,
			 "desc_cache", n->cond.ops->desc_size[DESC_FOLIO] ?
				       json_string(desc_cache_kind_name(n->cond.opts.desc_cache)) :
				       json_null(),
			 "builds", (json_int_t)n->builds,
			 "memmap_bytes", (json_int_t)n->worst.memmap.rss,
			 "memmap_huge_bytes", (json_int_t)n->worst.memmap.huge,
			 "desc_bytes", (json_int_t)n->worst.desc.rss,
			 "desc_huge_bytes", (json_int_t)n->worst.desc.huge,
			 "desc_populated_bytes", (json_int_t)n->worst.desc_populated,
			 "desc_adjacency", n->first.desc_adjacency < 0 ? json_null() :
					   json_real(n->first.desc_adjacency),
			 "desc_pairs", (json_int_t)n->first.desc_pairs,
			 "age_digest", n->first.age_digest ? digest : NULL);
	/*
	 * Aged by the trace: folios its buddy could not place again, pageblocks
	 * compaction emptied and the folios it moved (the same for every layout).
	 */
	if (o && n->first.age_digest)
		json_object_update_new(o, json_pack("{s:I, s:I, s:I}",
			"age_failures", (json_int_t)n->first.age_failures,
			"age_compactions", (json_int_t)n->first.age_compactions,
			"age_migrated", (json_int_t)n->first.age_migrated));
	/* With HVO on: the memfd's pages, 4 KiB-mapped, and what was remapped. */
	if (o && n->cond.opts.hvo == HVO_ON)
		json_object_update_new(o, json_pack("{s:s, s:s, s:I, s:I}", "hvo", "on",
						    "memmap_pages", "4k",
						    "hvo_optimised_folios", (json_int_t)n->hvo_folios,
						    "hvo_mappings", (json_int_t)n->hvo_mappings));
	return o;
}

/*
 * Threads: the counts asked for, and where thread i of a threaded benchmark
 * runs (the CPUs mdbench may use, one per core first).
 */
static json_t *threads_json(const struct mdb_run *run)
{
	json_t *counts = json_array(), *cpus = json_array();
	char allowed[256] = "";
	unsigned int i;

	for (i = 0; i < run->nr_thread_counts; i++)
		json_array_append_new(counts, json_integer(run->thread_counts[i]));
	for (i = 0; i < run->nr_cpus; i++)
		json_array_append_new(cpus, json_integer(run->cpus[i]));
	if (run->topo_loaded)
		mdb_topology_allowed_list(&run->topo, allowed, sizeof(allowed));
	return json_pack("{s:o, s:b, s:s, s:o, s:s, s:b}", "counts", counts,
			 "given", run->threads_given, "allowed_cpus", allowed, "cpus", cpus,
			 "placement", "one thread per core, cores in topology order, then a second "
			 "hardware thread per core, ...; each thread pinned to its CPU",
			 "first_is_cpu", run->cpu >= 0);
}

/*
 * conditions.hvo: the modes the memmaps of mixes with hugetlb folios were
 * built in, what the distributions boot with, and how HVO is done here:
 * a memfd of 4 KiB pages (the kernel splits the vmemmap PMDs it remaps;
 * the rest of its vmemmap keeps 2 MiB pages, here all of it is 4 KiB), the
 * fake-head key's patched sites, the mapping budget.
 */
static json_t *hvo_json(const struct mdb_run *run)
{
	json_t *modes = json_array();
	enum hvo_mode m;

	for (m = 0; m < HVO_MODE_NR; m++)
		if (run->hvo_given ? run->hvo[m] : true)
			json_array_append_new(modes, json_string(hvo_mode_name(m)));
	return json_pack("{s:o, s:b, s:s, s:s, s:s, s:i, s:s, s:I}",
			 "modes", modes, "given", run->hvo_given,
			 "default", run->hvo_given ? (run->hvo[HVO_OFF] ? "off" : "on") :
				    "off (on as well for the hugetlb kernels and footprint)",
			 "distributions", "CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP=y, "
					  "CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP_DEFAULT_ON unset: "
					  "vm.hugetlb_optimize_vmemmap=0 at boot",
			 "memmap_pages", "4k: the memfd behind an HVO memmap is mapped with 4 KiB "
					 "pages throughout (the kernel splits only the 2 MiB vmemmap "
					 "PMDs HVO remaps)",
			 "fake_head_key_sites", (int)hvo_key_sites(),
			 "fake_head_key",
#ifdef HVO_KEY_NOP
			 "patched: a NOP, a jump while a page64 folio is remapped",
#else
			 "a counter tested (no text patching on this architecture)",
#endif
			 "max_map_count", (json_int_t)hvo_max_map_count());
}

/* What a timed round's value is (rounds.h): its short runs and their estimator. */
static json_t *round_value_json(const struct mdb_run *run)
{
	unsigned int reps = run->min_time > 0 ? run->round_reps : 1;

	return json_pack("{s:s, s:i, s:f, s:s}",
			 "estimator", reps > 1 ? mdb_round_est_names[MDB_ROUND_VALUE] : "one run",
			 "reps", (int)reps, "min_time", run->min_time / reps,
			 "applies", "every timed kernel that reuses its group's memmap; one run for "
				    "a kernel that changes its memmap (a build each run) and a report");
}

/* --rounds=auto: the rule, and per group the rounds it took and why it stopped. */
static json_t *rounds_auto_json(const struct mdb_run *run)
{
	json_t *groups;
	size_t g;

	if (!run->rounds_auto)
		return json_null();
	groups = json_array();
	for (g = 0; g < run->nr_groups; g++) {
		const struct mdb_group *grp = &run->groups[g];

		json_array_append_new(groups, json_pack("{s:s, s:i, s:i, s:o}", "group", grp->key,
			"rounds", (int)grp->rounds, "undecided", (int)grp->undecided,
			"stopped", grp->stopped ? json_string(grp->stopped) : json_null()));
	}
	return json_pack("{s:s, s:f, s:f, s:i, s:i, s:s, s:s, s:o, s:o, s:o}",
			 "statistic", "a layout's time against the reference layout's, paired by "
				      "round (a round's layouts run interleaved): exp of the 20% "
				      "trimmed mean of the rounds' log ratios and its Yuen t interval "
				      "(the reports' verdict(), scripts/lib/mdb_stats.py paired_t())",
			 "confidence", MDB_AUTO_CONFIDENCE, "margin", MDB_AUTO_MARGIN,
			 "min_rounds", MDB_AUTO_MIN_ROUNDS, "max_rounds", MDB_AUTO_MAX_ROUNDS,
			 "decided", "the interval excludes 1, or lies within [1/(1+margin), 1+margin]",
			 "order", "the headline size's groups min_rounds rounds, every other benchmark "
				  "one; then a round at a time of each group with a row undecided (its "
				  "reference and undecided rows), the headline size's first in the "
				  "budget; a round runs group by group, each group's repetitions in "
				  "Google Benchmark's random interleaving (unseeded) where its memmaps "
				  "fit the memory limit together, one instance after another where not",
			 "time_budget", run->time_budget > 0 ? json_real(run->time_budget) : json_null(),
			 "groups", groups, "round_value", round_value_json(run));
}

/* A build's known difference (bench/kernel.h: -DMDB_KNOWN_EXTRA), or null. */
static json_t *known_extra_json(void)
{
	if (!MDB_KNOWN_EXTRA_PCT)
		return json_null();
	return json_pack("{s:s, s:i, s:s}", "layout", MDB_KNOWN_EXTRA_LAYOUT,
			 "percent", MDB_KNOWN_EXTRA_PCT,
			 "what", "the per-layout kernels run this many percent more ops than they count "
				 "when they run for this layout (twin: the reference layout's placebo twin): "
				 "a known slowdown for the statistics to find, not a measurement");
}

/* The last-level cache and the headline size chosen from it (mdb_headline()). */
static json_t *machine_json(const struct mdb_run *run)
{
	const struct mdb_machine *mc = &run->machine;
	char size[32] = "";
	json_t *o;

	if (mc->headline_ram)
		mdb_format_size(mc->headline_ram, size, sizeof(size));
	o = json_pack("{s:o, s:o, s:s, s:o, s:o, s:s, s:b, s:o, s:i, s:i}",
			 "llc_bytes", mc->llc_bytes ? json_integer((json_int_t)mc->llc_bytes) :
						      json_null(),
			 "llc_level", mc->llc_level ? json_integer(mc->llc_level) : json_null(),
			 "llc_counted", "one instance of the farthest data or unified cache above the "
					"CPU the benchmark thread runs on: hwloc's, or the probe's where "
					"the two differ by more than llc_disagree times (llc_source)",
			 "headline_ram_bytes", mc->headline_ram ?
				json_integer((json_int_t)mc->headline_ram) : json_null(),
			 "headline_ram", mc->headline_ram ? json_string(size) : json_null(),
			 "headline_reason", mc->headline_reason ? mc->headline_reason : "",
			 "headline_capped", mc->headline_capped,
			 "memory_limit_bytes", mc->memory_limit ?
				json_integer((json_int_t)mc->memory_limit) : json_null(),
			 "headline_llc_times", MDB_HEADLINE_LLC_TIMES,
			 "headline_ws_times", MDB_HEADLINE_WS_TIMES);
	if (o)
		json_object_update_new(o, json_pack("{s:s, s:s, s:o, s:o, s:i, s:o, s:o}",
			"llc_source", mc->llc_source ? mc->llc_source : "hwloc",
			"llc_reason", mc->llc_reason,
			"llc_hwloc_bytes", mc->llc_hwloc_bytes ?
				json_integer((json_int_t)mc->llc_hwloc_bytes) : json_null(),
			"llc_measured_bytes", mc->llc_measured_bytes ?
				json_integer((json_int_t)mc->llc_measured_bytes) : json_null(),
			"llc_disagree", MDB_LLC_DISAGREE,
			"caches", mdb_caches_json(run), "probe", mdb_probe_json(run)));
	return o;
}

/*
 * Every cache option's folio descriptor caches, per layout that has them:
 * object size (the large one as --large-desc makes it), stride, free
 * pointer, slab order and objects per slab, as desc_cache.c computes them
 * (calculate_sizes(), calculate_order()).  The anon caches are the same.
 */
static json_t *desc_caches_json(const struct mdb_run *run)
{
	static const char *const object[] = { [DESC_FOLIO] = "folio", [DESC_FOLIO_LARGE] = "folio_large" };
	json_t *a = json_array();
	unsigned int l, k, t;

	for (l = 0; l < run->nr_layouts; l++) {
		const struct layout_ops *ops = run->layouts[l];
		size_t size[DESC_NR], acct[DESC_NR];
		struct mdb_err err;

		if (layout_desc_sizes(ops->desc_size, 0, run->cond.opts.large_desc, size, acct, &err))
			continue;
		for (k = 0; k < DESC_CACHE_KIND_NR && ops->desc_size[DESC_FOLIO]; k++)
			for (t = DESC_FOLIO; t <= DESC_FOLIO_LARGE; t++) {
				struct desc_cache_opts o = { 0 };
				size_t stride, freeptr, slab_bytes;
				unsigned int objs, order = 0;

				desc_cache_kind_flags(k, FOLIO_FREEPTR_OFFSET, &o);
				desc_object_layout(&o, size[t], &stride, &freeptr);
				desc_slab_geometry(stride, &objs, &slab_bytes);
				while ((4096UL << order) < slab_bytes)
					order++;
				json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
					"layout", ops->name, "desc_cache", desc_cache_kind_name(k),
					"object", object[t], "size", (json_int_t)size[t],
					"stride", (json_int_t)stride, "freeptr_offset", (json_int_t)freeptr,
					"slab_order", (json_int_t)order, "objects_per_slab", (json_int_t)objs));
			}
	}
	return a;
}

/* --desc-age=trace:FILE: which file (and its sha256), and the events it holds. */
/*
 * The allocation trace's machine (machine/age.h), once per mix and RAM size
 * (every layout's trace is the same): pageblocks compaction emptied, the
 * folios it moved, blocks the buddy could not place, pageblocks of each
 * migratetype at the end, the buddy's free blocks by migratetype and order
 * (as /proc/pagetypeinfo counts them; a placed trace's per-cpu pages, which
 * it leaves out, beside them); compacted_pageblocks sums them.  Null where no
 * trace runs.
 */
static json_t *aging_json(const struct mdb_run *run)
{
	json_t *machines = json_array();
	unsigned long compacted = 0;
	size_t i, j;

	if (run->cond.opts.age != DESC_AGED && run->cond.opts.age != DESC_TRACE)
		return json_decref(machines), json_null();
	for (i = 0; i < notes.nr; i++) {
		const struct memmap_note *n = &notes.note[i];
		json_t *by_mt = json_object(), *free_mt = json_object();

		for (j = 0; j < i; j++)
			if (notes.note[j].cond.mix == n->cond.mix && notes.note[j].cond.ram_bytes == n->cond.ram_bytes)
				break;
		if (j < i || !n->first.age_digest) {
			json_decref(by_mt);
			json_decref(free_mt);
			continue;
		}
		for (int mt = 0; mt < AGE_MT_NR; mt++) {
			json_t *orders = json_array();

			json_object_set_new(by_mt, age_migratetype_name(mt),
					    json_integer((json_int_t)n->first.age_pageblocks[mt]));
			for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++)
				json_array_append_new(orders,
					json_integer((json_int_t)n->first.age_free_blocks[o][mt]));
			json_object_set_new(free_mt, age_migratetype_name(mt), orders);
		}
		compacted += n->first.age_compactions;
		json_array_append_new(machines, json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:I}",
			"mix", n->cond.mix->name, "ram_bytes", (json_int_t)n->cond.ram_bytes,
			"compacted_pageblocks", (json_int_t)n->first.age_compactions,
			"migrated_folios", (json_int_t)n->first.age_migrated,
			"failures", (json_int_t)n->first.age_failures, "pageblocks", by_mt,
			"free_blocks", free_mt, "pcp_pages", (json_int_t)n->first.age_pcp_pages,
			"placed_conflicts", (json_int_t)n->first.age_conflicts));
	}
	if (run->cond.opts.age == DESC_TRACE && run->replay.placed)
		return json_pack("{s:s, s:s, s:s, s:I, s:o}",
				 "mobility", "the kernel's: pageblock types from its extfrag events",
				 "lifetimes", "recorded, placed at the kernel's pfns",
				 "compaction", "the kernel's, as the trace's allocations and frees",
				 "compacted_pageblocks", (json_int_t)compacted, "machines", machines);
	return json_pack("{s:s, s:s, s:s, s:I, s:o}",
			 "mobility", "grouped: pageblock migratetypes, __rmqueue_claim/steal fallbacks",
			 "lifetimes", run->cond.opts.age == DESC_TRACE ? "recorded" :
				      "lru: each round the oldest half, freed as reclaim needs, touched again",
			 "compaction", run->cond.opts.no_compaction ? "off" :
				       "direct on failure; kcompactd for a pageblock, then proactive (score 90/80)",
			 "compacted_pageblocks", (json_int_t)compacted, "machines", machines);
}

static json_t *desc_trace_json(const struct mdb_run *run)
{
	const struct age_replay *r = &run->replay;
	json_t *by_order = json_object();
	char order[8];

	if (run->cond.opts.age != DESC_TRACE)
		return json_decref(by_order), json_null();
	for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++)
		if (r->alloc_by_order[o]) {
			snprintf(order, sizeof(order), "%u", o);
			json_object_set_new(by_order, order, json_integer((json_int_t)r->alloc_by_order[o]));
		}
	return json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:o, s:I, s:I}", "file", r->path,
			 "sha256", r->sha256, "placed", r->placed, "events", (json_int_t)r->nr_events,
			 "allocs", (json_int_t)r->nr_alloc, "frees", (json_int_t)r->nr_free,
			 "allocs_by_order", by_order, "peak_pages", (json_int_t)r->peak_pages,
			 "live_pages", (json_int_t)r->live_pages);
}

/*
 * conditions.mix_placement: per mix, where its blocks lie: a kpageflags
 * snapshot's where the snapshot saw them (what the live kernel's module
 * walks), every other mix's drawn from its fractions.
 */
static json_t *mix_placement_json(const struct mdb_run *run)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; i < run->nr_mixes; i++)
		json_object_set_new(o, run->mixes[i].name, json_string(run->mixes[i].placed ?
				    "at the snapshot's pfn positions" :
				    "from the fractions, pageblocks shuffled with the seed"));
	return o;
}

/* --memmap-pool (machine/vmemmap.h): on, with what the pool held and handed out, or off. */
static json_t *memmap_pool_json(const struct mdb_run *run)
{
	struct vmemmap_pool_stats st;

	if (!run->memmap_pool || !vmemmap_pool_on())
		return json_pack("{s:b, s:s}", "on", false, "what", run->memmap_pool ?
				 "off: --node binds the memmaps, or no native run" :
				 "off (--memmap-pool=off): each mapping faulted in where the kernel "
				 "puts it");
	vmemmap_pool_stats(&st);
	return json_pack("{s:b, s:I, s:I, s:I, s:s}", "on", true,
			 "target_bytes", (json_int_t)st.target, "mapped_bytes", (json_int_t)st.mapped,
			 "drawn_bytes", (json_int_t)st.drawn,
			 "what", "each 2 MiB page of an unbound 2m memmap or descriptor cache drawn at "
				 "random from at least target_bytes of free pages the process keeps "
				 "(mremap()), zeroed; given back to the pool when the build goes");
}

/* The conditions the run asked for and obtained (results/SCHEMA.md lists each). */
static json_t *conditions_json(const struct mdb_run *run)
{
	json_t *memmaps = json_array(), *sizes = json_array(), *churn = json_null();
	bool aged = run->cond.opts.age == DESC_AGED || run->cond.opts.age == DESC_AGED_PERMUTE, short_ = false;
	bool traced = run->cond.opts.age == DESC_AGED || run->cond.opts.age == DESC_TRACE;
	json_t *o;
	size_t i;

	for (i = 0; i < notes.nr; i++) {
		json_array_append_new(memmaps, memmap_note_json(&notes.note[i]));
		short_ |= huge_share(&notes.note[i].worst, notes.note[i].cond.opts.hvo) < 1;
	}
	for (i = 0; i < run->nr_folio_sizes; i++)
		json_array_append_new(sizes, json_integer(run->folio_sizes[i]));
	if (aged)
		churn = json_pack("{s:i, s:f, s:f, s:b}", "rounds", AGE_ROUNDS,
				  "fraction", 1.0 / AGE_FRACTION_DEN,
				  "transient_fraction", 1.0 / AGE_FRACTION_DEN / AGE_TRANSIENT_DEN,
				  "pfns_move", run->cond.opts.age == DESC_AGED);
	o = json_pack("{s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:s, s:b, s:o, s:o, s:b, s:o, s:o, s:o, s:o}",
			 "mix_placement", mix_placement_json(run),
			 "memmap_pages", memmap_pages_name(run->cond.opts.pages),
			 "desc_age", desc_age_name(run->cond.opts.age),
			 "desc_cache", desc_cache_kind_name(run->cond.opts.desc_cache),
			 "desc_rcu", desc_rcu_name(run->cond.opts.desc_rcu),
			 "large_desc", large_desc_name(run->cond.opts.large_desc),
			 "slub", desc_slub_name(run->cond.opts.slub),
			 "slab_cpus", (json_int_t)run->cond.slab_cpus,
			 "desc_caches", desc_caches_json(run),
			 "false_sharing_kernel", FS_KERNEL_NAME,
			 "slab_freelist_random", run->cond.opts.age != DESC_FRESH_ORDERED, "desc_churn", churn,
			 "folio_desc_bytes", run->nr_folio_sizes ? sizes : (json_decref(sizes), json_null()),
			 "memmaps_short", short_ && run->cond.opts.pages == MEMMAP_PAGES_2M,
			 "memmaps", memmaps, "hvo", hvo_json(run), "threads", threads_json(run),
			 "base_page", base_page_json(run));
	/* The trace's compaction (age.h): on unless --compaction=off; null where no trace runs. */
	if (o)
		json_object_update_new(o, json_pack("{s:o, s:o, s:o}", "desc_trace", desc_trace_json(run),
			"compaction", traced ? json_string(run->cond.opts.no_compaction ? "off" : "on") :
					       json_null(), "memmap_pool", memmap_pool_json(run)));
	return o;
}

/*
 * Per base page (machine/basepage.h): each layout's memmap per GiB of RAM,
 * and per hstate what one folio's entries fill and what HVO gives back of
 * them (hvo_freed_pages_at()), also per GiB of hugetlb memory.  Computed,
 * not run, for every base page: the kernels and the footprint pass run at
 * the run's own (conditions.base_page).
 */
static json_t *base_pages_json(const struct mdb_run *run)
{
	json_t *a = json_array();
	const struct base_page *b;
	char size[32];

	for (b = base_pages; b->name; b++) {
		json_t *layouts = json_array();
		unsigned int i, h;

		for (i = 0; i < run->nr_layouts; i++) {
			const struct layout_ops *ops = run->layouts[i];
			json_t *hs = json_array();

			for (h = 0; h < b->nr_hstates; h++) {
				unsigned int order = b->hstate[h].order;
				uint64_t folio = 1ULL << (order + b->shift);
				uint64_t freed = (uint64_t)hvo_freed_pages_at(&ops->hvo, ops->page_size,
									      order, b->shift) << b->shift;

				mdb_format_size(folio, size, sizeof(size));
				json_array_append_new(hs, json_pack("{s:s, s:s, s:i, s:I, s:I, s:f}",
					"size", size, "level", b->hstate[h].level, "order", (int)order,
					"vmemmap_bytes", (json_int_t)(ops->page_size << order),
					"hvo_freed_bytes", (json_int_t)freed,
					"hvo_freed_per_GiB", (double)freed * (1ULL << 30) / (double)folio));
			}
			json_array_append_new(layouts, json_pack("{s:s, s:I, s:o}", "layout", ops->name,
				"memmap_bytes_per_GiB", (json_int_t)(ops->page_size << (30 - b->shift)),
				"hstates", hs));
		}
		json_array_append_new(a, json_pack("{s:s, s:I, s:o}", "name", b->name,
						   "page_bytes", (json_int_t)(1ULL << b->shift),
						   "layouts", layouts));
	}
	return a;
}

json_t *mdb_context(const struct mdb_run *run, bool complete)
{
	json_t *o = json_object();

	json_object_set_new(o, "schema_version", json_integer(MDB_SCHEMA_VERSION));
	json_object_set_new(o, "run_id", json_string(run->run_id));
	json_object_set_new(o, "complete", json_boolean(complete));
	json_object_set_new(o, "git_commit", json_string(MDB_GIT_COMMIT));
	json_object_set_new(o, "git_dirty", git_dirty());
	json_object_set_new(o, "argv", strings_json(run->argc, run->argv));
	json_object_set_new(o, "profile", json_string(run->profile));
	json_object_set_new(o, "filter", json_string(run->filter));
	json_object_set_new(o, "nr_selected", json_integer((json_int_t)run->nr_selected));
	json_object_set_new(o, "rounds", json_integer(run->rounds));
	json_object_set_new(o, "rounds_auto", rounds_auto_json(run));
	json_object_set_new(o, "round_value", round_value_json(run));
	json_object_set_new(o, "known_extra", known_extra_json());
	/* The reference layout's placebo twin at the headline size (twin_headline). */
	json_object_set_new(o, "twin", run->twin_headline && run->machine.headline_ram ?
			    json_string(MDB_TWIN_NAME) : json_null());
	json_object_set_new(o, "reference_layout", json_string(mdb_run_reference(run)));
	json_object_set_new(o, "layouts", layouts_json(run, false));
	json_object_set_new(o, "kernels", kernels_json(run));
	json_object_set_new(o, "mixes", mixes_json(run));
	json_object_set_new(o, "ram_sizes", sizes_json(run->ram_sizes, run->nr_ram_sizes, false));
	json_object_set_new(o, "ram_names", sizes_json(run->ram_sizes, run->nr_ram_sizes, true));
	json_object_set_new(o, "baseline_sizes",
			    sizes_json(run->baseline_sizes, run->nr_baseline_sizes, false));
	json_object_set_new(o, "counters", counters_json(&run->counters));
	json_object_set_new(o, "kernel", uname_json());
	json_object_set_new(o, "cpu_model", run->topo_loaded ? json_string(run->topo.cpu_model) :
				json_null());
	json_object_set_new(o, "perf_event_paranoid", paranoid());
	json_object_set_new(o, "thp", thp_mode());
	json_object_set_new(o, "cpufreq", cpufreq_json(run));
	json_object_set_new(o, "hwloc", hwloc_json(run));
	json_object_set_new(o, "machine", machine_json(run));
	json_object_set_new(o, "cpu", int_or_null(run->cpu, run->cpu >= 0));
	json_object_set_new(o, "node", int_or_null(run->node, run->node >= 0));
	json_object_set_new(o, "seed", json_integer((json_int_t)run->cond.opts.seed));
	json_object_set_new(o, "conditions", conditions_json(run));
	json_object_set_new(o, "aging", aging_json(run));
	json_object_set_new(o, "false_sharing", mdb_false_sharing_json(run));
	json_object_set_new(o, "base_pages", base_pages_json(run));
	return o;
}

/*
 * memmap_pages: the pages (of the memmap's mapping: --memmap-pages, 4 KiB
 * under HVO) the memmap spans, which a walk whose pfns are spread over it
 * (every random and dependent walk of a mix) touches; stlb_entries: the
 * second-level TLB's entries for that page size from the CPUID (null where
 * it does not say).  memmap_pages beyond stlb_entries: the walk misses the
 * STLB as a production memmap does.
 */
static void instance_tlb_json(const struct mdb_instance *in, json_t *o)
{
	bool huge = in->cond.opts.pages == MEMMAP_PAGES_2M && in->cond.opts.hvo != HVO_ON;
	uint64_t page = huge ? VMEMMAP_HUGE : 4096, span;
	unsigned int stlb = mdb_stlb_entries(huge);

	if (!in->cond.ops || !in->ws_known || !in->ws_bytes) {
		json_object_set_new(o, "memmap_pages", json_null());
		json_object_set_new(o, "stlb_entries", json_null());
		return;
	}
	span = (uint64_t)in->cond.nr_pfns * in->cond.ops->page_size;
	json_object_set_new(o, "memmap_pages", json_integer((json_int_t)((span + page - 1) / page)));
	json_object_set_new(o, "memmap_page_bytes", json_integer((json_int_t)page));
	json_object_set_new(o, "stlb_entries", stlb ? json_integer(stlb) : json_null());
}

/* What an instance's entries carry beyond Google Benchmark's (dump and --list=json). */
void mdb_instance_ws_json(const struct mdb_run *run, const struct mdb_instance *in, json_t *o)
{
	bool llc = run->machine.llc_bytes && in->cond.ram_bytes;

	json_object_set_new(o, "working_set_bytes", in->ws_known ?
			    json_integer((json_int_t)in->ws_bytes) : json_null());
	json_object_set_new(o, "ram_over_llc", llc ? json_real((double)in->cond.ram_bytes /
							       (double)run->machine.llc_bytes) :
			    json_null());
	instance_tlb_json(in, o);
}

json_t *mdb_context_cb(bool complete, void *run)
{
	return mdb_context(run, complete);
}

static json_t *name_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* One layout's rows for one small folio size (0: its own), under every cache option. */
static void false_sharing_layout(json_t *a, const struct layout_ops *ops, unsigned int folio_bytes)
{
	static struct fs_row rows[FS_MAX_ROWS];
	int n, i, k;

	for (k = 0; k < DESC_CACHE_KIND_NR; k++) {
		n = false_sharing_rows(ops, folio_bytes, k, rows, FS_MAX_ROWS);
		/* A layout without folio descriptors has the same rows under every option. */
		if (k && !ops->desc_size[DESC_FOLIO])
			break;
		for (i = 0; i < n; i++) {
			const struct fs_row *r = &rows[i];

			json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:I, s:I, s:f, s:o, s:o, s:o, s:o, s:o}",
				"layout", r->layout, "object", r->object,
				"desc_cache", name_or_null(r->desc_cache), "stride", (json_int_t)r->stride,
				"line_offset", (json_int_t)r->line_offset, "pairs", r->pairs,
				"hot_field", name_or_null(r->hot_field),
				"neighbour_field", name_or_null(r->neighbour_field),
				"hot_offset", r->hot_field ? json_integer(r->hot_offset) : json_null(),
				"neighbour_offset", r->hot_field ? json_integer(r->neighbour_offset) : json_null(),
				"line", r->hot_field ? json_integer(r->line) : json_null()));
		}
	}
}

json_t *mdb_false_sharing_json(const struct mdb_run *run)
{
	json_t *a = json_array();
	unsigned int l, f;

	for (l = 0; l < run->nr_layouts; l++) {
		const struct layout_ops *ops = run->layouts[l];

		false_sharing_layout(a, ops, 0);
		for (f = 0; f < run->nr_folio_sizes && ops->desc_size[DESC_FOLIO]; f++)
			if (run->folio_sizes[f] > ops->desc_size[DESC_FOLIO])
				false_sharing_layout(a, ops, run->folio_sizes[f]);
	}
	return a;
}

/* Compact JSON text of value (stolen), for a Google Benchmark context string. */
static void add_gb_json(const char *key, json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	if (text)
		mdb_add_custom_context(key, text);
	free(text);
	json_decref(value);
}

/*
 * Google Benchmark's own --benchmark_out and --benchmark_format=json files
 * carry none of our object; these strings let the scripts read them all the
 * same.  Short on purpose: its console reporter prints each one.
 */
void mdb_add_gb_context(const struct mdb_run *run)
{
	json_t *names = json_array(), *unavailable = json_object();
	char version[16];
	unsigned int i;

	snprintf(version, sizeof(version), "%d", MDB_SCHEMA_VERSION);
	mdb_add_custom_context("memdesc_bench.schema_version", version);
	mdb_add_custom_context("memdesc_bench.run_id", run->run_id);
	mdb_add_custom_context("memdesc_bench.git_commit", MDB_GIT_COMMIT);
	mdb_add_custom_context("memdesc_bench.git_dirty", MDB_GIT_DIRTY);
	mdb_add_custom_context("memdesc_bench.reference_layout", mdb_run_reference(run));
	add_gb_json("memdesc_bench.layouts", layouts_json(run, true));
	add_gb_json("memdesc_bench.kernels", kernels_json(run));
	for (i = 0; i < run->nr_mixes; i++)
		json_array_append_new(names, json_string(run->mixes[i].name));
	add_gb_json("memdesc_bench.mixes", names);
	for (i = 0; i < run->counters.nr; i++)
		if (!run->counters.c[i].available)
			json_object_set_new(unavailable, run->counters.c[i].name,
					    json_string(run->counters.c[i].reason));
	add_gb_json("memdesc_bench.counters_unavailable", unavailable);
}

int mdb_write_side_files(const struct mdb_run *run, struct mdb_err *err)
{
	char path[PATH_MAX];
	json_t *mixes = mixes_json(run);
	int ret;

	snprintf(path, sizeof(path), "%s/mix.json", run->out_dir);
	ret = mdb_json_write(path, mixes, err);
	json_decref(mixes);
	if (ret)
		return -1;
	snprintf(path, sizeof(path), "%s/topology.xml", run->out_dir);
	return run->topo_loaded ? mdb_topology_export_xml(&run->topo, path, err) : 0;
}
