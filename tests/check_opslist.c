/* Tests of gen/opslist.c: the ops.list reader and its diagnostics. */
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "opslist.h"
#include "testutil.h"

static ot_opslist *parse(const char *text)
{
	return ot_opslist_parse(text, strlen(text), "ops.list");
}

/* Parse one text that must give exactly one diagnostic, and check it. */
static void expect_one(const char *text, bool error, const char *message)
{
	ot_opslist *l = parse(text);
	ck_assert_msg(l->diags.len == 1, "%zu diagnostics for %s", l->diags.len, text);
	ck_assert_str_eq(l->diags.items[0].message, message);
	ck_assert(l->diags.items[0].error == error);
	ot_opslist_free(l);
}

START_TEST(good_file)
{
	const char *text = "# Ops to document\n"
			   "# torch-version: 2.6.0\n"
			   "\n"
			   "nn.LSTM\n"
			   "F.cross_entropy   # the loss\n"
			   "\ttorch.add !full\n"
			   "aten::add.out\n"
			   "_foo.bar2   \n"
			   "torch.ops.aten.addmm !full # both\n";
	ot_opslist *l = parse(text);
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_uint_eq(ot_opslist_error_count(l), 0);
	ck_assert_str_eq(l->pin, "2.6.0");
	ck_assert_int_eq(l->pin_line, 2);
	ck_assert_str_eq(l->filename, "ops.list");
	ck_assert_uint_eq(l->ops.len, 6);
	ck_assert_str_eq(l->ops.items[0].name, "nn.LSTM");
	ck_assert_int_eq(l->ops.items[0].line, 4);
	ck_assert(!l->ops.items[0].full);
	ck_assert_str_eq(l->ops.items[1].name, "F.cross_entropy");
	ck_assert_str_eq(l->ops.items[2].name, "torch.add");
	ck_assert(l->ops.items[2].full);
	ck_assert_int_eq(l->ops.items[2].line, 6);
	ck_assert_str_eq(l->ops.items[3].name, "aten::add.out");
	ck_assert_str_eq(l->ops.items[4].name, "_foo.bar2");
	ck_assert_str_eq(l->ops.items[5].name, "torch.ops.aten.addmm");
	ck_assert(l->ops.items[5].full);
	ot_opslist_free(l);
}
END_TEST

START_TEST(crlf_and_bom_and_no_final_newline)
{
	const char *text = "\xEF\xBB\xBF# torch-version: 1.13.1\r\nnn.LSTM\r\n\r\ntorch.add !full\r\nF.relu";
	ot_opslist *l = parse(text);
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_str_eq(l->pin, "1.13.1");
	ck_assert_uint_eq(l->ops.len, 3);
	ck_assert_str_eq(l->ops.items[0].name, "nn.LSTM");
	ck_assert_str_eq(l->ops.items[1].name, "torch.add");
	ck_assert(l->ops.items[1].full);
	ck_assert_int_eq(l->ops.items[1].line, 4);
	ck_assert_str_eq(l->ops.items[2].name, "F.relu");
	ck_assert_int_eq(l->ops.items[2].line, 5);
	ot_opslist_free(l);
}
END_TEST

START_TEST(empty_and_comment_only)
{
	ot_opslist *l = ot_opslist_parse("", 0, "e.list");
	ck_assert_uint_eq(l->ops.len, 0);
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_ptr_null(l->pin);
	ck_assert_str_eq(l->filename, "e.list");
	ot_opslist_free(l);
	l = parse("# nothing yet\n\n   \t\n# more\n");
	ck_assert_uint_eq(l->ops.len, 0);
	ck_assert_uint_eq(l->diags.len, 0);
	ot_opslist_free(l);
}
END_TEST

