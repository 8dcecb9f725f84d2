// SPDX-License-Identifier: GPL-2.0
/*
 * topology.c - hwloc: pin, bind, and describe the machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwloc.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "jsonio.h"
#include "topology.h"

static const hwloc_obj_type_t cache_types[] = {
	HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
	HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
};

static const char *cache_type_name(hwloc_obj_cache_type_t type)
{
	switch (type) {
	case HWLOC_OBJ_CACHE_DATA:
		return "data";
	case HWLOC_OBJ_CACHE_INSTRUCTION:
		return "instruction";
	default:
		return "unified";
	}
}

/* One entry per cache type; instances of one level are alike on the machines we run on. */
static void read_caches(struct mdb_topology *t, hwloc_topology_t topo)
{
	unsigned int i;

	for (i = 0; i < sizeof(cache_types) / sizeof(cache_types[0]); i++) {
		int n = hwloc_get_nbobjs_by_type(topo, cache_types[i]);
		hwloc_obj_t obj = hwloc_get_obj_by_type(topo, cache_types[i], 0);
		struct mdb_cache_info *c;

		if (n <= 0 || !obj || t->nr_caches == MDB_MAX_CACHES)
			continue;
		c = &t->cache[t->nr_caches++];
		c->level = obj->attr->cache.depth;
		c->type = cache_type_name(obj->attr->cache.type);
		c->size = (unsigned long long)obj->attr->cache.size;
		c->line_size = obj->attr->cache.linesize;
		c->associativity = obj->attr->cache.associativity;
		c->count = (unsigned int)n;
		c->cpus = obj->cpuset ? (unsigned int)hwloc_bitmap_weight(obj->cpuset) : 0;
	}
}

/* hwloc's CPUModel where the OS backend filled it in, /proc/cpuinfo otherwise. */
static void read_cpu_model(struct mdb_topology *t, hwloc_topology_t topo)
{
	hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	char line[256];
	FILE *f;

	snprintf(t->cpu_model, sizeof(t->cpu_model), "unknown");
	if (model) {
		snprintf(t->cpu_model, sizeof(t->cpu_model), "%s", model);
		return;
	}
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(t->cpu_model, sizeof(t->cpu_model), "%s", colon);
		break;
	}
	fclose(f);
}

static unsigned int count(hwloc_topology_t topo, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);

	return n > 0 ? (unsigned int)n : 0;
}

int mdb_topology_load(struct mdb_topology *t, struct mdb_err *err)
{
	hwloc_topology_t topo;

	memset(t, 0, sizeof(*t));
	t->cpu = t->node = -1;
	if (hwloc_topology_init(&topo)) {
		mdb_errf(err, "hwloc_topology_init: %s", strerror(errno));
		return -1;
	}
	hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_load(topo)) {
		mdb_errf(err, "hwloc_topology_load: %s", strerror(errno));
		hwloc_topology_destroy(topo);
		return -1;
	}
	t->topo = topo;
	t->allowed = hwloc_bitmap_alloc();
	if (!t->allowed || hwloc_get_cpubind(topo, t->allowed, HWLOC_CPUBIND_PROCESS)) {
		if (t->allowed)
			hwloc_bitmap_copy(t->allowed, hwloc_topology_get_allowed_cpuset(topo));
	} else {
		hwloc_bitmap_and(t->allowed, t->allowed, hwloc_topology_get_allowed_cpuset(topo));
	}
	if (!t->allowed || hwloc_bitmap_iszero(t->allowed)) {
		mdb_errf(err, "hwloc: cannot tell which CPUs this process may use");
		mdb_topology_release(t);
		return -1;
	}
	t->packages = count(topo, HWLOC_OBJ_PACKAGE);
	t->cores = count(topo, HWLOC_OBJ_CORE);
	t->pus = count(topo, HWLOC_OBJ_PU);
	t->numa_nodes = count(topo, HWLOC_OBJ_NUMANODE);
	read_caches(t, topo);
	read_cpu_model(t, topo);
	return 0;
}

void mdb_topology_release(struct mdb_topology *t)
{
	if (t->node_set)
		hwloc_bitmap_free(t->node_set);
	if (t->allowed)
		hwloc_bitmap_free(t->allowed);
	t->allowed = NULL;
	if (t->topo)
		hwloc_topology_destroy(t->topo);
	t->node_set = NULL;
	t->topo = NULL;
}

