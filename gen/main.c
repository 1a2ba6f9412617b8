/*
 * main.c - the optrace command line: parse arguments, print help and
 * versions, map results to exit statuses. Everything else is in run.c and
 * the modules below it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"
#include "graph.h"
#include "index.h"
#include "scan.h"
#include "markdown.h"
#include "resolve.h"
#include "run.h"
#include "source.h"
#include "whichout.h"
#include "yamldoc.h"

/*
 * Every command's options, in the order --help lists them: one table per
 * command is the single source of getopt's options, of --help, hence of
 * the man pages (help2man makes them from --help) and of the bash
 * completion (made from --help too). A row without a name is a heading.
 */
enum {
	OPT_FULL = 256,
	OPT_ALL,
	OPT_FORMAT,
	OPT_CHECK,
	OPT_VERSION,
	OPT_SOURCE_URL,
	OPT_UNVERIFIED,
	OPT_TEMPLATES,
	OPT_BASE_URL,
	OPT_DEPTH,
	OPT_PYTHON,
	OPT_DUMP_REGISTRY,
	OPT_PRINT_VERSION,
	OPT_OP,
	OPT_JSON,      /* diff and show */
	OPT_MAX_BYTES, /* diff only */
	OPT_FAIL_ON,   /* diff only */
	OPT_MAX_FILE,
	OPT_MAX_READ,
	OPT_FORCE,
	OPT_DIFF       /* which only */
};

struct opt {
	const char *name; /* long name; NULL: a heading, `help` is its text */
	int key;          /* the short letter, or an OPT_*; -1 ends a table */
	const char *arg;  /* the argument's name in the help; NULL: takes none */
	const char *help; /* lines separated by '\n' */
};

#define HEADING(text) {NULL, 0, NULL, text}
#define O_SOURCE                                                                          \
	{"source", 's', "DIR",                                                             \
	 "PyTorch git checkout (default:\n"                                                \
	 "${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source);\n"                 \
	 "files are read from the tag v<VER>, not the work tree"}
#define O_SOURCE_URL                                                                      \
	{"source-url", OPT_SOURCE_URL, "URL",                                              \
	 "clone from URL when DIR does not exist\n(default: " OT_SOURCE_DEFAULT_URL ")"}
#define O_TORCH_VERSION                                                                   \
	{"torch-version", 't', "VER",                                                      \
	 "release to trace (default: the torch installed for\n"                            \
	 "python3, else the '# torch-version:' pin of OPS_LIST)"}
#define O_UNVERIFIED                                                                      \
	{"unverified-source", OPT_UNVERIFIED, NULL,                                        \
	 "accept a plain directory whose release cannot be proven"}
#define O_PYTHON {"python", OPT_PYTHON, "PATH", "interpreter whose installed torch names the release"}
#define O_MAX_FILE                                                                        \
	{"max-file-bytes", OPT_MAX_FILE, "N",                                              \
	 "largest source file read (default 32M; K, M, G\nsuffixes)"}
#define O_MAX_READ                                                                        \
	{"max-read-bytes", OPT_MAX_READ, "N", "bytes of source one run reads in all (default 1G)"}
#define O_FULL {"full", OPT_FULL, NULL, "no well-known early exit: trace every op through the source"}
#define O_DEPTH                                                                           \
	{"depth", OPT_DEPTH, "N",                                                          \
	 "composite branches followed (default 3, and 1 for\n"                             \
	 "the entries --all adds: each has its own page); calls\n"                         \
	 "every default call makes, 2 more (not with 0))"}
#define O_TEMPLATES_WK {"templates", OPT_TEMPLATES, "DIR", "where wellknown.yaml is looked up first"}
#define O_TIMINGS {"verbose", 'v', NULL, "also print timings"}
#define O_JOBS {"jobs", 'j', "N", "worker threads (default: number of CPUs)"}
#define O_HELP {"help", 'h', NULL, "show this help"}
#define END_OPTS {NULL, -1, NULL, NULL}

