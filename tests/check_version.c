/* Tests of gen/version.c: parsing, the installed torch, and the precedence. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "version.h"

/* ---- helpers ------------------------------------------------------------ */

/* Write `text` to dir/rel, creating the folders on the way. */
static void put(const char *dir, const char *rel, const char *text)
{
	ot_buf path = OT_BUF_INIT;
	char *slash;
	ot_buf_printf(&path, "%s/%s", dir, rel);
	slash = strrchr(path.ptr, '/');
	*slash = '\0';
	{
		const char *argv[] = {"mkdir", "-p", path.ptr, NULL};
		ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
	}
	*slash = '/';
	tu_write_file(path.ptr, text, strlen(text));
	ot_buf_free(&path);
}

/* A fresh fake site-packages folder, as an absolute path (caller frees). */
static char *site(const char *tag)
{
	char *rel = tu_tmpdir(tag), *abs = realpath(rel, NULL);
	ck_assert_ptr_nonnull(abs);
	free(rel);
	return abs;
}

static const char *metadata(const char *version)
{
	static char text[256];
	snprintf(text, sizeof(text),
		 "Metadata-Version: 2.1\nName: torch\nVersion: %s\nSummary: Tensors\n\n"
		 "Version: 0.0.0 (in the description, not a header)\n",
		 version);
	return text;
}

/* A stand-in for python3 that prints `dirs` (NUL-separated) as its sys.path. */
static char *fake_python(const char *body)
{
	char *dir = site("fakepy");
	ot_buf path = OT_BUF_INIT, script = OT_BUF_INIT;
	ot_buf_printf(&path, "%s/python", dir);
	ot_buf_printf(&script, "#!/bin/sh\n%s\n", body);
	tu_write_file(path.ptr, script.ptr, script.size);
	ck_assert_int_eq(chmod(path.ptr, 0755), 0);
	ot_buf_free(&script);
	free(dir);
	return ot_buf_detach(&path);
}

#define ck_assert_has(haystack, needle)                                                        \
	ck_assert_msg(strstr((haystack), (needle)) != NULL, "'%s' lacks '%s'", (haystack), (needle))

/* ---- parsing -------------------------------------------------------------- */

START_TEST(parse_releases)
{
	static const struct {
		const char *raw, *release;
	} cases[] = {
		{"2.6.0", "2.6.0"},
		{"2.6.0+cu124", "2.6.0"},
		{"2.6.0+cpu", "2.6.0"},
		{"1.13.1+rocm5.2", "1.13.1"},
		{"v2.6.0", "2.6.0"},
		{"  2.6.0\r\n", "2.6.0"},
		{"2.6", "2.6.0"},
		{"02.06.00", "2.6.0"},
		{"2.6.0+git1a2b3c4", "2.6.0"}, /* a release stays a release */
	};
	size_t i;
	for (i = 0; i < OT_ARRAY_LEN(cases); i++) {
		ot_version v;
		ck_assert_msg(ot_version_parse(&v, cases[i].raw, "test") == 0, "%s: %s",
			      cases[i].raw, ot_error_last());
		ck_assert_str_eq(v.release, cases[i].release);
		ck_assert(!v.nightly);
		ck_assert_str_eq(v.commit, "");
		ck_assert_str_eq(v.origin, "test");
	}
}
END_TEST

START_TEST(parse_keeps_raw)
{
	ot_version v;
	ck_assert_int_eq(ot_version_parse(&v, "2.6.0+cu124", "--torch-version"), 0);
	ck_assert_str_eq(v.raw, "2.6.0+cu124");
	ck_assert_str_eq(v.origin, "--torch-version");
	ck_assert_int_eq(ot_version_parse(&v, "2.6.0", NULL), 0);
	ck_assert_str_eq(v.origin, "");
}
END_TEST

START_TEST(parse_nightlies)
{
	ot_version v;
	ck_assert_int_eq(ot_version_parse(&v, "2.7.0a0+git1a2b3c4", "x"), 0);
	ck_assert(v.nightly);
	ck_assert_str_eq(v.release, "2.7.0");
	ck_assert_str_eq(v.commit, "1a2b3c4");
	ck_assert_str_eq(v.raw, "2.7.0a0+git1a2b3c4");

	ck_assert_int_eq(ot_version_parse(&v, "2.7.0.dev20250101+gitABCDEF0123", "x"), 0);
	ck_assert(v.nightly);
	ck_assert_str_eq(v.commit, "abcdef0123");

	ck_assert_int_eq(ot_version_parse(&v, "2.8.0rc1+git0123456789abcdef0123456789abcdef01234567", "x"), 0);
	ck_assert_str_eq(v.commit, "0123456789abcdef0123456789abcdef01234567");

	ck_assert_int_eq(ot_version_parse(&v, "2.7.0a0+git1a2b3c4.cu124", "x"), 0);
	ck_assert_str_eq(v.commit, "1a2b3c4");
}
END_TEST

