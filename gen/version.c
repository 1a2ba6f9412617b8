#include "version.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "value.h"
#include "yamldoc.h"

extern char **environ;

/* How long python3 may take to print its sys.path. */
#define PYTHON_TIMEOUT_MS 20000
/* Bytes of METADATA / version.py worth reading: the headers come first. */
#define HEADER_BYTES 65536

/* ---- parsing ----------------------------------------------------------- */

/* A printable copy of untrusted text for a message (quoted by the caller). */
static const char *shown(char *dst, size_t cap, const char *s)
{
	size_t i = 0;
	for (; *s && i + 4 < cap; s++)
		dst[i++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	if (*s) {
		dst[i++] = '.';
		dst[i++] = '.';
		dst[i++] = '.';
	}
	dst[i] = '\0';
	return dst;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A release number: up to 9 digits, leading zeros dropped as PEP 440 does. */
static bool parse_number(const char **s, unsigned long *out)
{
	const char *p = *s;
	unsigned long n = 0;
	int digits = 0;
	while (is_digit(*p) && digits < 10) {
		n = n * 10 + (unsigned long)(*p++ - '0');
		digits++;
	}
	if (!digits || digits > 9)
		return false;
	*s = p;
	*out = n;
	return true;
}

/*
 * The pre-release / development part after X.Y.Z: "a0", "b1", "rc2",
 * ".dev20250101", "a0.dev1" (PEP 440 spellings). True when `s` is one.
 */
static bool parse_prerelease(const char *s)
{
	static const char *const kinds[] = {"alpha", "beta", "rc", "a", "b", "c", "pre", "preview"};
	size_t i;
	if (*s == '-' || *s == '_' || *s == '.')
		s++;
	for (i = 0; i < OT_ARRAY_LEN(kinds); i++) {
		size_t n = strlen(kinds[i]);
		if (!strncmp(s, kinds[i], n)) {
			s += n;
			while (is_digit(*s))
				s++;
			if (!*s)
				return true;
			if (*s == '.' || *s == '-' || *s == '_')
				s++;
			break;
		}
	}
	if (strncmp(s, "dev", 3))
		return false;
	s += 3;
	while (is_digit(*s))
		s++;
	return !*s;
}

int ot_version_parse(ot_version *out, const char *raw, const char *origin)
{
	char text[sizeof(out->raw)], show[96];
	const char *s, *plus, *local = NULL;
	size_t len;
	unsigned long part[3] = {0, 0, 0};
	int parts = 0;
	char pre[64];

	memset(out, 0, sizeof(*out));
	snprintf(out->origin, sizeof(out->origin), "%s", origin ? origin : "");
	if (!raw)
		raw = "";
	/* Surrounding blanks come from files and command lines alike. */
	while (*raw == ' ' || *raw == '\t')
		raw++;
	len = strlen(raw);
	while (len && (raw[len - 1] == ' ' || raw[len - 1] == '\t' || raw[len - 1] == '\r' ||
		       raw[len - 1] == '\n'))
		len--;
	if (len >= sizeof(text))
		goto bad;
	memcpy(text, raw, len);
	text[len] = '\0';
	snprintf(out->raw, sizeof(out->raw), "%s", text);

	s = text;
	if (*s == 'v' || *s == 'V')
		s++;
	while (parts < 3) {
		if (!parse_number(&s, &part[parts]))
			goto bad;
		parts++;
		if (*s != '.' || !is_digit(s[1]))
			break;
		s++;
	}
	if (parts < 2 || (*s == '.' && is_digit(s[1])))
		goto bad; /* "2" or "2.6.0.1" */

	plus = strchr(s, '+');
	if (plus) {
		const char *p;
		local = plus + 1;
		if (!*local)
			goto bad;
		for (p = local; *p; p++)
			if (!is_alnum(*p) && *p != '.' && *p != '_' && *p != '-')
				goto bad;
	}
	len = plus ? (size_t)(plus - s) : strlen(s);
	if (len >= sizeof(pre))
		goto bad;
	memcpy(pre, s, len);
	pre[len] = '\0';
	if (pre[0] && !parse_prerelease(pre))
		goto bad;
	snprintf(out->release, sizeof(out->release), "%lu.%lu.%lu", part[0], part[1], part[2]);

	if (pre[0]) {
		/* A pre-release is only traceable through the commit it was built from. */
		size_t hex = 0;
		if (local && !strncmp(local, "git", 3))
			while (is_hex(local[3 + hex]))
				hex++;
		if (hex < 4 || hex > 40 || (local[3 + hex] && local[3 + hex] != '.'))
			return ot_error_set("'%s'%s%s%s is a pre-release without a commit "
					    "(\"+git<hash>\"): it has no release tag to trace; pass "
					    "--torch-version X.Y.Z with a release",
					    shown(show, sizeof(show), text), origin ? " (from " : "",
					    origin ? origin : "", origin ? ")" : "");
		memcpy(out->commit, local + 3, hex);
		out->commit[hex] = '\0';
		for (hex = 0; out->commit[hex]; hex++)
			if (out->commit[hex] >= 'A' && out->commit[hex] <= 'F')
				out->commit[hex] = (char)(out->commit[hex] - 'A' + 'a');
		out->nightly = true;
	}
	return 0;
bad:
	{
		char copy[sizeof(show)];
		snprintf(copy, sizeof(copy), "%.*s", (int)(sizeof(copy) - 1), raw);
		return ot_error_set("'%s'%s%s%s is not a PyTorch version (expected X.Y.Z, e.g. 2.6.0, "
				    "2.6.0+cu124 or 2.7.0a0+git1a2b3c4)",
				    shown(show, sizeof(show), copy), origin ? " (from " : "",
				    origin ? origin : "", origin ? ")" : "");
	}
}

/* ---- the installed torch -------------------------------------------------- */

/* The first `cap` bytes of a regular file. */
static int read_head(ot_buf *out, const char *path, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? OT_ENOTFOUND
							   : ot_error_set("cannot open %s: %s", path,
									  strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ot_error_set("%s is not a regular file", path);
	}
	if ((size_t)st.st_size < cap)
		cap = (size_t)st.st_size; /* a file growing meanwhile is read as it was */
	ot_buf_clear(out);
	ot_buf_grow_by(out, cap);
	while (out->size < cap) {
		n = read(fd, out->ptr + out->size, cap - out->size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return ot_error_set("cannot read %s: %s", path, strerror(errno));
		}
		if (n == 0)
			break;
		out->size += (size_t)n;
	}
	out->ptr[out->size] = '\0';
	close(fd);
	return 0;
}

/* The value of the "Version:" header of a METADATA file. */
static int metadata_version(char *out, size_t cap, const char *text)
{
	const char *line = text;
	while (*line && *line != '\n' && *line != '\r') {
		size_t n = strcspn(line, "\r\n");
		if (n > 8 && !strncasecmp(line, "Version:", 8)) {
			const char *v = line + 8;
			while (*v == ' ' || *v == '\t')
				v++;
			n -= (size_t)(v - line);
			if (n >= cap)
				return OT_ERROR;
			memcpy(out, v, n);
			out[n] = '\0';
			return 0;
		}
		line += n;
		if (*line == '\r')
			line++;
		if (*line == '\n')
			line++;
	}
	return OT_ENOTFOUND; /* a blank line ends the headers */
}

/* `__version__ = '...'` (optionally annotated `: str`) in torch/version.py. */
static int python_version(char *out, size_t cap, const char *text)
{
	const char *line = text;
	while (*line) {
		size_t n = strcspn(line, "\n");
		const char *p = line;
		if (!strncmp(p, "__version__", 11)) {
			p += 11;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == ':') {
				p++;
				while (*p == ' ' || *p == '\t')
					p++;
				if (!strncmp(p, "str", 3))
					p += 3;
				while (*p == ' ' || *p == '\t')
					p++;
			}
			if (*p == '=') {
				char quote;
				const char *end;
				p++;
				while (*p == ' ' || *p == '\t')
					p++;
				quote = *p;
				if (quote != '\'' && quote != '"')
					return OT_ERROR;
				end = strchr(p + 1, quote);
				if (!end || end > line + n || (size_t)(end - p - 1) >= cap)
					return OT_ERROR;
				memcpy(out, p + 1, (size_t)(end - p - 1));
				out[end - p - 1] = '\0';
				return 0;
			}
		}
		line += n;
		if (*line)
			line++;
	}
	return OT_ENOTFOUND;
}

static int dist_info_cmp(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* The newest "torch-<digit>...<suffix>" entry in `dir` (".dist-info",
 * ".egg-info"), or NULL. */
static char *find_dist_info(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	OT_VEC(char *) names = {0};
	char *best = NULL;
	size_t i;

	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "torch-", 6) && is_digit(e->d_name[6]) &&
		    ot_ends_with(e->d_name, suffix))
			ot_vec_push(&names, ot_strdup(e->d_name));
	closedir(d);
	/* A stale folder can survive an upgrade; the newest one is the installed. */
	if (names.len) {
		qsort(names.items, names.len, sizeof(*names.items), dist_info_cmp);
		best = names.items[names.len - 1];
		names.items[names.len - 1] = NULL;
	}
	for (i = 0; i < names.len; i++)
		free(names.items[i]);
	ot_vec_free(&names);
	return best;
}

