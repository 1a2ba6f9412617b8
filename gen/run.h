/*
 * run.h - one optrace run, from ops.list to the published output folder.
 *
 *   ops list -> version -> source (git) -> index + registry -> trace
 *   -> render (pages, diagrams, index, JSON, HTML) -> write -> publish
 *
 * main.c parses the command line into ot_run_opts and calls ot_run; every
 * decision lives here or below, so tests can drive a whole run in-process.
 */
#ifndef OT_RUN_H
#define OT_RUN_H

#include "common.h"
#include "opslist.h"
#include "page.h"
#include "registry.h"
#include "trace.h"

enum {
	OT_FORMAT_MD = 1 << 0,
	OT_FORMAT_JSON = 1 << 1,
	OT_FORMAT_HTML = 1 << 2
};

/** Exit statuses (STYLE §14, §16). */
enum {
	OT_EXIT_OK = 0,      /**< everything traced and written */
	OT_EXIT_PARTIAL = 1, /**< written, but some op or layer was not found,
				  or ops.list had bad lines */
	OT_EXIT_FATAL = 2    /**< usage error or nothing could be done */
};

typedef struct {
	const char *ops_list;      /**< path, "-" for stdin; NULL = "ops.list" */
	bool ops_list_given;       /**< named on the command line */
	const char *const *ops;    /**< ops named on the command line (OP
				        arguments, --op), in order; with them and
				        no list named, ./ops.list only lends its pin */
	size_t nops;
	const char *source;        /**< --source; NULL = the default cache */
	const char *source_url;    /**< --source-url; NULL = upstream */
	bool unverified_source;    /**< --unverified-source */
	const char *torch_version; /**< --torch-version */
	const char *python;        /**< --python: interpreter whose torch counts */
	const char *out_dir;       /**< -o; NULL = "out" */
	const char *templates;     /**< --templates DIR, or NULL for the built-in ones */
	const char *base_url;      /**< --base-url for source links */
	unsigned formats;          /**< OT_FORMAT_* bits; 0 = md + json */
	int jobs;                  /**< -j; 0 = number of CPUs */
	int max_depth;             /**< --depth: composite branches followed, for
				        every op; -1: 3 for the ops of a list, 1
				        for the entries --all adds (each has its
				        own page to follow) */
	bool full;                 /**< --full: no well-known early exit */
	bool all;                  /**< --all: every native_functions.yaml entry */
	bool quiet;                /**< -q */
	int verbose;               /**< -v: phase timings */
	bool check;                /**< --check: trace, report, write nothing */
	bool dump_registry;        /**< --dump-registry: registry JSON on stdout */
	bool print_version;        /**< --print-version: print the release to trace */
	size_t max_file_bytes;     /**< --max-file-bytes; 0: OT_SOURCE_MAX_FILE */
	size_t max_read_bytes;     /**< --max-read-bytes; 0: OT_SOURCE_MAX_TOTAL */
	bool force;                /**< --force: any output folder, over any file */
} ot_run_opts;

/**
 * The default checkout: ${TILEGYM_SKILL_CACHE_DIR:-$HOME/.cache/tilegym}/pytorch-source.
 * Caller frees.
 */
char *ot_run_default_source(void);

/**
 * Run. Prints messages ("optrace: ...") on stderr and data (only for
 * --dump-registry / --print-version) on stdout. Returns an OT_EXIT_* status.
 */
int ot_run(const ot_run_opts *opts);

/**
 * optrace show: trace the one op `op` at the release the options name (as
 * ot_run finds it; ./ops.list only lends its pin) and print it on stdout:
 * ot_show_render's text (`color`: with ANSI colours), or with `json` the
 * op's trace.json object. Messages go to stderr. Returns OT_EXIT_OK when
 * the op and every layer were found, OT_EXIT_PARTIAL when not (the text or
 * object is still printed for a traced op), OT_EXIT_FATAL when nothing could
 * be traced.
 */
int ot_run_show(const ot_run_opts *opts, const char *op, bool json, bool color);

/** Print "optrace: <message>" and a newline on stderr, as every message of a
 * run; control characters in the message are shown (ot_esc_term), not sent. */
void ot_run_say(const char *fmt, ...) OT_PRINTF(1, 2);


typedef struct ot_run_held ot_run_held;

/** The traces of one release, kept in memory (for optrace diff). */
typedef struct {
	ot_release rel;          /**< the release traced; strings owned by this struct */
	ot_registry *reg;        /**< the registry the traces were made from; owned
				      by this struct, a caller may take it (and set
				      this to NULL): it outlives the traces */
	ot_trace **traces;       /**< sorted by input, each op once */
	size_t n;
	ot_run_held *held;       /**< source, index, tracer the traces borrow */
} ot_run_traces;

/**
 * Trace every op of `list` (may be NULL) and, with o->all, every entry of
 * native_functions.yaml, at release `version` (a normalised release such as
 * "2.6.0"; `commit_hint` names a nightly's commit, else NULL), in memory.
 * Honours o->source, source_url, full (well-known ops traced in full),
 * jobs, max_depth, templates, quiet and verbose (phase timings on stderr);
 * writes nothing. Errors: the checkout or the release cannot be read, an
 * unverified plain directory (its release cannot be told apart from
 * another), no op to trace. Caller frees with ot_run_traces_free.
 */
int ot_run_trace_release(ot_run_traces **out, const ot_run_opts *o, const char *version,
			 const char *commit_hint, const ot_opslist *list);

/** Free the traces, what they borrow, and the registry unless taken. */
void ot_run_traces_free(ot_run_traces *t);

/** The index the traces were made from (borrowed from `t`). */
const ot_index *ot_run_traces_index(const ot_run_traces *t);

#endif