START_TEST(parse_refusals)
{
	static const char *const garbage[] = {
		"", "abc", "2", "2.6.0.1", "2.6.0+", "2.6.0+cu 124", "2.6.0 extra", "2..6",
		"2.6.0-", "1234567890.0.0", "2.6.0+cu124+cpu", "2.6.0foo", "2.6.0a0b",
	};
	static const char *const no_commit[] = {
		"2.7.0a0", "2.7.0.dev20250101+cu124", "2.6.0rc1", "2.7.0a0+gitxyz", "2.7.0a0+git12",
		"2.7.0a0+git1a2b3c4z",
	};
	size_t i;
	ot_version v;
	for (i = 0; i < OT_ARRAY_LEN(garbage); i++) {
		char expect[128];
		ck_assert_msg(ot_version_parse(&v, garbage[i], "--torch-version") == OT_ERROR,
			      "'%s' was accepted", garbage[i]);
		snprintf(expect, sizeof(expect), "'%s' (from --torch-version) is not a PyTorch version",
			 garbage[i]);
		ck_assert_has(ot_error_last(), expect);
	}
	for (i = 0; i < OT_ARRAY_LEN(no_commit); i++) {
		char expect[128];
		ck_assert_msg(ot_version_parse(&v, no_commit[i], "ops.list pin (ops.list:1)") ==
				      OT_ERROR,
			      "'%s' was accepted", no_commit[i]);
		snprintf(expect, sizeof(expect),
			 "'%s' (from ops.list pin (ops.list:1)) is a pre-release without a commit",
			 no_commit[i]);
		ck_assert_has(ot_error_last(), expect);
		ck_assert_has(ot_error_last(), "no release tag");
	}
	/* Hostile text is shown tamed and cut short. */
	{
		char longer[400];
		memset(longer, '9', sizeof(longer) - 1);
		longer[sizeof(longer) - 1] = '\0';
		ck_assert_int_eq(ot_version_parse(&v, longer, NULL), OT_ERROR);
		ck_assert_has(ot_error_last(), "'99999");
		ck_assert_has(ot_error_last(), "...' is not a PyTorch version");
		ck_assert_uint_lt(strlen(ot_error_last()), 300);
		ck_assert_int_eq(ot_version_parse(&v, "2.6\x1b[31m", NULL), OT_ERROR);
		ck_assert_has(ot_error_last(), "'2.6?[31m' is not");
	}
}
END_TEST

/* ---- the installed torch ---------------------------------------------------- */

START_TEST(installed_dist_info)
{
	char *a = site("empty-site"), *b = site("dist-site");
	const char *dirs[] = {"/nonexistent/dir", a, b, NULL};
	ot_version v;
	ot_buf origin = OT_BUF_INIT;

	put(b, "torch-2.6.0+cu124.dist-info/METADATA", metadata("2.6.0+cu124"));
	put(b, "torchvision-0.21.0.dist-info/METADATA", metadata("0.21.0"));
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), 0);
	ck_assert_str_eq(v.release, "2.6.0");
	ck_assert_str_eq(v.raw, "2.6.0+cu124");
	ck_assert(!v.nightly);
	ot_buf_printf(&origin, "installed torch (%s/torch-2.6.0+cu124.dist-info)", b);
	ck_assert_str_eq(v.origin, origin.ptr);
	ot_buf_free(&origin);
	free(a);
	free(b);
}
END_TEST

START_TEST(installed_newest_dist_info_wins)
{
	char *a = site("two-dist");
	const char *dirs[] = {a, NULL};
	ot_version v;
	put(a, "torch-2.5.1.dist-info/METADATA", metadata("2.5.1"));
	put(a, "torch-2.10.0.dist-info/METADATA", metadata("2.10.0"));
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), 0);
	ck_assert_str_eq(v.release, "2.10.0");
	free(a);
}
END_TEST