/* ---- the package manager that installed torch ----------------------------------- */

/* Bytes of a package database file worth reading (dpkg's status is a few MB). */
#define DB_BYTES (256u << 20)

/* The value of header `name` ("Version") in one RFC 822 stanza [s, end), or NULL. */
static char *stanza_field(const char *s, const char *end, const char *name)
{
	size_t n = strlen(name);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (len > n && !strncmp(s, name, n) && s[n] == ':') {
			const char *v = s + n + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			return ot_strndup(v, len - (size_t)(v - s));
		}
		s += len + 1;
	}
	return NULL;
}

/* "1:1.13.1+dfsg-4" -> "1.13.1+dfsg": the upstream part of a Debian version. */
static void debian_upstream(char *out, size_t cap, const char *version)
{
	const char *colon = strchr(version, ':'), *dash;
	const char *s = colon ? colon + 1 : version;
	size_t n;
	dash = strrchr(s, '-');
	n = dash ? (size_t)(dash - s) : strlen(s);
	snprintf(out, cap, "%.*s", (int)n, s);
}

/*
 * The dpkg record of package `pkg` ("python3-torch", or "name:arch") in
 * `admindir`/status: its Version when it is installed. 0, or OT_ERROR.
 */
static int dpkg_version(char *out, size_t cap, const char *admindir, const char *pkg)
{
	ot_buf path = OT_BUF_INIT, text = OT_BUF_INIT;
	char name[256], *arch;
	const char *s, *end;
	int rc = OT_ERROR;

	snprintf(name, sizeof(name), "%s", pkg);
	arch = strchr(name, ':');
	if (arch)
		*arch++ = '\0';
	ot_buf_printf(&path, "%s/status", admindir);
	if (read_head(&text, path.ptr, DB_BYTES) < 0) {
		rc = ot_error_set("dpkg: %s lists %s's files, but %s cannot be read", admindir, pkg,
				  path.ptr);
		goto done;
	}
	for (s = text.ptr, end = text.ptr + text.size; s < end;) {
		const char *next = strstr(s, "\n\n");
		const char *stop = next ? next + 1 : end;
		char *p = stanza_field(s, stop, "Package"), *a = NULL, *st = NULL, *v = NULL;
		if (p && !strcmp(p, name)) {
			a = stanza_field(s, stop, "Architecture");
			st = stanza_field(s, stop, "Status");
			v = stanza_field(s, stop, "Version");
		}
		if (p && !strcmp(p, name) && (!arch || (a && !strcmp(a, arch))) && st &&
		    ot_ends_with(st, " installed") && v) {
			snprintf(out, cap, "%s", v);
			rc = 0;
		}
		free(p);
		free(a);
		free(st);
		free(v);
		if (rc == 0 || !next)
			break;
		s = next + 2;
	}
	if (rc < 0)
		rc = ot_error_set("dpkg: %s/info/%s.list lists torch's files, but %s has no installed "
				  "%s with a Version",
				  admindir, pkg, path.ptr, pkg);
done:
	ot_buf_free(&path);
	ot_buf_free(&text);
	return rc;
}

