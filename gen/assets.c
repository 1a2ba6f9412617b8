#include "assets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "embedded.h"

/*
 * A template of the user's: a regular file, not through a symbolic link
 * (nor a FIFO, which would hang, nor a device, which never ends), at most
 * OT_ASSETS_MAX bytes. OT_ENOTFOUND when there is no such file.
 */
static int read_regular(ot_buf *out, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			return OT_ENOTFOUND;
		if (errno == ELOOP)
			return ot_error_set("%s is a symbolic link; templates are read from regular "
					    "files only",
					    path);
		return ot_error_set("cannot open %s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		rc = ot_error_set("cannot read %s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = ot_error_set("%s is not a regular file; templates are read from regular files "
				  "only",
				  path);
	} else if (st.st_size > OT_ASSETS_MAX) {
		rc = ot_error_set("%s is too large for a template (%lld bytes; the limit is %d)", path,
				  (long long)st.st_size, OT_ASSETS_MAX);
	} else {
		char chunk[65536];
		ssize_t n;
		while ((n = read(fd, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR)) {
			if (n > 0)
				ot_buf_put(out, chunk, (size_t)n);
			if (out->size > OT_ASSETS_MAX) {
				rc = ot_error_set("%s is too large for a template (the limit is %d bytes)",
						  path, OT_ASSETS_MAX);
				break;
			}
		}
		if (n < 0 && !rc)
			rc = ot_error_set("cannot read %s: %s", path, strerror(errno));
	}
	close(fd);
	if (rc < 0)
		ot_buf_clear(out);
	return rc;
}

int ot_assets_get(ot_buf *out, const char *dir, const char *name, char **from)
{
	ot_buf_clear(out);
	if (from)
		*from = NULL;
	if (strchr(name, '/') || !strcmp(name, "..") || !*name)
		return ot_error_set("bad asset name '%s'", name);
	if (dir) {
		ot_buf path = OT_BUF_INIT;
		int rc;
		ot_buf_printf(&path, "%s/%s", dir, name);
		rc = read_regular(out, path.ptr);
		if (rc == 0 && from)
			*from = ot_buf_detach(&path);
		ot_buf_free(&path);
		if (rc != OT_ENOTFOUND)
			return rc;
	}
	for (const ot_embedded_file *e = ot_embedded_files; e->name; e++) {
		if (!strcmp(e->name, name)) {
			ot_buf_put(out, e->data, e->len);
			if (from)
				*from = ot_strdup("built-in");
			return 0;
		}
	}
	return ot_error_setc(OT_ENOTFOUND, "no template '%s'%s%s", name, dir ? " in " : "",
			     dir ? dir : "");
}
