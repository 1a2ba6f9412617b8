/* Check suite for gen/output.c: staging, publishing and cleaning the output folder. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "testutil.h"

#define HEADER "# optrace manifest v2\n"

/* ---- helpers ------------------------------------------------------------------- */

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = tu_path(dir, rel);
	tu_write_file(p, text, strlen(text));
	free(p);
}

static void make_dir(const char *dir, const char *rel)
{
	char *p = tu_path(dir, rel);
	ck_assert_msg(mkdir(p, 0755) == 0, "mkdir %s: %s", p, strerror(errno));
	free(p);
}

static void make_link(const char *target, const char *dir, const char *rel)
{
	char *p = tu_path(dir, rel);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
	free(p);
}

static bool exists(const char *dir, const char *rel)
{
	struct stat st;
	char *p = tu_path(dir, rel);
	bool ok = lstat(p, &st) == 0;
	free(p);
	return ok;
}

static char *read_rel(const char *dir, const char *rel)
{
	char *p = tu_path(dir, rel), *text = tu_read_file(p, NULL);
	free(p);
	return text;
}

#define assert_file(dir, rel, expect)                                                        \
	do {                                                                                 \
		char *text_ = read_rel((dir), (rel));                                        \
		ck_assert_str_eq(text_, (expect));                                           \
		free(text_);                                                                 \
	} while (0)

/* An absolute path for `rel` (symlink targets must not depend on the cwd). */
/*
 * Every entry below `dir` (hidden ones too) with its type, mode, size,
 * inode, mtime and contents or link target: equal snapshots mean nothing
 * was touched.
 */
static void snapshot_into(ot_buf *out, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	OT_VEC(char *) names = {0};
	size_t i;
	ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ot_vec_push(&names, ot_strdup(e->d_name));
	closedir(d);
	qsort(names.items, names.len, sizeof(char *), ot_strptr_cmp);
	for (i = 0; i < names.len; i++) {
		char *path = tu_path(dir, names.items[i]);
		char *r = rel ? tu_path(rel, names.items[i]) : ot_strdup(names.items[i]);
		struct stat st;
		ck_assert(lstat(path, &st) == 0);
		ot_buf_printf(out, "%s mode=%o size=%lld ino=%llu mtime=%lld.%09ld", r,
			      (unsigned)st.st_mode, (long long)st.st_size,
			      (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec,
			      st.st_mtim.tv_nsec);
		if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlink(path, target, sizeof(target) - 1);
			ck_assert(n >= 0);
			target[n] = '\0';
			ot_buf_printf(out, " -> %s\n", target);
		} else if (S_ISREG(st.st_mode)) {
			size_t len;
			char *text = tu_read_file(path, &len);
			ot_buf_printf(out, " hash=%016llx\n", (unsigned long long)ot_hash(text, len));
			free(text);
		} else {
			ot_buf_putc(out, '\n');
		}
		if (S_ISDIR(st.st_mode))
			snapshot_into(out, path, r);
		free(path);
		free(r);
		free(names.items[i]);
	}
	ot_vec_free(&names);
}

static char *snapshot(const char *dir)
{
	ot_buf out = OT_BUF_INIT;
	snapshot_into(&out, dir, NULL);
	return ot_buf_detach(&out);
}

struct file {
	const char *path, *text;
};

/* The manifest line of a file holding `text` (a hash of its bytes); static. */
static const char *line_of(const char *path, const char *text)
{
	static char lines[8][256];
	static int next;
	char *l = lines[next++ % 8];
	snprintf(l, sizeof(lines[0]), "%s\t%016llx\n", path,
		 (unsigned long long)ot_output_hash(text, strlen(text)));
	return l;
}

/* A folder optrace made: an empty manifest in it. */
static void mark_ours(const char *dir)
{
	put(dir, OT_OUTPUT_MANIFEST, HEADER);
}

static ot_output *open_ok(const char *dir)
{
	ot_output *o = NULL;
	int rc = ot_output_open(&o, dir);
	ck_assert_msg(rc == 0, "open %s: %s", dir, ot_error_last());
	return o;
}

static void write_ok(ot_output *o, const char *path, const char *text)
{
	int rc = ot_output_write(o, path, text, strlen(text));
	ck_assert_msg(rc == 0, "write %s: %s", path, ot_error_last());
}

/* One whole run: open, write `files`, commit. */
static ot_output_stats run(const char *dir, const struct file *files, size_t n)
{
	ot_output *o = open_ok(dir);
	ot_output_stats stats = {99, 99, 99};
	size_t i;
	int rc;
	for (i = 0; i < n; i++)
		write_ok(o, files[i].path, files[i].text);
	rc = ot_output_commit(o, &stats);
	ck_assert_msg(rc == 0, "commit: %s", ot_error_last());
	ck_assert(!exists(dir, OT_OUTPUT_STAGING));
	ot_output_free(o);
	return stats;
}

#define assert_stats(st, w, u, r)                                                            \
	do {                                                                                 \
		ck_assert_uint_eq((st).written, (w));                                        \
		ck_assert_uint_eq((st).unchanged, (u));                                      \
		ck_assert_uint_eq((st).removed, (r));                                        \
	} while (0)

