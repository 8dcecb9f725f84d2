/* SPDX-License-Identifier: GPL-2.0 */
/*
 * folio_fields.h - the folio code that is the same text in every layout:
 * flags, mapping, index, private, _refcount, _mapcount and memcg_data are plain fields
 * of struct folio in page64 (page64.h, where the folio overlays its head
 * page) and in page32 and memdesc8 (memdesc_api.h, where it is a separate
 * descriptor), so reading, writing and copying them is one piece of code.
 * Included by page64.h and memdesc_api.h once struct folio is complete,
 * and once the layout has said how a folio is marked hugetlb
 * (folio_test_hugetlb()).  What differs (order, page count, mapcount) stays
 * with the layout.
 */
#ifndef MDB_FOLIO_FIELDS_H
#define MDB_FOLIO_FIELDS_H

#include <assert.h>

static inline enum page_kind folio_kind(const struct folio *folio)
{
	if (folio_test_hugetlb(folio))
		return PK_HUGETLB;
	return folio->mapping & FOLIO_MAPPING_ANON ? PK_ANON : PK_FILE;
}

static inline int folio_ref_count(const struct folio *folio)
{
	return __atomic_load_n(&folio->_refcount, __ATOMIC_RELAXED);
}

static inline void folio_get(struct folio *folio)
{
	__atomic_fetch_add(&folio->_refcount, 1, __ATOMIC_RELAXED);
}

/*
 * folio_ref_try_add(folio, 1) -> page_ref_add_unless(&folio->page, 1, 0):
 * page_count_writable() (the layout's folio_count_writable(): page64's
 * HVO check, nothing elsewhere), then atomic_add_unless(&_refcount, 1, 0).
 */