START_TEST(installed_version_py)
{
	char *a = site("vpy1"), *b = site("vpy2"), *c = site("vpy3");
	const char *dirs[] = {a, NULL};
	const char *dirs2[] = {b, NULL};
	const char *dirs3[] = {c, NULL};
	ot_version v;
	ot_buf origin = OT_BUF_INIT;

	put(a, "torch/version.py",
	    "from typing import Optional\n\n__all__ = ['__version__', 'debug']\n"
	    "__version__ = '1.13.1+cpu'\ndebug = False\ngit_version = 'abc'\n");
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), 0);
	ck_assert_str_eq(v.release, "1.13.1");
	ot_buf_printf(&origin, "installed torch (%s/torch/version.py)", a);
	ck_assert_str_eq(v.origin, origin.ptr);

	put(b, "torch/version.py", "__version__: str = \"2.7.0a0+git1a2b3c4\"\r\n");
	ck_assert_int_eq(ot_version_find_installed(&v, dirs2), 0);
	ck_assert(v.nightly);
	ck_assert_str_eq(v.release, "2.7.0");
	ck_assert_str_eq(v.commit, "1a2b3c4");

	/* A torch folder without version.py is not an install. */
	put(c, "torch/__init__.py", "");
	ck_assert_int_eq(ot_version_find_installed(&v, dirs3), OT_ENOTFOUND);
	ot_buf_free(&origin);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(installed_first_dir_wins)
{
	char *a = site("first"), *b = site("second");
	const char *dirs[] = {a, b, NULL};
	ot_version v;
	put(a, "torch/version.py", "__version__ = '1.13.1'\n");
	put(b, "torch-2.6.0.dist-info/METADATA", metadata("2.6.0"));
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), 0);
	ck_assert_str_eq(v.release, "1.13.1");
	dirs[0] = b;
	dirs[1] = a;
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), 0);
	ck_assert_str_eq(v.release, "2.6.0");
	free(a);
	free(b);
}
END_TEST

