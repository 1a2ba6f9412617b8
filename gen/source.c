#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Trees nested deeper than this are not walked (no real checkout comes near). */
#define MAX_DEPTH 256

/* What a run may read (shared by the source and its readers). */
struct limits {
	size_t max_file, max_total;
	atomic_size_t total;
};

struct ot_source {
	char *path;
	bool progress;
	struct limits lim;
	git_repository *repo; /* NULL for a plain directory */
	git_odb *odb;
	int dirfd;            /* plain directory: the root; else -1 */
	bool selected;
	git_tree *tree;
	char *version;
	char *tag;
	char commit[GIT_OID_HEXSZ + 1];
};

struct ot_source_reader {
	struct limits *lim; /* the source's */
	git_repository *repo;
	git_odb *odb;
	int dirfd;
	char *path;    /* the checkout, for messages */
	char *version;
};

/* ---- libgit2 setup ------------------------------------------------------ */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static char library_version[64];

static void init_libgit2(void)
{
	int major, minor, rev;
	/* Never shut down: readers on other threads may still hold handles. */
	git_libgit2_init();
	/*
	 * Re-hashing every blob costs nearly half of the read time; zlib's own
	 * checksum still turns a damaged object into a read error.
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_libgit2_version(&major, &minor, &rev);
	snprintf(library_version, sizeof(library_version), "libgit2 %d.%d.%d", major, minor, rev);
}

static void ensure_init(void)
{
	pthread_once(&init_once, init_libgit2);
}

const char *ot_source_library_version(void)
{
	ensure_init();
	return library_version;
}

static const char *git_msg(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

/* ---- progress on stderr -------------------------------------------------- */

typedef struct {
	const char *what;
	double last; /* ot_clock() of the last redraw */
	bool shown, finished;
} progress;

/* Redraw at most ten times a second, and always at the end. */
static bool progress_due(progress *p, bool final)
{
	double t = ot_clock();
	if (!final && p->shown && t - p->last < 0.1)
		return false;
	p->last = t;
	p->shown = true;
	return true;
}

static int on_transfer(const git_indexer_progress *st, void *payload)
{
	progress *p = payload;
	bool final = st->total_objects && st->indexed_objects == st->total_objects &&
		     st->indexed_deltas == st->total_deltas;
	if (p->finished || !progress_due(p, final))
		return 0;
	p->finished = final;
	fprintf(stderr, "\roptrace: %s: %u/%u objects (%.1f MiB), %u/%u deltas   ", p->what,
		st->received_objects, st->total_objects,
		(double)st->received_bytes / (1024.0 * 1024.0), st->indexed_deltas,
		st->total_deltas);
	if (final)
		fputc('\n', stderr);
	return 0;
}

static void on_checkout(const char *path, size_t done, size_t total, void *payload)
{
	progress *p = payload;
	(void)path;
	if (!progress_due(p, done == total))
		return;
	fprintf(stderr, "\roptrace: checking out files: %zu/%zu   %s", done, total,
		done == total ? "\n" : "");
}

/* ---- opening -------------------------------------------------------------- */

/* Cut `dir` to its parent folder ("a//b/" -> "a"); false at the top. */
static bool to_parent(char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (n > 0 && dir[n - 1] != '/')
		n--;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 0 || (n == 1 && dir[0] == '/'))
		return false;
	dir[n] = '\0';
	return true;
}

/* How many of the folders above `path` (nearest first) do not exist. */
static size_t missing_ancestors(const char *path)
{
	char *dir = ot_strdup(path);
	size_t n = 0;
	struct stat st;
	while (to_parent(dir) && lstat(dir, &st) != 0)
		n++;
	free(dir);
	return n;
}

/* Remove the `n` nearest folders above `path`, each only if empty. */
static void remove_ancestors(const char *path, size_t n)
{
	char *dir = ot_strdup(path);
	while (n-- && to_parent(dir))
		if (rmdir(dir) != 0 && errno != ENOENT)
			break;
	free(dir);
}

