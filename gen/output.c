#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buf.h"

#define MANIFEST_HEADER "# optrace manifest v2"
#define MANIFEST_HEADER_V1 "# optrace manifest v1"
#define RESERVED_PREFIX ".optrace-"
#define MAX_DEPTH 64
#define MAX_MANIFEST (64u << 20)

enum entry_state { PENDING, STAGED, UNCHANGED, FAILED };

struct entry {
	const char *path; /* in the arena */
	enum entry_state state;
	uint64_t hash;    /* of the bytes written */
};

struct ot_output {
	char *dir;
	int dirfd, stagefd; /* OUT and OUT/.optrace-staging, never via a symlink */
	int lockfd;         /* OUT/.optrace-lock, flock()ed while the run lasts */
	char *created;      /* the first folder of OUT's path this run made, or NULL */
	bool force;
	pthread_mutex_t lock; /* guards everything below */
	ot_arena *arena;
	OT_VEC(struct entry) entries;
	ot_map *files, *dirs; /* every claimed path; every folder of one (values non-NULL) */
	size_t failed;
	bool committed, staging; /* staging: the staging folder exists */
};

static void warn(const char *fmt, ...) OT_PRINTF(1, 2);
static void warn(const char *fmt, ...)
{
	va_list ap;
	fputs("optrace: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- paths ------------------------------------------------------------------ */

/* The rules of output.h; also applied to every line of a manifest we read. */
static bool valid_relpath(const char *path)
{
	const char *p = path, *start = path;
	if (!*path || strlen(path) >= PATH_MAX)
		return false;
	for (;; p++) {
		if (*p == '/' || !*p) {
			size_t n = (size_t)(p - start);
			if (n == 0 || n > NAME_MAX || (n == 1 && start[0] == '.') ||
			    (n == 2 && start[0] == '.' && start[1] == '.') ||
			    !strncmp(start, RESERVED_PREFIX, strlen(RESERVED_PREFIX)))
				return false;
			if (!*p)
				return true;
			start = p + 1;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return false;
	}
}

static int invalid_path(const char *path)
{
	return ot_error_set("invalid output path '%s': expected '/'-separated names of "
			    "[A-Za-z0-9._-], not '.', '..' or '" RESERVED_PREFIX "*'",
			    path);
}

/*
 * Open the folder that holds `relpath` below `rootfd`, one component at a
 * time with O_NOFOLLOW, creating missing folders when `create`. *name is
 * the last component. The caller closes *out unless it equals rootfd.
 * Returns OT_ENOTFOUND for a missing folder (when not creating).
 */
static int open_parent(int *out, const char **name, int rootfd, const char *label,
		       const char *relpath, bool create)
{
	const char *start = relpath, *slash;
	int fd = rootfd, error = 0;
	char comp[NAME_MAX + 1];

	while ((slash = strchr(start, '/'))) {
		size_t n = (size_t)(slash - start);
		int next;
		memcpy(comp, start, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, 0777) < 0 && errno != EEXIST) {
				error = ot_error_set("cannot create folder %s/%.*s: %s", label,
						     (int)(slash - relpath), relpath, strerror(errno));
				goto done;
			}
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			struct stat st;
			int err = errno;
			if (err == ENOENT)
				error = ot_error_setc(OT_ENOTFOUND, "%s/%.*s does not exist", label,
						      (int)(slash - relpath), relpath);
			else if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				error = ot_error_set("%s/%.*s is a symbolic link; links in the "
						     "output folder are never followed",
						     label, (int)(slash - relpath), relpath);
			else if (err == ENOTDIR)
				error = ot_error_set("%s/%.*s is not a folder", label,
						     (int)(slash - relpath), relpath);
			else
				error = ot_error_set("cannot open folder %s/%.*s: %s", label,
						     (int)(slash - relpath), relpath, strerror(err));
			goto done;
		}
		if (fd != rootfd)
			close(fd);
		fd = next;
		start = slash + 1;
	}
	*name = start;

done:
	if (error < 0 && fd != rootfd)
		close(fd);
	*out = error < 0 ? -1 : fd;
	return error;
}

static void close_parent(int fd, int rootfd)
{
	if (fd >= 0 && fd != rootfd)
		close(fd);
}

/* Remove `name` below `parent` and everything in it, following no link. */
static int remove_tree_at(int parent, const char *name, const char *label, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int fd, error = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : ot_error_set("cannot inspect %s: %s", label, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(parent, name, 0) < 0 && errno != ENOENT)
			return ot_error_set("cannot remove %s: %s", label, strerror(errno));
		return 0;
	}
	if (depth > MAX_DEPTH)
		return ot_error_set("cannot remove %s: folders nested too deep", label);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return ot_error_set("cannot open %s: %s", label, strerror(errno));
	}
	while (!error && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		error = remove_tree_at(dirfd(d), e->d_name, label, depth + 1);
	}
	closedir(d);
	if (!error && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		error = ot_error_set("cannot remove %s: %s", label, strerror(errno));
	return error;
}

/* ---- file I/O ----------------------------------------------------------------- */