START_TEST(installed_unreadable)
{
	char *a = site("bad1"), *b = site("bad2"), *c = site("bad3"), *d = site("bad4");
	const char *da[] = {a, NULL}, *db[] = {b, NULL}, *dc[] = {c, NULL}, *dd[] = {d, NULL};
	const char *none[] = {NULL};
	ot_version v;

	put(a, "torch-2.6.0.dist-info/METADATA", "Name: torch\nSummary: no version\n");
	ck_assert_int_eq(ot_version_find_installed(&v, da), OT_ERROR);
	ck_assert_has(ot_error_last(), "torch-2.6.0.dist-info/METADATA has no usable \"Version:\"");

	put(b, "torch-2.6.0.dist-info/RECORD", "");
	ck_assert_int_eq(ot_version_find_installed(&v, db), OT_ERROR);
	ck_assert_has(ot_error_last(), "torch-2.6.0.dist-info/METADATA is missing");

	put(c, "torch/version.py", "__version__ = get_version()\n");
	ck_assert_int_eq(ot_version_find_installed(&v, dc), OT_ERROR);
	ck_assert_has(ot_error_last(), "torch/version.py has no usable __version__");

	put(d, "torch/version.py", "__version__ = 'banana'\n");
	ck_assert_int_eq(ot_version_find_installed(&v, dd), OT_ERROR);
	ck_assert_has(ot_error_last(), "'banana' (from installed torch (");
	ck_assert_has(ot_error_last(), "is not a PyTorch version");

	ck_assert_int_eq(ot_version_find_installed(&v, none), OT_ENOTFOUND);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

/* ---- the package manager's record ------------------------------------------------- */

/*
 * Debian's python3-torch, as dpkg installs it: torch/ with a version.py and
 * an egg-info that both say 1.13.0a0 (Debian's build), in `dir`; and a fake
 * dpkg database in `admin` whose package `pkg` lists torch/__init__.py,
 * with a status stanza of `status_stanza` (printf'd with pkg).
 */
static void debian_torch(const char *dir, const char *admin, const char *pkg,
			 const char *stanza)
{
	ot_buf list = OT_BUF_INIT, rel = OT_BUF_INIT, status = OT_BUF_INIT;
	put(dir, "torch/__init__.py", "");
	put(dir, "torch/version.py", "__version__ = '1.13.0a0'\n");
	put(dir, "torch-1.13.0a0+gitunknown.egg-info/PKG-INFO", metadata("1.13.0a0+gitunknown"));
	ot_buf_printf(&list, "/.\n/usr\n%s\n%s/torch\n%s/torch/__init__.py\n%s/torch/version.py\n",
		      dir, dir, dir, dir);
	ot_buf_printf(&rel, "info/%s.list", pkg);
	put(admin, rel.ptr, list.ptr);
	put(admin, "info/zlib1g:amd64.list", "/.\n/usr/lib/x86_64-linux-gnu/libz.so.1\n");
	ot_buf_printf(&status,
		      "Package: zlib1g\nStatus: install ok installed\nArchitecture: amd64\n"
		      "Version: 1:1.2.13.dfsg-1\n\n%s\n",
		      stanza);
	put(admin, "status", status.ptr);
	ot_buf_free(&list);
	ot_buf_free(&rel);
	ot_buf_free(&status);
}

START_TEST(installed_by_dpkg)
{
	char *dir = site("deb-site"), *admin = site("deb-admin"), *empty = site("deb-empty");
	char *stale;
	const char *dirs[] = {dir, NULL};
	ot_version v;
	ot_buf origin = OT_BUF_INIT;

	/* without its dpkg record (an empty database), what Debian's own files
	 * say is refused: a pre-release without a commit */
	debian_torch(dir, admin, "python3-torch", "");
	ck_assert_int_eq(setenv("OPTRACE_DPKG_ADMINDIR", empty, 1), 0);
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), OT_ERROR);
	ck_assert_has(ot_error_last(), "'1.13.0a0+gitunknown'");
	ck_assert_has(ot_error_last(), "torch-1.13.0a0+gitunknown.egg-info");
	ck_assert_has(ot_error_last(), "pre-release without a commit");

	/* dpkg's record of the package that owns torch/__init__.py names the release */
	debian_torch(dir, admin, "python3-torch",
		     "Package: python3-torch\nStatus: install ok installed\nPriority: optional\n"
		     "Architecture: amd64\nSource: pytorch\nVersion: 1.13.1+dfsg-4\n"
		     "Depends: libtorch1.13 (= 1.13.1+dfsg-4)\nDescription: Tensors\n more text\n");
	ck_assert_int_eq(setenv("OPTRACE_DPKG_ADMINDIR", admin, 1), 0);
	ck_assert_msg(ot_version_find_installed(&v, dirs) == 0, "%s", ot_error_last());
	ck_assert_str_eq(v.release, "1.13.1");
	ck_assert_str_eq(v.raw, "1.13.1+dfsg");
	ot_buf_printf(&origin, "dpkg: python3-torch 1.13.1+dfsg-4 (%s/torch)", dir);
	ck_assert_str_eq(v.origin, origin.ptr);

	/* a multiarch record (pkg:arch.list) and an epoch */
	debian_torch(dir, admin, "python3-torch:amd64",
		     "Package: python3-torch\nStatus: install ok installed\nArchitecture: i386\n"
		     "Version: 9.9.9-1\n\nPackage: python3-torch\nStatus: install ok installed\n"
		     "Architecture: amd64\nVersion: 1:2.6.0+dfsg-7\n");
	stale = tu_path(admin, "info/python3-torch.list");
	unlink(stale);
	free(stale);
	ck_assert_msg(ot_version_find_installed(&v, dirs) == 0, "%s", ot_error_last());
	ck_assert_str_eq(v.release, "2.6.0");
	ck_assert_has(v.origin, "dpkg: python3-torch:amd64 1:2.6.0+dfsg-7");

	ot_buf_free(&origin);
	unsetenv("OPTRACE_DPKG_ADMINDIR");
	free(dir);
	free(admin);
	free(empty);
}
END_TEST

START_TEST(dpkg_record_that_proves_nothing)
{
	char *dir = site("deb-bad"), *admin = site("deb-bad-admin");
	const char *dirs[] = {dir, NULL};
	ot_version v;

	ck_assert_int_eq(setenv("OPTRACE_DPKG_ADMINDIR", admin, 1), 0);
	/* the file list names it, but no installed record says which version */
	debian_torch(dir, admin, "python3-torch",
		     "Package: python3-torch\nStatus: deinstall ok config-files\nVersion: 1.13.1+dfsg-4\n");
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), OT_ERROR);
	ck_assert_has(ot_error_last(), "has no installed python3-torch");
	/* a Debian version that is not a release */
	debian_torch(dir, admin, "python3-torch",
		     "Package: python3-torch\nStatus: install ok installed\nVersion: 2.0.0~rc1-1\n");
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), OT_ERROR);
	ck_assert_has(ot_error_last(), "'2.0.0~rc1'");
	ck_assert_has(ot_error_last(), "dpkg: python3-torch 2.0.0~rc1-1");
	ck_assert_has(ot_error_last(), "is not a PyTorch version");
	unsetenv("OPTRACE_DPKG_ADMINDIR");
	free(dir);
	free(admin);
}
END_TEST