static int clone_checkout(const ot_source_opts *opts)
{
	git_clone_options co;
	git_repository *repo = NULL;
	progress p = {"cloning", 0, false, false};
	double start = ot_clock();

	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	if (opts->progress) {
		fprintf(stderr, "optrace: %s does not exist: cloning %s (this can take minutes)\n",
			opts->path, opts->clone_url);
		co.fetch_opts.callbacks.transfer_progress = on_transfer;
		co.fetch_opts.callbacks.payload = &p;
		co.checkout_opts.progress_cb = on_checkout;
		co.checkout_opts.progress_payload = &p;
	}
	/* the folders above the checkout that do not exist yet: libgit2 makes
	 * them, and a failed clone must not leave them behind */
	size_t made = missing_ancestors(opts->path);
	if (git_clone(&repo, opts->clone_url, opts->path, &co) < 0) {
		int error = ot_error_set("cannot clone %s into %s: %s", opts->clone_url, opts->path,
					 git_msg());
		remove_ancestors(opts->path, made);
		return error;
	}
	git_repository_free(repo);
	if (opts->progress)
		fprintf(stderr, "optrace: cloned %s into %s in %.1f s\n", opts->clone_url,
			opts->path, ot_clock() - start);
	return 0;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;
	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int ot_source_open(ot_source **out, const ot_source_opts *opts)
{
	ot_source *src = NULL;
	git_repository *repo = NULL;
	struct stat st;
	int error = OT_ERROR, rc;

	*out = NULL;
	ensure_init();
	if (!opts || !opts->path || !*opts->path)
		return ot_error_set("no PyTorch source checkout given (--source DIR)");
	if (stat(opts->path, &st) != 0) {
		if (errno != ENOENT)
			return ot_error_set("cannot access the PyTorch checkout %s: %s", opts->path,
					    strerror(errno));
		if (!opts->clone_url)
			return ot_error_set("the PyTorch checkout %s does not exist: clone it "
					    "(git clone %s %s) or pass --source with an existing "
					    "checkout",
					    opts->path, OT_SOURCE_DEFAULT_URL, opts->path);
		if (clone_checkout(opts) < 0)
			return OT_ERROR;
		if (stat(opts->path, &st) != 0)
			return ot_error_set("cloned into %s, but it is gone: %s", opts->path,
					    strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return ot_error_set("the PyTorch checkout %s is a file, not a folder: pass --source "
				    "with the folder of a PyTorch git clone",
				    opts->path);
	if (dir_is_empty(opts->path))
		return ot_error_set("the PyTorch checkout %s is an empty folder: remove it so it can "
				    "be cloned (git clone %s %s), or pass --source with a clone",
				    opts->path, OT_SOURCE_DEFAULT_URL, opts->path);

	rc = git_repository_open_ext(&repo, opts->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (rc == GIT_ENOTFOUND) {
		if (!opts->allow_unverified)
			return ot_error_set("%s is not a git repository, so the PyTorch release it "
					    "holds cannot be verified: use a git clone of PyTorch "
					    "(--source), or pass --unverified-source to read it as "
					    "the requested release anyway",
					    opts->path);
	} else if (rc < 0) {
		return ot_error_set("cannot open the git repository %s: %s", opts->path, git_msg());
	}

	src = ot_calloc(1, sizeof(*src));
	src->path = ot_strdup(opts->path);
	src->progress = opts->progress;
	src->lim.max_file = opts->max_file ? opts->max_file : OT_SOURCE_MAX_FILE;
	src->lim.max_total = opts->max_total ? opts->max_total : OT_SOURCE_MAX_TOTAL;
	atomic_init(&src->lim.total, 0);
	src->dirfd = -1;
	src->repo = repo;
	repo = NULL;
	if (src->repo) {
		if (git_repository_odb(&src->odb, src->repo) < 0) {
			ot_error_set("cannot open the object database of %s: %s", src->path,
				     git_msg());
			goto done;
		}
	} else {
		src->dirfd = open(src->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (src->dirfd < 0) {
			ot_error_set("cannot open the folder %s: %s", src->path, strerror(errno));
			goto done;
		}
	}
	*out = src;
	src = NULL;
	error = 0;
done:
	ot_source_free(src);
	return error;
}

static void clear_selection(ot_source *src)
{
	git_tree_free(src->tree);
	src->tree = NULL;
	free(src->version);
	free(src->tag);
	src->version = src->tag = NULL;
	src->commit[0] = '\0';
	src->selected = false;
}

void ot_source_free(ot_source *src)
{
	if (!src)
		return;
	clear_selection(src);
	git_odb_free(src->odb);
	git_repository_free(src->repo);
	if (src->dirfd >= 0)
		close(src->dirfd);
	free(src->path);
	free(src);
}

/* ---- selecting a release ---------------------------------------------------- */

/* Characters that can appear in a version string used to build a tag name. */
static bool version_ok(const char *v)
{
	const char *s;
	if (!*v || strlen(v) > 64 || *v == '.' || *v == '-')
		return false;
	for (s = v; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || *s == '.' || *s == '-' || *s == '_' || *s == '+'))
			return false;
	return !strstr(v, "..");
}

/* Fetch just refs/tags/<tag> from "origin". 1: fetched (or tried and the
 * remote lacks it), 0: no origin, <0: the fetch failed (reason in `why`). */
static int fetch_tag(ot_source *src, const char *tag, ot_buf *why)
{
	git_remote *remote = NULL;
	git_fetch_options fo;
	git_strarray specs;
	char refspec[256];
	char *spec = refspec;
	progress p = {"fetching", 0, false, false};
	int rc;

	rc = git_remote_lookup(&remote, src->repo, "origin");
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0) {
		ot_buf_printf(why, "its origin remote is unusable: %s", git_msg());
		return -1;
	}
	snprintf(refspec, sizeof(refspec), "+refs/tags/%s:refs/tags/%s", tag, tag);
	specs.strings = &spec;
	specs.count = 1;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	/* Only the one tag: no auto-followed tags, no FETCH_HEAD, no pruning. */
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	fo.prune = GIT_FETCH_NO_PRUNE;
	if (src->progress) {
		fprintf(stderr, "optrace: %s has no tag %s: fetching it from origin (%s)\n",
			src->path, tag, git_remote_url(remote) ? git_remote_url(remote) : "?");
		fo.callbacks.transfer_progress = on_transfer;
		fo.callbacks.payload = &p;
	}
	rc = git_remote_fetch(remote, &specs, &fo, NULL);
	if (rc < 0)
		ot_buf_printf(why, "fetching it from origin (%s) failed: %s",
			      git_remote_url(remote) ? git_remote_url(remote) : "?", git_msg());
	git_remote_free(remote);
	return rc < 0 ? -1 : 1;
}

/* Follow annotated tags down to what they finally name; it must be a commit. */
static int peel_tag(git_commit **out, ot_source *src, const git_oid *target, const char *tag)
{
	git_object *obj = NULL, *next = NULL;
	int depth, error = OT_ERROR;

	if (git_object_lookup(&obj, src->repo, target, GIT_OBJECT_ANY) < 0)
		return ot_error_set("cannot read what tag %s names in %s: %s", tag, src->path,
				    git_msg());
	for (depth = 0; git_object_type(obj) == GIT_OBJECT_TAG; depth++) {
		if (depth > 16 || git_tag_target(&next, (git_tag *)obj) < 0) {
			ot_error_set("cannot peel tag %s in %s: %s", tag, src->path,
				     depth > 16 ? "too many nested tags" : git_msg());
			goto done;
		}
		git_object_free(obj);
		obj = next;
		next = NULL;
	}
	if (git_object_type(obj) != GIT_OBJECT_COMMIT) {
		ot_error_set("tag %s in %s points at a %s, not a commit, so it is not a release "
			     "of the source tree",
			     tag, src->path, git_object_type2string(git_object_type(obj)));
		goto done;
	}
	*out = (git_commit *)obj;
	obj = NULL;
	error = 0;
done:
	git_object_free(obj);
	return error;
}

static int select_release(git_commit **out, ot_source *src, const char *version)
{
	char tag[80], refname[96];
	git_reference *ref = NULL, *resolved = NULL;
	ot_buf why = OT_BUF_INIT;
	int rc, error = OT_ERROR;

	snprintf(tag, sizeof(tag), "v%s", version);
	snprintf(refname, sizeof(refname), "refs/tags/%s", tag);
	rc = git_reference_lookup(&ref, src->repo, refname);
	if (rc == GIT_ENOTFOUND) {
		int fetched = fetch_tag(src, tag, &why);
		if (fetched > 0)
			rc = git_reference_lookup(&ref, src->repo, refname);
		if (rc == GIT_ENOTFOUND) {
			if (fetched == 0)
				ot_buf_puts(&why, "it has no origin remote to fetch it from");
			else if (fetched > 0)
				ot_buf_puts(&why, "its origin remote does not have it either");
			/* without an origin, name the upstream repository to fetch from */
			ot_error_set("PyTorch %s: the checkout %s has no tag %s (%s); fetch it: "
				     "git -C %s fetch %s tag %s, or pass --source with a "
				     "checkout that has it",
				     version, src->path, tag, why.ptr, src->path,
				     fetched == 0 ? OT_SOURCE_DEFAULT_URL : "origin", tag);
			goto done;
		}
	}
	if (rc < 0) {
		ot_error_set("cannot read tag %s in %s: %s", tag, src->path, git_msg());
		goto done;
	}
	if (git_reference_resolve(&resolved, ref) < 0) {
		ot_error_set("cannot resolve tag %s in %s: %s", tag, src->path, git_msg());
		goto done;
	}
	if (peel_tag(out, src, git_reference_target(resolved), tag) < 0)
		goto done;
	src->tag = ot_strdup(tag);
	error = 0;
done:
	git_reference_free(resolved);
	git_reference_free(ref);
	ot_buf_free(&why);
	return error;
}

static int select_nightly(git_commit **out, ot_source *src, const char *version,
			  const char *hint)
{
	size_t len = strlen(hint), i;
	git_oid oid;
	git_object *obj = NULL;
	int rc;

	for (i = 0; i < len; i++)
		if (!((hint[i] >= '0' && hint[i] <= '9') || (hint[i] >= 'a' && hint[i] <= 'f') ||
		      (hint[i] >= 'A' && hint[i] <= 'F')))
			break;
	if (len < 4 || len > GIT_OID_HEXSZ || i < len)
		return ot_error_set("nightly %s: '%.48s' is not a commit id (4 to 40 hex digits)",
				    version, hint);
	if (git_oid_fromstrn(&oid, hint, len) < 0)
		return ot_error_set("nightly %s: bad commit id %s: %s", version, hint, git_msg());
	rc = git_object_lookup_prefix(&obj, src->repo, &oid, len, GIT_OBJECT_COMMIT);
	if (rc == GIT_ENOTFOUND)
		return ot_error_set("nightly %s: commit %s is not in the checkout %s; a nightly has "
				    "no release tag, so its commit is needed: fetch it (git -C %s "
				    "fetch origin %s), or pass --torch-version with a release",
				    version, hint, src->path, src->path, hint);
	if (rc == GIT_EAMBIGUOUS)
		return ot_error_set("nightly %s: commit id %s is ambiguous in %s: give more digits",
				    version, hint, src->path);
	if (rc < 0)
		return ot_error_set("nightly %s: cannot read commit %s in %s: %s", version, hint,
				    src->path, git_msg());
	*out = (git_commit *)obj;
	return 0;
}

int ot_source_select(ot_source *src, const char *version, const char *commit_hint)
{
	git_commit *commit = NULL;
	int error = OT_ERROR;

	clear_selection(src);
	if (!version || !version_ok(version))
		return ot_error_set("'%.64s' is not a release version to select",
				    version ? version : "(null)");
	if (!src->repo) {
		src->version = ot_strdup(version);
		snprintf(src->commit, sizeof(src->commit), "unverified");
		src->selected = true;
		return 0;
	}
	if (commit_hint && *commit_hint)
		error = select_nightly(&commit, src, version, commit_hint);
	else
		error = select_release(&commit, src, version);
	if (error < 0)
		goto done;
	if (git_commit_tree(&src->tree, commit) < 0) {
		error = ot_error_set("cannot read the tree of commit %s in %s: %s",
				     git_oid_tostr_s(git_commit_id(commit)), src->path, git_msg());
		goto done;
	}
	git_oid_tostr(src->commit, sizeof(src->commit), git_commit_id(commit));
	src->version = ot_strdup(version);
	src->selected = true;
	error = 0;
done:
	git_commit_free(commit);
	if (error < 0)
		clear_selection(src);
	return error;
}

const char *ot_source_version(const ot_source *src)
{
	return src->version;
}

const char *ot_source_tag(const ot_source *src)
{
	return src->tag;
}

const char *ot_source_commit(const ot_source *src)
{
	return src->commit[0] ? src->commit : NULL;
}

bool ot_source_verified(const ot_source *src)
{
	return src->repo != NULL;
}

const char *ot_source_path(const ot_source *src)
{
	return src->path;
}

/* ---- paths ------------------------------------------------------------------ */

/* A repository-relative path: no leading '/', no empty, "." or ".." parts. */
static bool path_ok(const char *path)
{
	const char *s = path;
	if (!*path || strlen(path) >= 4096)
		return false;
	for (;;) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (!s[n])
			return true;
		s += n + 1;
	}
}

/* ---- reading ------------------------------------------------------------------ */

/*
 * Count `size` bytes of `path` against the limits before they are read: a
 * file over the per-file limit, or one that takes the run over its total,
 * is an error (never an allocation that fails).
 */
static int charge(struct limits *lim, size_t size, const char *path, const char *checkout)
{
	size_t before;
	if (size > lim->max_file)
		return ot_error_set("cannot read %s from %s: file too large (%zu bytes; the limit is "
				    "%zu, see --max-file-bytes)",
				    path, checkout, size, lim->max_file);
	before = atomic_fetch_add(&lim->total, size);
	if (before + size > lim->max_total || before + size < before)
		return ot_error_set("cannot read %s from %s: the files read add up to more than %zu "
				    "bytes, the limit of one run (see --max-read-bytes)",
				    path, checkout, lim->max_total);
	return 0;
}

static int read_blob(ot_buf *out, struct limits *lim, git_odb *odb, const git_oid *oid,
		     const char *path, const char *checkout, const char *version)
{
	git_odb_object *obj = NULL;
	size_t size;

	if (git_odb_read(&obj, odb, oid) < 0)
		return ot_error_set("cannot read %s at %s from %s: %s", path, version, checkout,
				    git_msg());
	size = git_odb_object_size(obj);
	if (git_odb_object_type(obj) != GIT_OBJECT_BLOB || size > lim->max_file) {
		git_odb_object_free(obj);
		return ot_error_set("cannot read %s at %s from %s: %s", path, version, checkout,
				    size > lim->max_file ? "file too large" : "not a blob");
	}
	/* (listing and ot_source_read skip or refuse a blob over max_file by
	 * its header, before it is inflated) */
	if (charge(lim, size, path, checkout) < 0) {
		git_odb_object_free(obj);
		return OT_ERROR;
	}
	ot_buf_clear(out);
	ot_buf_put(out, git_odb_object_data(obj), size);
	git_odb_object_free(obj);
	return 0;
}

/*
 * Open the folder made of the first `len` bytes of `path` below `root`,
 * following no symbolic link on the way (len 0: a copy of root). -1 when
 * there is no such folder.
 */
static int open_dir_nofollow(int root, const char *path, size_t len)
{
	char part[256];
	size_t pos = 0;
	int dir = fcntl(root, F_DUPFD_CLOEXEC, 0);

	while (dir >= 0 && pos < len) {
		size_t n = strcspn(path + pos, "/");
		int next = -1;
		if (n > len - pos)
			n = len - pos;
		if (n < sizeof(part)) {
			memcpy(part, path + pos, n);
			part[n] = '\0';
			next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		close(dir);
		dir = next;
		pos += n + 1;
	}
	return dir;
}

/*
 * Open the regular file `path` below `root` without following a symbolic
 * link anywhere on the way. OT_ENOTFOUND when there is none.
 */
static int plain_open(int *out, struct stat *st, int root, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int dir = open_dir_nofollow(root, path, slash ? (size_t)(slash - path) : 0), fd = -1;

	if (dir < 0)
		return OT_ENOTFOUND;
	/* Look before opening, so a FIFO or device is never opened. */
	if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode))
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dir);
	if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return OT_ENOTFOUND;
	*out = fd;
	return 0;
}

