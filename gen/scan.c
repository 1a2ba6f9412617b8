#include "scan_re.h"

#include <stdio.h>
#include <stdlib.h>

#include "scan.h"

pcre2_code *ot_scan_compile(const char *pattern, int *err, PCRE2_SIZE *off)
{
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
				       PCRE2_MULTILINE, err, off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(*err, msg, sizeof(msg));
		fprintf(stderr, "optrace: bad pattern %s at %zu: %s\n", pattern, (size_t)*off,
			(const char *)msg);
		abort();
	}
	/* Without JIT (an unsupported CPU) matching falls back to the interpreter. */
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	return re;
}

int ot_scan_match(const pcre2_code *re, const char *subject, size_t len, size_t start,
		  pcre2_match_data *md)
{
	int rc = pcre2_jit_match(re, (PCRE2_SPTR)subject, len, start, 0, md, NULL);
	if (rc == PCRE2_ERROR_JIT_BADOPTION)
		rc = pcre2_match(re, (PCRE2_SPTR)subject, len, start, 0, md, NULL);
	return rc;
}

const char *ot_scan_copy_name(ot_arena *arena, const char *s, size_t n)
{
	char *p = ot_arena_alloc(arena, n + 1), *q = p;
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n')
			*q++ = s[i];
	*q = '\0';
	return p;
}

const char *ot_scan_copy_qual(ot_arena *arena, const char *s, size_t n)
{
	char *p = ot_arena_alloc(arena, n + 1), *q = p;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (!depth && s[i] != ' ' && s[i] != '\t' && s[i] != '\n')
			*q++ = s[i];
	}
	*q = '\0';
	return p;
}

const char *ot_scan_library_version(void)
{
	static char version[64];
	static const char prefix[] = "pcre2 ";
	if (!version[0]) {
		char v[48];
		pcre2_config(PCRE2_CONFIG_VERSION, v);
		snprintf(version, sizeof(version), "%s%s", prefix, v);
	}
	return version;
}