/* A conda environment in `prefix` whose record `json` (in conda-meta/) is given. */
static void conda_env(const char *prefix, const char *json_name, const char *json)
{
	ot_buf rel = OT_BUF_INIT;
	put(prefix, "lib/python3.11/site-packages/torch/__init__.py", "");
	put(prefix, "lib/python3.11/site-packages/torch/version.py", "__version__ = '2.6.0a0'\n");
	put(prefix, "conda-meta/numpy-1.26.4-py311.json",
	    "{\"name\": \"numpy\", \"version\": \"1.26.4\", \"files\": "
	    "[\"lib/python3.11/site-packages/numpy/__init__.py\"]}\n");
	ot_buf_printf(&rel, "conda-meta/%s", json_name);
	put(prefix, rel.ptr, json);
	ot_buf_free(&rel);
}

START_TEST(installed_by_conda)
{
	char *env = site("conda-env"), *bad = site("conda-bad");
	ot_buf sp = OT_BUF_INIT, spbad = OT_BUF_INIT, origin = OT_BUF_INIT;
	const char *dirs[2] = {NULL, NULL};
	ot_version v;

	conda_env(env, "pytorch-2.6.0-py3.11_cuda12.4_cudnn9.1.0_0.json",
		  "{\n  \"build\": \"py3.11_cuda12.4_cudnn9.1.0_0\",\n  \"files\": [\n"
		  "    \"bin/torchrun\",\n    \"lib/python3.11/site-packages/torch/__init__.py\",\n"
		  "    \"lib/python3.11/site-packages/torch/version.py\"\n  ],\n"
		  "  \"name\": \"pytorch\",\n  \"version\": \"2.6.0\"\n}\n");
	ot_buf_printf(&sp, "%s/lib/python3.11/site-packages", env);
	dirs[0] = sp.ptr;
	ck_assert_msg(ot_version_find_installed(&v, dirs) == 0, "%s", ot_error_last());
	ck_assert_str_eq(v.release, "2.6.0");
	ot_buf_printf(&origin, "conda: pytorch 2.6.0 (%s/conda-meta/"
			       "pytorch-2.6.0-py3.11_cuda12.4_cudnn9.1.0_0.json)", env);
	ck_assert_str_eq(v.origin, origin.ptr);

	/* a nightly record names no commit: refused, not passed over */
	conda_env(bad, "pytorch-2.7.0.dev20250101-py3.11_0.json",
		  "{\"name\": \"pytorch\", \"version\": \"2.7.0.dev20250101\", \"files\": "
		  "[\"lib/python3.11/site-packages/torch/__init__.py\"]}\n");
	ot_buf_printf(&spbad, "%s/lib/python3.11/site-packages", bad);
	dirs[0] = spbad.ptr;
	ck_assert_int_eq(ot_version_find_installed(&v, dirs), OT_ERROR);
	ck_assert_has(ot_error_last(), "conda: pytorch 2.7.0.dev20250101");
	ck_assert_has(ot_error_last(), "pre-release without a commit");
	ot_buf_free(&sp);
	ot_buf_free(&spbad);
	ot_buf_free(&origin);
	free(env);
	free(bad);
}
END_TEST

START_TEST(installed_egg_info)
{
	char *a = site("egg-dir"), *b = site("egg-file");
	const char *da[] = {a, NULL}, *db[] = {b, NULL};
	ot_version v;
	ot_buf origin = OT_BUF_INIT;
	put(a, "torch-2.6.0.egg-info/PKG-INFO", metadata("2.6.0"));
	put(a, "torch/version.py", "__version__ = '9.9.9'\n");
	ck_assert_msg(ot_version_find_installed(&v, da) == 0, "%s", ot_error_last());
	ck_assert_str_eq(v.release, "2.6.0");
	ot_buf_printf(&origin, "installed torch (%s/torch-2.6.0.egg-info)", a);
	ck_assert_str_eq(v.origin, origin.ptr);
	/* an egg-info may be the PKG-INFO file itself */
	put(b, "torch-1.13.1-py3.11.egg-info", metadata("1.13.1"));
	ck_assert_msg(ot_version_find_installed(&v, db) == 0, "%s", ot_error_last());
	ck_assert_str_eq(v.release, "1.13.1");
	ot_buf_free(&origin);
	free(a);
	free(b);
}
END_TEST