static int plain_read(ot_buf *out, struct limits *lim, int root, const char *path,
		      const char *checkout)
{
	struct stat st;
	int fd, error = OT_ERROR;
	ssize_t n;

	if (plain_open(&fd, &st, root, path) < 0)
		return ot_error_setc(OT_ENOTFOUND, "%s: no such file in %s", path, checkout);
	if (charge(lim, (size_t)st.st_size, path, checkout) < 0)
		goto done;
	ot_buf_clear(out);
	ot_buf_grow_by(out, (size_t)st.st_size);
	/* Read straight into the buffer; the file may change size underneath. */
	for (;;) {
		if (out->asize - out->size < 2)
			ot_buf_grow_by(out, 65536);
		n = read(fd, out->ptr + out->size, out->asize - out->size - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ot_error_set("cannot read %s from %s: %s", path, checkout, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		out->size += (size_t)n;
		if (out->size > (size_t)st.st_size && charge(lim, (size_t)n, path, checkout) < 0)
			goto done;
		if (out->size > lim->max_file) {
			ot_error_set("cannot read %s from %s: file too large", path, checkout);
			goto done;
		}
	}
	error = 0;
done:
	if (out->asize)
		out->ptr[out->size] = '\0';
	close(fd);
	return error;
}

static int not_selected(const ot_source *src)
{
	return ot_error_set("no release selected in %s (ot_source_select first)", src->path);
}

int ot_source_read(ot_buf *out, ot_source *src, const char *path)
{
	git_tree_entry *entry = NULL;
	git_filemode_t mode;
	git_object_t type;
	size_t size;
	int rc, error = OT_ERROR;

	if (!src->selected)
		return not_selected(src);
	if (!path || !path_ok(path))
		return ot_error_setc(OT_ENOTFOUND, "'%.200s' is not a repository-relative path",
				     path ? path : "(null)");
	if (!src->repo)
		return plain_read(out, &src->lim, src->dirfd, path, src->path);
	rc = git_tree_entry_bypath(&entry, src->tree, path);
	if (rc == GIT_ENOTFOUND)
		return ot_error_setc(OT_ENOTFOUND, "%s: no such file at %s in %s", path,
				     src->version, src->path);
	if (rc < 0)
		return ot_error_set("cannot look up %s at %s in %s: %s", path, src->version,
				    src->path, git_msg());
	mode = git_tree_entry_filemode(entry);
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) {
		error = ot_error_setc(OT_ENOTFOUND, "%s: not a regular file at %s in %s", path,
				      src->version, src->path);
		goto done;
	}
	/* The header alone tells the size, so an oversized blob is never inflated. */
	if (git_odb_read_header(&size, &type, src->odb, git_tree_entry_id(entry)) < 0) {
		ot_error_set("cannot read %s at %s from %s: %s", path, src->version, src->path,
			     git_msg());
		goto done;
	}
	if (size > src->lim.max_file) {
		ot_error_set("cannot read %s at %s from %s: file too large (%zu bytes; the limit is "
			     "%zu, see --max-file-bytes)",
			     path, src->version, src->path, size, src->lim.max_file);
		goto done;
	}
	error = read_blob(out, &src->lim, src->odb, git_tree_entry_id(entry), path, src->path,
			  src->version);
done:
	git_tree_entry_free(entry);
	return error;
}

/* ---- listing ------------------------------------------------------------------ */

typedef struct {
	ot_source *src;
	ot_source_files *out;
	ot_arena *arena;
	const char *prefix;
	size_t prefix_len;
	bool (*keep)(const char *path, void *payload);
	void *payload;
	ot_buf path; /* the directory being walked, with a trailing '/' (or empty) */
} walk;

/* Can anything under the directory `path` (ending in '/') match the prefix? */
static bool dir_matches(const walk *w, const char *path, size_t len)
{
	size_t n = len < w->prefix_len ? len : w->prefix_len;
	return memcmp(path, w->prefix, n) == 0;
}

/* Keep the file now named by w->path when it matches. */
static void add_file(walk *w, size_t size, const git_oid *oid)
{
	ot_source_file f;
	if (w->path.size < w->prefix_len || memcmp(w->path.ptr, w->prefix, w->prefix_len) ||
	    (w->keep && !w->keep(w->path.ptr, w->payload)))
		return;
	f.path = ot_arena_strndup(w->arena, w->path.ptr, w->path.size);
	f.size = size;
	if (oid)
		memcpy(f.oid, oid->id, sizeof(f.oid));
	else
		memset(f.oid, 0, sizeof(f.oid));
	ot_vec_push(w->out, f);
}

/* Enter the child directory `name`: true when it can hold a match. */
static bool enter_dir(walk *w, const char *name)
{
	ot_buf_puts(&w->path, name);
	ot_buf_putc(&w->path, '/');
	return dir_matches(w, w->path.ptr, w->path.size);
}

static int walk_tree(walk *w, const git_tree *tree, int depth)
{
	size_t i, n = git_tree_entrycount(tree);

	for (i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(e);
		git_filemode_t mode = git_tree_entry_filemode(e);
		size_t base = w->path.size;

		if (mode == GIT_FILEMODE_TREE) {
			if (enter_dir(w, name) && depth < MAX_DEPTH) {
				git_tree *sub;
				int rc;
				if (git_tree_lookup(&sub, w->src->repo, git_tree_entry_id(e)) < 0)
					return ot_error_set("cannot read folder %s at %s in %s: %s",
							    w->path.ptr, w->src->version,
							    w->src->path, git_msg());
				rc = walk_tree(w, sub, depth + 1);
				git_tree_free(sub);
				if (rc < 0)
					return rc;
			}
			ot_buf_truncate(&w->path, base);
		} else if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) {
			size_t size;
			git_object_t type;
			ot_buf_puts(&w->path, name);
			/* Ask the object database only about files that match. */
			if (w->path.size >= w->prefix_len &&
			    !memcmp(w->path.ptr, w->prefix, w->prefix_len)) {
				if (git_odb_read_header(&size, &type, w->src->odb,
							git_tree_entry_id(e)) < 0)
					return ot_error_set("cannot read %s at %s in %s: %s",
							    w->path.ptr, w->src->version,
							    w->src->path, git_msg());
				if (size <= w->src->lim.max_file)
					add_file(w, size, git_tree_entry_id(e));
			}
			ot_buf_truncate(&w->path, base);
		}
		/* Symlinks (120000) and submodules (160000) are left out. */
	}
	return 0;
}

