// SPDX-License-Identifier: GPL-2.0
/*
 * jsonio.c - strict JSON reading and atomic writing (see jsonio.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonio.h"

/* Length of the JSON number token at s (n bytes left). */
static size_t number_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && ((s[i] >= '0' && s[i] <= '9') || memchr("+-.eE", s[i], 5)))
		i++;
	return i;
}

/* Whether the number token s[0, n) has a digit other than 0 yet reads as 0. */
static bool number_underflows(const char *s, size_t n)
{
	bool nonzero = false;
	char *end;
	double v;

	for (size_t i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++)
		nonzero |= s[i] >= '1' && s[i] <= '9';
	if (!nonzero)
		return false;
	/*
	 * In text jansson accepted, a number is followed by a delimiter, where
	 * strtod() stops.  Should a locale's decimal point not be '.', strtod()
	 * stops early instead and nothing can be told: no false alarm.
	 */
	v = strtod(s, &end);
	return end == s + n && v == 0;
}

/*
 * jansson reads a real with strtod() and refuses only overflow: 1e-400, too
 * small for a double, silently becomes 0.  It keeps no text of its numbers,
 * so the text jansson has just accepted is scanned again: a number outside
 * the strings whose digits are not all zero but which reads as 0 is refused
 * like overflow, at the line and column jansson would give (the number's
 * last character; columns count characters, not UTF-8 bytes).  Subnormals
 * are kept: they are not 0, and a subnormal written with 17 digits must
 * read back.
 */
static int check_underflow(const char *text, size_t len, const char *what, struct mdb_err *err)
{
	bool in_string = false;
	int line = 1, column = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		size_t n;

		if (c == '\n') {
			line++;
			column = 0;
			continue;
		}
		if ((c & 0xc0) != 0x80)
			column++;
		if (in_string) {
			if (c == '\\') {
				i++;	/* an ASCII character: "\/bfnrtu */
				column++;
			} else if (c == '"') {
				in_string = false;
			}
			continue;
		}
		if (c == '"') {
			in_string = true;
			continue;
		}
		if (c != '-' && (c < '0' || c > '9'))
			continue;
		n = number_len(text + i, len - i);
		column += (int)n - 1;
		if (number_underflows(text + i, n))
			return mdb_errf(err, "%s: line %d column %d: %s near '%.*s%s'", what, line,
					column, "real number underflow", n > 64 ? 64 : (int)n,
					text + i, n > 64 ? "..." : "");
		i += n - 1;
	}
	return 0;
}