static inline bool folio_try_get(struct folio *folio)
{
	int ref;

	if (!folio_count_writable(folio, 0))
		return false;
	ref = __atomic_load_n(&folio->_refcount, __ATOMIC_RELAXED);

	do {
		if (!ref)
			return false;
	} while (!__atomic_compare_exchange_n(&folio->_refcount, &ref, ref + 1, false,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

static inline bool folio_put(struct folio *folio)
{
	return __atomic_sub_fetch(&folio->_refcount, 1, __ATOMIC_ACQ_REL) == 0;
}

/* include/linux/mm.h: a pin without a pincount is this many references. */
#define GUP_PIN_COUNTING_BIAS	(1 << 10)

/*
 * try_grab_folio()/try_grab_folio_fast() for FOLL_PIN, after the
 * reference try_get_folio() took: folio_has_pincount() folios add to
 * _pincount, the others add GUP_PIN_COUNTING_BIAS - 1 references;
 * smp_mb__after_atomic().  The NR_FOLL_PIN_ACQUIRED stat is left out.
 */
static inline void folio_pin(struct folio *folio)
{
	int *pincount = folio_pincount_ptr(folio);

	/*
	 * smp_mb__after_atomic() is barrier() on x86, where the locked add is
	 * the full barrier: a seq_cst add is that add (a separate fence would
	 * be an mfence the kernel does not execute, and TSan cannot model one).
	 */
	if (pincount)
		__atomic_fetch_add(pincount, 1, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_add(&folio->_refcount, GUP_PIN_COUNTING_BIAS - 1, __ATOMIC_SEQ_CST);
}

/* gup_put_folio(FOLL_PIN): the pin off _pincount, or the bias; then folio_put_refs(). */
static inline bool folio_unpin(struct folio *folio)
{
	int *pincount = folio_pincount_ptr(folio);
	int refs = 1;

	if (pincount)
		__atomic_fetch_sub(pincount, 1, __ATOMIC_RELAXED);
	else
		refs = GUP_PIN_COUNTING_BIAS;
	return __atomic_sub_fetch(&folio->_refcount, refs, __ATOMIC_ACQ_REL) == 0;
}

static inline int folio_pins(const struct folio *folio)
{
	int *pincount = folio_pincount_ptr(folio);

	if (pincount)
		return __atomic_load_n(pincount, __ATOMIC_RELAXED);
	return folio_ref_count(folio) / GUP_PIN_COUNTING_BIAS;
}

static inline bool folio_test_flag(const struct folio *folio, enum pageflag flag)
{
	return __atomic_load_n(&folio->flags, __ATOMIC_RELAXED) & kpg_mask(flag);
}

static inline void folio_set_flag(struct folio *folio, enum pageflag flag)
{
	assert(flag != PG_reserved);
	__atomic_fetch_or(&folio->flags, kpg_mask(flag), __ATOMIC_RELAXED);
}

static inline void folio_clear_flag(struct folio *folio, enum pageflag flag)
{
	__atomic_fetch_and(&folio->flags, ~kpg_mask(flag), __ATOMIC_RELAXED);
}

static inline bool folio_test_clear_flag(struct folio *folio, enum pageflag flag)
{
	return __atomic_fetch_and(&folio->flags, ~kpg_mask(flag), __ATOMIC_ACQ_REL) & kpg_mask(flag);
}

/* include/linux/memcontrol.h: the low bits of memcg_data are MEMCG_DATA_* flags. */
#define MDB_MEMCG_DATA_FLAGS_MASK	0x7UL

static inline uintptr_t folio_memcg(const struct folio *folio)
{
	return folio->memcg_data & ~MDB_MEMCG_DATA_FLAGS_MASK;
}

static inline uintptr_t folio_mapping(const struct folio *folio)
{
	return folio->mapping;
}

static inline unsigned long folio_index(const struct folio *folio)
{
	return folio->index;
}

static inline void folio_set_mapping(struct folio *folio, uintptr_t mapping, unsigned long index)
{
	folio->mapping = mdb_kind_mapping(mapping, folio_kind(folio));
	folio->index = index;
}

/*
 * A large folio mapped or unmapped whole (as by a PMD): __folio_add_rmap()
 * at RMAP_LEVEL_PMD moves _entire_mapcount and _large_mapcount, and the
 * first entire mapping marks _nr_pages_mapped (mm/internal.h
 * ENTIRELY_MAPPED); __folio_remove_rmap() undoes it.  The counts store
 * count - 1 and live wherever the layout keeps them: page64's first tail
 * page, the memdesc layouts' large descriptor.  A hugetlb folio moves the
 * first two only (hugetlb_add_file_rmap(), hugetlb_remove_rmap()): its
 * layout passes no nr_pages_mapped.  A memdesc layout's plan-sized large
 * descriptor has no _large_mapcount (memdesc.h): it passes none either.
 */
#define FOLIO_ENTIRELY_MAPPED	0x800000

static inline void large_folio_map(int *large_mapcount, int *entire_mapcount, int *nr_pages_mapped)
{
	if (__atomic_add_fetch(entire_mapcount, 1, __ATOMIC_RELAXED) == 0 && nr_pages_mapped)
		__atomic_fetch_add(nr_pages_mapped, FOLIO_ENTIRELY_MAPPED, __ATOMIC_RELAXED);
	if (large_mapcount)
		__atomic_fetch_add(large_mapcount, 1, __ATOMIC_RELAXED);
}

static inline void large_folio_unmap(int *large_mapcount, int *entire_mapcount,
				     int *nr_pages_mapped)
{
	if (__atomic_sub_fetch(entire_mapcount, 1, __ATOMIC_RELAXED) < 0 && nr_pages_mapped)
		__atomic_fetch_sub(nr_pages_mapped, FOLIO_ENTIRELY_MAPPED, __ATOMIC_RELAXED);
	if (large_mapcount)
		__atomic_fetch_sub(large_mapcount, 1, __ATOMIC_RELAXED);
}

/*
 * The part of folio_copy_meta() (what migrate_folio() carries) that is the
 * same in every layout: the API's flags, mapping, index, private, _refcount,
 * _mapcount and memcg_data.  The layout adds what it keeps beyond these (page64 its
 * large-folio counts and pincount, memdesc8/page32 theirs).
 */
static inline void folio_copy_fields(struct folio *dst, const struct folio *src)
{
	dst->flags = (dst->flags & ~KPG_API_MASK) | (src->flags & KPG_API_MASK);
	dst->mapping = src->mapping;
	dst->index = src->index;
	dst->private = src->private;
	dst->_refcount = src->_refcount;
	dst->_mapcount = src->_mapcount;
	dst->memcg_data = src->memcg_data;
}

#endif /* MDB_FOLIO_FIELDS_H */