static const struct opt main_opts[] = {
	HEADING("Release and source:"),
	O_TORCH_VERSION,
	O_SOURCE,
	O_SOURCE_URL,
	O_UNVERIFIED,
	O_PYTHON,
	O_MAX_FILE,
	O_MAX_READ,
	HEADING("What to trace:"),
	{"op", OPT_OP, "NAME", "trace the op NAME (repeatable), as an OP argument does"},
	{"all", OPT_ALL, NULL, "every entry of native_functions.yaml (with OPS_LIST: both)"},
	O_FULL,
	O_DEPTH,
	HEADING("Output:"),
	{"out", 'o', "DIR",
	 "output folder (default: out); not /, the home folder,\n"
	 "the checkout, nor a non-empty folder optrace did not\n"
	 "make (no .optrace-manifest), unless --force; one run\n"
	 "at a time (a second one exits 2)"},
	{"force", OPT_FORCE, NULL, "write into such a folder, over files optrace did not\nwrite"},
	{"format", OPT_FORMAT, "LIST", "comma-separated: md, json, html (default: md,json)"},
	{"templates", OPT_TEMPLATES, "DIR", "use the templates of DIR where it has them"},
	{"base-url", OPT_BASE_URL, "URL",
	 "source links: URL/<tag>/<path>#L<line>\n"
	 "(default: https://github.com/pytorch/pytorch/blob)"},
	{"check", OPT_CHECK, NULL, "trace and report, write nothing"},
	{"dump-registry", OPT_DUMP_REGISTRY, NULL, "print the parsed registries as JSON and exit"},
	{"print-version", OPT_PRINT_VERSION, NULL,
	 "print the release that would be traced and exit\n(and, on stderr, where it was learned)"},
	HEADING("Running:"),
	O_JOBS,
	{"quiet", 'q', NULL, "no progress, no summary (what was not found is\nstill said)"},
	{"verbose", 'v', NULL, "also print the time of each phase"},
	O_HELP,
	{"version", OPT_VERSION, NULL, "show versions of optrace and its libraries"},
	END_OPTS,
};

static const char main_head[] =
	"Usage: optrace [OPTIONS] [OPS_LIST | OP]...\n"
	"  or:  optrace show [OPTIONS] OP                 (see 'optrace show --help')\n"
	"  or:  optrace diff OLD NEW [OPTIONS] [OPS_LIST] (see 'optrace diff --help')\n"
	"\n"
	"Trace PyTorch operators through the source of the release you use and write\n"
	"Markdown pages (with Graphviz call-chain diagrams), an index, trace.json and an\n"
	"offline HTML bundle. The ops come from OPS_LIST (one op per line; '-' reads it\n"
	"from stdin), from OP arguments (nn.LSTM F.softmax aten::addmm.out) and --op;\n"
	"with none of these, from ./ops.list. An argument is an ops list when it is '-',\n"
	"names an existing file, contains a '/' or ends in '.list', and an op otherwise.\n";

static const char main_tail[] =
	"\n"
	"Exit status: 0 all traced and written; 1 written, but some ops or layers were not\n"
	"found or OPS_LIST had bad lines; 2 usage error or fatal error (nothing written).\n";

static const struct opt diff_opts[] = {
	O_SOURCE,
	O_SOURCE_URL,
	{"all", OPT_ALL, NULL,
	 "every entry of both releases' native_functions.yaml\n"
	 "(with OPS_LIST, or when ./ops.list exists: both)"},
	{"full", OPT_FULL, NULL, "accepted for symmetry: a diff always traces in full"},
	O_DEPTH,
	O_TEMPLATES_WK,
	{"out", 'o', "FILE",
	 "the Markdown report (default: out/diff-OLD-NEW.md;\n"
	 "'-' writes it to stdout); its folder follows the\n"
	 "rules of optrace -o (no link, not /, the home folder\n"
	 "or the checkout), unless --force"},
	{"force", OPT_FORCE, NULL, "write where those rules refuse to"},
	O_MAX_FILE,
	O_MAX_READ,
	{"json", OPT_JSON, "FILE", "also write the whole classification as JSON"},
	{"max-bytes", OPT_MAX_BYTES, "N",
	 "size limit of the Markdown report (default 60000,\n"
	 "at least 2048); rows that do not fit are counted"},
	{"fail-on", OPT_FAIL_ON, "WHAT",
	 "'breaking' or 'any': a non-zero status when such\nchanges exist (below)"},
	{"base-url", OPT_BASE_URL, "URL",
	 "source links: URL/<tag>/<path>#L<line>\n"
	 "(default: https://github.com/pytorch/pytorch/blob; '' = none)"},
	O_JOBS,
	{"quiet", 'q', NULL, "no summary"},
	O_TIMINGS,
	O_HELP,
	END_OPTS,
};