static int walk_dir(walk *w, int dirfd, int depth)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;

	if (!d) {
		close(dirfd);
		return ot_error_set("cannot list %s in %s: %s", w->path.ptr, w->src->path,
				    strerror(errno));
	}
	while ((e = readdir(d))) {
		struct stat st;
		size_t base = w->path.size;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (enter_dir(w, e->d_name) && depth < MAX_DEPTH) {
				int fd = openat(dirfd, e->d_name,
						O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (fd >= 0 && walk_dir(w, fd, depth + 1) < 0) {
					closedir(d);
					return OT_ERROR;
				}
			}
			ot_buf_truncate(&w->path, base);
		} else if (S_ISREG(st.st_mode) && (size_t)st.st_size <= w->src->lim.max_file) {
			ot_buf_puts(&w->path, e->d_name);
			add_file(w, (size_t)st.st_size, NULL);
			ot_buf_truncate(&w->path, base);
		}
	}
	closedir(d);
	return 0;
}

/* Walk what lies under one prefix, starting at its deepest named folder. */
static int list_prefix(walk *w, const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	size_t dirlen = slash ? (size_t)(slash - prefix) : 0;
	char *dir = ot_strndup(prefix, dirlen);
	int error = 0;

	w->prefix = prefix;
	w->prefix_len = strlen(prefix);
	ot_buf_clear(&w->path);
	if (dirlen && !path_ok(dir))
		goto done;
	if (dirlen) {
		ot_buf_put(&w->path, prefix, dirlen);
		ot_buf_putc(&w->path, '/');
	}
	if (w->src->repo) {
		git_tree *tree = NULL;
		if (!dirlen) {
			error = walk_tree(w, w->src->tree, 0);
		} else {
			git_tree_entry *e = NULL;
			int rc = git_tree_entry_bypath(&e, w->src->tree, dir);
			if (rc == GIT_ENOTFOUND || (rc == 0 && git_tree_entry_filemode(e) !=
								  GIT_FILEMODE_TREE)) {
				git_tree_entry_free(e);
				goto done;
			}
			if (rc < 0 || git_tree_lookup(&tree, w->src->repo, git_tree_entry_id(e)) < 0)
				error = ot_error_set("cannot read folder %s at %s in %s: %s", dir,
						     w->src->version, w->src->path, git_msg());
			else
				error = walk_tree(w, tree, 1);
			git_tree_free(tree);
			git_tree_entry_free(e);
		}
	} else {
		int fd = open_dir_nofollow(w->src->dirfd, prefix, dirlen);
		if (fd >= 0)
			error = walk_dir(w, fd, 1);
	}
done:
	free(dir);
	return error;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const ot_source_file *)a)->path, ((const ot_source_file *)b)->path);
}