/* Sorted names in `dir` ending in `suffix` (caller frees with free_names). */
static char **list_names(const char *dir, const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	OT_VEC(char *) names = {0};
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && ot_ends_with(e->d_name, suffix))
			ot_vec_push(&names, ot_strdup(e->d_name));
	closedir(d);
	if (names.len)
		qsort(names.items, names.len, sizeof(*names.items), dist_info_cmp);
	*n = names.len;
	return names.items;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * dpkg (Debian, Ubuntu): the package whose file list (admindir/info/<pkg>.list)
 * holds `file` (torch/__init__.py, as sys.path spells it or resolved), and
 * its installed Version, e.g. python3-torch 1.13.1+dfsg-4 -> 1.13.1.
 */
static int from_dpkg(ot_version *out, const char *file, const char *dir)
{
	const char *admindir = getenv("OPTRACE_DPKG_ADMINDIR");
	ot_buf info = OT_BUF_INIT, path = OT_BUF_INIT, text = OT_BUF_INIT, needle[2] = {OT_BUF_INIT, OT_BUF_INIT};
	char *real = realpath(file, NULL), **names;
	size_t n = 0;
	int rc = OT_ENOTFOUND;

	if (!admindir || !*admindir)
		admindir = "/var/lib/dpkg";
	ot_buf_printf(&info, "%s/info", admindir);
	ot_buf_printf(&needle[0], "\n%s\n", file);
	ot_buf_printf(&needle[1], "\n%s\n", real ? real : file);
	names = list_names(info.ptr, ".list", &n);
	for (size_t i = 0; i < n && rc == OT_ENOTFOUND; i++) {
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/%s", info.ptr, names[i]);
		ot_buf_clear(&text);
		ot_buf_putc(&text, '\n'); /* so the first line has a newline before it too */
		{
			ot_buf body = OT_BUF_INIT;
			if (read_head(&body, path.ptr, DB_BYTES) == 0)
				ot_buf_put(&text, body.ptr, body.size);
			ot_buf_free(&body);
		}
		ot_buf_putc(&text, '\n');
		if (memmem(text.ptr, text.size, needle[0].ptr, needle[0].size) ||
		    memmem(text.ptr, text.size, needle[1].ptr, needle[1].size)) {
			char pkg[256], version[128], upstream[128];
			ot_buf origin = OT_BUF_INIT;
			snprintf(pkg, sizeof(pkg), "%.*s", (int)(strlen(names[i]) - 5), names[i]);
			rc = dpkg_version(version, sizeof(version), admindir, pkg);
			if (rc == 0) {
				debian_upstream(upstream, sizeof(upstream), version);
				ot_buf_printf(&origin, "dpkg: %s %s (%s/torch)", pkg, version, dir);
				rc = ot_version_parse(out, upstream, origin.ptr);
			}
			ot_buf_free(&origin);
		}
	}
	free_names(names, n);
	free(real);
	ot_buf_free(&info);
	ot_buf_free(&path);
	ot_buf_free(&text);
	ot_buf_free(&needle[0]);
	ot_buf_free(&needle[1]);
	return rc;
}

