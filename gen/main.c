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

#include "diff.h"
#include "graph.h"
#include "index.h"
#include "markdown.h"
#include "run.h"
#include "source.h"
#include "whichout.h"
#include "yamldoc.h"

static const char usage_text[] =
	"Usage: optrace [OPTIONS] [OPS_LIST]\n"
	"       optrace diff OLD NEW [OPTIONS] [OPS_LIST]   (see 'optrace diff --help')\n"
	"       optrace which WHAT [OPTIONS] [OPS_LIST]     (see 'optrace which --help')\n"
	"\n"
	"Trace PyTorch operators through the source of the release you use and write\n"
	"Markdown pages (with Graphviz call-chain diagrams), an index, trace.json and an\n"
	"offline HTML bundle. OPS_LIST defaults to ./ops.list (one op per line).\n"
	"\n"
	"Release and source:\n"
	"  -t, --torch-version VER  release to trace (default: the torch installed for\n"
	"                           python3, else the '# torch-version:' pin of OPS_LIST)\n"
	"  -s, --source DIR         PyTorch git checkout (default:\n"
	"                           ${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source);\n"
	"                           files are read from the tag v<VER>, not the work tree\n"
	"      --source-url URL     clone from URL when DIR does not exist\n"
	"                           (default: " OT_SOURCE_DEFAULT_URL ")\n"
	"      --unverified-source  accept a plain directory whose release cannot be proven\n"
	"      --python PATH        interpreter whose installed torch names the release\n"
	"\n"
	"What to trace:\n"
	"      --all                every entry of native_functions.yaml (with OPS_LIST: both)\n"
	"      --full               no well-known early exit: trace every op through the source\n"
	"      --depth N            composite branches followed (default 3, and 1 for\n"
	"                           the entries --all adds: each has its own page)\n"
	"\n"
	"Output:\n"
	"  -o, --out DIR            output folder (default: out)\n"
	"      --format LIST        comma-separated: md, json, html (default: md,json)\n"
	"      --templates DIR      use the templates of DIR where it has them\n"
	"      --base-url URL       source links: URL/<tag>/<path>#L<line>\n"
	"                           (default: https://github.com/pytorch/pytorch/blob)\n"
	"      --check              trace and report, write nothing\n"
	"      --dump-registry      print the parsed registries as JSON and exit\n"
	"      --print-version      print the release that would be traced and exit\n"
	"\n"
	"Running:\n"
	"  -j, --jobs N             worker threads (default: number of CPUs)\n"
	"  -q, --quiet              no progress, no summary\n"
	"  -v, --verbose            also print the time of each phase\n"
	"  -h, --help               show this help\n"
	"      --version            show versions of optrace and its libraries\n"
	"\n"
	"Exit status: 0 all traced and written; 1 written, but some ops or layers were not\n"
	"found or OPS_LIST had bad lines; 2 usage error or fatal error (nothing written).\n";

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
	OPT_JSON,      /* diff only */
	OPT_MAX_BYTES, /* diff only */
	OPT_FAIL_ON,   /* diff only */
	OPT_DIFF       /* which only */
};

/* The long options optrace and optrace diff both take; shared_option reads
 * them, but for -o and --full, which each command reads its own way. */
