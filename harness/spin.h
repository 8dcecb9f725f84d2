/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spin.h - what threads that stand for CPUs wait with: a spinlock, as the
 * kernel's spin_lock() (test-and-set, then plain reads until it looks free),
 * and a spinning barrier for threads that each hold a CPU of their own.
 * Both are C11 atomics with acquire/release, so ThreadSanitizer sees every
 * ordering they make.  Header only.
 */
#ifndef MDB_SPIN_H
#define MDB_SPIN_H

#include <stdbool.h>

/* cpu_relax(): let the sibling hardware thread run while we wait. */
static inline void mdb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

struct mdb_spinlock {
	int locked;
};

static inline void mdb_spin_lock(struct mdb_spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			mdb_cpu_relax();
}

static inline void mdb_spin_unlock(struct mdb_spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/*
 * A barrier for n threads, reusable: the last to arrive starts the next
 * generation.  Zeroed is ready.  abort, if not NULL, is a flag any thread may
 * raise (a kernel that failed): waiters then return false instead of waiting
 * for a thread that will never come.
 */
struct mdb_spin_barrier {
	unsigned int arrived;
	unsigned int generation;
};

static inline bool mdb_spin_barrier_wait(struct mdb_spin_barrier *b, unsigned int n,
					 const bool *abort)
{
	unsigned int gen = __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == n) {
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->generation, gen + 1, __ATOMIC_RELEASE);
		return true;
	}
	while (__atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) == gen) {
		if (abort && __atomic_load_n(abort, __ATOMIC_RELAXED))
			return false;
		mdb_cpu_relax();
	}
	return true;
}

#endif /* MDB_SPIN_H */
