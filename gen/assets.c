#include "assets.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "embedded.h"

int ot_assets_get(ot_buf *out, const char *dir, const char *name, char **from)
{
	ot_buf_clear(out);
	if (from)
		*from = NULL;
	if (strchr(name, '/') || !strcmp(name, "..") || !*name)
		return ot_error_set("bad asset name '%s'", name);
	if (dir) {
		ot_buf path = OT_BUF_INIT;
		FILE *f;
		ot_buf_printf(&path, "%s/%s", dir, name);
		f = fopen(path.ptr, "rb");
		if (f) {
			char chunk[65536];
			size_t n;
			while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
				ot_buf_put(out, chunk, n);
			if (ferror(f)) {
				fclose(f);
				ot_error_set("cannot read %s: %s", path.ptr, strerror(errno));
				ot_buf_free(&path);
				return OT_ERROR;
			}
			fclose(f);
			if (from)
				*from = ot_buf_detach(&path);
			ot_buf_free(&path);
			return 0;
		}
		if (errno != ENOENT) {
			ot_error_set("cannot open %s: %s", path.ptr, strerror(errno));
			ot_buf_free(&path);
			return OT_ERROR;
		}
		ot_buf_free(&path);
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