#define assert_error_has(rc, text)                                                           \
	do {                                                                                 \
		ck_assert_int_lt((rc), 0);                                                   \
		ck_assert_msg(strstr(ot_error_last(), (text)) != NULL,                       \
			      "expected \"%s\" in error: %s", (text), ot_error_last());       \
	} while (0)

/* Capture what the module prints on stderr (warnings) around a call. */
struct capture {
	int saved;
	char *path;
};

static void capture_begin(struct capture *c, const char *dir)
{
	int fd;
	c->path = tu_path(dir, "stderr.txt");
	fflush(stderr);
	c->saved = dup(2);
	fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert(fd >= 0 && c->saved >= 0);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(struct capture *c)
{
	char *text;
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	text = tu_read_file(c->path, NULL);
	unlink(c->path);
	free(c->path);
	return text;
}

/* A run that produces nothing; returns its warnings (caller frees). */
static char *empty_run_warnings(const char *out, const char *scratch, ot_output_stats *st)
{
	struct capture cap;
	ot_output *o = open_ok(out);
	char *warnings;
	int rc;
	capture_begin(&cap, scratch);
	rc = ot_output_commit(o, st);
	warnings = capture_end(&cap);
	ot_output_free(o);
	ck_assert_msg(rc == 0, "commit: %s", ot_error_last());
	return warnings;
}

/*
 * A private mount namespace for this (forked) test, so it may mount a
 * tmpfs or a read-only bind without touching the machine. Root unshares
 * directly; anyone else goes through a user namespace.
 */
static void private_mounts(void)
{
	if (unshare(CLONE_NEWNS) != 0) {
		uid_t uid = geteuid();
		gid_t gid = getegid();
		char map[64];
		ck_assert_msg(unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0,
			      "cannot get a private mount namespace (need root or user "
			      "namespaces): %s",
			      strerror(errno));
		tu_write_file("/proc/self/setgroups", "deny", 4);
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
		tu_write_file("/proc/self/uid_map", map, strlen(map));
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
		tu_write_file("/proc/self/gid_map", map, strlen(map));
	}
	ck_assert_msg(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0,
		      "make mounts private: %s", strerror(errno));
}

/* ---- tests ------------------------------------------------------------------------ */

static const struct file first_files[] = {
    {"index.md", "# Index\n"},
    {"ops/add.md", "# add\n"},
    {"ops/sub/graph.svg", "<svg/>\n"},
};

START_TEST(first_run_writes_files_and_manifest)
{
	char *dir = tu_tmpdir("out-first"), *out = tu_path(dir, "deep/out");
	ot_output_stats st = run(out, first_files, 3);
	assert_stats(st, 3, 0, 0);
	assert_file(out, "ops/add.md", "# add\n");
	assert_file(out, "ops/sub/graph.svg", "<svg/>\n");
	{
		ot_buf m = OT_BUF_INIT;
		ot_buf_puts(&m, HEADER);
		for (int i = 0; i < 3; i++)
			ot_buf_puts(&m, line_of(first_files[i].path, first_files[i].text));
		assert_file(out, OT_OUTPUT_MANIFEST, m.ptr);
		ot_buf_free(&m);
	}
	free(out);
	free(dir);
}
END_TEST

START_TEST(identical_run_writes_nothing)
{
	char *dir = tu_tmpdir("out-same"), *before, *after;
	ot_output_stats st;
	run(dir, first_files, 3);
	before = snapshot(dir);
	st = run(dir, first_files, 3);
	assert_stats(st, 0, 3, 0);
	after = snapshot(dir);
	/* same inodes and mtimes: not even the manifest was rewritten */
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(dir);
}
END_TEST

START_TEST(changed_file_is_rewritten)
{
	char *dir = tu_tmpdir("out-changed");
	struct file files[3];
	struct stat index_before, index_after;
	char *index = tu_path(dir, "index.md");
	ot_output_stats st;
	memcpy(files, first_files, sizeof(files));
	run(dir, files, 3);
	ck_assert(stat(index, &index_before) == 0);
	files[1].text = "# add, changed\n";
	files[2].text = "<svg>\n"; /* same length, other bytes */
	st = run(dir, files, 3);
	assert_stats(st, 2, 1, 0);
	assert_file(dir, "ops/add.md", "# add, changed\n");
	assert_file(dir, "ops/sub/graph.svg", "<svg>\n");
	ck_assert(stat(index, &index_after) == 0);
	ck_assert_uint_eq(index_before.st_ino, index_after.st_ino);
	ck_assert_int_eq(index_before.st_mtim.tv_nsec, index_after.st_mtim.tv_nsec);
	free(index);
	free(dir);
}
END_TEST

START_TEST(stale_files_and_their_empty_folders_go)
{
	char *dir = tu_tmpdir("out-stale");
	ot_output_stats st;
	run(dir, first_files, 3);
	/* ops/sub/graph.svg is no longer produced: it and ops/sub go, ops stays */
	st = run(dir, first_files, 2);
	assert_stats(st, 0, 2, 1);
	ck_assert(!exists(dir, "ops/sub"));
	ck_assert(exists(dir, "ops/add.md"));
	{
		ot_buf m = OT_BUF_INIT;
		ot_buf_printf(&m, HEADER "%s", line_of("index.md", "# Index\n"));
		ot_buf_puts(&m, line_of("ops/add.md", "# add\n"));
		assert_file(dir, OT_OUTPUT_MANIFEST, m.ptr);
		ot_buf_free(&m);
	}
	/* nothing produced: every file and folder of ours goes, OUT stays */
	st = run(dir, NULL, 0);
	assert_stats(st, 0, 0, 2);
	ck_assert(!exists(dir, "ops"));
	ck_assert(!exists(dir, "index.md"));
	ck_assert(exists(dir, "."));
	assert_file(dir, OT_OUTPUT_MANIFEST, HEADER);
	free(dir);
}
END_TEST

START_TEST(files_not_in_the_manifest_are_never_removed)
{
	char *dir = tu_tmpdir("out-foreign");
	ot_output_stats st;
	run(dir, first_files, 3);
	put(dir, "notes.txt", "mine\n");
	put(dir, "ops/sub/user.md", "also mine\n");
	st = run(dir, NULL, 0);
	assert_stats(st, 0, 0, 3);
	assert_file(dir, "notes.txt", "mine\n");
	/* its folders are not empty, so they stay too */
	assert_file(dir, "ops/sub/user.md", "also mine\n");
	ck_assert(!exists(dir, "ops/add.md"));
	free(dir);
}
END_TEST

START_TEST(failed_run_leaves_out_untouched)
{
	char *dir = tu_tmpdir("out-failed"), *before, *after;
	ot_output *o;
	run(dir, first_files, 3);
	put(dir, "foreign.txt", "x\n");
	before = snapshot(dir);
	o = open_ok(dir);
	ck_assert(exists(dir, OT_OUTPUT_STAGING));
	write_ok(o, "ops/add.md", "# changed\n");
	write_ok(o, "new/file.md", "new\n");
	write_ok(o, "index.md", "# Index\n");
	ot_output_free(o); /* the run failed: no commit */
	after = snapshot(dir);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(dir);
	ot_output_free(NULL);
}
END_TEST

START_TEST(out_must_be_a_folder)
{
	char *dir = tu_tmpdir("out-file"), *file = tu_path(dir, "file"), *link = tu_path(dir, "link"),
	     *sub = tu_path(file, "out");
	ot_output *o = (ot_output *)&o;
	put(dir, "file", "x");
	assert_error_has(ot_output_open(&o, file), "not a folder");
	ck_assert_ptr_null(o);
	make_dir(dir, "real");
	make_link("real", dir, "link");
	assert_error_has(ot_output_open(&o, link), "symbolic link");
	ck_assert(!exists(dir, "real/" OT_OUTPUT_STAGING));
	/* a path component that is a file: the folder cannot be created */
	assert_error_has(ot_output_open(&o, sub), "cannot create");
	assert_error_has(ot_output_open(&o, ""), "no output folder");
	free(file);
	free(link);
	free(sub);
	free(dir);
}
END_TEST

/*
 * chmod 0500 stops only non-root users; root (as in CI) is stopped by a
 * read-only bind mount, which is what "not writable" means to it.
 */
START_TEST(out_not_writable)
{
	char *dir = tu_tmpdir("out-ro"), *out = tu_path(dir, "out"), *ro = tu_path(dir, "ro"),
	     *ro_out = tu_path(ro, "out"), *ro_new = tu_path(ro, "new/out"), *before, *after;
	ot_output *o = NULL;
	run(out, first_files, 3);
	before = snapshot(out);

	if (geteuid() != 0) {
		ck_assert(chmod(out, 0500) == 0);
		assert_error_has(ot_output_open(&o, out), "not writable");
		ck_assert(chmod(out, 0755) == 0);
	}
	private_mounts();
	make_dir(dir, "ro");
	ck_assert_msg(mount(dir, ro, "none", MS_BIND, NULL) == 0, "bind: %s", strerror(errno));
	ck_assert_msg(mount("none", ro, "none", MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) == 0,
		      "remount ro: %s", strerror(errno));
	assert_error_has(ot_output_open(&o, ro_out), "not writable");
	ck_assert_ptr_null(o);
	assert_error_has(ot_output_open(&o, ro_new), "Read-only file system");
	ck_assert(umount2(ro, MNT_DETACH) == 0);
	after = snapshot(out);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free(out);
	free(ro);
	free(ro_out);
	free(ro_new);
	free(dir);
}
END_TEST

START_TEST(symlinks_in_out_are_never_followed)
{
	char *dir = tu_tmpdir("out-links"), *out = tu_path(dir, "out"), *elsewhere = tu_path(dir, "elsewhere");
	char *abs_elsewhere, *target, *text, *before;
	ot_output *o;
	struct stat st;
	make_dir(dir, "out");
	make_dir(dir, "elsewhere");
	put(dir, "elsewhere/target.md", "outside\n");
	abs_elsewhere = tu_absolute(elsewhere);
	target = tu_path(abs_elsewhere, "target.md");
	make_link(abs_elsewhere, out, "ops");
	make_link(target, out, "page.md");
	mark_ours(out);
	before = snapshot(elsewhere);

	o = open_ok(out);
	/* a folder on the way that is a link: refused at once */
	assert_error_has(ot_output_write(o, "ops/x.md", "x", 1), "symbolic link");
	ck_assert_ptr_nonnull(strstr(ot_error_last(), "/ops"));
	/* the same link appearing between write and commit: refused at commit */
	write_ok(o, "late/x.md", "x");
	write_ok(o, "page.md", "mine\n");
	make_link(abs_elsewhere, out, "late");
	assert_error_has(ot_output_commit(o, NULL), "could not be written");
	ot_output_free(o);

	o = open_ok(out);
	write_ok(o, "late2/x.md", "x");
	make_link(abs_elsewhere, out, "late2");
	assert_error_has(ot_output_commit(o, NULL), "symbolic link");
	ot_output_free(o);
	text = snapshot(elsewhere);
	ck_assert_str_eq(text, before);
	free(text);

	/* a link as the file itself is replaced by the file, its target untouched */
	o = open_ok(out);
	write_ok(o, "page.md", "mine\n");
	ck_assert_int_eq(ot_output_commit(o, NULL), 0);
	ot_output_free(o);
	ck_assert(lstat(target, &st) == 0 && S_ISREG(st.st_mode));
	assert_file(out, "page.md", "mine\n");
	text = snapshot(elsewhere);
	ck_assert_str_eq(text, before);
	free(text);

	free(before);
	free(abs_elsewhere);
	free(target);
	free(out);
	free(elsewhere);
	free(dir);
}
END_TEST

START_TEST(invalid_paths_are_rejected)
{
	static const char *const bad[] = {
	    "",         "/abs.md",     "a//b",          "a/",           "./a",
	    "a/./b",    "../a",        "a/..",          "..",           ".",
	    "a\\b",     "sp ace.md",   "caf\xc3\xa9.md", "a:b",          "a\nb",
	    ".optrace-manifest", ".optrace-staging/x", "x/.optrace-tmp", "a/b/",
	};
	static const char *const good[] = {"a", ".hidden", "a-b_c.d/e.F", "...", "ops/..x"};
	char *dir = tu_tmpdir("out-invalid");
	ot_output *o = open_ok(dir);
	ot_buf long_name = OT_BUF_INIT;
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(bad); i++)
		assert_error_has(ot_output_write(o, bad[i], "x", 1), "invalid output path");
	ck_assert_int_lt(ot_output_write(o, NULL, "x", 1), 0);
	while (long_name.size < 300)
		ot_buf_putc(&long_name, 'n');
	assert_error_has(ot_output_write(o, long_name.ptr, "x", 1), "invalid output path");
	for (i = 0; i < OT_ARRAY_LEN(good); i++)
		write_ok(o, good[i], "x");
	/* a path produced twice, or as both a file and a folder */
	assert_error_has(ot_output_write(o, "a", "y", 1), "written twice");
	assert_error_has(ot_output_write(o, "a/b", "y", 1), "written as a file");
	write_ok(o, "d/e/f", "x");
	assert_error_has(ot_output_write(o, "d/e", "y", 1), "also a folder");
	assert_error_has(ot_output_write(o, "d", "y", 1), "also a folder");
	/* rejected paths are not counted as failures of the run */
	ck_assert_int_eq(ot_output_commit(o, NULL), 0);
	ot_output_free(o);
	ck_assert(exists(dir, "ops/..x"));
	ck_assert(!exists(dir, "sp ace.md"));
	ot_buf_free(&long_name);
	free(dir);
}
END_TEST

