/*
 * testdb.h - each op's tests and benchmarks at the traced release.
 *
 * Built once per run from the test machinery the index keeps as text
 * (testrec.h says which files): PyTorch's OpInfo database
 * (common_methods_invocations.py and opinfo/definitions/), its Python
 * reference entries (python_ref_db), the ModuleInfo database
 * (common_modules.py), the test files that run tests over those databases,
 * and the operator benchmarks. Then, per op:
 *
 *  - entries: for an op named in Python, the OpInfo entries whose name or
 *    an alias is its Python name (torch.add -> "add", F.conv2d ->
 *    "nn.functional.conv2d", torch.linalg.svd -> "linalg.svd", Tensor.add_
 *    -> "add": an in-place method is tested as its entry's in-place
 *    variant); for an aten op, those whose aten_name (written, else the
 *    entry's name, as OpInfo.__post_init__ sets it) is its base name (an
 *    in-place one's without the '_'), and those whose aten_backward_name
 *    is (their gradient tests run it; not their references); a
 *    ForeachFuncInfo's
 *    name is "_foreach_" + the name written (its __post_init__); the
 *    ModuleInfo entry of an nn module; and the reference entries
 *    (classes named ...PythonRefInfo) whose torch_opinfo_name and
 *    torch_opinfo_variant_name name one of those entries, with the
 *    torch._refs definition they test;
 *  - decompositions: the register_decomposition sites of the op's overloads
 *    (test_decomp.py checks them against the entries);
 *  - tests: every test parametrised with a list that holds one of the
 *    entries. The lists are evaluated from the source: literal lists of
 *    entries, `+`, `+=`, `[*a, *b]`, comprehensions and filter(lambda ...)
 *    whose condition is isinstance(op, ...) (with the class hierarchy),
 *    op.name == / in / startswith, their negations and `and`; any other
 *    condition (op.supports_out, a helper function) is not evaluated: such a
 *    test is "filtered" (it runs over a filtered list that holds the entry,
 *    and may skip it). Plus the xfail/skip/decorate/tol1/tol2 calls of
 *    test files that name an entry;
 *  - benchmarks: the benchmark classes that call the op's Python API in
 *    forward (torch.add, torch.nn.functional.relu, a Tensor method), build
 *    its module in init (nn.Conv2d), or list it in op_bench.op_list. An aten
 *    op's Python names are torch.<name> and Tensor.<name> when its
 *    native_functions.yaml entry has those variants and no python_module.
 *
 * Everything is read-only after ot_testdb_build: lookups may run in many
 * threads at once.
 */
#ifndef OT_TESTDB_H
#define OT_TESTDB_H

#include "common.h"
#include "index.h"
#include "registry.h"
#include "trace.h"

typedef struct ot_testdb ot_testdb;

typedef struct {
	size_t files;      /**< database, test and benchmark files scanned */
	size_t entries;    /**< OpInfo, reference and ModuleInfo entries */
	size_t tests;      /**< tests parametrised with a database */
	size_t mentions, benchmarks;
	double seconds;
} ot_testdb_stats;

/**
 * Scan the test machinery kept in `ix` (borrowed; it must outlive the
 * database) on `threads` threads and evaluate its lists. A release without
 * these files gives an empty database. Never fails. Caller frees.
 */
ot_testdb *ot_testdb_build(const ot_index *ix, int threads);

void ot_testdb_free(ot_testdb *db);

const ot_testdb_stats *ot_testdb_get_stats(const ot_testdb *db);

/* ---- one op's facts ------------------------------------------------------------- */

typedef enum {
	OT_TF_OPINFO,    /**< an OpInfo entry (any class of the family) */
	OT_TF_REFERENCE, /**< a python_ref_db entry (..PythonRefInfo) */
	OT_TF_MODULE     /**< a ModuleInfo entry */
} ot_tf_kind;

/** A skip or other decoration an entry declares for one test (DecorateInfo). */
typedef struct {
	const char *decorator; /**< "skip", "expectedFailure", "toleranceOverride", ... */
	const char *cls, *test; /**< NULL: every class / test */
	const char *device;    /**< "cuda", or NULL */
	uint32_t line;
} ot_tf_decor;