/* ---- python's sys.path, end to end -------------------------------------------- */

START_TEST(real_python_with_pythonpath)
{
	char *fake = site("pythonpath"), *marker;
	char **dirs = NULL;
	ot_version v;
	bool listed = false;
	size_t i;
	ot_buf init = OT_BUF_INIT, m = OT_BUF_INIT;

	put(fake, "torch-2.6.0+cu124.dist-info/METADATA", metadata("2.6.0+cu124"));
	/* Importing torch would leave a mark: it must never happen. */
	ot_buf_printf(&m, "%s/imported", fake);
	marker = m.ptr;
	ot_buf_printf(&init, "open('%s', 'w').close()\n", marker);
	put(fake, "torch/__init__.py", init.ptr);
	put(fake, "torch/version.py", "__version__ = '9.9.9'\n");
	ck_assert_int_eq(setenv("PYTHONPATH", fake, 1), 0);

	ck_assert_msg(ot_version_python_dirs(&dirs, NULL) == 0, "%s", ot_error_last());
	for (i = 0; dirs[i]; i++) {
		ck_assert_str_ne(dirs[i], "");
		if (!strcmp(dirs[i], fake))
			listed = true;
	}
	ck_assert_msg(listed, "%s not in python3's sys.path", fake);
	ck_assert_int_eq(ot_version_find_installed(&v, (const char *const *)dirs), 0);
	ck_assert_str_eq(v.release, "2.6.0");
	ck_assert_has(v.origin, fake);
	ot_version_free_dirs(dirs);

	/* The whole precedence: installed beats the pin. */
	ck_assert_int_eq(ot_version_detect(&v, NULL, "1.13.1", "ops.list pin (ops.list:1)", "ops.list", NULL), 0);
	ck_assert_str_eq(v.release, "2.6.0");
	ck_assert_has(v.origin, "installed torch (");
	ck_assert_msg(access(marker, F_OK) != 0, "torch was imported");
	ot_buf_free(&init);
	ot_buf_free(&m);
	free(fake);
}
END_TEST

START_TEST(python_that_cannot_run)
{
	char **dirs = (char **)1;
	char *failing = fake_python("exit 3");
	ck_assert_int_eq(ot_version_python_dirs(&dirs, "/nonexistent/python3"), OT_ENOTFOUND);
	ck_assert_ptr_null(dirs);
	ck_assert_has(ot_error_last(), "cannot run /nonexistent/python3");
	ck_assert_int_eq(ot_version_python_dirs(&dirs, failing), OT_ENOTFOUND);
	ck_assert_has(ot_error_last(), "failed to print its sys.path (exit status 3)");
	ot_version_free_dirs(NULL);
	free(failing);
}
END_TEST

START_TEST(python_output_is_split_on_nul)
{
	char *py = fake_python("printf 'one\\0\\0two with\\nnewline\\0three'");
	char **dirs;
	ck_assert_int_eq(ot_version_python_dirs(&dirs, py), 0);
	ck_assert_str_eq(dirs[0], "one");
	ck_assert_str_eq(dirs[1], "two with\nnewline");
	ck_assert_str_eq(dirs[2], "three");
	ck_assert_ptr_null(dirs[3]);
	ot_version_free_dirs(dirs);
	free(py);
}
END_TEST

/* ---- precedence ---------------------------------------------------------------- */