int ot_source_list(ot_source_files *out, ot_arena *arena, ot_source *src,
		   const char *const *prefixes, bool (*keep)(const char *path, void *payload),
		   void *payload)
{
	walk w;
	const char **sorted = NULL;
	size_t count = 0, i, start = out->len;
	int error = 0;

	if (!src->selected)
		return not_selected(src);
	while (prefixes && prefixes[count])
		count++;
	/*
	 * Drop a prefix that extends another (it would list files twice); what
	 * is left names disjoint ranges of paths, walked in byte order.
	 */
	sorted = ot_malloc((count ? count : 1) * sizeof(*sorted));
	memcpy(sorted, prefixes, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), ot_strptr_cmp);
	memset(&w, 0, sizeof(w));
	w.src = src;
	w.out = out;
	w.arena = arena;
	w.keep = keep;
	w.payload = payload;
	w.path = (ot_buf)OT_BUF_INIT;
	for (i = 0; i < count && !error; i++) {
		size_t j;
		bool covered = false;
		for (j = 0; j < i && !covered; j++)
			covered = ot_starts_with(sorted[i], sorted[j]);
		if (!covered)
			error = list_prefix(&w, sorted[i]);
	}
	ot_buf_free(&w.path);
	free(sorted);
	if (!error) {
		/* what the list will cost to read, told before anything is read */
		size_t sum = atomic_load(&src->lim.total);
		for (i = start; i < out->len && sum <= src->lim.max_total; i++)
			sum += out->items[i].size;
		if (sum > src->lim.max_total)
			error = ot_error_set("the files to read at %s add up to more than %zu "
					     "bytes, the limit of one run (see --max-read-bytes)",
					     src->version, src->lim.max_total);
	}
	if (error < 0) {
		out->len = start;
		return error;
	}
	/* Plain folders come in directory order; a git tree is already sorted. */
	for (i = start + 1; i < out->len; i++) {
		if (strcmp(out->items[i - 1].path, out->items[i].path) >= 0) {
			qsort(out->items + start, out->len - start, sizeof(*out->items), file_cmp);
			break;
		}
	}
	return 0;
}