START_TEST(folder_in_the_way_is_an_error)
{
	char *dir = tu_tmpdir("out-dir");
	ot_output *o;
	make_dir(dir, "x.md");
	put(dir, "ops", "a file where a folder must be\n");
	mark_ours(dir);
	o = open_ok(dir);
	assert_error_has(ot_output_write(o, "x.md", "x", 1), "is a folder");
	assert_error_has(ot_output_write(o, "ops/add.md", "x", 1), "not a folder");
	ot_output_free(o);
	assert_file(dir, "ops", "a file where a folder must be\n");
	free(dir);
}
END_TEST

START_TEST(fifo_in_the_way_does_not_hang)
{
	char *dir = tu_tmpdir("out-fifo"), *fifo = tu_path(dir, "p.md");
	struct file f = {"p.md", "text\n"};
	ot_output_stats st;
	ck_assert(mkfifo(fifo, 0644) == 0);
	mark_ours(dir);
	st = run(dir, &f, 1);
	assert_stats(st, 1, 0, 0);
	assert_file(dir, "p.md", "text\n");
	free(fifo);
	free(dir);
}
END_TEST

START_TEST(disk_full_is_reported_and_publishes_nothing)
{
	char *dir = tu_tmpdir("out-full"), *mnt = tu_path(dir, "mnt"), *out = tu_path(mnt, "out");
	char *before, *after, *big = ot_malloc(256 * 1024);
	ot_output *o;
	int rc;
	memset(big, 'x', 256 * 1024);
	make_dir(dir, "mnt");
	private_mounts();
	ck_assert_msg(mount("tmpfs", mnt, "tmpfs", 0, "size=64k") == 0, "mount tmpfs: %s",
		      strerror(errno));
	run(out, first_files, 3);
	before = snapshot(out);

	o = open_ok(out);
	write_ok(o, "index.md", "# New index\n");
	rc = ot_output_write(o, "ops/big.bin", big, 256 * 1024);
	assert_error_has(rc, "disk full while writing");
	ck_assert_ptr_nonnull(strstr(ot_error_last(), "out/ops/big.bin"));
	assert_error_has(ot_output_commit(o, NULL), "1 output file could not be written");
	ot_output_free(o);
	after = snapshot(out);
	ck_assert_str_eq(before, after);

	ck_assert(umount2(mnt, MNT_DETACH) == 0);
	free(before);
	free(after);
	free(big);
	free(out);
	free(mnt);
	free(dir);
}
END_TEST