START_TEST(detect_precedence)
{
	char *installed = site("installed"), *nothing = site("nothing");
	ot_buf body = OT_BUF_INIT;
	char *py_installed, *py_nothing;
	ot_version v;

	put(installed, "torch/version.py", "__version__ = '2.6.0+cpu'\n");
	ot_buf_printf(&body, "printf '%%s\\0' '%s'", installed);
	py_installed = fake_python(body.ptr);
	ot_buf_clear(&body);
	ot_buf_printf(&body, "printf '%%s\\0%%s\\0' '%s' /nonexistent/site", nothing);
	py_nothing = fake_python(body.ptr);

	/* --torch-version beats everything, and a bad one is not passed over. */
	ck_assert_int_eq(ot_version_detect(&v, "1.13.1", "2.0.0", "pin", "ops.list", py_installed), 0);
	ck_assert_str_eq(v.release, "1.13.1");
	ck_assert_str_eq(v.origin, "--torch-version");
	ck_assert_int_eq(ot_version_detect(&v, "x.y", "2.0.0", "pin", "ops.list", py_installed), OT_ERROR);
	ck_assert_has(ot_error_last(), "'x.y' (from --torch-version) is not a PyTorch version");

	/* The installed torch beats the pin. */
	ck_assert_int_eq(ot_version_detect(&v, NULL, "2.0.0", "pin", "ops.list", py_installed), 0);
	ck_assert_str_eq(v.release, "2.6.0");
	ck_assert_has(v.origin, "torch/version.py");

	/* Nothing installed: the pin, with its origin. */
	ck_assert_int_eq(ot_version_detect(&v, NULL, "2.0.0", "ops.list pin (ops.list:3)",
					   "ops.list", py_nothing),
			 0);
	ck_assert_str_eq(v.release, "2.0.0");
	ck_assert_str_eq(v.origin, "ops.list pin (ops.list:3)");

	/* No python at all: the pin still works. */
	ck_assert_int_eq(ot_version_detect(&v, NULL, "2.0.0", NULL, "ops.list", "/nonexistent/python3"), 0);
	ck_assert_str_eq(v.origin, "ops.list pin");

	/* Nothing anywhere: the message lists what was tried. */
	ck_assert_int_eq(ot_version_detect(&v, NULL, NULL, NULL, "my/x.list", py_nothing), OT_ERROR);
	ck_assert_has(ot_error_last(), "cannot tell which PyTorch release to trace");
	ck_assert_has(ot_error_last(), "no --torch-version");
	ck_assert_has(ot_error_last(), nothing);
	ck_assert_has(ot_error_last(), "/nonexistent/site");
	ck_assert_has(ot_error_last(), "no '# torch-version:' pin in my/x.list");
	ck_assert_int_eq(ot_version_detect(&v, NULL, NULL, NULL, NULL, "/nonexistent/python3"), OT_ERROR);
	ck_assert_has(ot_error_last(), "no ops list to pin one");
	ck_assert_has(ot_error_last(), "cannot run /nonexistent/python3");
	ck_assert_has(ot_error_last(), "Pass --torch-version X.Y.Z");

	ot_buf_free(&body);
	free(py_installed);
	free(py_nothing);
	free(installed);
	free(nothing);
}
END_TEST

START_TEST(detect_installed_but_unusable)
{
	char *dir = site("unusable");
	ot_buf body = OT_BUF_INIT;
	char *py;
	ot_version v;
	put(dir, "torch-2.7.0.dev20250101+cu124.dist-info/METADATA",
	    metadata("2.7.0.dev20250101+cu124"));
	ot_buf_printf(&body, "printf '%%s\\0' '%s'", dir);
	py = fake_python(body.ptr);
	/* A pip nightly has no commit: refuse rather than fall back to the pin. */
	ck_assert_int_eq(ot_version_detect(&v, NULL, "2.6.0", "pin", "ops.list", py), OT_ERROR);
	ck_assert_has(ot_error_last(), "is a pre-release without a commit");
	ck_assert_has(ot_error_last(), "installed torch (");
	ot_buf_free(&body);
	free(py);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, parse_releases);
	tcase_add_test(tc, parse_keeps_raw);
	tcase_add_test(tc, parse_nightlies);
	tcase_add_test(tc, parse_refusals);
	tcase_add_test(tc, installed_dist_info);
	tcase_add_test(tc, installed_newest_dist_info_wins);
	tcase_add_test(tc, installed_version_py);
	tcase_add_test(tc, installed_first_dir_wins);
	tcase_add_test(tc, installed_unreadable);
	tcase_add_test(tc, installed_by_dpkg);
	tcase_add_test(tc, dpkg_record_that_proves_nothing);
	tcase_add_test(tc, installed_by_conda);
	tcase_add_test(tc, installed_egg_info);
	tcase_add_test(tc, real_python_with_pythonpath);
	tcase_add_test(tc, python_that_cannot_run);
	tcase_add_test(tc, python_output_is_split_on_nul);
	tcase_add_test(tc, detect_precedence);
	tcase_add_test(tc, detect_installed_but_unusable);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