static const char diff_head[] =
	"Usage: optrace diff OLD NEW [OPTIONS] [OPS_LIST]\n"
	"\n"
	"Report what changed for the ops of OPS_LIST (default ./ops.list) between two\n"
	"releases: ops and overloads removed or added, schema, dispatch and backward\n"
	"changes, implementation moved to another file, GPU library changed. OLD and NEW\n"
	"are releases of one checkout (1.13.1, v2.6.0), read from their tags, or\n"
	"trace.json files written earlier by optrace. A release is traced in full; the\n"
	"well-known ops of a trace.json written without --full are not compared (a\n"
	"warning says so). Breaking is what breaks Python or C++ callers, as PyTorch's\n"
	"schema check defines it: a type widened (int -> SymInt) is not. One row per\n"
	"change, with the ops it affects. The report is GitHub-Flavored Markdown sized\n"
	"for a pull-request comment or $GITHUB_STEP_SUMMARY.\n"
	"\n";

static const char diff_tail[] =
	"\n"
	"Exit status: 0 the reports were written (and no change --fail-on names);\n"
	"3 breaking changes found (--fail-on breaking or any); 4 changes found, none\n"
	"breaking (--fail-on any); 2 usage or fatal error (nothing written).\n";

static const struct opt show_opts[] = {
	O_TORCH_VERSION,
	O_SOURCE,
	O_SOURCE_URL,
	O_UNVERIFIED,
	O_PYTHON,
	O_MAX_FILE,
	O_MAX_READ,
	O_FULL,
	O_DEPTH,
	O_TEMPLATES_WK,
	{"json", OPT_JSON, NULL, "print the op's trace.json object instead"},
	O_JOBS,
	{"quiet", 'q', NULL, "no messages but what was not found"},
	O_TIMINGS,
	O_HELP,
	END_OPTS,
};

static const char show_head[] =
	"Usage: optrace show [OPTIONS] OP\n"
	"\n"
	"Print one op's trace in the terminal, as 'git show' prints a commit: the CPU\n"
	"and the CUDA main path layer by layer (function and file:line, the run-time\n"
	"selections with their conditions), the other paths grouped by their condition,\n"
	"then the backward chain. Colour only on a terminal, never with NO_COLOR set.\n"
	"Nothing is written.\n"
	"\n";

static const char show_tail[] =
	"\n"
	"Exit status: 0 traced; 1 the op or one of its layers was not found; 2 usage or\n"
	"fatal error.\n";

static const struct opt which_opts[] = {
	O_TORCH_VERSION,
	O_SOURCE,
	O_SOURCE_URL,
	O_UNVERIFIED,
	O_PYTHON,
	O_MAX_FILE,
	O_MAX_READ,
	{"all", OPT_ALL, NULL, "every entry of native_functions.yaml (with OPS_LIST: both)"},
	O_FULL,
	O_DEPTH,
	O_TEMPLATES_WK,
	{"diff", OPT_DIFF, "FILE", "a unified diff ('-': stdin) instead of WHAT"},
	{"json", OPT_JSON, NULL, "the answer as JSON"},
	O_JOBS,
	{"quiet", 'q', NULL, "no messages but errors"},
	O_TIMINGS,
	O_HELP,
	END_OPTS,
};

static const char which_head[] =
	"Usage: optrace which WHAT [OPTIONS] [OPS_LIST]\n"
	"       optrace which --diff FILE [OPTIONS] [OPS_LIST]\n"
	"\n"
	"Which ops reach WHAT, on which layer and path, at the traced release. WHAT is\n"
	"a function name (softmax_cuda_out, at::native::host_softmax, a Python name\n"
	"such as torch.nn.functional.softmax), a kernel name as a profiler prints it\n"
	"(void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, ...>(...),\n"
	"ampere_sgemm_128x64_tn: a GPU library's kernel maps to the calls of that\n"
	"library), a file (aten/src/ATen/native/cuda/SoftMax.cu, or a unique end of a\n"
	"path: SoftMax.cu), FILE:LINE, or aten::NAME[.OVERLOAD]. With --diff, the ops\n"
	"whose traces reach the lines a unified diff (git diff) changes on its old\n"
	"side, which must be the traced release.\n"
	"\n"
	"The ops are those optrace would trace: OPS_LIST (default ./ops.list) and, with\n"
	"--all, every entry of native_functions.yaml. Nothing is written but the answer.\n"
	"\n";