struct writer {
	ot_output *o;
	int id, failures;
};

static void *write_thread(void *arg)
{
	struct writer *w = arg;
	int i;
	for (i = 0; i < 50; i++) {
		char path[64], text[64];
		snprintf(path, sizeof(path), "%s/t%d/f%02d.md", i % 2 ? "shared" : "own", w->id, i);
		snprintf(text, sizeof(text), "thread %d file %d\n", w->id, i);
		if (ot_output_write(w->o, path, text, strlen(text)) < 0)
			w->failures++;
	}
	return NULL;
}

static void threaded_run(const char *dir, ot_output_stats *st)
{
	struct writer w[4];
	pthread_t threads[4];
	int i;
	ot_output *o = open_ok(dir);
	for (i = 0; i < 4; i++) {
		w[i] = (struct writer){o, i, 0};
		ck_assert(pthread_create(&threads[i], NULL, write_thread, &w[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(threads[i], NULL);
		ck_assert_int_eq(w[i].failures, 0);
	}
	ck_assert_msg(ot_output_commit(o, st) == 0, "%s", ot_error_last());
	ot_output_free(o);
}

START_TEST(concurrent_writes)
{
	char *dir = tu_tmpdir("out-threads"), *m, *line, *prev = NULL;
	ot_output_stats st;
	size_t lines = 0;
	threaded_run(dir, &st);
	assert_stats(st, 200, 0, 0);
	assert_file(dir, "shared/t3/f49.md", "thread 3 file 49\n");
	m = read_rel(dir, OT_OUTPUT_MANIFEST);
	ck_assert(ot_starts_with(m, HEADER));
	/* sorted and complete */
	for (line = strtok(m + strlen(HEADER), "\n"); line; line = strtok(NULL, "\n")) {
		ck_assert(!prev || strcmp(prev, line) < 0);
		ck_assert(strchr(line, '\t'));
		*strchr(line, '\t') = '\0';
		ck_assert(exists(dir, line));
		prev = line;
		lines++;
	}
	ck_assert_uint_eq(lines, 200);
	free(m);
	threaded_run(dir, &st);
	assert_stats(st, 0, 200, 0);
	free(dir);
}
END_TEST

/* One run per folder: a second open fails while the first holds the lock. */
START_TEST(second_open_waits_for_none)
{
	char *dir = tu_tmpdir("out-lock");
	ot_output *first = open_ok(dir), *second = NULL;
	char want[64];
	snprintf(want, sizeof(want), "/ is in use by pid %ld", (long)getpid());
	ck_assert_int_lt(ot_output_open(&second, dir), 0);
	ck_assert_msg(strstr(ot_error_last(), want), "%s", ot_error_last());
	ck_assert(second == NULL);
	ot_output_free(first);
	second = open_ok(dir);
	ot_output_free(second);
	free(dir);
}
END_TEST

/* A file optrace did not write, or changed since, is neither replaced nor removed. */
START_TEST(files_of_others_are_never_replaced)
{
	char *dir = tu_tmpdir("out-others");
	ot_output *o;
	ot_output_opts force = {NULL, true};
	run(dir, first_files, 2);
	make_dir(dir, "ops/sub");
	put(dir, "ops/sub/graph.svg", "mine\n");
	o = open_ok(dir);
	for (int i = 0; i < 3; i++)
		write_ok(o, first_files[i].path, first_files[i].text);
	assert_error_has(ot_output_commit(o, NULL), "ops/sub/graph.svg is not a file optrace wrote");
	ot_output_free(o);
	assert_file(dir, "ops/sub/graph.svg", "mine\n");
	put(dir, "ops/add.md", "# add, edited\n");
	o = open_ok(dir);
	write_ok(o, "index.md", "# Index, changed\n");
	write_ok(o, "ops/add.md", "# add, changed\n");
	assert_error_has(ot_output_commit(o, NULL), "ops/add.md was changed since optrace wrote it");
	ot_output_free(o);
	assert_file(dir, "index.md", "# Index\n");
	/* forced, it is written */
	ck_assert(ot_output_open_with(&o, dir, &force) == 0);
	write_ok(o, "ops/add.md", "# add, changed\n");
	ck_assert(ot_output_commit(o, NULL) == 0);
	ot_output_free(o);
	assert_file(dir, "ops/add.md", "# add, changed\n");
	/* stale now, but edited: kept */
	put(dir, "ops/add.md", "# add, edited again\n");
	run(dir, NULL, 0);
	assert_file(dir, "ops/add.md", "# add, edited again\n");
	free(dir);
}
END_TEST

/* The folders -o refuses. */
START_TEST(folders_that_are_refused)
{
	char *dir = tu_tmpdir("out-refused"), *abs = tu_absolute(dir), *inside = tu_path(abs, "co/out");
	char *co = tu_path(abs, "co");
	ot_output *o = NULL;
	ot_output_opts opts = {co, false};
	make_dir(abs, "co");
	ck_assert_int_lt(ot_output_check_folder("/", NULL, false), 0);
	ck_assert_msg(strstr(ot_error_last(), "is the root folder"), "%s", ot_error_last());
	ck_assert_int_eq(ot_output_check_folder("/", NULL, true), 0);
	ck_assert_int_lt(ot_output_check_folder(co, co, false), 0);
	ck_assert_int_lt(ot_output_open_with(&o, inside, &opts), 0);
	ck_assert_msg(strstr(ot_error_last(), "inside the PyTorch checkout"), "%s", ot_error_last());
	ck_assert(!exists(co, "out"));
	put(abs, "co/file.txt", "x\n");
	ck_assert_int_lt(ot_output_open(&o, co), 0);
	ck_assert_msg(strstr(ot_error_last(), "not empty and optrace did not make it"), "%s",
		      ot_error_last());
	free(co);
	free(inside);
	free(abs);
	free(dir);
}
END_TEST

START_TEST(stale_staging_folder_is_cleaned)
{
	char *dir = tu_tmpdir("out-staging"), *out = tu_path(dir, "out"),
	     *keep = tu_path(dir, "keep"), *abs_keep, *before, *staging;
	ot_output *o;
	DIR *d;
	struct dirent *e;
	size_t n = 0;
	make_dir(dir, "out");
	make_dir(dir, "keep");
	put(dir, "keep/precious.txt", "do not delete\n");
	abs_keep = tu_absolute(keep);
	make_dir(out, OT_OUTPUT_STAGING);
	make_dir(out, OT_OUTPUT_STAGING "/ops");
	put(out, OT_OUTPUT_STAGING "/ops/half-written.md", "partial");
	make_link(abs_keep, out, OT_OUTPUT_STAGING "/ops/link");
	before = snapshot(keep);

	o = open_ok(out);
	staging = tu_path(out, OT_OUTPUT_STAGING);
	ck_assert_ptr_nonnull(d = opendir(staging));
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	ck_assert_uint_eq(n, 0); /* fresh */
	ot_output_free(o);
	ck_assert(!exists(out, OT_OUTPUT_STAGING));
	{
		char *after = snapshot(keep);
		ck_assert_str_eq(before, after);
		free(after);
	}

	/* a staging "folder" that is a link: the link goes, not its target */
	make_link(abs_keep, out, OT_OUTPUT_STAGING);
	o = open_ok(out);
	ot_output_free(o);
	{
		char *after = snapshot(keep);
		ck_assert_str_eq(before, after);
		free(after);
	}
	free(staging);
	free(before);
	free(abs_keep);
	free(keep);
	free(out);
	free(dir);
}
END_TEST

START_TEST(hand_edited_manifest_cannot_escape_out)
{
	char *dir = tu_tmpdir("out-manifest"), *out = tu_path(dir, "out"),
	     *outside = tu_path(dir, "outside"), *abs_outside, *manifest, *warnings, *before;
	ot_output_stats st;
	ot_buf m = OT_BUF_INIT;
	make_dir(dir, "out");
	make_dir(dir, "outside");
	put(dir, "outside/victim.md", "keep\n");
	put(dir, "victim.md", "keep\n");
	abs_outside = tu_absolute(outside);
	put(out, "stale.md", "ours\n");
	make_dir(out, "folder.md");
	make_dir(out, "deep");
	put(out, "deep/stale.md", "ours\n");
	make_link(abs_outside, out, "linkdir");
	make_link("../outside/victim.md", out, "link.md");
	ot_buf_printf(&m,
		      HEADER "../victim.md\t0000000000000000\n%s/victim.md\t0000000000000000\n"
			     "linkdir/victim.md\t0000000000000000\nlink.md\t0000000000000000\n"
			     "deep/../../victim.md\t0000000000000000\na//b\t0000000000000000\n"
			     "\n# a comment\nfolder.md\t0000000000000000\n"
			     ".optrace-staging/x\t0000000000000000\n%s%sno/such/file.md\t0000000000000000\n"
			     "crlf.md\t0000000000000000\r\nnohash.md\n",
		      abs_outside, line_of("stale.md", "ours\n"), line_of("deep/stale.md", "ours\n"));
	/* a NUL inside a line, and a last line without a newline */
	ot_buf_put(&m, "nul\0byte.md\nlast.md", 19);
	manifest = tu_path(out, OT_OUTPUT_MANIFEST);
	tu_write_file(manifest, m.ptr, m.size);
	before = snapshot(outside);

	warnings = empty_run_warnings(out, dir, &st);
	assert_stats(st, 0, 0, 2);
	ck_assert(!exists(out, "stale.md"));
	ck_assert(!exists(out, "deep")); /* emptied by the removal */
	ck_assert(exists(out, "folder.md"));
	ck_assert(exists(out, "link.md"));
	ck_assert(exists(out, "linkdir"));
	ck_assert(exists(dir, "victim.md"));
	{
		char *after = snapshot(outside);
		ck_assert_str_eq(before, after);
		free(after);
	}
	ck_assert_msg(strstr(warnings, "malformed line") != NULL, "%s", warnings);
	ck_assert_msg(strstr(warnings, "link.md: no longer a regular file") != NULL, "%s",
		      warnings);
	ck_assert_msg(strstr(warnings, "folder.md: no longer a regular file") != NULL, "%s",
		      warnings);
	ck_assert_msg(strstr(warnings, "linkdir/victim.md") != NULL, "%s", warnings);
	/* a missing stale file needs no warning */
	ck_assert_msg(strstr(warnings, "no/such") == NULL, "%s", warnings);
	free(warnings);
	free(before);
	free(manifest);
	ot_buf_free(&m);
	free(abs_outside);
	free(outside);
	free(out);
	free(dir);
}
END_TEST

START_TEST(manifest_without_header_removes_nothing)
{
	char *dir = tu_tmpdir("out-noheader"), *warnings;
	ot_output_stats st;
	put(dir, "old.md", "x\n");
	put(dir, OT_OUTPUT_MANIFEST, "old.md\n");
	warnings = empty_run_warnings(dir, dir, &st);
	assert_stats(st, 0, 0, 0);
	ck_assert(exists(dir, "old.md"));
	ck_assert_msg(strstr(warnings, "does not start with") != NULL, "%s", warnings);
	free(warnings);
	free(dir);
}
END_TEST

START_TEST(commit_once_and_dir_accessor)
{
	char *dir = tu_tmpdir("out-once");
	ot_output *o = open_ok(dir);
	ck_assert_str_eq(ot_output_dir(o), dir);
	write_ok(o, "a.md", "a");
	ck_assert_int_eq(ot_output_commit(o, NULL), 0);
	assert_error_has(ot_output_commit(o, NULL), "already committed");
	assert_error_has(ot_output_write(o, "b.md", "b", 1), "already committed");
	ot_output_free(o);
	ck_assert(exists(dir, "a.md"));
	ck_assert(!exists(dir, "b.md"));
	free(dir);
}
END_TEST

START_TEST(empty_file_and_binary_bytes)
{
	char *dir = tu_tmpdir("out-bytes"), *text;
	const char bin[] = "a\0b\xff";
	ot_output *o = open_ok(dir);
	ot_output_stats st;
	size_t len;
	write_ok(o, "empty", "");
	ck_assert_int_eq(ot_output_write(o, "bin", bin, sizeof(bin)), 0);
	ck_assert_int_eq(ot_output_commit(o, &st), 0);
	ot_output_free(o);
	assert_stats(st, 2, 0, 0);
	text = tu_path(dir, "bin");
	{
		char *data = tu_read_file(text, &len);
		ck_assert_uint_eq(len, sizeof(bin));
		ck_assert(!memcmp(data, bin, len));
		free(data);
	}
	free(text);
	/* the same again is unchanged, including the empty file */
	o = open_ok(dir);
	write_ok(o, "empty", "");
	ck_assert_int_eq(ot_output_write(o, "bin", bin, sizeof(bin)), 0);
	ck_assert_int_eq(ot_output_commit(o, &st), 0);
	ot_output_free(o);
	assert_stats(st, 0, 2, 0);
	free(dir);
}
END_TEST

/* One run that writes only `big`, from `n` pieces. */
static ot_output_stats run_parts(const char *dir, const ot_output_part *parts, size_t n)
{
	ot_output *o = open_ok(dir);
	ot_output_stats st;
	ck_assert_int_eq(ot_output_write_parts(o, "big", parts, n), 0);
	ck_assert_int_eq(ot_output_commit(o, &st), 0);
	ot_output_free(o);
	return st;
}

/* A file written in pieces: the joined bytes on disk; unchanged whatever the
 * cut (pieces of 0, 1 or more bytes, a 64 KiB read spanning many); changed
 * when one byte differs. */
START_TEST(file_written_in_parts)
{
	char *dir = tu_tmpdir("out-parts"), *path = tu_path(dir, "big"), *data;
	size_t len = 200000, got;
	char *whole = ot_malloc(len);
	ot_output_part parts[5], one;
	ot_output_stats st;
	for (size_t i = 0; i < len; i++)
		whole[i] = (char)('a' + i % 23);
	parts[0] = (ot_output_part){whole, 10};
	parts[1] = (ot_output_part){whole + 10, 0};
	parts[2] = (ot_output_part){whole + 10, 1};
	parts[3] = (ot_output_part){whole + 11, 150000};
	parts[4] = (ot_output_part){whole + 150011, len - 150011};
	st = run_parts(dir, parts, 5);
	assert_stats(st, 1, 0, 0);
	data = tu_read_file(path, &got);
	ck_assert_uint_eq(got, len);
	ck_assert(!memcmp(data, whole, len));
	free(data);

	/* the same bytes in one piece, then cut elsewhere: unchanged */
	one = (ot_output_part){whole, len};
	st = run_parts(dir, &one, 1);
	assert_stats(st, 0, 1, 0);
	parts[3].len = 70000;
	parts[4] = (ot_output_part){whole + 70011, len - 70011};
	st = run_parts(dir, parts, 5);
	assert_stats(st, 0, 1, 0);

	/* one byte different in the last piece: rewritten */
	whole[len - 1] = '#';
	st = run_parts(dir, parts, 5);
	assert_stats(st, 1, 0, 0);
	data = tu_read_file(path, &got);
	ck_assert(got == len && data[len - 1] == '#');
	free(data);
	free(whole);
	free(path);
	free(dir);
}
END_TEST

/* One run that streams `big` in `n` pieces (ot_output_stream_*). */
static ot_output_stats run_stream(const char *dir, const ot_output_part *parts, size_t n)
{
	ot_output *o = open_ok(dir);
	ot_output_stream *s;
	ot_output_stats st;
	ck_assert_int_eq(ot_output_stream_open(o, "sub/big", &s), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ot_output_stream_write(s, parts[i].data, parts[i].len), 0);
	ck_assert_int_eq(ot_output_stream_close(s), 0);
	ck_assert_int_eq(ot_output_commit(o, &st), 0);
	ot_output_free(o);
	return st;
}

/* A file streamed in pieces: its bytes on disk and in the manifest (a
 * second run that writes them again changes nothing); rewritten when the
 * published file is longer, shorter or one byte different. */
START_TEST(file_streamed_in_pieces)
{
	char *dir = tu_tmpdir("out-stream"), *path = tu_path(dir, "sub/big"), *data, *before, *after;
	size_t len = 150000, got;
	char *whole = ot_malloc(len);
	ot_output_part parts[3];
	ot_output_stats st;
	for (size_t i = 0; i < len; i++)
		whole[i] = (char)('a' + i % 19);
	parts[0] = (ot_output_part){whole, 7};
	parts[1] = (ot_output_part){whole + 7, 0};
	parts[2] = (ot_output_part){whole + 7, len - 7};
	st = run_stream(dir, parts, 3);
	assert_stats(st, 1, 0, 0);
	data = tu_read_file(path, &got);
	ck_assert(got == len && !memcmp(data, whole, len));
	free(data);

	/* the same bytes again: nothing rewritten, not even the manifest */
	before = snapshot(dir);
	assert_stats(run_stream(dir, parts, 3), 0, 1, 0);
	after = snapshot(dir);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);

	/* what a run streams is shorter than the published file: rewritten */
	parts[2].len = len - 8;
	st = run_stream(dir, parts, 3);
	assert_stats(st, 1, 0, 0);
	data = tu_read_file(path, &got);
	ck_assert_uint_eq(got, len - 1);
	free(data);
	/* longer again, then one byte different */
	parts[2].len = len - 7;
	st = run_stream(dir, parts, 3);
	assert_stats(st, 1, 0, 0);
	whole[len / 2] = '#';
	st = run_stream(dir, parts, 3);
	assert_stats(st, 1, 0, 0);
	data = tu_read_file(path, &got);
	ck_assert(got == len && data[len / 2] == '#');
	free(data);
	free(whole);
	free(path);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, first_run_writes_files_and_manifest);
	tcase_add_test(tc, file_written_in_parts);
	tcase_add_test(tc, file_streamed_in_pieces);
	tcase_add_test(tc, identical_run_writes_nothing);
	tcase_add_test(tc, changed_file_is_rewritten);
	tcase_add_test(tc, stale_files_and_their_empty_folders_go);
	tcase_add_test(tc, files_not_in_the_manifest_are_never_removed);
	tcase_add_test(tc, failed_run_leaves_out_untouched);
	tcase_add_test(tc, out_must_be_a_folder);
	tcase_add_test(tc, out_not_writable);
	tcase_add_test(tc, symlinks_in_out_are_never_followed);
	tcase_add_test(tc, invalid_paths_are_rejected);
	tcase_add_test(tc, folder_in_the_way_is_an_error);
	tcase_add_test(tc, fifo_in_the_way_does_not_hang);
	tcase_add_test(tc, disk_full_is_reported_and_publishes_nothing);
	tcase_add_test(tc, concurrent_writes);
	tcase_add_test(tc, stale_staging_folder_is_cleaned);
	tcase_add_test(tc, second_open_waits_for_none);
	tcase_add_test(tc, files_of_others_are_never_replaced);
	tcase_add_test(tc, folders_that_are_refused);
	tcase_add_test(tc, hand_edited_manifest_cannot_escape_out);
	tcase_add_test(tc, manifest_without_header_removes_nothing);
	tcase_add_test(tc, commit_once_and_dir_accessor);
	tcase_add_test(tc, empty_file_and_binary_bytes);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