START_TEST(invalid_characters)
{
	expect_one("torch/add\n", true,
		   "ops.list:1:6: invalid character '/' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("nn.LSTM\n  torch\\add\n", true,
		   "ops.list:2:8: invalid character '\\' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("torch.add;rm\n", true,
		   "ops.list:1:10: invalid character ';' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("torch.$(id)\n", true,
		   "ops.list:1:7: invalid character '$' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("a`b`\n", true,
		   "ops.list:1:2: invalid character '`' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("torch.add|x\n", true,
		   "ops.list:1:10: invalid character '|' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("torch.add!full\n", true,
		   "ops.list:1:10: invalid character '!' in op name (allowed: letters, digits, '_', "
		   "'.', '::')");
	expect_one("torch.\xc3\xa9rf\n", true,
		   "ops.list:1:7: invalid character '\xc3\xa9' (U+00E9) in op name (allowed: letters, "
		   "digits, '_', '.', '::')");
	expect_one("torch.a\x01\n", true,
		   "ops.list:1:8: invalid character '\\x01' in op name (allowed: letters, digits, "
		   "'_', '.', '::')");
	expect_one("torch.add\rx\n", true,
		   "ops.list:1:10: invalid character '\\x0d' in op name (allowed: letters, digits, "
		   "'_', '.', '::')");
	expect_one("aten:add\n", true,
		   "ops.list:1:5: a single ':' in an op name (namespaces use '::')");
	expect_one("aten:::add\n", true,
		   "ops.list:1:7: a single ':' in an op name (namespaces use '::')");
	expect_one("::add\n", true, "ops.list:1:1: an op name starts with a letter or '_', not ':'");
	expect_one("  2add\n", true, "ops.list:1:3: an op name starts with a letter or '_', not '2'");
	expect_one(".add\n", true, "ops.list:1:1: an op name starts with a letter or '_', not '.'");
	expect_one("\xe2\x82\xac\n", true,
		   "ops.list:1:1: an op name starts with a letter or '_', not '\xe2\x82\xac' (U+20AC)");
}
END_TEST

START_TEST(leading_dash_and_markers_and_extra_words)
{
	expect_one("--help\n", true, "ops.list:1:1: an op name cannot start with '-'");
	expect_one("\t-rf\n", true, "ops.list:1:2: an op name cannot start with '-'");
	expect_one("torch.add !fast\n", true,
		   "ops.list:1:11: unknown marker '!fast' (the only marker is !full)");
	expect_one("torch.add !\n", true, "ops.list:1:11: unknown marker '!' (the only marker is !full)");
	expect_one("torch.add !FULL\n", true,
		   "ops.list:1:11: unknown marker '!FULL' (the only marker is !full)");
	expect_one("!full\n", true, "ops.list:1:1: marker '!full' without an op name before it");
	expect_one("torch.add torch.mul\n", true,
		   "ops.list:1:11: unexpected 'torch.mul' after the op name (one op per line; markers "
		   "start with '!')");
	expect_one("torch.add !full extra\n", true,
		   "ops.list:1:17: unexpected 'extra' after the op name (one op per line; markers "
		   "start with '!')");
	expect_one("torch. add\n", true, "ops.list:1:7: space inside the op name");
	expect_one("torch .add\n", true, "ops.list:1:6: space inside the op name");
	expect_one("aten:: add\n", true, "ops.list:1:7: space inside the op name");
}
END_TEST

START_TEST(name_length)
{
	char name[OT_OPSLIST_MAX_NAME + 3];
	ot_opslist *l;
	memset(name, 'a', sizeof(name) - 2);
	name[OT_OPSLIST_MAX_NAME] = '\n';
	name[OT_OPSLIST_MAX_NAME + 1] = '\0';
	l = parse(name); /* exactly the limit */
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_uint_eq(l->ops.len, 1);
	ck_assert_uint_eq(strlen(l->ops.items[0].name), OT_OPSLIST_MAX_NAME);
	ot_opslist_free(l);
	name[OT_OPSLIST_MAX_NAME] = 'a';
	name[OT_OPSLIST_MAX_NAME + 1] = '\n';
	name[OT_OPSLIST_MAX_NAME + 2] = '\0';
	expect_one(name, true, "ops.list:1:1: op name is 201 bytes long; the limit is 200");
}
END_TEST