#define SHARED_OPTIONS                                                                   \
	{"source", required_argument, NULL, 's'}, {"out", required_argument, NULL, 'o'},   \
	{"jobs", required_argument, NULL, 'j'}, {"quiet", no_argument, NULL, 'q'},          \
	{"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'},              \
	{"full", no_argument, NULL, OPT_FULL}, {"all", no_argument, NULL, OPT_ALL},         \
	{"source-url", required_argument, NULL, OPT_SOURCE_URL},                            \
	{"templates", required_argument, NULL, OPT_TEMPLATES},                              \
	{"base-url", required_argument, NULL, OPT_BASE_URL},                                \
	{"depth", required_argument, NULL, OPT_DEPTH}

static const struct option long_options[] = {
	SHARED_OPTIONS,
	{"torch-version", required_argument, NULL, 't'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"check", no_argument, NULL, OPT_CHECK},
	{"version", no_argument, NULL, OPT_VERSION},
	{"unverified-source", no_argument, NULL, OPT_UNVERIFIED},
	{"python", required_argument, NULL, OPT_PYTHON},
	{"dump-registry", no_argument, NULL, OPT_DUMP_REGISTRY},
	{"print-version", no_argument, NULL, OPT_PRINT_VERSION},
	{NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, const char *arg)
{
	fputs("optrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'optrace --help'.\n", stderr);
	return OT_EXIT_FATAL;
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
 * The options both commands take (and the errors of getopt_long) into `o`;
 * -o and --full are read by each command. Returns -1 to go on parsing, else
 * the exit status (after --help, or a usage error).
 */
static int shared_option(int c, ot_run_opts *o, const char *help, char **argv)
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
		fputs(help, stdout);
		return OT_EXIT_OK;
	case OPT_ALL: o->all = true; return -1;
	case OPT_SOURCE_URL: o->source_url = optarg; return -1;
	case OPT_TEMPLATES: o->templates = optarg; return -1;
	case OPT_BASE_URL: o->base_url = optarg; return -1;
	case OPT_DEPTH:
		if (!parse_int(optarg, 0, 8, &o->max_depth))
			return usage_error("--depth needs a number from 0 to 8, not '%s'", optarg);
		return -1;
	case ':':
		return usage_error("option '%s' needs an argument", argv[optind - 1]);
	default:
		return usage_error("unknown option '%s'", argv[optind - 1]);
	}
}

static const char diff_usage_text[] =
	"Usage: optrace diff OLD NEW [OPTIONS] [OPS_LIST]\n"
	"\n"
	"Report what changed for the ops of OPS_LIST (default ./ops.list) between two\n"
	"releases: ops and overloads removed or added, schema, dispatch and backward\n"
	"changes, implementation moved to another file, GPU library changed. OLD and NEW\n"
	"are releases of one checkout (1.13.1, v2.6.0), read from their tags, or\n"
	"trace.json files written earlier by optrace. Well-known ops are always traced\n"
	"in full. The report is GitHub-Flavored Markdown sized for a pull-request\n"
	"comment or $GITHUB_STEP_SUMMARY.\n"
	"\n"
	"  -s, --source DIR         PyTorch git checkout (default:\n"
	"                           ${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source)\n"
	"      --source-url URL     clone from URL when DIR does not exist\n"
	"      --all                every entry of both releases' native_functions.yaml\n"
	"                           (with OPS_LIST, or when ./ops.list exists: both)\n"
	"      --full               accepted for symmetry: a diff always traces in full\n"
	"      --depth N            composite branches followed (default 3, and 1 for\n"
	"                           the entries --all adds: each has its own page)\n"
	"      --templates DIR      where wellknown.yaml is looked up first\n"
	"  -o, --out FILE           the Markdown report (default: out/diff-OLD-NEW.md;\n"
	"                           '-' writes it to stdout)\n"
	"      --json FILE          also write the whole classification as JSON\n"
	"      --max-bytes N        size limit of the Markdown report (default 60000,\n"
	"                           at least 2048); rows that do not fit are counted\n"
	"      --fail-on WHAT       'breaking' or 'any': a non-zero status when such\n"
	"                           changes exist (below)\n"
	"      --base-url URL       source links: URL/<tag>/<path>#L<line>\n"
	"                           (default: https://github.com/pytorch/pytorch/blob; '' = none)\n"
	"  -j, --jobs N             worker threads (default: number of CPUs)\n"
	"  -q, --quiet              no summary\n"
	"  -v, --verbose            also print timings\n"
	"  -h, --help               show this help\n"
	"\n"
	"Exit status: 0 the reports were written (and no change --fail-on names);\n"
	"3 breaking changes found (--fail-on breaking or any); 4 changes found, none\n"
	"breaking (--fail-on any); 2 usage or fatal error (nothing written).\n";

static const struct option diff_options[] = {
	SHARED_OPTIONS,
	{"json", required_argument, NULL, OPT_JSON},
	{"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
	{"fail-on", required_argument, NULL, OPT_FAIL_ON},
	{NULL, 0, NULL, 0},
};

/* optrace diff OLD NEW [OPS_LIST]: options may come before, between or after */
static int diff_main(int argc, char **argv)
{
	ot_diff_opts o = {.run.max_depth = -1};
	const char *pos[4];
	int npos = 0, c, n;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:o:j:qvh", diff_options, NULL)) != -1) {
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
			if ((n = shared_option(c, &o.run, diff_usage_text, argv)) >= 0)
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

static const char which_usage_text[] =
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
	"\n"
	"  -t, --torch-version VER  release to trace (default: the installed torch, else\n"
	"                           the '# torch-version:' pin of OPS_LIST)\n"
	"  -s, --source DIR         PyTorch git checkout (default:\n"
	"                           ${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source)\n"
	"      --source-url URL     clone from URL when DIR does not exist\n"
	"      --unverified-source  accept a plain directory whose release cannot be proven\n"
	"      --python PATH        interpreter whose installed torch names the release\n"
	"      --all                every entry of native_functions.yaml (with OPS_LIST: both)\n"
	"      --full               no well-known early exit\n"
	"      --depth N            composite branches followed (default 3, and 1 for\n"
	"                           the entries --all adds)\n"
	"      --templates DIR      where wellknown.yaml is looked up first\n"
	"      --diff FILE          a unified diff ('-': stdin) instead of WHAT\n"
	"      --json               the answer as JSON\n"
	"  -j, --jobs N             worker threads (default: number of CPUs)\n"
	"  -q, --quiet              no messages but errors\n"
	"  -v, --verbose            also print timings\n"
	"  -h, --help               show this help\n"
	"\n"
	"Exit status: 0 some op reaches WHAT (with --diff: the diff was read); 1 no traced\n"
	"op reaches it (the answer says what was found); 2 usage or fatal error.\n";

static const struct option which_options[] = {
	SHARED_OPTIONS,
	{"torch-version", required_argument, NULL, 't'},
	{"unverified-source", no_argument, NULL, OPT_UNVERIFIED},
	{"python", required_argument, NULL, OPT_PYTHON},
	{"json", no_argument, NULL, OPT_JSON},
	{"diff", required_argument, NULL, OPT_DIFF},
	{NULL, 0, NULL, 0},
};

/* optrace which WHAT [OPS_LIST] | optrace which --diff FILE [OPS_LIST] */
static int which_main(int argc, char **argv)
{
	ot_which_opts o = {.run.max_depth = -1};
	const char *pos[3];
	int npos = 0, c, n, need;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:t:o:j:qvh", which_options, NULL)) != -1) {
		switch (c) {
		case 't': o.run.torch_version = optarg; break;
		case 'o': return usage_error("%s", "which writes its answer to stdout: no -o");
		case OPT_FULL: o.run.full = true; break;
		case OPT_UNVERIFIED: o.run.unverified_source = true; break;
		case OPT_PYTHON: o.run.python = optarg; break;
		case OPT_JSON: o.json = true; break;
		case OPT_DIFF: o.diff = optarg; break;
		default:
			if ((n = shared_option(c, &o.run, which_usage_text, argv)) >= 0)
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
	int c, rc;

	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "which"))
		return which_main(argc - 1, argv + 1);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:t:o:j:qvh", long_options, NULL)) != -1) {
		switch (c) {
		case 't': o.torch_version = optarg; break;
		case 'o': o.out_dir = optarg; break;
		case OPT_FULL: o.full = true; break;
		case OPT_FORMAT:
			if (!parse_formats(optarg, &o.formats))
				return usage_error("--format takes md, json and html separated by commas, "
						   "not '%s'", optarg);
			break;
		case OPT_CHECK: o.check = true; break;
		case OPT_VERSION:
			print_version();
			return OT_EXIT_OK;
		case OPT_UNVERIFIED: o.unverified_source = true; break;
		case OPT_PYTHON: o.python = optarg; break;
		case OPT_DUMP_REGISTRY: o.dump_registry = true; break;
		case OPT_PRINT_VERSION: o.print_version = true; break;
		default:
			if ((rc = shared_option(c, &o, usage_text, argv)) >= 0)
				return rc;
		}
	}
	if (argc - optind > 1)
		return usage_error("too many arguments, starting at '%s'", argv[optind + 1]);
	if (optind < argc) {
		o.ops_list = argv[optind];
		o.ops_list_given = true;
	}
	return ot_run(&o);
}