/* ---- readers --------------------------------------------------------------------- */

int ot_source_reader_new(ot_source_reader **out, ot_source *src)
{
	ot_source_reader *r;

	*out = NULL;
	if (!src->selected)
		return not_selected(src);
	r = ot_calloc(1, sizeof(*r));
	r->dirfd = -1;
	r->lim = &src->lim;
	r->path = ot_strdup(src->path);
	r->version = ot_strdup(src->version);
	if (src->repo) {
		const char *gitdir = git_repository_path(src->repo);
		if (git_repository_open_ext(&r->repo, gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH,
					    NULL) < 0 ||
		    git_repository_odb(&r->odb, r->repo) < 0) {
			ot_error_set("cannot open %s for a reader: %s", src->path, git_msg());
			ot_source_reader_free(r);
			return OT_ERROR;
		}
	} else {
		r->dirfd = fcntl(src->dirfd, F_DUPFD_CLOEXEC, 0);
		if (r->dirfd < 0) {
			ot_error_set("cannot open %s for a reader: %s", src->path, strerror(errno));
			ot_source_reader_free(r);
			return OT_ERROR;
		}
	}
	*out = r;
	return 0;
}

void ot_source_reader_free(ot_source_reader *reader)
{
	if (!reader)
		return;
	git_odb_free(reader->odb);
	git_repository_free(reader->repo);
	if (reader->dirfd >= 0)
		close(reader->dirfd);
	free(reader->path);
	free(reader->version);
	free(reader);
}

int ot_source_reader_read(ot_buf *out, ot_source_reader *reader, const ot_source_file *file)
{
	git_oid oid;

	if (!reader->repo) {
		if (!path_ok(file->path))
			return ot_error_setc(OT_ENOTFOUND, "'%.200s' is not a repository-relative path",
					     file->path);
		return plain_read(out, reader->lim, reader->dirfd, file->path, reader->path);
	}
	git_oid_fromraw(&oid, file->oid);
	return read_blob(out, reader->lim, reader->odb, &oid, file->path, reader->path,
			 reader->version);
}