START_TEST(nul_bytes_and_utf8)
{
	static const char nul[] = "nn.LSTM\ntorch.a\0dd\nF.relu\n";
	ot_opslist *l = ot_opslist_parse(nul, sizeof(nul) - 1, "ops.list");
	ck_assert_uint_eq(l->diags.len, 1);
	ck_assert_str_eq(l->diags.items[0].message, "ops.list:2:8: NUL byte in the line");
	ck_assert_int_eq(l->diags.items[0].line, 2);
	ck_assert_int_eq(l->diags.items[0].column, 8);
	ck_assert_uint_eq(l->ops.len, 2); /* the other lines still count */
	ck_assert_str_eq(l->ops.items[1].name, "F.relu");
	ot_opslist_free(l);

	expect_one("# caf\xc3\xa9 \xff\n", true,
		   "ops.list:1:8: invalid UTF-8 in a comment (the file must be UTF-8 text)");
	expect_one("torch.add # \xc3\n", true,
		   "ops.list:1:13: invalid UTF-8 in a comment (the file must be UTF-8 text)");
	expect_one("torch.\xe9rf\n", true,
		   "ops.list:1:7: invalid UTF-8 (the file must be UTF-8 text)");
	/* Overlong '/', a UTF-16 surrogate, a code point past U+10FFFF. */
	expect_one("a\xc0\xaf\n", true, "ops.list:1:2: invalid UTF-8 (the file must be UTF-8 text)");
	expect_one("a\xed\xa0\x80\n", true,
		   "ops.list:1:2: invalid UTF-8 (the file must be UTF-8 text)");
	expect_one("a\xf4\x90\x80\x80\n", true,
		   "ops.list:1:2: invalid UTF-8 (the file must be UTF-8 text)");
	/* A valid non-ASCII comment is fine. */
	l = parse("torch.add # d\xc3\xa9j\xc3\xa0 vu \xe2\x9c\x93\n");
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_uint_eq(l->ops.len, 1);
	ot_opslist_free(l);
}
END_TEST

START_TEST(pins)
{
	ot_opslist *l;
	expect_one("# torch-version:\nnn.LSTM\n", true,
		   "ops.list:1:17: the torch-version pin has no value (write e.g. '# torch-version: "
		   "2.6.0')");
	expect_one("# torch-version: two\n", true,
		   "ops.list:1:18: invalid torch-version pin: 'two' is not a PyTorch version "
		   "(expected X.Y.Z, e.g. 2.6.0, 2.6.0+cu124 or 2.7.0a0+git1a2b3c4)");
	expect_one("# torch-version: 2.7.0a0\n", true,
		   "ops.list:1:18: invalid torch-version pin: '2.7.0a0' is a pre-release without a "
		   "commit (\"+git<hash>\"): it has no release tag to trace; pass --torch-version "
		   "X.Y.Z with a release");
	expect_one("nn.LSTM\n# torch-version: 2.6.0\n", false,
		   "ops.list:2:1: warning: a torch-version pin after the first op is ignored (put it "
		   "in the comment block at the top)");
	expect_one("# torch-version: 2.6.0\n#torch-version:1.13.1\n", true,
		   "ops.list:2:1: a second torch-version pin (the first is on line 1)");

	l = parse("nn.LSTM\n# torch-version: 2.6.0\n");
	ck_assert_ptr_null(l->pin);
	ck_assert_uint_eq(ot_opslist_error_count(l), 0);
	ot_opslist_free(l);

	/* Blank lines and other comments may come first; spacing is free. */
	l = parse("# header\n\n  #   torch-version :  2.7.0a0+git1a2b3c4  \r\nnn.LSTM\n");
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_str_eq(l->pin, "2.7.0a0+git1a2b3c4");
	ck_assert_int_eq(l->pin_line, 3);
	ot_opslist_free(l);

	/* Not a pin at all: just a comment. */
	l = parse("# torch-versions: 2.6.0\n# the torch-version: 2.6.0\n");
	ck_assert_uint_eq(l->diags.len, 0);
	ck_assert_ptr_null(l->pin);
	ot_opslist_free(l);
}
END_TEST