/*
 * conda: the environment whose conda-meta/ is in a folder above `dir`, and
 * the record there (conda-meta/<name>.json) whose "files" hold torch/__init__.py
 * (relative to the environment): its "name" and "version".
 */
static int from_conda(ot_version *out, const char *file)
{
	ot_buf prefix = OT_BUF_INIT, meta = OT_BUF_INIT, path = OT_BUF_INIT, text = OT_BUF_INIT,
	       needle = OT_BUF_INIT, origin = OT_BUF_INIT;
	char **names = NULL;
	size_t n = 0, cut;
	int rc = OT_ENOTFOUND;
	struct stat st;

	/* the nearest folder above torch/ that holds conda-meta/ */
	ot_buf_puts(&prefix, file);
	for (;;) {
		char *slash = strrchr(prefix.ptr, '/');
		if (!slash || slash == prefix.ptr)
			goto done;
		ot_buf_truncate(&prefix, (size_t)(slash - prefix.ptr));
		ot_buf_clear(&meta);
		ot_buf_printf(&meta, "%s/conda-meta", prefix.ptr);
		if (stat(meta.ptr, &st) == 0 && S_ISDIR(st.st_mode))
			break;
	}
	cut = prefix.size + 1;
	ot_buf_printf(&needle, "\"%s\"", file + cut);
	names = list_names(meta.ptr, ".json", &n);
	for (size_t i = 0; i < n && rc == OT_ENOTFOUND; i++) {
		ot_arena *arena;
		ot_value *root = NULL, *files;
		const char *name, *version;
		bool owns = false;
		ot_buf_clear(&path);
		ot_buf_printf(&path, "%s/%s", meta.ptr, names[i]);
		if (read_head(&text, path.ptr, DB_BYTES) < 0 ||
		    !memmem(text.ptr, text.size, needle.ptr, needle.size))
			continue;
		arena = ot_arena_new();
		if (ot_yaml_load(&root, arena, text.ptr, text.size, path.ptr) < 0) {
			rc = ot_error_wrap("conda");
			ot_arena_free(arena);
			break;
		}
		files = ot_v_get(root, "files");
		for (size_t k = 0; files && ot_v_at(files, k); k++) {
			const char *f = ot_v_cstr(ot_v_at(files, k));
			if (f && !strcmp(f, file + cut))
				owns = true;
		}
		name = ot_v_cstr(ot_v_get(root, "name"));
		version = ot_v_cstr(ot_v_get(root, "version"));
		if (owns && (!name || !version)) {
			rc = ot_error_set("conda: %s owns %s but has no \"name\" and \"version\"",
					  path.ptr, file);
		} else if (owns) {
			ot_buf_clear(&origin);
			ot_buf_printf(&origin, "conda: %s %s (%s)", name, version, path.ptr);
			rc = ot_version_parse(out, version, origin.ptr);
		}
		ot_arena_free(arena);
	}
done:
	free_names(names, n);
	ot_buf_free(&prefix);
	ot_buf_free(&meta);
	ot_buf_free(&path);
	ot_buf_free(&text);
	ot_buf_free(&needle);
	ot_buf_free(&origin);
	return rc;
}

