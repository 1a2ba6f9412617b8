/* Self-test of the test helpers: the fixture repository and process runner. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

START_TEST(fixture_repo_has_work_tree_at_first_release)
{
	const char *repo = tu_fixture_repo();
	ot_buf path = OT_BUF_INIT;
	char *text;
	ot_buf_printf(&path, "%s/version.txt", repo);
	text = tu_read_file(path.ptr, NULL);
	ck_assert_str_eq(text, "1.0.0a0\n");
	free(text);
	ot_buf_free(&path);
}
END_TEST

START_TEST(fixture_repo_has_both_tags)
{
	const char *repo = tu_fixture_repo();
	ot_buf out = OT_BUF_INIT;
	const char *argv[] = {"git", "-C", repo, "tag", NULL};
	ck_assert_int_eq(tu_run(argv, &out, NULL), 0);
	ck_assert_str_eq(out.ptr, "v1.0.0\nv2.0.0\n");
	ot_buf_free(&out);
}
END_TEST

START_TEST(run_reports_exit_status)
{
	const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	ot_buf out = OT_BUF_INIT, err = OT_BUF_INIT;
	ck_assert_int_eq(tu_run(argv, &out, &err), 3);
	ck_assert_str_eq(out.ptr, "out\n");
	ck_assert_str_eq(err.ptr, "err\n");
	ot_buf_free(&out);
	ot_buf_free(&err);
}
END_TEST

/* @ANY stands for a library's words, never for optrace's */
START_TEST(match_compares_all_but_any)
{
	const char *pat = "optrace: cannot clone X into Y: " TU_ANY;
	ck_assert(tu_match(pat, "optrace: cannot clone X into Y: could not find repository"));
	ck_assert(tu_match(pat, "optrace: cannot clone X into Y: failed to resolve path"));
	ck_assert(tu_match(pat, "optrace: cannot clone X into Y: "));
	ck_assert(!tu_match(pat, "optrace: could not clone X into Y: whatever"));
	ck_assert(!tu_match(pat, "optrace: cannot clone X into Y: a\nsecond line"));
	ck_assert(tu_match("f:3:1: " TU_ANY " (" TU_ANY " at line 2)",
			   "f:3:1: did not find expected ',' (while parsing a flow at line 2)"));
	ck_assert(!tu_match("f:3:1: " TU_ANY " (" TU_ANY " at line 2)",
			    "f:3:1: did not find expected ',' (while parsing at line 3)"));
	ck_assert(tu_match("exact", "exact"));
	ck_assert(!tu_match("exact", "exactly"));
	ck_assert(tu_match("a\n" TU_ANY "\nb\n", "a\nxyz\nb\n"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("testutil");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, fixture_repo_has_work_tree_at_first_release);
	tcase_add_test(tc, fixture_repo_has_both_tags);
	tcase_add_test(tc, run_reports_exit_status);
	tcase_add_test(tc, match_compares_all_but_any);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