static const char which_tail[] =
	"\n"
	"Exit status: 0 some op reaches WHAT (with --diff: the diff was read); 1 no traced\n"
	"op reaches it (the answer says what was found); 2 usage or fatal error.\n";

/* --help: the head, the rows (descriptions from column 27), the tail. */
static void print_help(const char *head, const struct opt *opts, const char *tail)
{
	fputs(head, stdout);
	for (const struct opt *o = opts; o->key >= 0; o++) {
		char left[64];
		const char *line = o->help;
		if (!o->name) {
			printf("\n%s\n", o->help);
			continue;
		}
		if (o->key < 256)
			snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->key, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "      --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		for (bool first = true; *line; first = false) {
			size_t n = strcspn(line, "\n");
			printf("%-25s  %.*s\n", first ? left : "", (int)n, line);
			line += n + (line[n] == '\n');
		}
	}
	fputs(tail, stdout);
}

#define MAX_OPTS 48

/* getopt_long's tables from a command's rows. */
static void getopt_tables(const struct opt *opts, struct option *longs, char *shorts)
{
	size_t n = 0, k = 0;
	shorts[k++] = ':';
	for (const struct opt *o = opts; o->key >= 0; o++) {
		if (!o->name)
			continue;
		longs[n++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
					     o->key};
		if (o->key < 256) {
			shorts[k++] = (char)o->key;
			if (o->arg)
				shorts[k++] = ':';
		}
	}
	longs[n] = (struct option){NULL, 0, NULL, 0};
	shorts[k] = '\0';
}

/* The command a usage error points to for help, and its options. */
static const char *command = "optrace";
static const struct opt *command_opts = main_opts;

static int usage_error(const char *fmt, const char *arg)
{
	fputs("optrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", command);
	return OT_EXIT_FATAL;
}

/* An unknown option, with the nearest long options of the command ("did you mean"). */
static int unknown_option(const char *arg)
{
	const char *names[MAX_OPTS], *near[1];
	char word[64];
	size_t n = 0, k;
	ot_buf msg = OT_BUF_INIT;
	int rc;

	for (const struct opt *o = command_opts; o->key >= 0 && n < MAX_OPTS; o++)
		if (o->name)
			names[n++] = o->name;
	ot_buf_printf(&msg, "unknown option '%s'", arg);
	if (ot_starts_with(arg, "--")) {
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
		/* the nearest name, when it is near enough to be a slip of the keyboard */
		k = ot_resolve_suggest(near, 1, word, names, n);
		if (k && near[0][0] == word[0])
			ot_buf_printf(&msg, " (did you mean '--%s'?)", near[0]);
	}
	rc = usage_error("%s", msg.ptr);
	ot_buf_free(&msg);
	return rc;
}

static bool parse_int(const char *s, int min, int max, int *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = (int)v;
	return true;
}

/* A byte count: digits, then optionally K, M or G (powers of 1024). */
static bool parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;
	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (errno || *end || !v || v > (SIZE_MAX >> shift))
		return false;
	*out = (size_t)(v << shift);
	return true;
}

static bool parse_formats(const char *s, unsigned *out)
{
	char buf[128];
	char *tok, *save = NULL;
	*out = 0;
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return false; /* an empty format name */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "md"))
			*out |= OT_FORMAT_MD;
		else if (!strcmp(tok, "json"))
			*out |= OT_FORMAT_JSON;
		else if (!strcmp(tok, "html"))
			*out |= OT_FORMAT_HTML;
		else
			return false;
	}
	return *out != 0;
}

static void print_version(void)
{
	printf("optrace %s\n", OPTRACE_VERSION);
	printf("%s, libyaml %s, %s, %s, %s\n", ot_source_library_version(),
	       ot_yaml_library_version(), ot_markdown_library_version(),
	       ot_graph_library_version(), ot_scan_library_version());
}

/*
 * The options every command takes (and the errors of getopt_long) into
 * `o`; -o and --full are read by each command. Returns -1 to go on
 * parsing, else the exit status (after --help, or a usage error).
 */