static int write_all(int fd, const char *data, size_t len, const char *label)
{
	while (len) {
		ssize_t n = write(fd, data, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == ENOSPC || errno == EDQUOT))
			return ot_error_set("disk full while writing %s", label);
		if (n <= 0)
			return ot_error_set("cannot write %s: %s", label,
					    n < 0 ? strerror(errno) : "no progress");
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Store-specific errors of fsync/close name the disk too. */
static int io_error(const char *what, const char *label)
{
	if (errno == ENOSPC || errno == EDQUOT)
		return ot_error_set("disk full while writing %s", label);
	return ot_error_set("cannot %s %s: %s", what, label, strerror(errno));
}

/* Whether the open regular file `fd` holds exactly `data`. */
static size_t parts_len(const ot_output_part *parts, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += parts[i].len;
	return len;
}

/*
 * The manifest's hash of a file's bytes, fed in pieces of any length:
 * 8 bytes at a time (a multiply-rotate mix, then the length), fast enough
 * to run over every byte a run writes.
 */
struct hasher {
	uint64_t h, total;
	unsigned char tail[8];
	size_t ntail;
};

#define HASH_MUL 0x9E3779B97F4A7C15ULL

static void hash_word(struct hasher *s, uint64_t w)
{
	s->h = (s->h ^ (w * HASH_MUL));
	s->h = ((s->h << 31) | (s->h >> 33)) * 0xBF58476D1CE4E5B9ULL;
}

static void hash_feed(struct hasher *s, const char *data, size_t len)
{
	s->total += len;
	while (len && s->ntail) {
		s->tail[s->ntail++] = (unsigned char)*data++;
		len--;
		if (s->ntail == 8) {
			uint64_t w;
			memcpy(&w, s->tail, 8);
			hash_word(s, w);
			s->ntail = 0;
		}
	}
	if (s->ntail) /* all of it went into the partial word */
		return;
	for (; len >= 8; data += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, data, 8);
		hash_word(s, w);
	}
	memcpy(s->tail, data, len);
	s->ntail = len;
}

static uint64_t hash_end(struct hasher *s)
{
	uint64_t w = 0, h;
	memcpy(&w, s->tail, s->ntail);
	hash_word(s, w);
	hash_word(s, s->total);
	h = s->h;
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	return h ^ (h >> 33);
}

uint64_t ot_output_hash(const char *data, size_t len)
{
	struct hasher s = {0, 0, {0}, 0};
	hash_feed(&s, data, len);
	return hash_end(&s);
}

static uint64_t parts_hash(const ot_output_part *parts, size_t n)
{
	struct hasher s = {0, 0, {0}, 0};
	for (size_t i = 0; i < n; i++)
		hash_feed(&s, parts[i].data, parts[i].len);
	return hash_end(&s);
}

/* The hash of what regular file `name` (below `parent`) holds; false when
 * it is not one or cannot be read. */
static bool file_hash(uint64_t *out, int parent, const char *name)
{
	struct hasher s = {0, 0, {0}, 0};
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	*out = 0;
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			hash_feed(&s, chunk, (size_t)n);
	close(fd);
	*out = hash_end(&s);
	return n == 0;
}

static int same_contents(bool *out, int fd, const ot_output_part *parts, size_t nparts,
			 const char *label)
{
	char chunk[65536];
	size_t part = 0, off = 0; /* where the comparison is in parts */
	struct stat st;

	*out = false;
	if (fstat(fd, &st) < 0)
		return ot_error_set("cannot inspect %s: %s", label, strerror(errno));
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size != parts_len(parts, nparts))
		return 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		size_t at = 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ot_error_set("cannot read %s: %s", label, strerror(errno));
		if (n == 0)
			break;
		while (at < (size_t)n) {
			size_t k;
			if (part == nparts)
				return 0; /* the file grew since fstat */
			k = parts[part].len - off < (size_t)n - at ? parts[part].len - off : (size_t)n - at;
			if (memcmp(chunk + at, parts[part].data + off, k))
				return 0;
			at += k;
			off += k;
			if (off == parts[part].len) {
				part++;
				off = 0;
			}
		}
	}
	while (part < nparts && !parts[part].len)
		part++;
	*out = part == nparts;
	return 0;
}

/*
 * Compare with the published OUT/relpath. *out: true when its bytes are
 * already right. A folder in the way, or a link on the way, is an error.
 */
static int published_same(bool *out, ot_output *o, const char *relpath,
			  const ot_output_part *parts, size_t nparts)
{
	ot_buf label = OT_BUF_INIT;
	const char *name;
	int parent = -1, fd = -1, error;

	*out = false;
	ot_buf_printf(&label, "%s/%s", o->dir, relpath);
	error = open_parent(&parent, &name, o->dirfd, o->dir, relpath, false);
	if (error == OT_ENOTFOUND) {
		error = 0;
		goto done;
	}
	if (error < 0)
		goto done;
	/* O_NONBLOCK: a FIFO in the way must not hang the run */
	fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		/* missing, or a symlink (renaming replaces the link itself) */
		if (errno != ENOENT && errno != ELOOP)
			error = ot_error_set("cannot open %s: %s", label.ptr, strerror(errno));
		goto done;
	}
	{
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			error = ot_error_set("%s is a folder; cannot replace it with a file", label.ptr);
			goto done;
		}
	}
	error = same_contents(out, fd, parts, nparts, label.ptr);

done:
	if (fd >= 0)
		close(fd);
	close_parent(parent, o->dirfd);
	ot_buf_free(&label);
	return error;
}

/* Write `data` to a new file `name` in folder `parent`. It reaches the disk
 * with the syncfs() of the commit: one flush for a run, not one per file. */
static int write_new_file(int parent, const char *name, const ot_output_part *parts,
			  size_t nparts, const char *label)
{
	int fd, error = 0;
	unlinkat(parent, name, 0); /* a leftover of this run's failed attempt */
	fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return io_error("create", label);
	for (size_t i = 0; i < nparts && !error; i++)
		error = write_all(fd, parts[i].data, parts[i].len, label);
	if (close(fd) < 0 && !error)
		error = io_error("close", label);
	if (error < 0)
		unlinkat(parent, name, 0);
	return error;
}

static int stage(ot_output *o, const char *relpath, const ot_output_part *parts, size_t nparts)
{
	ot_buf label = OT_BUF_INIT;
	const char *name;
	int parent = -1, error;

	ot_buf_printf(&label, "%s/%s", o->dir, OT_OUTPUT_STAGING);
	error = open_parent(&parent, &name, o->stagefd, label.ptr, relpath, true);
	ot_buf_clear(&label);
	ot_buf_printf(&label, "%s/%s", o->dir, relpath);
	if (!error)
		error = write_new_file(parent, name, parts, nparts, label.ptr);
	close_parent(parent, o->stagefd);
	ot_buf_free(&label);
	return error;
}

/* ---- open / write ----------------------------------------------------------- */