/* "0-1", "0,2-5": what the machine has, for the error message. */
static void list_set(hwloc_const_bitmap_t set, char *buf, size_t len)
{
	if (hwloc_bitmap_list_snprintf(buf, len, set) < 0)
		snprintf(buf, len, "?");
}

int mdb_topology_pin(struct mdb_topology *t, int cpu, struct mdb_err *err)
{
	hwloc_obj_t pu = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t->topo, (unsigned int)cpu) : NULL;
	char have[128];

	if (!pu) {
		list_set(hwloc_topology_get_topology_cpuset(t->topo), have, sizeof(have));
		mdb_errf(err, "no CPU %d (this machine has CPUs %s)", cpu, have);
		return -1;
	}
	/* taskset or a cpuset cgroup: hwloc would pin outside them, the kernel refuse later. */
	if (!hwloc_bitmap_isset(t->allowed, (unsigned int)cpu)) {
		list_set(t->allowed, have, sizeof(have));
		mdb_errf(err, "--cpu=%d: not one of the CPUs this process may run on (%s; taskset "
			 "or a cpuset cgroup)", cpu, have);
		return -1;
	}
	if (hwloc_set_cpubind(t->topo, pu->cpuset, HWLOC_CPUBIND_THREAD)) {
		mdb_errf(err, "cannot pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	t->cpu = cpu;
	return 0;
}

int mdb_topology_thread_cpus(const struct mdb_topology *t, int first, int **cpus, unsigned int *nr,
			     struct mdb_err *err)
{
	hwloc_topology_t topo = t->topo;
	int nr_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), c;
	int nr_allowed = hwloc_bitmap_weight(t->allowed);
	unsigned int n = 0, rank, i;
	bool more = true;
	int *out;

	out = malloc((size_t)(nr_allowed > 0 ? nr_allowed : 1) * sizeof(*out));
	if (!out)
		return mdb_errf(err, "out of memory");
	/* Rank r: the r-th allowed PU of every core, cores in order. */
	for (rank = 0; more; rank++) {
		more = false;
		for (c = 0; c < nr_cores; c++) {
			hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned int)c);
			hwloc_obj_t pu = NULL;
			unsigned int seen = 0;

			while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, core->cpuset,
									       HWLOC_OBJ_PU, pu)))
				if (hwloc_bitmap_isset(t->allowed, pu->os_index) && seen++ == rank)
					break;
			if (pu && (int)n < nr_allowed) {
				out[n++] = (int)pu->os_index;
				more = true;
			}
		}
	}
	/* A machine hwloc shows no cores of: its PUs in order. */
	if (!n) {
		hwloc_bitmap_foreach_begin(i, t->allowed)
			out[n++] = (int)i;
		hwloc_bitmap_foreach_end();
	}
	for (i = 0; first >= 0 && i < n; i++) {
		if (out[i] == first) {
			memmove(out + 1, out, i * sizeof(*out));
			out[0] = first;
			break;
		}
	}
	*cpus = out;
	*nr = n;
	return 0;
}

void mdb_topology_allowed_list(const struct mdb_topology *t, char *buf, size_t len)
{
	list_set(t->allowed, buf, len);
}

int mdb_topology_bind_thread(const struct mdb_topology *t, int cpu, struct mdb_err *err)
{
	hwloc_obj_t pu = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t->topo, (unsigned int)cpu) : NULL;

	if (!pu)
		return mdb_errf(err, "no CPU %d", cpu);
	if (hwloc_set_cpubind(t->topo, pu->cpuset, HWLOC_CPUBIND_THREAD))
		return mdb_errf(err, "cannot pin a thread to CPU %d: %s", cpu, strerror(errno));
	return 0;
}

void mdb_topology_unbind_thread(const struct mdb_topology *t)
{
	hwloc_obj_t pu = t->cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t->topo, (unsigned int)t->cpu) : NULL;

	hwloc_set_cpubind(t->topo, pu ? pu->cpuset : t->allowed, HWLOC_CPUBIND_THREAD);
}

