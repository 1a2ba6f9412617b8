/*
 * fuzz_scan.h - the file as ot_index_build hands it to a scanner, for the
 * two scanner harnesses: text and code view NUL-terminated, the code view
 * checked against the contract of lex.h on the way.
 */
#ifndef OT_FUZZ_SCAN_H
#define OT_FUZZ_SCAN_H

#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "lex.h"

struct fuzz_file {
	char *text, *code;
	uint32_t nlines; /* as the index counts them */
};

static void fuzz_file_open(struct fuzz_file *f, const uint8_t *data, size_t size, ot_lang lang)
{
	char *view = malloc(size ? size : 1); /* exactly the room lex.h asks for */
	f->text = malloc(size + 1);
	f->code = malloc(size + 1);
	memcpy(f->text, data, size);
	f->text[size] = '\0';
	ot_lex_code_view(view, f->text, size, lang);
	f->nlines = size ? 1 : 0;
	for (size_t i = 0; i < size; i++) {
		/* same length, same newlines; what is not code becomes blanks */
		FUZZ_CHECK((view[i] == '\n') == (f->text[i] == '\n'));
		FUZZ_CHECK(view[i] == f->text[i] || view[i] == ' ' || view[i] == '#' ||
			   view[i] == 'i' || view[i] == 'f' || view[i] == 'e' || view[i] == 'l' ||
			   view[i] == 'n');
		if (f->text[i] == '\n' && i + 1 < size)
			f->nlines++;
	}
	memcpy(f->code, view, size);
	f->code[size] = '\0';
	free(view);
}

static bool fuzz_line_ok(const struct fuzz_file *f, uint32_t line)
{
	return line >= 1 && line <= f->nlines;
}

static void fuzz_file_close(struct fuzz_file *f)
{
	free(f->text);
	free(f->code);
}

#endif