typedef struct {
	ot_tf_kind kind;
	const char *cls;       /**< "BinaryUfuncInfo" */
	const char *name;      /**< "add", "_refs.add", "torch.nn.Linear" */
	const char *variant;   /**< variant_test_name, or "" */
	const char *aten_name; /**< as OpInfo sets it; NULL for a ModuleInfo */
	const char *aten_backward_name; /**< the backward op it names
					     (aten_backward_name=), or NULL */
	const char *list;      /**< the list it is written in ("op_db"), or NULL */
	const char *file;
	uint32_t line;
	const ot_tf_decor *decors;
	size_t ndecors;
	/* references: the torch._refs definition tested */
	const char *impl_symbol; /**< "def add", or NULL when not found */
	const char *impl_file;   /**< where it was looked for */
	uint32_t impl_line;
	uint32_t index;          /**< its position among all entries */
} ot_tf_entry;

/** Every entry of the release, in file order (ot_testdb_entry, i < the count). */
size_t ot_testdb_entry_count(const ot_testdb *db);
const ot_tf_entry *ot_testdb_entry(const ot_testdb *db, size_t i);

/** A register_decomposition(aten.x) site. */
typedef struct {
	const char *op;   /**< "addmm.default" as written */
	const char *func; /**< the decorated function, or NULL */
	const char *file;
	uint32_t line;
} ot_tf_decomp;

/** A test parametrised with a database (@ops(LIST), @modules(LIST), a partial of ops). */
typedef struct {
	const char *file;
	uint32_t line;         /**< the decorator's line */
	const char *cls;       /**< "TestCommon", or NULL */
	const char *func;      /**< "test_dtypes", or NULL when no def follows */
	uint32_t func_line;    /**< the line of that def, or 0 */
	const char *decorator; /**< "ops", "modules", "_gradcheck_ops" */
	const char *list;      /**< its list as written: "op_db",
				    "[op for op in op_db if op.supports_out]" */
	bool evaluated;        /**< the list could be evaluated (else no op is said to run it) */
	uint32_t index;        /**< its position among all templates */
} ot_tf_template;

/** Every test template of the release, in file order (ot_testdb_template, i < the count). */
size_t ot_testdb_template_count(const ot_testdb *db);
const ot_tf_template *ot_testdb_template(const ot_testdb *db, size_t i);

/** xfail("add"), skip(...), ... naming one of the op's entries. */
typedef struct {
	const char *file;
	uint32_t line;
	const char *kind, *name, *variant;
	const char *cls, *test; /**< the surrounding skipOps(...), or NULL */
} ot_tf_mention;

typedef struct {
	const char *api;   /**< "torch.add" */
	const char *cls;   /**< "AddBenchmark", or NULL (op_bench.op_list) */
	const char *where; /**< "forward", "init", "op_list" */
	const char *file;
	uint32_t line;
} ot_tf_bench;

/** Everything about one op. Owned by the arena it was made in. */
typedef struct ot_testfacts {
	const ot_tf_entry *const *entries; /**< entries of the database, in its order */
	size_t nentries;
	const ot_tf_decomp *decomps;
	size_t ndecomps;
	const ot_tf_template *const *runs; /**< templates whose list holds one of the
					       entries, in template order */
	size_t nruns;
	const ot_tf_template *const *runs_filtered; /**< ... holds one after a filter
							not evaluated: they may skip it */
	size_t nruns_filtered;
	const ot_tf_mention *mentions; /**< by file, then line */
	size_t nmentions;
	const ot_tf_bench *benches;
	size_t nbenches;
} ot_testfacts;

/**
 * The tests and benchmarks of the op traced as `tr`, allocated in `arena`.
 * `reg` (the registry the trace was made from) gives an aten op's Python
 * names. An op not named (status error) gets empty facts. Thread-safe.
 */
const ot_testfacts *ot_testdb_lookup(const ot_testdb *db, const ot_trace *tr,
				     const ot_registry *reg, ot_arena *arena);

#endif