START_TEST(duplicates)
{
	ot_opslist *l = parse("nn.LSTM\nF.relu\n\nnn.LSTM !full\nF.relu\n");
	ck_assert_uint_eq(l->ops.len, 2);
	ck_assert(!l->ops.items[0].full);
	ck_assert_uint_eq(l->diags.len, 2);
	ck_assert_uint_eq(ot_opslist_error_count(l), 0);
	ck_assert_str_eq(l->diags.items[0].message,
			 "ops.list:4:1: warning: duplicate op 'nn.LSTM' (first on line 1), skipped");
	ck_assert(!l->diags.items[0].error);
	ck_assert_int_eq(l->diags.items[0].line, 4);
	ck_assert_str_eq(l->diags.items[1].message,
			 "ops.list:5:1: warning: duplicate op 'F.relu' (first on line 2), skipped");
	ot_opslist_free(l);
}
END_TEST

START_TEST(bad_lines_do_not_stop_the_rest)
{
	ot_opslist *l = parse("nn.LSTM\ntorch/x\n-v\nF.relu\ntorch.add !bad\ntorch.mul\n");
	ck_assert_uint_eq(l->ops.len, 3);
	ck_assert_str_eq(l->ops.items[0].name, "nn.LSTM");
	ck_assert_str_eq(l->ops.items[1].name, "F.relu");
	ck_assert_str_eq(l->ops.items[2].name, "torch.mul");
	ck_assert_uint_eq(ot_opslist_error_count(l), 3);
	ck_assert_int_eq(l->diags.items[0].line, 2);
	ck_assert_int_eq(l->diags.items[1].line, 3);
	ck_assert_int_eq(l->diags.items[2].line, 5);
	ck_assert_int_eq(l->diags.items[2].column, 11);
	ot_opslist_free(l);
}
END_TEST

/* Lines of a megabyte, in every shape, must stay linear. */
START_TEST(long_lines_are_fast)
{
	size_t n = 1u << 20, i;
	char *text = ot_malloc(n + 16);
	ot_opslist *l;
	double t0 = ot_clock();
	const char *msg;

	/* A 1 MB name. */
	memset(text, 'a', n);
	strcpy(text + n, "\nF.relu\n");
	l = parse(text);
	ck_assert_uint_eq(l->diags.len, 1);
	ck_assert_str_eq(l->diags.items[0].message,
			 "ops.list:1:1: op name is 1048576 bytes long; the limit is 200");
	ck_assert_uint_eq(l->ops.len, 1);
	ot_opslist_free(l);

	/* A 1 MB comment of multi-byte characters, then a bad byte at the end. */
	text[0] = '#';
	for (i = 1; i + 2 <= n; i += 2)
		memcpy(text + i, "\xc3\xa9", 2);
	text[i - 2] = '\xff';
	text[i - 1] = 'x';
	text[i] = '\n';
	text[i + 1] = '\0';
	l = parse(text);
	ck_assert_uint_eq(l->diags.len, 1);
	ck_assert_int_eq(l->diags.items[0].column, 1 + 1 + (int)((i - 3) / 2));
	ot_opslist_free(l);

	/* Half a million words after a name. */
	strcpy(text, "torch.add");
	for (i = 9; i + 2 <= n; i += 2)
		memcpy(text + i, " a", 2);
	text[i] = '\0';
	l = parse(text);
	ck_assert_uint_eq(l->diags.len, 1);
	msg = l->diags.items[0].message;
	ck_assert_str_eq(msg, "ops.list:1:11: unexpected 'a' after the op name (one op per line; "
			      "markers start with '!')");
	ot_opslist_free(l);

	/* A 1 MB word of '!'-markers, quoted short in the message. */
	strcpy(text, "torch.add ");
	memset(text + 10, '!', n - 10);
	text[n] = '\0';
	l = parse(text);
	ck_assert_uint_eq(l->diags.len, 1);
	ck_assert_str_eq(l->diags.items[0].message,
			 "ops.list:1:11: unknown marker '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!...' "
			 "(the only marker is !full)");
	ot_opslist_free(l);

	/* 100k duplicates. */
	for (i = 0; i + 8 <= n; i += 8)
		memcpy(text + i, "F.relu \n", 8);
	text[i] = '\0';
	l = parse(text);
	ck_assert_uint_eq(l->ops.len, 1);
	ck_assert_uint_eq(l->diags.len, i / 8 - 1);
	ot_opslist_free(l);

	free(text);
	ck_assert_msg(ot_clock() - t0 < 1.0, "long lines took %.2f s", ot_clock() - t0);
}
END_TEST

