/*
 * check_udiff.c - unified diffs as the changed lines of their old side:
 * git and diff -u headers, hunks, insertions, renames, new, deleted and
 * binary files, quoted names, missing newlines, and every error.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "udiff.h"

static ot_udiff *parse_ok(const char *text)
{
	ot_udiff *d = NULL;
	ck_assert_msg(ot_udiff_parse(&d, text, strlen(text), "t.diff") == 0, "%s", ot_error_last());
	return d;
}

/* "lo-hi" or "+lo" (an insertion after lo) for each change, space-separated. */
static char *changes_of(const ot_udiff_file *f)
{
	ot_buf b = OT_BUF_INIT;
	for (size_t i = 0; i < f->nchanges; i++) {
		if (f->changes[i].insert)
			ot_buf_printf(&b, "%s+%u", i ? " " : "", f->changes[i].lo);
		else
			ot_buf_printf(&b, "%s%u-%u", i ? " " : "", f->changes[i].lo, f->changes[i].hi);
	}
	return ot_buf_detach(&b);
}

START_TEST(git_diff_hunks)
{
	const char *text = "commit abc\nAuthor: x\n\n    message\n\n"
			   "diff --git a/aten/x.cpp b/aten/x.cpp\n"
			   "index 111..222 100644\n"
			   "--- a/aten/x.cpp\n"
			   "+++ b/aten/x.cpp\n"
			   "@@ -10,6 +10,6 @@ void f() {\n"
			   " a\n"
			   "-b\n"
			   "+B\n"
			   "+B2\n"
			   " c\n"
			   "+inserted\n"
			   " d\n"
			   "-e\n"
			   "-f\n"
			   "@@ -40,0 +42,2 @@\n"
			   "+g\n"
			   "+h\n"
			   "@@ -1 +1 @@\n"
			   "-first\n"
			   "\\ No newline at end of file\n"
			   "+FIRST\n"
			   "\\ No newline at end of file\n";
	ot_udiff *d = parse_ok(text);
	char *c;
	ck_assert_uint_eq(d->nfiles, 1);
	ck_assert_str_eq(d->files[0].old_path, "aten/x.cpp");
	ck_assert_str_eq(d->files[0].new_path, "aten/x.cpp");
	ck_assert(!d->files[0].whole && !d->files[0].renamed);
	c = changes_of(&d->files[0]);
	ck_assert_str_eq(c, "11-11 +12 14-15 +40 1-1");
	free(c);
	ot_udiff_free(d);
}
END_TEST

START_TEST(new_deleted_renamed_binary)
{
	const char *text = "diff --git a/new.py b/new.py\n"
			   "new file mode 100644\n"
			   "--- /dev/null\n"
			   "+++ b/new.py\n"
			   "@@ -0,0 +1,2 @@\n"
			   "+a\n+b\n"
			   "diff --git a/gone.cpp b/gone.cpp\n"
			   "deleted file mode 100644\n"
			   "--- a/gone.cpp\n"
			   "+++ /dev/null\n"
			   "@@ -1,2 +0,0 @@\n"
			   "-a\n-b\n"
			   "diff --git a/old/name.cu b/new/name.cu\n"
			   "similarity index 90%\n"
			   "rename from old/name.cu\n"
			   "rename to new/name.cu\n"
			   "diff --git a/img.png b/img.png\n"
			   "index 1..2 100644\n"
			   "Binary files a/img.png and b/img.png differ\n"
			   "diff --git \"a/with space.py\" \"b/with space.py\"\n"
			   "--- \"a/with space.py\"\n"
			   "+++ \"b/with space.py\"\n"
			   "@@ -3,1 +3,1 @@\n"
			   "-x\n+y\n";
	ot_udiff *d = parse_ok(text);
	ck_assert_uint_eq(d->nfiles, 5);
	ck_assert_ptr_null(d->files[0].old_path);
	ck_assert_str_eq(d->files[0].new_path, "new.py");
	ck_assert_str_eq(d->files[1].old_path, "gone.cpp");
	ck_assert_ptr_null(d->files[1].new_path);
	ck_assert(d->files[1].whole);
	ck_assert(d->files[2].renamed);
	ck_assert_str_eq(d->files[2].old_path, "old/name.cu");
	ck_assert_str_eq(d->files[2].new_path, "new/name.cu");
	ck_assert_uint_eq(d->files[2].nchanges, 0);
	ck_assert(d->files[3].binary && d->files[3].whole);
	ck_assert_str_eq(d->files[3].old_path, "img.png");
	ck_assert_str_eq(d->files[4].old_path, "with space.py");
	ck_assert_uint_eq(d->files[4].nchanges, 1);
	ot_udiff_free(d);
}
END_TEST

START_TEST(plain_diff_u)
{
	const char *text = "--- a.c\t2024-01-01 10:00:00.000000000 +0000\n"
			   "+++ b.c\t2024-01-02 10:00:00.000000000 +0000\n"
			   "@@ -5,3 +5,3 @@\n"
			   " x\n-y\n+z\n \n";
	ot_udiff *d = parse_ok(text);
	char *c = changes_of(&d->files[0]);
	ck_assert_str_eq(d->files[0].old_path, "a.c");
	ck_assert_str_eq(d->files[0].new_path, "b.c");
	ck_assert_str_eq(c, "6-6");
	free(c);
	ot_udiff_free(d);
}
END_TEST

static void bad(const char *text, const char *message)
{
	ot_udiff *d = (ot_udiff *)1;
	ck_assert_int_lt(ot_udiff_parse(&d, text, strlen(text), "t.diff"), 0);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(ot_error_last(), message);
}

START_TEST(errors)
{
	bad("@@ -1 +1 @@\n-a\n+b\n", "t.diff:1: a hunk before any file header");
	bad("--- a/x\n+++ b/x\n@@ -1,x +1 @@\n", "t.diff:3: hunk header '@@ -1,x +1 @@' is not @@ -l,n +l,n @@");
	bad("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n-b\n", "t.diff:5: more lines in the hunk than its header counts");
	bad("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n", "t.diff:4: the diff ends inside a hunk (fewer lines than its header counts)");
	bad("--- a/x\n@@ -1 +1 @@\n", "t.diff:2: a hunk before any file header");
	bad("+++ b/x\n", "t.diff:1: a '+++' line without its '---' line");
	bad("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n*a\n", "t.diff:4: a line in a hunk that starts with neither ' ', '-' nor '+'");
}
END_TEST

START_TEST(empty_and_crlf)
{
	ot_udiff *d = parse_ok("");
	ck_assert_uint_eq(d->nfiles, 0);
	ot_udiff_free(d);
	d = parse_ok("--- a/x\r\n+++ b/x\r\n@@ -2,2 +2,1 @@\r\n a\r\n-b\r\n");
	ck_assert_str_eq(d->files[0].old_path, "x");
	ck_assert_uint_eq(d->files[0].nchanges, 1);
	ck_assert_uint_eq(d->files[0].changes[0].lo, 3);
	ot_udiff_free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udiff");
	TCase *tc = tcase_create("udiff");
	tcase_add_test(tc, git_diff_hunks);
	tcase_add_test(tc, new_deleted_renamed_binary);
	tcase_add_test(tc, plain_diff_u);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, empty_and_crlf);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