/* ---- what pip (or setup.py) wrote --------------------------------------------------- */

/* Look in one directory: 0 found, OT_ENOTFOUND, OT_ERROR. */
static int find_in_dir(ot_version *out, const char *dir)
{
	ot_buf path = OT_BUF_INIT, text = OT_BUF_INIT, origin = OT_BUF_INIT;
	char value[128];
	char *info = NULL;
	int (*extract)(char *, size_t, const char *);
	const char *what;
	struct stat st;
	int rc;

	/* 1. the package manager that installed torch/__init__.py knows its release */
	ot_buf_printf(&path, "%s/torch/__init__.py", dir);
	if (stat(path.ptr, &st) == 0) {
		rc = from_dpkg(out, path.ptr, dir);
		if (rc == OT_ENOTFOUND)
			rc = from_conda(out, path.ptr);
		if (rc != OT_ENOTFOUND)
			goto done;
	}
	ot_buf_clear(&path);

	/* 2. the metadata pip or setup.py wrote beside it; 3. torch/version.py */
	if ((info = find_dist_info(dir, ".dist-info"))) {
		ot_buf_printf(&path, "%s/%s/METADATA", dir, info);
		ot_buf_printf(&origin, "installed torch (%s/%s)", dir, info);
		extract = metadata_version;
		what = "\"Version:\" header";
	} else if ((info = find_dist_info(dir, ".egg-info"))) {
		/* a folder with PKG-INFO, or the PKG-INFO file itself */
		ot_buf_printf(&path, "%s/%s", dir, info);
		if (stat(path.ptr, &st) == 0 && S_ISDIR(st.st_mode))
			ot_buf_puts(&path, "/PKG-INFO");
		ot_buf_printf(&origin, "installed torch (%s/%s)", dir, info);
		extract = metadata_version;
		what = "\"Version:\" header";
	} else {
		ot_buf_printf(&path, "%s/torch/version.py", dir);
		ot_buf_printf(&origin, "installed torch (%s)", path.ptr);
		extract = python_version;
		what = "__version__ = '...' line";
	}
	rc = read_head(&text, path.ptr, HEADER_BYTES);
	if (rc == OT_ENOTFOUND && info)
		rc = ot_error_set("installed torch: %s is missing", path.ptr);
	if (rc == 0 && extract(value, sizeof(value), text.ptr) < 0)
		rc = ot_error_set("installed torch: %s has no usable %s", path.ptr, what);
	if (rc == 0)
		rc = ot_version_parse(out, value, origin.ptr);
done:
	free(info);
	ot_buf_free(&path);
	ot_buf_free(&text);
	ot_buf_free(&origin);
	return rc;
}

int ot_version_find_installed(ot_version *out, const char *const *dirs)
{
	size_t i;
	for (i = 0; dirs && dirs[i]; i++) {
		int rc;
		if (!dirs[i][0])
			continue;
		rc = find_in_dir(out, dirs[i]);
		if (rc != OT_ENOTFOUND)
			return rc;
	}
	return ot_error_setc(OT_ENOTFOUND, "no installed torch found");
}

/* ---- python's sys.path --------------------------------------------------------- */