int mdb_topology_set_node(struct mdb_topology *t, int node, struct mdb_err *err)
{
	hwloc_obj_t obj = node >= 0 ?
		hwloc_get_numanode_obj_by_os_index(t->topo, (unsigned int)node) : NULL;
	long page = sysconf(_SC_PAGESIZE);
	char have[128];
	void *probe;
	int ret;

	if (!obj) {
		list_set(hwloc_topology_get_topology_nodeset(t->topo), have, sizeof(have));
		mdb_errf(err, "no NUMA node %d (this machine has nodes %s)", node, have);
		return -1;
	}
	t->node_set = hwloc_bitmap_dup(obj->nodeset);
	if (!t->node_set) {
		mdb_errf(err, "out of memory");
		return -1;
	}
	t->node = node;

	/* Find out now, not in the middle of the run, whether binding works here. */
	probe = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe == MAP_FAILED) {
		mdb_errf(err, "mmap: %s", strerror(errno));
		return -1;
	}
	ret = mdb_topology_bind(probe, (size_t)page, t);
	if (ret)
		mdb_errf(err, "cannot bind memory to NUMA node %d: %s", node,
			 strerror(errno));
	munmap(probe, (size_t)page);
	return ret;
}

int mdb_topology_bind(void *addr, size_t len, void *arg)
{
	struct mdb_topology *t = arg;

	if (!t || !t->node_set)
		return 0;
	return hwloc_set_area_membind(t->topo, addr, len, t->node_set, HWLOC_MEMBIND_BIND,
				      HWLOC_MEMBIND_BYNODESET) ? -1 : 0;
}

unsigned long long mdb_topology_llc_bytes(const struct mdb_topology *t, unsigned int *level)
{
	int cpu = t->cpu >= 0 ? t->cpu : hwloc_bitmap_first(t->allowed);
	hwloc_obj_t obj = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t->topo, (unsigned int)cpu) : NULL;
	unsigned long long size = 0;

	*level = 0;
	for (; obj; obj = obj->parent)
		if (hwloc_obj_type_is_cache(obj->type) &&
		    obj->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION &&
		    obj->attr->cache.depth > *level) {
			*level = obj->attr->cache.depth;
			size = (unsigned long long)obj->attr->cache.size;
		}
	return size;
}

/* Through a buffer, so the file is written as every other: atomically. */
int mdb_topology_export_xml(const struct mdb_topology *t, const char *path, struct mdb_err *err)
{
	char *xml;
	int len, ret;

	if (hwloc_topology_export_xmlbuffer(t->topo, &xml, &len, 0))
		return mdb_errf(err, "cannot write %s: hwloc: %s", path, strerror(errno));
	/* len counts the terminating NUL. */
	ret = mdb_write_atomic(path, xml, len > 0 ? (size_t)len - 1 : 0, 0644, err);
	hwloc_free_xmlbuffer(t->topo, xml);
	return ret;
}

#if defined(__x86_64__)
/* Intel's leaf 0x18: the level-2 translation entries (data or unified) for the size. */
static unsigned int stlb_intel(bool huge)
{
	unsigned int a, b, c, d, sub, max, total = 0;

	if (!__get_cpuid_count(0x18, 0, &max, &b, &c, &d))
		return 0;
	for (sub = 0; sub <= max && sub < 64; sub++) {
		if (!__get_cpuid_count(0x18, sub, &a, &b, &c, &d))
			break;
		/* EDX[4:0] type (1 data, 3 unified), [7:5] level; EBX[3:0] page sizes, [31:16] ways; ECX sets. */
		if (((d & 31) != 1 && (d & 31) != 3) || ((d >> 5) & 7) != 2 || !(b & (huge ? 2 : 1)))
			continue;
		total += (b >> 16) * c;
	}
	return total;
}
#endif

unsigned int mdb_stlb_entries(bool huge)
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return 0;
	if (b == 0x756e6547)	/* "Genu"ineIntel */
		return stlb_intel(huge);
	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000006 &&
	    __get_cpuid(0x80000006, &a, &b, &c, &d))
		return ((huge ? a : b) >> 16) & 0xfff;	/* L2 DTLB entries, [27:16]: EAX 2M/4M, EBX 4K */
	return 0;
#else
	(void)huge;
	return 0;
#endif
}