json_t *mdb_json_load_text(const char *text, size_t len, const char *what, struct mdb_err *err)
{
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	if (!doc) {
		mdb_errf(err, "%s: line %d column %d: %s", what, je.line, je.column, je.text);
	} else if (check_underflow(text, len, what, err)) {
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

json_t *mdb_json_load_file(const char *path, size_t max_bytes, struct mdb_err *err)
{
	/* O_NONBLOCK: a FIFO is refused below, not waited on for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	size_t n = 0;
	struct stat st;
	json_t *doc = NULL;
	char *buf;

	if (fd < 0) {
		mdb_errf(err, "cannot read %s: %s%s", path, strerror(errno),
			 errno == EACCES || errno == EPERM ? " (needs root?)" : "");
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		/* A FIFO would hang, /dev/zero never end: only files are read. */
		mdb_errf(err, "cannot read %s: %s", path, S_ISDIR(st.st_mode) ? strerror(EISDIR) :
			 "not a regular file (a FIFO, a device or a socket)");
		close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > max_bytes) {
		mdb_errf(err, "%s: larger than %zu bytes", path, max_bytes);
		close(fd);
		return NULL;
	}
	buf = malloc(max_bytes + 1);
	if (!buf) {
		close(fd);
		mdb_errf(err, "%s: out of memory", path);
		return NULL;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, max_bytes + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			mdb_errf(err, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
		if (n > max_bytes) {
			mdb_errf(err, "%s: larger than %zu bytes", path, max_bytes);
			goto out;
		}
	}
	doc = mdb_json_load_text(buf, n, path, err);
out:
	close(fd);
	free(buf);
	return doc;
}

/* Bare NaN/Infinity outside strings -> null, into a copy (null can be the longer). */
json_t *mdb_json_load_gb(const char *text, size_t len, const char *what, struct mdb_err *err)
{
	static const char *const bad[] = { "-Infinity", "Infinity", "-NaN", "NaN" };
	char *copy = malloc(2 * len + 1);
	bool in_string = false;
	size_t i, n = 0;
	json_t *doc;

	if (!copy) {
		mdb_errf(err, "%s: out of memory", what);
		return NULL;
	}
	for (i = 0; i < len; i++) {
		unsigned int b = sizeof(bad) / sizeof(bad[0]);

		if (in_string) {
			if (text[i] == '\\' && i + 1 < len)
				copy[n++] = text[i++];
			else if (text[i] == '"')
				in_string = false;
		} else if (text[i] == '"') {
			in_string = true;
		} else {
			for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
				if (i + strlen(bad[b]) <= len && !memcmp(text + i, bad[b], strlen(bad[b])))
					break;
		}
		if (b < sizeof(bad) / sizeof(bad[0])) {
			memcpy(copy + n, "null", 4);
			n += 4;
			i += strlen(bad[b]) - 1;
		} else {
			copy[n++] = text[i];
		}
	}
	doc = mdb_json_load_text(copy, n, what, err);
	free(copy);
	return doc;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * The directory the run's files go to, opened once (mdb_json_pin_dir()):
 * files under it are written through its descriptor, so that the directory
 * renamed, or replaced by a symlink to another run's, does not take them
 * elsewhere.
 */
static struct {
	char path[PATH_MAX];
	int fd;
} pinned = { "", -1 };

void mdb_json_pin_dir(const char *dir, int fd)
{
	snprintf(pinned.path, sizeof(pinned.path), "%s", dir);
	pinned.fd = fd;
}

/*
 * The temporary being written, for the interrupt handler to remove: its
 * name in the directory mdb_atomic_tmp_dir, valid only while
 * mdb_atomic_tmp_set is, which is set after both and cleared before they
 * change, so a signal never sees half a name.
 */
char mdb_atomic_tmp[NAME_MAX + 1];
int mdb_atomic_tmp_dir = AT_FDCWD;
volatile sig_atomic_t mdb_atomic_tmp_set;

/*
 * The temporary's name in the directory: base.tmp.PID.RANDOM, made with
 * O_EXCL | O_NOFOLLOW, so that nothing already there - a symlink to
 * another file, another writer's temporary - is followed or truncated.
 */
static int open_tmp(int dir, const char *base, unsigned int mode)
{
	for (int tries = 0; tries < 64; tries++) {
		unsigned int r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (unsigned int)tries * 2654435761u ^ (unsigned int)time(NULL);
		if (snprintf(mdb_atomic_tmp, sizeof(mdb_atomic_tmp), "%s.tmp.%ld.%08x", base,
			     (long)getpid(), r) >= (int)sizeof(mdb_atomic_tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		mdb_atomic_tmp_dir = dir;
		mdb_atomic_tmp_set = 1;
		fd = openat(dir, mdb_atomic_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd >= 0 || errno != EEXIST) {
			if (fd < 0)
				mdb_atomic_tmp_set = 0;
			return fd;
		}
		mdb_atomic_tmp_set = 0;
	}
	errno = EEXIST;
	return -1;
}

static int write_tmp(int dir, const char *base, const void *data, size_t len, unsigned int mode)
{
	int fd = open_tmp(dir, base, mode), saved;

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) || fsync(fd)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

int mdb_write_atomic(const char *path, const void *data, size_t len, unsigned int mode,
		     struct mdb_err *err)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	int dfd, ret, saved = 0;

	if (!*base)
		return mdb_errf(err, "cannot write %s: not a file name", path);
	if (!slash)
		strcpy(dir, ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
			  path) >= (int)sizeof(dir))
		return mdb_errf(err, "cannot write %s: path too long", path);
	if (pinned.fd >= 0 && !strcmp(dir, pinned.path))
		dfd = pinned.fd;
	else
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return mdb_errf(err, "cannot write %s: %s", path, strerror(errno));
	ret = write_tmp(dfd, base, data, len, mode);
	if (!ret)
		ret = renameat(dfd, mdb_atomic_tmp, dfd, base);
	if (ret) {
		saved = errno;
		if (mdb_atomic_tmp_set)
			unlinkat(dfd, mdb_atomic_tmp, 0);
	}
	mdb_atomic_tmp_set = 0;
	if (!ret)
		fsync(dfd);	/* the rename itself durable */
	if (dfd != pinned.fd)
		close(dfd);
	if (ret)
		return mdb_errf(err, "cannot write %s: %s", path, strerror(saved));
	return 0;
}

int mdb_json_write(const char *path, const json_t *doc, struct mdb_err *err)
{
	char *text = json_dumps(doc, MDB_JSON_DUMP_FLAGS);
	size_t len;
	int ret;

	if (!text)
		return mdb_errf(err, "cannot write %s: out of memory", path);
	len = strlen(text);
	text = realloc(text, len + 2);
	if (!text)
		return mdb_errf(err, "cannot write %s: out of memory", path);
	text[len++] = '\n';
	ret = mdb_write_atomic(path, text, len, 0644, err);
	free(text);
	return ret;
}

json_t *mdb_json_object_member(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v) {
		v = json_object();
		json_object_set_new(obj, key, v);
	}
	return v;
}