/* Run argv with stdin and stderr on /dev/null; collect stdout (bounded). */
static int capture(ot_buf *out, const char *const *argv, int *status)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], rc, error = OT_ERROR;
	pid_t pid;
	double start;
	bool timed_out = false;

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return ot_error_set("cannot create a pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0) {
		close(pipefd[0]);
		return ot_error_setc(OT_ENOTFOUND, "cannot run %s: %s", argv[0], strerror(rc));
	}
	start = ot_clock();
	for (;;) {
		struct pollfd pfd = {pipefd[0], POLLIN, 0};
		long left = PYTHON_TIMEOUT_MS - (long)((ot_clock() - start) * 1000);
		char chunk[4096];
		ssize_t n;
		if (left <= 0 || (rc = poll(&pfd, 1, (int)left)) == 0) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		n = read(pipefd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->size < (1u << 20))
			ot_buf_put(out, chunk, (size_t)n);
	}
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		error = ot_error_setc(OT_ENOTFOUND, "%s did not answer within %d s", argv[0],
				      PYTHON_TIMEOUT_MS / 1000);
	else
		error = 0;
	return error;
}

int ot_version_python_dirs(char ***out, const char *python)
{
	/* NUL-separated, so no path can be misread; torch is not imported. */
	static const char script[] =
		"import os, sys\n"
		"for p in sys.path:\n"
		"    sys.stdout.buffer.write(os.fsencode(p) + b'\\0')\n";
	const char *argv[4];
	ot_buf text = OT_BUF_INIT;
	OT_VEC(char *) dirs = {0};
	int status = 0, rc;
	size_t pos = 0;

	*out = NULL;
	argv[0] = python && *python ? python : "python3";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	rc = capture(&text, argv, &status);
	if (rc < 0) {
		ot_buf_free(&text);
		return rc;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ot_buf_free(&text);
		return ot_error_setc(OT_ENOTFOUND, "%s failed to print its sys.path (%s %d)", argv[0],
				     WIFEXITED(status) ? "exit status" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	while (pos < text.size) {
		size_t n = strnlen(text.ptr + pos, text.size - pos);
		/* "" is the current folder: a source tree there is not an installed torch. */
		if (n)
			ot_vec_push(&dirs, ot_strndup(text.ptr + pos, n));
		pos += n + 1;
	}
	ot_vec_push(&dirs, NULL);
	*out = dirs.items;
	ot_buf_free(&text);
	return 0;
}

void ot_version_free_dirs(char **dirs)
{
	size_t i;
	if (!dirs)
		return;
	for (i = 0; dirs[i]; i++)
		free(dirs[i]);
	free(dirs);
}

/* ---- precedence ----------------------------------------------------------------- */

int ot_version_detect(ot_version *out, const char *cli, const char *pin,
		      const char *pin_origin, const char *list_name, const char *python)
{
	char **dirs = NULL;
	ot_buf tried = OT_BUF_INIT;
	const char *py = python && *python ? python : "python3";
	int rc;

	if (cli)
		return ot_version_parse(out, cli, "--torch-version");

	rc = ot_version_python_dirs(&dirs, py);
	if (rc == 0) {
		rc = ot_version_find_installed(out, (const char *const *)dirs);
		if (rc == OT_ENOTFOUND) {
			size_t i, shown_dirs = 0;
			ot_buf_printf(&tried, "no torch installed for %s (looked in", py);
			for (i = 0; dirs[i]; i++) {
				if (tried.size > 900) {
					ot_buf_puts(&tried, " ...");
					break;
				}
				ot_buf_printf(&tried, "%s %s", shown_dirs++ ? "," : "", dirs[i]);
			}
			ot_buf_puts(&tried, shown_dirs ? ")" : " nothing: empty sys.path)");
		}
	} else {
		ot_buf_printf(&tried, "%s", ot_error_last());
	}
	ot_version_free_dirs(dirs);
	if (rc != OT_ENOTFOUND)
		goto done; /* found, or found but unusable: say so rather than guess */

	if (pin) {
		rc = ot_version_parse(out, pin, pin_origin ? pin_origin : "ops.list pin");
		goto done;
	}
	if (list_name)
		rc = ot_error_set("cannot tell which PyTorch release to trace: no --torch-version; %s; "
				  "no '# torch-version:' pin in %s. Pass --torch-version X.Y.Z",
				  tried.ptr, list_name);
	else
		rc = ot_error_set("cannot tell which PyTorch release to trace: no --torch-version; %s; "
				  "no ops list to pin one. Pass --torch-version X.Y.Z",
				  tried.ptr);
done:
	ot_buf_free(&tried);
	return rc;
}