static int shared_option(int c, ot_run_opts *o, const char *head, const char *tail,
			 char **argv)
{
	switch (c) {
	case 's': o->source = optarg; return -1;
	case 'j':
		if (!parse_int(optarg, 1, 64, &o->jobs))
			return usage_error("--jobs needs a number from 1 to 64, not '%s'", optarg);
		return -1;
	case 'q': o->quiet = true; return -1;
	case 'v': o->verbose++; return -1;
	case 'h':
		print_help(head, command_opts, tail);
		return OT_EXIT_OK;
	case 't': o->torch_version = optarg; return -1;
	case OPT_PYTHON: o->python = optarg; return -1;
	case OPT_UNVERIFIED: o->unverified_source = true; return -1;
	case OPT_ALL: o->all = true; return -1;
	case OPT_SOURCE_URL: o->source_url = optarg; return -1;
	case OPT_TEMPLATES: o->templates = optarg; return -1;
	case OPT_BASE_URL: o->base_url = optarg; return -1;
	case OPT_DEPTH:
		if (!parse_int(optarg, 0, 8, &o->max_depth))
			return usage_error("--depth needs a number from 0 to 8, not '%s'", optarg);
		return -1;
	case OPT_MAX_FILE:
	case OPT_MAX_READ:
		if (!parse_size(optarg, c == OPT_MAX_FILE ? &o->max_file_bytes : &o->max_read_bytes))
			return usage_error("a byte limit is a positive number, optionally with K, M or "
					   "G, not '%s'",
					   optarg);
		return -1;
	case OPT_FORCE: o->force = true; return -1;
	case ':':
		return usage_error("option '%s' needs an argument", argv[optind - 1]);
	default:
		return unknown_option(argv[optind - 1]);
	}
}

/* Start parsing the options of a command (argv[0] is its name). */
static void begin_command(const char *name, const struct opt *opts, struct option *longs,
			  char *shorts)
{
	command = name;
	command_opts = opts;
	getopt_tables(opts, longs, shorts);
	opterr = 0;
	optind = 1;
}

/* optrace diff OLD NEW [OPS_LIST]: options may come before, between or after */
static int diff_main(int argc, char **argv)
{
	ot_diff_opts o = {.run.max_depth = -1};
	struct option longs[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2];
	const char *pos[4];
	int npos = 0, c, n;

	begin_command("optrace diff", diff_opts, longs, shorts);
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'o': o.out_md = optarg; break;
		case OPT_FULL: break; /* a diff always traces in full */
		case OPT_JSON: o.out_json = optarg; break;
		case OPT_MAX_BYTES:
			if (!parse_int(optarg, OT_DIFF_MIN_BYTES, 1 << 30, &n))
				return usage_error("--max-bytes needs a number from 2048 to 1073741824, not '%s'",
						   optarg);
			o.max_bytes = (size_t)n;
			break;
		case OPT_FAIL_ON:
			if (!strcmp(optarg, "breaking"))
				o.fail_on = OT_DIFF_FAIL_BREAKING;
			else if (!strcmp(optarg, "any"))
				o.fail_on = OT_DIFF_FAIL_ANY;
			else
				return usage_error("--fail-on takes 'breaking' or 'any', not '%s'", optarg);
			break;
		default:
			if ((n = shared_option(c, &o.run, diff_head, diff_tail, argv)) >= 0)
				return n;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (npos == 3)
			return usage_error("too many arguments, starting at '%s'", argv[i]);
		pos[npos++] = argv[i];
	}
	if (npos < 2)
		return usage_error("%s", "diff needs two releases (or trace.json files): OLD NEW");
	o.old_arg = pos[0];
	o.new_arg = pos[1];
	if (npos == 3) {
		o.run.ops_list = pos[2];
		o.run.ops_list_given = true;
	}
	if (o.out_json && o.out_md && !strcmp(o.out_json, o.out_md))
		return usage_error("--json and --out name the same file '%s'", o.out_json);
	return ot_diff_run(&o);
}