int ot_output_make_dirs(const char *dir)
{
	char *p = ot_strdup(dir), *s;
	int error = 0;
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			error = ot_error_set("cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = '/';
	}
	if (!error && mkdir(p, 0777) < 0 && errno != EEXIST)
		error = ot_error_set("cannot create %s: %s", p, strerror(errno));
	free(p);
	return error;
}

/*
 * The absolute, resolved form of `path`, which need not exist yet (its
 * missing tail is kept as written). Caller frees; NULL when nothing of it
 * resolves.
 */
static char *resolved(const char *path)
{
	size_t len = strlen(path);
	for (;;) {
		char *prefix = len ? ot_strndup(path, len) : ot_strdup(".");
		char *real = realpath(prefix, NULL);
		free(prefix);
		if (real) {
			ot_buf b = OT_BUF_INIT;
			const char *tail = path + len;
			ot_buf_puts(&b, real);
			free(real);
			while (*tail == '/')
				tail++;
			if (*tail) {
				if (b.ptr[b.size - 1] != '/')
					ot_buf_putc(&b, '/');
				ot_buf_puts(&b, tail);
			}
			return ot_buf_detach(&b);
		}
		if (!len || (errno != ENOENT && errno != ENOTDIR))
			return NULL;
		while (len && path[len - 1] != '/')
			len--;
		while (len > 1 && path[len - 1] == '/')
			len--;
	}
}

int ot_output_check_folder(const char *dir, const char *checkout, bool force)
{
	char *real = NULL, *home = NULL, *co = NULL;
	const char *h = getenv("HOME");
	struct stat st;
	int error = 0;

	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		return ot_error_set("output folder %s is a symbolic link", dir);
	if (force)
		return 0;
	if (!(real = resolved(dir)))
		return ot_error_set("cannot inspect %s: %s", dir, strerror(errno));
	home = h && *h ? resolved(h) : NULL;
	co = checkout ? resolved(checkout) : NULL;
	if (!strcmp(real, "/"))
		error = ot_error_set("output folder %s is the root folder; name another one (or use "
				     "--force)",
				     dir);
	else if (home && !strcmp(real, home))
		error = ot_error_set("output folder %s is the home folder; name another one (or use "
				     "--force)",
				     dir);
	else if (co && !strcmp(real, co))
		error = ot_error_set("output folder %s is the PyTorch checkout; name another one (or "
				     "use --force)",
				     dir);
	else if (co && !strncmp(real, co, strlen(co)) && real[strlen(co)] == '/')
		error = ot_error_set("output folder %s is inside the PyTorch checkout %s; name another "
				     "one (or use --force)",
				     dir, checkout);
	free(real);
	free(home);
	free(co);
	return error;
}

/* Whether folder `fd` holds anything but optrace's own entries, and a manifest. */
static int folder_kind(bool *others, bool *manifest, int fd, const char *dir)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;
	*others = *manifest = false;
	if (!d) {
		if (copy >= 0)
			close(copy);
		return ot_error_set("cannot list %s: %s", dir, strerror(errno));
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, OT_OUTPUT_MANIFEST))
			*manifest = true;
		else if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			 strncmp(e->d_name, RESERVED_PREFIX, strlen(RESERVED_PREFIX)))
			*others = true;
	}
	closedir(d);
	return 0;
}

static bool not_writable(int err)
{
	return err == EACCES || err == EPERM || err == EROFS;
}

/* The pid that holds a flock() on the file `fd`, from /proc/locks; 0 when unknown. */
static long lock_holder(int fd)
{
	char line[256];
	long pid = 0;
	struct stat st;
	FILE *f;
	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long ino;
		long p;
		char *s = strstr(line, "FLOCK");
		if (s && sscanf(s, "FLOCK %*s %*s %ld %x:%x:%lu", &p, &maj, &min, &ino) == 4 &&
		    maj == major(st.st_dev) && min == minor(st.st_dev) && ino == st.st_ino)
			pid = p;
	}
	fclose(f);
	return pid;
}

/*
 * One run per output folder: OUT/.optrace-lock, flock()ed for as long as
 * the run lasts. The file is never written (a run leaves OUT's bytes and
 * times as they were): the holder's pid is read from /proc/locks.
 */