START_TEST(load_files)
{
	char *dir = tu_tmpdir("opslist");
	ot_buf path = OT_BUF_INIT;
	ot_opslist *l = NULL;

	ot_buf_printf(&path, "%s/ops.list", dir);
	{
		const char *text = "# torch-version: 2.6.0\nnn.LSTM\ntorch/x\n";
		tu_write_file(path.ptr, text, strlen(text));
	}
	ck_assert_int_eq(ot_opslist_load(&l, path.ptr), 0);
	ck_assert_str_eq(l->filename, path.ptr);
	ck_assert_uint_eq(l->ops.len, 1);
	ck_assert_str_eq(l->pin, "2.6.0");
	ck_assert_uint_eq(l->diags.len, 1);
	ck_assert(ot_starts_with(l->diags.items[0].message, path.ptr));
	ck_assert(ot_starts_with(l->diags.items[0].message + path.size, ":3:6: invalid character"));
	ot_opslist_free(l);

	l = NULL;
	ck_assert_int_eq(ot_opslist_load(&l, dir), OT_ERROR);
	ck_assert_ptr_null(l);
	ck_assert(strstr(ot_error_last(), dir) != NULL);
	ck_assert(strstr(ot_error_last(), "is a folder") != NULL);

	ot_buf_printf(&path, ".missing");
	ck_assert_int_eq(ot_opslist_load(&l, path.ptr), OT_ERROR);
	ck_assert(strstr(ot_error_last(), path.ptr) != NULL);
	ck_assert(strstr(ot_error_last(), strerror(ENOENT)) != NULL);
	ot_opslist_free(NULL);
	ot_buf_free(&path);
	free(dir);
}
END_TEST

/* Ops named on a command line join a list, checked as its lines are. */
START_TEST(args_join_a_list)
{
	const char *names[] = {"nn.LSTM", "F.relu !full", "F.linear(x)", "torch.mm", "nn.LSTM"};
	ot_opslist *l = ot_opslist_parse("torch.mm\n", 9, "x.list");
	ot_opslist_add_args(l, names, 5, "command line");
	ck_assert_uint_eq(l->ops.len, 3);
	ck_assert_str_eq(l->ops.items[0].name, "torch.mm");
	ck_assert_int_eq(l->ops.items[0].line, 1);
	ck_assert_int_eq(l->ops.items[0].arg, 0);
	ck_assert_str_eq(l->ops.items[1].name, "nn.LSTM");
	ck_assert_int_eq(l->ops.items[1].line, 0);
	ck_assert_int_eq(l->ops.items[1].arg, 1);
	ck_assert_str_eq(l->ops.items[2].name, "F.relu");
	ck_assert(l->ops.items[2].full);
	ck_assert_int_eq(l->ops.items[2].arg, 2);
	ck_assert_uint_eq(ot_opslist_error_count(l), 1);
	ck_assert_msg(ot_starts_with(l->diags.items[0].message, "command line:3:"), "%s",
		      l->diags.items[0].message);
	ck_assert_uint_eq(l->diags.len, 3);
	for (size_t i = 1; i < 3; i++)
		ck_assert_msg(strstr(l->diags.items[i].message, "command line:4:1: warning: duplicate op 'torch.mm'") ||
				      strstr(l->diags.items[i].message,
					     "command line:5:1: warning: duplicate op 'nn.LSTM'"),
			      "%s", l->diags.items[i].message);
	ot_opslist_free(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("opslist");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, good_file);
	tcase_add_test(tc, crlf_and_bom_and_no_final_newline);
	tcase_add_test(tc, empty_and_comment_only);
	tcase_add_test(tc, invalid_characters);
	tcase_add_test(tc, leading_dash_and_markers_and_extra_words);
	tcase_add_test(tc, name_length);
	tcase_add_test(tc, nul_bytes_and_utf8);
	tcase_add_test(tc, pins);
	tcase_add_test(tc, duplicates);
	tcase_add_test(tc, bad_lines_do_not_stop_the_rest);
	tcase_add_test(tc, long_lines_are_fast);
	tcase_add_test(tc, load_files);
	tcase_add_test(tc, args_join_a_list);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
