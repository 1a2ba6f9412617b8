/*
 * opslist.h - read an ops.list: which ops to document.
 *
 *     # torch-version: 2.6.0        <- optional pin (a comment header line)
 *     nn.LSTM
 *     F.cross_entropy   # comment
 *     torch.add !full               <- bypass the well-known early exit
 *
 * One op per line; `#` starts a comment; blank lines are ignored; CRLF line
 * ends are accepted. An op name is made of ASCII letters, digits, `_`, `.`
 * and `::` (aten::add.out), starts with a letter or `_`, and is at most
 * OT_OPSLIST_MAX_NAME bytes. A malformed line is reported as
 * "file:line:column: reason" and skipped; the other lines still count.
 * A repeated op is reported (with the line of the first) and skipped.
 */
#ifndef OT_OPSLIST_H
#define OT_OPSLIST_H

#include "common.h"

#define OT_OPSLIST_MAX_NAME 200

typedef struct {
	char *name; /**< as written, e.g. "torch.nn.LSTM" */
	int line;   /**< 1-based; 0 for an op of the command line */
	int arg;    /**< 1-based position among the command line's ops; else 0 */
	bool full;  /**< `!full` given */
} ot_opslist_entry;

typedef struct {
	int line, column; /**< 1-based */
	char *message;    /**< "file:line:column: reason", ready to print */
	bool error;       /**< false for warnings (duplicates) */
} ot_opslist_diag;

typedef struct {
	OT_VEC(ot_opslist_entry) ops;
	OT_VEC(ot_opslist_diag) diags;
	char *pin;       /**< torch-version pin, or NULL */
	int pin_line;
	char *filename;
} ot_opslist;

/**
 * Parse `len` bytes of `data` (need not be NUL-terminated; NUL bytes are a
 * per-line error). Never fails as a whole: bad lines become diagnostics.
 * Caller frees with ot_opslist_free.
 */
ot_opslist *ot_opslist_parse(const char *data, size_t len, const char *filename);

/**
 * Read and parse a file; "-" reads standard input (named "<stdin>" in
 * messages). OT_ERROR (message names the file) when unreadable.
 */
int ot_opslist_load(ot_opslist **out, const char *path);

/**
 * Add the ops `names` (as written on a command line; each may carry a
 * `!full` marker) to `list`, read as the lines of a list named `where`
 * ("command line": a message says "command line:2:1: reason" of the second
 * name). A name `list` has already is reported as a duplicate and skipped.
 * The entries added have `line` 0 and `arg` their 1-based position.
 */
void ot_opslist_add_args(ot_opslist *list, const char *const *names, size_t n,
			 const char *where);

/** Number of error (not warning) diagnostics. */
size_t ot_opslist_error_count(const ot_opslist *list);

void ot_opslist_free(ot_opslist *list);

#endif