static int take_lock(ot_output *o)
{
	size_t n = strlen(o->dir);
	const char *sep = n && o->dir[n - 1] == '/' ? "" : "/";
	long pid;

	o->lockfd = openat(o->dirfd, OT_OUTPUT_LOCK, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (o->lockfd < 0) {
		if (not_writable(errno))
			return ot_error_set("output folder %s is not writable: %s", o->dir, strerror(errno));
		return ot_error_set("cannot open %s%s%s: %s", o->dir, sep, OT_OUTPUT_LOCK,
				    strerror(errno));
	}
	if (flock(o->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return ot_error_set("cannot lock %s%s%s: %s", o->dir, sep, OT_OUTPUT_LOCK,
				    strerror(errno));
	pid = lock_holder(o->lockfd);
	if (pid > 0)
		return ot_error_set("%s%s is in use by pid %ld (another optrace run); try again when "
				    "it has finished",
				    o->dir, sep, pid);
	return ot_error_set("%s%s is in use by another optrace run; try again when it has finished",
			    o->dir, sep);
}

/* The first folder of `dir`'s path that does not exist (all after it do
 * not either), or NULL. Caller frees. */
static char *first_missing(const char *dir)
{
	char *p = ot_strdup(dir), *missing = NULL;
	struct stat st;
	for (;;) {
		char *slash;
		if (lstat(p, &st) == 0)
			break;
		free(missing);
		missing = ot_strdup(p);
		slash = strrchr(p, '/');
		while (slash && slash > p && slash[-1] == '/')
			slash--;
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return missing;
}

/* A run that published nothing leaves no folder it made: the lock file,
 * then each folder from OUT up to the first one made, if empty. */
static void remove_created(ot_output *o)
{
	char *p = ot_strdup(o->dir);
	unlinkat(o->dirfd, OT_OUTPUT_LOCK, 0);
	for (;;) {
		char *slash;
		if (rmdir(p) < 0 || !strcmp(p, o->created))
			break;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	free(p);
}

int ot_output_mark_folder(const char *dir)
{
	static const char header[] = MANIFEST_HEADER "\n";
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), m, error = 0;
	if (fd < 0)
		return ot_error_set("cannot open %s: %s", dir, strerror(errno));
	m = openat(fd, OT_OUTPUT_MANIFEST, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (m >= 0) {
		error = write_all(m, header, sizeof(header) - 1, OT_OUTPUT_MANIFEST);
		if (close(m) < 0 && !error)
			error = io_error("close", OT_OUTPUT_MANIFEST);
	} else if (errno != EEXIST) {
		error = ot_error_set("cannot create %s/%s: %s", dir, OT_OUTPUT_MANIFEST, strerror(errno));
	}
	close(fd);
	return error;
}

int ot_output_open(ot_output **out, const char *dir)
{
	return ot_output_open_with(out, dir, NULL);
}

int ot_output_open_with(ot_output **out, const char *dir, const ot_output_opts *opts)
{
	ot_output *o = NULL;
	ot_buf label = OT_BUF_INIT;
	struct stat st;
	bool force = opts && opts->force, others, manifest;

	int error = 0;

	*out = NULL;
	if (!dir || !*dir)
		return ot_error_set("no output folder given");
	if ((error = ot_output_check_folder(dir, opts ? opts->checkout : NULL, force)) < 0)
		return error;
	o = ot_calloc(1, sizeof(*o));
	o->dirfd = o->stagefd = o->lockfd = -1;
	o->dir = ot_strdup(dir);
	pthread_mutex_init(&o->lock, NULL);
	if (lstat(dir, &st) < 0) {
		/* ENOTDIR: a file on the way, which make_dirs reports */
		if (errno != ENOENT && errno != ENOTDIR) {
			error = ot_error_set("cannot inspect %s: %s", dir, strerror(errno));
			goto done;
		}
		/* remembered, so a run that fails leaves no folder it made */
		o->created = first_missing(dir);
		if ((error = ot_output_make_dirs(dir)) < 0)
			goto done;
		if (lstat(dir, &st) < 0) {
			error = ot_error_set("cannot inspect %s: %s", dir, strerror(errno));
			goto done;
		}
	}
	if (S_ISLNK(st.st_mode)) {
		error = ot_error_set("output folder %s is a symbolic link", dir);
		goto done;
	}
	if (!S_ISDIR(st.st_mode)) {
		error = ot_error_set("output folder %s is not a folder", dir);
		goto done;
	}

	o->force = force;
	o->arena = ot_arena_new();
	o->files = ot_map_new();
	o->dirs = ot_map_new();

	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o->dirfd < 0) {
		error = ot_error_set("cannot open output folder %s: %s", dir, strerror(errno));
		goto done;
	}
	if ((error = folder_kind(&others, &manifest, o->dirfd, dir)) < 0)
		goto done;
	if (others && !manifest && !force) {
		error = ot_error_set("output folder %s is not empty and optrace did not make it (it "
				     "has no %s); name a new or empty folder, or use --force",
				     dir, OT_OUTPUT_MANIFEST);
		goto done;
	}
	/* the staging folder belongs to the run that holds the lock */
	if ((error = take_lock(o)) < 0)
		goto done;
	ot_buf_printf(&label, "%s/%s", dir, OT_OUTPUT_STAGING);
	/* a killed run's staging folder: ours to discard */
	if ((error = remove_tree_at(o->dirfd, OT_OUTPUT_STAGING, label.ptr, 0)) < 0)
		goto done;
	if (mkdirat(o->dirfd, OT_OUTPUT_STAGING, 0777) < 0) {
		if (not_writable(errno))
			error = ot_error_set("output folder %s is not writable: %s", dir,
					     strerror(errno));
		else
			error = io_error("create", label.ptr);
		goto done;
	}
	o->staging = true;
	o->stagefd = openat(o->dirfd, OT_OUTPUT_STAGING,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o->stagefd < 0)
		error = ot_error_set("cannot open %s: %s", label.ptr, strerror(errno));

done:
	ot_buf_free(&label);
	if (error < 0) {
		ot_output_free(o);
		return error;
	}
	*out = o;
	return 0;
}

/*
 * Claim `relpath` for this run: it must not be produced twice, nor be a
 * folder of another produced file or the other way round. Lock held.
 */
static int claim(size_t *index, ot_output *o, const char *relpath)
{
	const char *slash;
	char *key;
	struct entry e;

	if (o->committed)
		return ot_error_set("output %s was already committed", o->dir);
	if (ot_map_get(o->files, relpath))
		return ot_error_set("output path '%s' is written twice", relpath);
	if (ot_map_get(o->dirs, relpath))
		return ot_error_set("output path '%s' is also a folder of other output", relpath);
	for (slash = strchr(relpath, '/'); slash; slash = strchr(slash + 1, '/'))
		if (ot_map_getn(o->files, relpath, (size_t)(slash - relpath)))
			return ot_error_set("output path '%s' needs '%.*s' to be a folder, but it "
					    "is written as a file",
					    relpath, (int)(slash - relpath), relpath);
	key = ot_arena_strdup(o->arena, relpath);
	for (slash = strchr(key, '/'); slash; slash = strchr(slash + 1, '/'))
		if (!ot_map_getn(o->dirs, key, (size_t)(slash - key)))
			ot_map_put(o->dirs, ot_arena_strndup(o->arena, key, (size_t)(slash - key)),
				   o);
	e.path = key;
	e.state = PENDING;
	ot_vec_push(&o->entries, e);
	*index = o->entries.len - 1;
	ot_map_put(o->files, key, o);
	return 0;
}

/* Claim relpath for this run (thread-safe): its entry's index. */
static int claim_path(size_t *index, ot_output *o, const char *relpath)
{
	int error;
	if (!relpath || !valid_relpath(relpath))
		return invalid_path(relpath ? relpath : "(null)");
	pthread_mutex_lock(&o->lock);
	error = claim(index, o, relpath);
	pthread_mutex_unlock(&o->lock);
	return error;
}

/* Record how writing entry `index` ended: failed, unchanged or staged. */
static void settle(ot_output *o, size_t index, int error, bool same, uint64_t hash)
{
	pthread_mutex_lock(&o->lock);
	o->entries.items[index].hash = hash;
	o->entries.items[index].state = error < 0 ? FAILED : same ? UNCHANGED : STAGED;
	if (error < 0)
		o->failed++;
	pthread_mutex_unlock(&o->lock);
}

int ot_output_write(ot_output *o, const char *relpath, const char *data, size_t len)
{
	ot_output_part part = {data, len};
	return ot_output_write_parts(o, relpath, &part, 1);
}

int ot_output_write_parts(ot_output *o, const char *relpath, const ot_output_part *parts,
			  size_t nparts)
{
	size_t index = 0;
	bool same = false;
	uint64_t hash;
	int error;

	if ((error = claim_path(&index, o, relpath)) < 0)
		return error;

	/* The file I/O runs unlocked: threads write different paths. */
	error = published_same(&same, o, relpath, parts, nparts);
	if (!error && !same)
		error = stage(o, relpath, parts, nparts);

	hash = error < 0 ? 0 : parts_hash(parts, nparts); /* outside the lock */
	settle(o, index, error, same, hash);
	return error;
}

/* ---- streams ------------------------------------------------------------------ */

struct ot_output_stream {
	ot_output *o;
	size_t index;       /* its entry */
	ot_buf label;       /* OUT/relpath, for messages */
	int staged_parent;  /* the staging folder that holds it */
	const char *name;   /* its name there (in `relpath`) */
	char *path;         /* relpath (name points into it) */
	int fd;             /* the staged file */
	int published;      /* the published file, while it may still be equal; else -1 */
	struct hasher hash;
	int error;
};

/* The published file of relpath opened for reading, or -1 (none, or not a
 * regular file: it is replaced). A folder in the way is an error. */
static int open_published(ot_output *o, const char *relpath, const char *label, int *error)
{
	const char *name;
	int parent = -1, fd = -1;
	struct stat st;
	*error = open_parent(&parent, &name, o->dirfd, o->dir, relpath, false);
	if (*error == OT_ENOTFOUND) {
		*error = 0;
		return -1;
	}
	if (*error < 0)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close_parent(parent, o->dirfd);
	if (fd < 0) {
		/* missing, or a symlink (renaming replaces the link itself) */
		if (errno != ENOENT && errno != ELOOP)
			*error = ot_error_set("cannot open %s: %s", label, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*error = ot_error_set("cannot inspect %s: %s", label, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			*error = ot_error_set("%s is a folder; cannot replace it with a file", label);
		close(fd);
		return -1;
	}
	return fd;
}

/* Does the published file, read on from where it is, start with `data`? */
static bool published_continues(int fd, const char *data, size_t len)
{
	char chunk[65536];
	while (len) {
		size_t want = len < sizeof(chunk) ? len : sizeof(chunk);
		ssize_t n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || memcmp(chunk, data, (size_t)n))
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

int ot_output_stream_open(ot_output *o, const char *relpath, ot_output_stream **out)
{
	ot_output_stream *s;
	ot_buf staging = OT_BUF_INIT;
	size_t index = 0;
	int error;
	*out = NULL;
	if ((error = claim_path(&index, o, relpath)) < 0)
		return error;
	s = ot_calloc(1, sizeof(*s));
	s->o = o;
	s->index = index;
	s->fd = s->published = s->staged_parent = -1;
	s->path = ot_strdup(relpath);
	ot_buf_printf(&s->label, "%s/%s", o->dir, relpath);
	s->published = open_published(o, relpath, s->label.ptr, &error);
	ot_buf_printf(&staging, "%s/%s", o->dir, OT_OUTPUT_STAGING);
	if (!error)
		error = open_parent(&s->staged_parent, &s->name, o->stagefd, staging.ptr, s->path, true);
	ot_buf_free(&staging);
	if (!error) {
		unlinkat(s->staged_parent, s->name, 0); /* a leftover of a failed attempt */
		s->fd = openat(s->staged_parent, s->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0666);
		if (s->fd < 0)
			error = io_error("create", s->label.ptr);
	}
	s->error = error;
	if (error < 0) {
		ot_output_stream_close(s);
		return error;
	}
	*out = s;
	return 0;
}

int ot_output_stream_write(ot_output_stream *s, const char *data, size_t len)
{
	if (s->error < 0)
		return s->error;
	hash_feed(&s->hash, data, len);
	if (s->published >= 0 && !published_continues(s->published, data, len)) {
		close(s->published);
		s->published = -1;
	}
	s->error = write_all(s->fd, data, len, s->label.ptr);
	return s->error;
}

int ot_output_stream_close(ot_output_stream *s)
{
	ot_output *o = s->o;
	int error = s->error;
	bool same = false;
	if (s->published >= 0) {
		char end;
		/* equal when the published file has nothing more */
		same = !error && read(s->published, &end, 1) == 0;
		close(s->published);
	}
	if (s->fd >= 0 && close(s->fd) < 0 && !error)
		error = io_error("close", s->label.ptr);
	if (s->staged_parent >= 0 && s->name && (error < 0 || same))
		unlinkat(s->staged_parent, s->name, 0);
	close_parent(s->staged_parent, o->stagefd);
	settle(o, s->index, error, same, error < 0 ? 0 : hash_end(&s->hash));
	ot_buf_free(&s->label);
	free(s->path);
	free(s);
	return error;
}

/* ---- commit -------------------------------------------------------------------- */

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* Move one staged file over its published path. */
static int publish(ot_output *o, const char *relpath)
{
	ot_buf label = OT_BUF_INIT, staging = OT_BUF_INIT;
	const char *name, *staged_name;
	int parent = -1, staged_parent = -1, error;
	struct stat st;

	ot_buf_printf(&label, "%s/%s", o->dir, relpath);
	ot_buf_printf(&staging, "%s/%s", o->dir, OT_OUTPUT_STAGING);
	if ((error = open_parent(&parent, &name, o->dirfd, o->dir, relpath, true)) < 0)
		goto done;
	if ((error = open_parent(&staged_parent, &staged_name, o->stagefd, staging.ptr, relpath,
				 false)) < 0)
		goto done;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		error = ot_error_set("%s is a folder; cannot replace it with a file", label.ptr);
		goto done;
	}
	if (renameat(staged_parent, staged_name, parent, name) < 0)
		error = ot_error_set("cannot move %s into place: %s", label.ptr, strerror(errno));

done:
	close_parent(parent, o->dirfd);
	close_parent(staged_parent, o->stagefd);
	ot_buf_free(&label);
	ot_buf_free(&staging);
	return error;
}

/*
 * A rename is durable once its folder is synced: sync each folder that
 * received files once, after all renames. `folders` holds relative folder
 * paths ("" for OUT itself).
 */
static int sync_folders(ot_output *o, ot_map *folders)
{
	ot_buf path = OT_BUF_INIT;
	size_t i;
	int error = 0;
	for (i = 0; i < ot_map_len(folders) && !error; i++) {
		const char *dir = ot_map_key_at(folders, i), *name;
		int parent = -1, fd = -1;
		if (!*dir) {
			if (fsync(o->dirfd) < 0)
				error = io_error("sync", o->dir);
			continue;
		}
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/x", dir); /* open_parent opens all but the last */
		if ((error = open_parent(&parent, &name, o->dirfd, o->dir, path.ptr, false)) < 0)
			break;
		fd = parent;
		if (fsync(fd) < 0)
			error = io_error("sync", dir);
		close_parent(fd, o->dirfd);
	}
	ot_buf_free(&path);
	return error;
}

/*
 * A manifest: its lines "PATH\tHASH" (v2; HASH is 16 hex digits of the
 * bytes optrace wrote there) or "PATH" (v1, no hash), sorted, each once.
 * A path may have two lines: a run killed while publishing leaves the old
 * and the new bytes listed.
 */
typedef OT_VEC(char *) path_list;

/* The path part of a manifest line, and its hash (false when it has none). */
static size_t line_path(const char *line, uint64_t *hash, bool *has_hash)
{
	const char *tab = strrchr(line, '\t');
	*has_hash = false;
	*hash = 0;
	if (!tab)
		return strlen(line);
	if (strlen(tab + 1) == 16 && strspn(tab + 1, "0123456789abcdef") == 16) {
		*hash = strtoull(tab + 1, NULL, 16);
		*has_hash = true;
	}
	return (size_t)(tab - line);
}

static char *manifest_line(const char *path, uint64_t hash)
{
	ot_buf b = OT_BUF_INIT;
	ot_buf_printf(&b, "%s\t%016llx", path, (unsigned long long)hash);
	return ot_buf_detach(&b);
}

static void read_manifest(path_list *out, ot_output *o)
{
	ot_buf data = OT_BUF_INIT;
	char chunk[65536], *line, *next;
	int fd, lineno = 0;
	bool v1 = false;
	ssize_t n;

	fd = openat(o->dirfd, OT_OUTPUT_MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			warn("cannot read %s/%s (%s): no stale file is removed", o->dir,
			     OT_OUTPUT_MANIFEST, strerror(errno));
		return;
	}
	{
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			warn("%s/%s is not a regular file: no stale file is removed", o->dir,
			     OT_OUTPUT_MANIFEST);
			close(fd);
			return;
		}
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR)) {
		if (n > 0)
			ot_buf_put(&data, chunk, (size_t)n);
		if (data.size > MAX_MANIFEST)
			break;
	}
	close(fd);
	if (n < 0 || data.size > MAX_MANIFEST) {
		warn("cannot read %s/%s: no stale file is removed", o->dir, OT_OUTPUT_MANIFEST);
		goto done;
	}

	for (line = data.ptr; line < data.ptr + data.size; line = next) {
		char *nl = memchr(line, '\n', (size_t)(data.ptr + data.size - line));
		uint64_t hash;
		bool has_hash;
		size_t plen;
		next = nl ? nl + 1 : data.ptr + data.size;
		if (nl)
			*nl = '\0';
		lineno++;
		if (lineno == 1) {
			v1 = !strcmp(line, MANIFEST_HEADER_V1);
			if (strcmp(line, MANIFEST_HEADER) && !v1) {
				warn("%s/%s does not start with \"%s\": no stale file is removed",
				     o->dir, OT_OUTPUT_MANIFEST, MANIFEST_HEADER);
				goto done;
			}
			continue;
		}
		if (!*line || *line == '#')
			continue;
		/* the rules for writing apply: nothing outside OUT, nothing of ours */
		plen = line_path(line, &hash, &has_hash);
		line[plen] = '\0';
		if (strlen(line) + (has_hash ? 17 : 0) != (size_t)(next - line - (nl ? 1 : 0)) ||
		    !valid_relpath(line) || (!v1 && !has_hash)) {
			warn("%s/%s:%d: ignoring malformed line", o->dir, OT_OUTPUT_MANIFEST, lineno);
			continue;
		}
		ot_vec_push(out, has_hash ? manifest_line(line, hash) : ot_strdup(line));
	}
	if (out->len > 1)
		qsort(out->items, out->len, sizeof(char *), ot_strptr_cmp);

done:
	ot_buf_free(&data);
}

static void free_paths(path_list *paths)
{
	size_t i;
	for (i = 0; i < paths->len; i++)
		free(paths->items[i]);
	ot_vec_free(paths);
}

/* The lines of `m` for `path`: [*first, *end). They are contiguous: '\t'
 * sorts before every byte a path may hold. */
static void lines_of(const path_list *m, const char *path, size_t *first, size_t *end)
{
	size_t lo = 0, hi = m->len, len = strlen(path);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(m->items[mid], path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = *end = lo;
	while (*end < m->len && !strncmp(m->items[*end], path, len) &&
	       (!m->items[*end][len] || m->items[*end][len] == '\t'))
		(*end)++;
}

enum listed { NOT_LISTED, LISTED_NO_HASH, LISTED_OTHER, LISTED_SAME };

/* What the manifest says of `path` holding bytes of `hash`. */
static enum listed listed(const path_list *m, const char *path, uint64_t hash)
{
	size_t first, end;
	enum listed r = NOT_LISTED;
	lines_of(m, path, &first, &end);
	for (size_t i = first; i < end; i++) {
		uint64_t h;
		bool has;
		line_path(m->items[i], &h, &has);
		if (!has && r == NOT_LISTED)
			r = LISTED_NO_HASH;
		else if (has && h == hash)
			return LISTED_SAME;
		else if (has)
			r = LISTED_OTHER;
	}
	return r;
}

static int write_manifest(ot_output *o, const path_list *lines)
{
	ot_buf text = OT_BUF_INIT, label = OT_BUF_INIT;
	ot_output_part part;
	bool same = false;
	int fd, error = 0;
	size_t i;

	ot_buf_puts(&text, MANIFEST_HEADER "\n");
	for (i = 0; i < lines->len; i++)
		if (i == 0 || strcmp(lines->items[i], lines->items[i - 1]))
			ot_buf_printf(&text, "%s\n", lines->items[i]);
	ot_buf_printf(&label, "%s/%s", o->dir, OT_OUTPUT_MANIFEST);
	part = (ot_output_part){text.ptr, text.size};

	fd = openat(o->dirfd, OT_OUTPUT_MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		error = same_contents(&same, fd, &part, 1, label.ptr);
		close(fd);
		if (error < 0 || same)
			goto done;
	}
	/* written in the staging folder (same file system), then renamed */
	if ((error = write_new_file(o->stagefd, OT_OUTPUT_MANIFEST, &part, 1, label.ptr)) < 0)
		goto done;
	if (renameat(o->stagefd, OT_OUTPUT_MANIFEST, o->dirfd, OT_OUTPUT_MANIFEST) < 0) {
		error = ot_error_set("cannot move %s into place: %s", label.ptr, strerror(errno));
		goto done;
	}
	if (fsync(o->dirfd) < 0)
		error = io_error("sync", o->dir);

done:
	ot_buf_free(&text);
	ot_buf_free(&label);
	return error;
}

static int depth_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t dx = 0, dy = 0;
	const char *p;
	for (p = x; *p; p++)
		dx += *p == '/';
	for (p = y; *p; p++)
		dy += *p == '/';
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x, y);
}

/* Delete a stale file if it still is a regular file holding what the
 * manifest `old` says optrace wrote there; count it. */
static void remove_stale(ot_output *o, const path_list *old, const char *relpath, ot_map *emptied,
			 size_t *removed)
{
	const char *name, *slash;
	struct stat st;
	uint64_t hash;
	enum listed how;
	int parent = -1;
	int error = open_parent(&parent, &name, o->dirfd, o->dir, relpath, false);
	if (error < 0) {
		/* gone already is fine; a link or file on the way is left alone */
		if (error != OT_ENOTFOUND)
			warn("not removing stale %s/%s: %s", o->dir, relpath, ot_error_last());
		return;
	}
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			warn("not removing stale %s/%s: %s", o->dir, relpath, strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		warn("not removing stale %s/%s: no longer a regular file", o->dir, relpath);
		goto done;
	}
	how = file_hash(&hash, parent, name) ? listed(old, relpath, hash) : NOT_LISTED;
	if (how != LISTED_SAME) {
		warn("not removing stale %s/%s: %s", o->dir, relpath,
		     how == LISTED_NO_HASH ? "the manifest records no hash of what optrace wrote there"
					   : "it no longer holds what optrace wrote there");
		goto done;
	}
	if (unlinkat(parent, name, 0) < 0) {
		warn("cannot remove stale %s/%s: %s", o->dir, relpath, strerror(errno));
		goto done;
	}
	(*removed)++;
	/* its folders may now be empty */
	for (slash = strchr(relpath, '/'); slash; slash = strchr(slash + 1, '/'))
		if (!ot_map_getn(emptied, relpath, (size_t)(slash - relpath)))
			ot_map_put(emptied, ot_arena_strndup(o->arena, relpath,
							     (size_t)(slash - relpath)),
				   o);

done:
	close_parent(parent, o->dirfd);
}

static void remove_empty_dirs(ot_output *o, ot_map *emptied)
{
	size_t i, n = ot_map_len(emptied);
	const char **dirs = ot_malloc((n ? n : 1) * sizeof(*dirs));
	for (i = 0; i < n; i++)
		dirs[i] = ot_map_key_at(emptied, i);
	qsort(dirs, n, sizeof(*dirs), depth_cmp);
	for (i = 0; i < n; i++) {
		const char *name;
		int parent;
		if (open_parent(&parent, &name, o->dirfd, o->dir, dirs[i], false) < 0)
			continue;
		/* fails unless empty; a link named like the folder is not removed (ENOTDIR) */
		if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOTEMPTY &&
		    errno != EEXIST && errno != ENOENT && errno != ENOTDIR)
			warn("cannot remove empty folder %s/%s: %s", o->dir, dirs[i], strerror(errno));
		close_parent(parent, o->dirfd);
	}
	free(dirs);
}

/*
 * Before anything is published: a file this run replaces must be one
 * optrace wrote, still as it wrote it (the manifest says so), never a
 * file of the user's that happens to have an output's name. Lock held.
 */
static int check_overwrites(ot_output *o, const path_list *old)
{
	int error = 0;
	for (size_t i = 0; i < o->entries.len && !error; i++) {
		const struct entry *e = &o->entries.items[i];
		const char *name;
		struct stat st;
		uint64_t hash;
		enum listed how;
		int parent = -1;
		if (e->state != STAGED)
			continue;
		if (open_parent(&parent, &name, o->dirfd, o->dir, e->path, false) < 0)
			continue; /* no folder yet, or publish reports it */
		if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
			how = file_hash(&hash, parent, name) ? listed(old, e->path, hash) : NOT_LISTED;
			if (how == NOT_LISTED)
				error = ot_error_set("%s/%s is not a file optrace wrote (%s does not list "
						     "it); nothing was published, %s is unchanged: move "
						     "it away, or use --force",
						     o->dir, e->path, OT_OUTPUT_MANIFEST, o->dir);
			else if (how == LISTED_OTHER)
				error = ot_error_set("%s/%s was changed since optrace wrote it; nothing was "
						     "published, %s is unchanged: move it away, or use "
						     "--force",
						     o->dir, e->path, o->dir);
		}
		close_parent(parent, o->dirfd);
	}
	return error;
}

int ot_output_commit(ot_output *o, ot_output_stats *stats)
{
	path_list old = {0}, keep = {0};
	ot_map *emptied = NULL, *folders = NULL;
	ot_output_stats st = {0, 0, 0};
	ot_buf label = OT_BUF_INIT;
	size_t i;
	int error = 0;

	pthread_mutex_lock(&o->lock);
	if (o->committed) {
		error = ot_error_set("output %s was already committed", o->dir);
		goto done;
	}
	if (o->failed) {
		error = ot_error_set("%zu output file%s could not be written; nothing was published",
				     o->failed, o->failed == 1 ? "" : "s");
		goto done;
	}
	for (i = 0; i < o->entries.len; i++)
		if (o->entries.items[i].state == PENDING) {
			error = ot_error_set("output %s is still being written", o->entries.items[i].path);
			goto done;
		}
	read_manifest(&old, o);

	if (o->entries.len > 1) /* qsort must not see NULL */
		qsort(o->entries.items, o->entries.len, sizeof(struct entry), entry_cmp);
	if (!o->force && (error = check_overwrites(o, &old)) < 0)
		goto done;
	for (i = 0; i < o->entries.len && o->entries.items[i].state != STAGED; i++)
		;
	if (i < o->entries.len) {
		/* every staged file on disk before any is renamed into place (a write
		 * error the disk reports late, e.g. ENOSPC on writeback, stops here) */
		if (syncfs(o->stagefd) < 0) {
			error = io_error("sync", OT_OUTPUT_STAGING);
			goto done;
		}
		/*
		 * Before the first rename, the manifest lists the old files and the
		 * new ones: a run killed while publishing leaves no file of ours
		 * untracked, and the next run removes what it does not produce.
		 */
		path_list both = {0};
		for (i = 0; i < old.len; i++)
			ot_vec_push(&both, ot_strdup(old.items[i]));
		for (i = 0; i < o->entries.len; i++)
			ot_vec_push(&both, manifest_line(o->entries.items[i].path,
							 o->entries.items[i].hash));
		qsort(both.items, both.len, sizeof(char *), ot_strptr_cmp);
		error = write_manifest(o, &both);
		free_paths(&both);
		if (error < 0)
			goto done;
	}
	folders = ot_map_new();
	for (i = 0; i < o->entries.len; i++) {
		struct entry *e = &o->entries.items[i];
		if (e->state == STAGED) {
			const char *slash = strrchr(e->path, '/');
			size_t n = slash ? (size_t)(slash - e->path) : 0;
			if ((error = publish(o, e->path)) < 0)
				goto done; /* partly published, all of it listed */
			if (!ot_map_getn(folders, e->path, n))
				ot_map_put(folders, ot_arena_strndup(o->arena, e->path, n), o);
			st.written++;
		} else {
			st.unchanged++;
		}
		ot_vec_push(&keep, manifest_line(e->path, e->hash));
	}
	if ((error = sync_folders(o, folders)) < 0)
		goto done;
	if ((error = write_manifest(o, &keep)) < 0)
		goto done;
	/* Only now is the new manifest the record: stale files of the old one go. */
	emptied = ot_map_new();
	for (i = 0; i < old.len; i++) {
		uint64_t h;
		bool has;
		char *path = ot_strndup(old.items[i], line_path(old.items[i], &h, &has));
		/* every claim was published; a path with two lines is looked at once */
		if (!ot_map_get(o->files, path) &&
		    (i == 0 || strncmp(old.items[i - 1], path, strlen(path)) ||
		     (old.items[i - 1][strlen(path)] && old.items[i - 1][strlen(path)] != '\t')))
			remove_stale(o, &old, path, emptied, &st.removed);
		free(path);
	}
	remove_empty_dirs(o, emptied);
	if (st.removed && fsync(o->dirfd) < 0)
		warn("cannot sync %s: %s", o->dir, strerror(errno));

	ot_buf_printf(&label, "%s/%s", o->dir, OT_OUTPUT_STAGING);
	close(o->stagefd);
	o->stagefd = -1;
	if ((error = remove_tree_at(o->dirfd, OT_OUTPUT_STAGING, label.ptr, 0)) < 0)
		goto done;
	o->staging = false;
	o->committed = true;
	if (stats)
		*stats = st;

done:
	pthread_mutex_unlock(&o->lock);
	ot_map_free(folders);
	ot_map_free(emptied);
	free_paths(&old);
	free_paths(&keep);
	ot_buf_free(&label);
	return error;
}

void ot_output_free(ot_output *o)
{
	if (!o)
		return;
	if (o->stagefd >= 0)
		close(o->stagefd);
	if (o->dirfd >= 0) {
		ot_buf label = OT_BUF_INIT;
		ot_buf_printf(&label, "%s/%s", o->dir, OT_OUTPUT_STAGING);
		/* nothing was published, or it all was: the staging folder goes */
		if (o->staging && remove_tree_at(o->dirfd, OT_OUTPUT_STAGING, label.ptr, 0) < 0)
			warn("%s", ot_error_last());
		ot_buf_free(&label);
		if (o->created && !o->committed)
			remove_created(o);
		/* else the lock file stays: removing it would race with its next taker */
		close(o->dirfd);
	}
	if (o->lockfd >= 0)
		close(o->lockfd);
	pthread_mutex_destroy(&o->lock);
	ot_map_free(o->files);
	ot_map_free(o->dirs);
	ot_vec_free(&o->entries);
	ot_arena_free(o->arena);
	free(o->created);
	free(o->dir);
	free(o);
}

const char *ot_output_dir(const ot_output *o)
{
	return o->dir;
}
