/*
 * testrec.h - what one Python file of PyTorch's test machinery holds, as
 * records: testscan.c makes them from one file's tokens, testdb.c files
 * the records of every file and answers per op.
 *
 * Three kinds of files are scanned:
 *  - the databases (torch/testing/_internal/common_methods_invocations.py,
 *    opinfo/core.py, opinfo/refs.py, opinfo/definitions/<name>.py,
 *    common_modules.py): class statements (the OpInfo class family), the
 *    module-level assignments that build the lists (op_db, python_ref_db,
 *    unary_ufuncs = [op for op in op_db if isinstance(op, ...)], ...) and
 *    every call of a class named ...Info (a candidate entry) with its
 *    name, variant_test_name, aten_name, aten_backward_name, aliases,
 *    torch_opinfo_name and
 *    the DecorateInfo skips in its arguments;
 *  - test files: the tests parametrised with a database (@ops(EXPR) and
 *    @modules(EXPR) above a def, or a partial of ops such as
 *    `_gradcheck_ops = partial(ops, ...)`), and the ops named by
 *    xfail("name"), skip("name"), decorate("name"), tol1/tol2("name");
 *  - operator benchmarks (benchmarks/operator_benchmark/pt/<name>.py): the
 *    torch API each benchmark class calls in `forward` or builds in `init`,
 *    and the ops listed in op_bench.op_list(...).
 *
 * Every record carries the 1-based line where its name is written. Strings
 * live in the arena given to the scanner; token ranges index the file's
 * tokens (pytok.h), kept for the database's evaluation of list expressions.
 */
#ifndef OT_TESTREC_H
#define OT_TESTREC_H

#include <stdbool.h>
#include <stdint.h>

#include "pytok.h"

typedef enum {
	OT_TFILE_DB,    /**< a database module under torch/testing/_internal/ */
	OT_TFILE_TEST,  /**< a test file under test/ */
	OT_TFILE_BENCH  /**< an operator benchmark */
} ot_tfile_kind;

/**
 * The kind of test-machinery file `path` is (an ot_tfile_kind), or -1 for
 * any other file. What is read, and why:
 *  - OT_TFILE_DB: torch/testing/_internal/common_methods_invocations.py,
 *    common_modules.py and every .py of torch/testing/_internal/opinfo/
 *    (core.py and refs.py define the OpInfo classes, definitions/ holds
 *    entries);
 *  - OT_TFILE_TEST: the test files that run tests over those databases:
 *    a fixed list (ot_testscan_test_files) of the files under test/ and
 *    functorch/test/ that parametrise tests with @ops, @modules or a
 *    partial of ops at 1.13.1 or 2.6.0 (test_ops*.py, test_modules.py,
 *    test_decomp.py, test_meta.py, functorch's test_ops.py, inductor's
 *    test_torchinductor_opinfo.py, ...). Reading every test file to find
 *    them would add a fifth to a whole run's work; a suite a later release
 *    adds is not read until it is listed;
 *  - OT_TFILE_BENCH: benchmarks/operator_benchmark/pt/<name>.py.
 */
int ot_testscan_kind(const char *path);

/** The fixed list of test files (sorted); returns its length. */
size_t ot_testscan_test_files(const char *const **out);

/** The folders ot_testscan_kind looks in (besides torch/), for a file listing. */
#define OT_TESTSCAN_PREFIXES "test/", "functorch/test/", "benchmarks/operator_benchmark/pt/"

/** `class Name(Base, ...):` at any level. */
typedef struct {
	const char *name;
	const char *base; /**< the first base, last dotted part ("OpInfo"), or NULL */
	uint32_t line;
	uint16_t col;
} ot_tr_class;

/** A module-level `NAME = EXPR`, `NAME: T = EXPR` or `NAME += EXPR`. */
typedef struct {
	const char *name;
	bool augmented;         /**< += */
	uint32_t expr, expr_end; /**< the expression's tokens */
	uint32_t line;
} ot_tr_assign;

