// SPDX-License-Identifier: GPL-2.0
/*
 * false_sharing_fields.c - the folio fields many CPUs write, at this layout's
 * offsets (compiled once per layout): _refcount (references), flags (the
 * page lock, LRU, dirty and referenced bits) and _mapcount (the small
 * folio's mappings).  false_sharing.c builds the table from them.
 */
#include "false_sharing.h"

FALSE_SHARING_FIELDS(FS_FIELD(_refcount), FS_FIELD(flags), FS_FIELD(_mapcount));
