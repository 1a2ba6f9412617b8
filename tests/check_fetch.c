/*
 * Tests of ci/fetch-pytorch-source.sh without the network: a Debian release
 * comes from a local cache of Debian's source package (a tiny tarball and
 * its .dsc, made here), and the upstream repository (OPTRACE_SOURCE_URL) is
 * a port on 127.0.0.1 that accepts connections and never answers, which is
 * what a machine without network sees at worst. Nothing may wait on it for
 * more than 2 s, and no line may start with apt's "E:".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "testutil.h"

/* A listening socket on 127.0.0.1 that is never accepted from: its URL. */
static int silent_port(char *url, size_t cap)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert(fd >= 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	ck_assert(listen(fd, 16) == 0);
	ck_assert(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	snprintf(url, cap, "http://127.0.0.1:%d/pytorch.git", ntohs(a.sin_port));
	return fd;
}

static void sh(const char *script, const char *arg)
{
	const char *argv[] = {"sh", "-c", script, "sh", arg, NULL};
	ot_buf err = OT_BUF_INIT;
	ck_assert_msg(tu_run(argv, NULL, &err) == 0, "%s: %s", script, err.ptr);
	ot_buf_free(&err);
}

/*
 * A cache holding Debian's source package of `version`: a tarball of a
 * PyTorch-shaped tree and a .dsc that lists its SHA-256 (or `bad_hash`).
 */
static void make_cache(const char *cache, const char *version, const char *bad_hash)
{
	ot_buf s = OT_BUF_INIT;
	const char *v = version;
	ot_buf_printf(&s,
		      "set -e; cd \"$1\"; mkdir -p t/pytorch-%s/aten/src/ATen/native\n"
		      "echo '- func: mm(Tensor self, Tensor mat2) -> Tensor' "
		      "> t/pytorch-%s/aten/src/ATen/native/native_functions.yaml\n"
		      "tb=pytorch_%s+dfsg.orig.tar.xz\n"
		      "tar -C t -cJf $tb pytorch-%s\n"
		      "h=%s\n"
		      "printf 'Format: 3.0 (quilt)\\nSource: pytorch\\nVersion: %s+dfsg-1\\n"
		      "Checksums-Sha256:\\n %%s %%s %%s\\n' \"$h\" \"$(stat -c %%s $tb)\" $tb "
		      "> pytorch_%s+dfsg-1.dsc\n",
		      v, v, v, v, bad_hash ? bad_hash : "$(sha256sum $tb | cut -d' ' -f1)", v, v);
	sh(s.ptr, cache);
	ot_buf_free(&s);
}

struct fetch {
	int status;
	double seconds;
	ot_buf err;
};

/* Run the script into `dest` with `cache` and upstream `url`, without proxies. */
static struct fetch fetch(const char *dest, const char *cache, const char *url,
			  const char *version)
{
	ot_buf c = OT_BUF_INIT, u = OT_BUF_INIT;
	struct fetch f = {0, 0, OT_BUF_INIT};
	double t0;
	ot_buf_printf(&c, "PYTORCH_SOURCE_CACHE=%s", cache);
	ot_buf_printf(&u, "OPTRACE_SOURCE_URL=%s", url);
	{
		const char *argv[] = {"env", "-u", "http_proxy", "-u", "https_proxy", "-u",
				      "HTTP_PROXY", "-u", "HTTPS_PROXY", "-u", "all_proxy", c.ptr,
				      u.ptr, "bash", "ci/fetch-pytorch-source.sh", dest, version,
				      NULL};
		t0 = ot_clock();
		f.status = tu_run(argv, NULL, &f.err);
		f.seconds = ot_clock() - t0;
	}
	ot_buf_free(&c);
	ot_buf_free(&u);
	return f;
}

/* No line of apt's errors ("E: Failed to fetch ..."). */
static void assert_no_apt_error(const ot_buf *err)
{
	ck_assert_msg(!ot_starts_with(err->ptr, "E:") && !strstr(err->ptr, "\nE:"),
		      "an apt error line:\n%s", err->ptr);
}

static char *tag_commit(const char *repo, const char *tag)
{
	const char *argv[] = {"git", "-C", repo, "rev-parse", tag, NULL};
	ot_buf out = OT_BUF_INIT;
	ck_assert_msg(tu_run(argv, &out, NULL) == 0, "no %s in %s", tag, repo);
	ot_buf_truncate(&out, strcspn(out.ptr, "\n"));
	return ot_buf_detach(&out);
}

START_TEST(debian_release_from_the_cache_needs_no_network)
{
	char url[64];
	int port = silent_port(url, sizeof(url));
	char *dir = tu_tmpdir("fetch-cache"), *cache = tu_path(dir, "cache");
	char *dest = tu_path(dir, "dest"), *dest2 = tu_path(dir, "dest2"), *c1, *c2;
	struct fetch f;

	sh("mkdir -p \"$1\"", cache);
	make_cache(cache, "1.13.1", NULL);
	f = fetch(dest, cache, url, "1.13.1");
	ck_assert_msg(f.status == 0, "status %d:\n%s", f.status, f.err.ptr);
	ck_assert_msg(f.seconds < 2.0, "took %.1f s without network", f.seconds);
	ck_assert_msg(!strstr(f.err.ptr, "ls-remote") && !strstr(f.err.ptr, "downloading"),
		      "went to the network:\n%s", f.err.ptr);
	assert_no_apt_error(&f.err);
	ot_buf_free(&f.err);
	c1 = tag_commit(dest, "v1.13.1^{commit}");

	/* the same tarball gives the same commit, and a second run does nothing */
	f = fetch(dest2, cache, url, "1.13.1");
	ck_assert_msg(f.status == 0, "status %d:\n%s", f.status, f.err.ptr);
	c2 = tag_commit(dest2, "v1.13.1^{commit}");
	ck_assert_str_eq(c1, c2);
	ot_buf_free(&f.err);
	f = fetch(dest, cache, url, "1.13.1");
	ck_assert_msg(f.status == 0 && strstr(f.err.ptr, "nothing to do"), "%s", f.err.ptr);
	ot_buf_free(&f.err);

	close(port);
	free(c1);
	free(c2);
	free(dest);
	free(dest2);
	free(cache);
	free(dir);
}
END_TEST

START_TEST(a_tarball_that_does_not_match_its_dsc_is_refused)
{
	char url[64];
	int port = silent_port(url, sizeof(url));
	char *dir = tu_tmpdir("fetch-bad"), *cache = tu_path(dir, "cache"), *dest = tu_path(dir, "dest");
	struct fetch f;

	sh("mkdir -p \"$1\"", cache);
	make_cache(cache, "1.13.1",
		   "0000000000000000000000000000000000000000000000000000000000000000");
	f = fetch(dest, cache, url, "1.13.1");
	ck_assert_msg(f.status == 1, "status %d:\n%s", f.status, f.err.ptr);
	ck_assert_msg(strstr(f.err.ptr, "does not match the SHA-256"), "%s", f.err.ptr);
	/* then upstream is asked, and given up on within its 2 s */
	ck_assert_msg(strstr(f.err.ptr, "unreachable"), "%s", f.err.ptr);
	ck_assert_msg(f.seconds < 4.0, "took %.1f s", f.seconds);
	assert_no_apt_error(&f.err);
	ck_assert_msg(tu_run((const char *[]){"git", "-C", dest, "rev-parse", "-q", "--verify",
					      "refs/tags/v1.13.1", NULL},
			     NULL, NULL) != 0,
		      "tagged a tarball that does not match");
	ot_buf_free(&f.err);
	close(port);
	free(dest);
	free(cache);
	free(dir);
}
END_TEST

START_TEST(an_unreachable_upstream_costs_at_most_two_seconds)
{
	char url[64];
	int port = silent_port(url, sizeof(url));
	char *dir = tu_tmpdir("fetch-offline"), *cache = tu_path(dir, "cache"), *dest = tu_path(dir, "dest");
	struct fetch f;

	f = fetch(dest, cache, url, "9.9.9"); /* no Debian package: only upstream */
	ck_assert_msg(f.status == 1, "status %d:\n%s", f.status, f.err.ptr);
	ck_assert_msg(strstr(f.err.ptr, "unreachable") && strstr(f.err.ptr, "within 2 s"), "%s",
		      f.err.ptr);
	ck_assert_msg(strstr(f.err.ptr, "Debian packages only 1.13.1 and 2.6.0"), "%s", f.err.ptr);
	ck_assert_msg(f.seconds < 3.0, "took %.1f s", f.seconds);
	assert_no_apt_error(&f.err);
	ot_buf_free(&f.err);
	close(port);
	free(dest);
	free(cache);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fetch");
	TCase *tc = tcase_create("fetch");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, debian_release_from_the_cache_needs_no_network);
	tcase_add_test(tc, a_tarball_that_does_not_match_its_dsc_is_refused);
	tcase_add_test(tc, an_unreachable_upstream_costs_at_most_two_seconds);
	suite_add_tcase(s, tc);
	return tu_run_suite(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