/** DecorateInfo(decorator, 'TestClass', 'test_name', ...) in an entry's arguments. */
typedef struct {
	const char *decorator; /**< "skip", "expectedFailure", "skipIf", "toleranceOverride", ... */
	const char *cls;       /**< the test class named, or NULL (every class) */
	const char *test;      /**< the test named, or NULL (every test) */
	const char *device;    /**< device_type='cuda', or NULL */
	uint32_t line;
} ot_tr_decor;

/** A call of a class whose name ends in "Info" (not DecorateInfo or AliasInfo). */
typedef struct {
	const char *cls;        /**< the callee's last dotted part: "UnaryUfuncInfo" */
	const char *name;       /**< its first string argument or name="...";
				     ModuleInfo: the dotted first argument ("torch.nn.Linear");
				     NULL when not written as a literal */
	const char *variant;    /**< variant_test_name="...", or "" */
	const char *aten_name;  /**< aten_name="...", or NULL (not given) */
	const char *aten_backward_name; /**< aten_backward_name="..." (the op its
					     backward graph holds), or NULL */
	const char *opinfo_name;    /**< torch_opinfo_name="..." (references), or NULL */
	const char *opinfo_variant; /**< torch_opinfo_variant_name="...", or "" */
	const char *const *aliases; /**< aliases=("a", "b") */
	uint16_t naliases;
	const ot_tr_decor *decors;
	uint32_t ndecors;
	uint32_t tok, tok_end;  /**< the callee's token and the closing parenthesis */
	uint32_t line;
} ot_tr_call;

/** A test parametrised with a database: @ops(EXPR, ...) above `def test_x`. */
typedef struct {
	const char *decorator;  /**< "ops", "modules", or the partial's name */
	bool modules;           /**< @modules: EXPR is a list of ModuleInfo entries */
	uint32_t expr, expr_end; /**< the first argument's tokens */
	const char *expr_text;  /**< that argument as written, blanks collapsed */
	const char *cls;        /**< the enclosing class, or NULL */
	const char *func;       /**< the decorated def, or NULL when none follows */
	uint32_t line;          /**< the decorator's line */
	uint32_t func_line;
} ot_tr_test;

/** xfail("name", "variant"), skip(...), decorate(...), tol1/tol2(...) in a test file. */
typedef struct {
	const char *kind;    /**< "xfail", "skip", "decorate", "tol1", "tol2" */
	const char *name;
	const char *variant; /**< the second string argument, or "" */
	const char *cls, *test; /**< the skipOps('TestClass', 'test_name', ...) around it, or NULL */
	uint32_t line;
} ot_tr_mention;

/** A torch API a benchmark runs. */
typedef struct {
	const char *api;   /**< "torch.add", "torch.nn.functional.relu", "torch.nn.Conv2d",
			        "Tensor.view" (a method called on a tensor) */
	const char *cls;   /**< the benchmark class, or NULL (op_bench.op_list) */
	const char *where; /**< "forward", "init" (a module built) or "op_list" */
	uint32_t line;
} ot_tr_bench;

/** Everything found in one file. */
typedef struct {
	const char *path;
	uint32_t file;          /**< the index's file id */
	ot_tfile_kind kind;
	ot_toks toks;
	OT_VEC(ot_tr_class) classes;
	OT_VEC(ot_tr_assign) assigns;
	OT_VEC(ot_tr_call) calls;
	OT_VEC(ot_tr_test) tests;
	OT_VEC(ot_tr_mention) mentions;
	OT_VEC(ot_tr_bench) benches;
} ot_tr_file;

/**
 * Scan one file of kind `kind` (`len` bytes of `text`, NUL-terminated, which
 * must outlive the records). Strings and tokens go to `arena`; the vectors are the
 * caller's to free (ot_testscan_free). Never fails.
 */
void ot_testscan_file(ot_tr_file *out, ot_arena *arena, const char *path, uint32_t file,
		      ot_tfile_kind kind, const char *text, size_t len);

/** Free the vectors of `f` (not the arena data). */
void ot_testscan_free(ot_tr_file *f);

#endif