/* optrace show OP */
static int show_main(int argc, char **argv)
{
	ot_run_opts o = {.max_depth = -1};
	struct option longs[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2];
	bool json = false;
	int c, rc;

	begin_command("optrace show", show_opts, longs, shorts);
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case OPT_FULL: o.full = true; break;
		case OPT_JSON: json = true; break;
		default:
			if ((rc = shared_option(c, &o, show_head, show_tail, argv)) >= 0)
				return rc;
		}
	}
	if (optind == argc)
		return usage_error("%s", "show needs the op to show (optrace show nn.LSTM)");
	if (argc - optind > 1)
		return usage_error("show shows one op; '%s' is one too many", argv[optind + 1]);
	return ot_run_show(&o, argv[optind], json, isatty(1) && !getenv("NO_COLOR"));
}

/* An argument that is an ops list rather than an op: '-', an existing file,
 * a path, a name ending in .list. */
static bool is_ops_list(const char *arg)
{
	struct stat st;
	return !strcmp(arg, "-") || strchr(arg, '/') || ot_ends_with(arg, ".list") ||
	       stat(arg, &st) == 0;
}

/* optrace which WHAT [OPS_LIST] | optrace which --diff FILE [OPS_LIST] */
static int which_main(int argc, char **argv)
{
	ot_which_opts o = {.run.max_depth = -1};
	struct option longs[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2];
	const char *pos[3];
	int npos = 0, c, n, need;

	begin_command("optrace which", which_opts, longs, shorts);
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case OPT_FULL: o.run.full = true; break;
		case OPT_JSON: o.json = true; break;
		case OPT_DIFF: o.diff = optarg; break;
		default:
			if ((n = shared_option(c, &o.run, which_head, which_tail, argv)) >= 0)
				return n;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (npos == 2)
			return usage_error("too many arguments, starting at '%s'", argv[i]);
		pos[npos++] = argv[i];
	}
	need = o.diff ? 0 : 1;
	if (npos < need)
		return usage_error("%s", "which needs something to look for (or --diff FILE)");
	if (npos > need + 1)
		return usage_error("too many arguments, starting at '%s'", pos[need + 1]);
	if (!o.diff)
		o.what = pos[0];
	if (npos > need) {
		o.run.ops_list = pos[need];
		o.run.ops_list_given = true;
	}
	return ot_which_run(&o);
}

int main(int argc, char **argv)
{
	ot_run_opts o = {.max_depth = -1};
	struct option longs[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2];
	const char **ops = ot_calloc((size_t)argc + 1, sizeof(*ops));
	size_t nops = 0;
	int c, rc = OT_EXIT_FATAL;

	if (argc > 1 && !strcmp(argv[1], "diff"))
		rc = diff_main(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "show"))
		rc = show_main(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "which"))
		rc = which_main(argc - 1, argv + 1);
	if (argc > 1 && (!strcmp(argv[1], "diff") || !strcmp(argv[1], "show") || !strcmp(argv[1], "which")))
		goto done;
	begin_command("optrace", main_opts, longs, shorts);
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "-")) {
				rc = usage_error("%s", "-o names the output folder, and stdout cannot hold "
						       "one: give a folder (-o DIR), or print one op with "
						       "'optrace show OP'");
				goto done;
			}
			o.out_dir = optarg;
			break;
		case OPT_OP: ops[nops++] = optarg; break;
		case OPT_FULL: o.full = true; break;
		case OPT_FORMAT:
			if (!parse_formats(optarg, &o.formats)) {
				rc = usage_error("--format takes md, json and html separated by commas, "
						 "not '%s'", optarg);
				goto done;
			}
			break;
		case OPT_CHECK: o.check = true; break;
		case OPT_VERSION:
			print_version();
			rc = OT_EXIT_OK;
			goto done;
		case OPT_DUMP_REGISTRY: o.dump_registry = true; break;
		case OPT_PRINT_VERSION: o.print_version = true; break;
		default:
			if ((rc = shared_option(c, &o, main_head, main_tail, argv)) >= 0)
				goto done;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (!is_ops_list(argv[i])) {
			ops[nops++] = argv[i];
		} else if (o.ops_list) {
			rc = usage_error("too many arguments, starting at '%s' (one ops list at most; "
					 "ops can be named as arguments)", argv[i]);
			goto done;
		} else {
			o.ops_list = argv[i];
			o.ops_list_given = true;
		}
	}
	o.ops = ops;
	o.nops = nops;
	rc = ot_run(&o);
done:
	free(ops);
	return rc;
}
