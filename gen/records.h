/*
 * records.h - what the scanners find in one file, and what the index keeps:
 * the record types of C++/CUDA definitions, calls, DispatchStub sites,
 * macros, Python definitions, decompositions and docstring anchors.
 *
 * The scanners (cscan.c, pyscan.c) produce these records; the index
 * (index.c) stores and files them. Neither's API header owns them, so the
 * two modules do not import each other.
 *
 * Every record carries (file, line) where `line` is 1-based and the text of
 * that line contains the record's name: that is what makes a trace step
 * checkable. One exception: a definition a macro invocation generated
 * (FOREACH_UNARY_OP(erfc) defines foreach_tensor_erfc_slow_ through
 * foreach_tensor_##OP##_slow_) is filed under its name at the invocation's
 * line, which holds the invocation (ot_ix_cdef.gen), not the name.
 */
#ifndef OT_RECORDS_H
#define OT_RECORDS_H

#include <stdint.h>

#include "common.h"
#include "lex.h"

/* ---- files ---------------------------------------------------------------- */

/**
 * One arm of a preprocessor conditional whose condition the lexer could not
 * decide (#if X / #ifdef X / #ifndef X, then #elif Y / #else): the code
 * between the arm's directive and the next one of its chain is compiled
 * when the arm is taken. Arms are numbered per file from 1; 0 means "not
 * inside any". An arm is taken when its parent is, no earlier arm of its
 * chain is, and its own expression holds.
 */
typedef struct {
	const char *expr; /**< the arm's own condition as written, blanks collapsed
			       ("AT_CUDNN_ENABLED()", "defined(USE_ROCM)"; #ifndef X
			       gives "!defined(X)"); NULL for #else */
	uint32_t parent;  /**< the arm enclosing the whole chain, or 0 */
	uint32_t prev;    /**< the previous arm of the same chain, or 0 for the #if */
	uint32_t line;    /**< line of the directive */
} ot_ix_pparm;

typedef struct {
	const char *path;   /**< repository-relative */
	const char *text;   /**< the whole file, NUL-terminated */
	const char *code;   /**< its code view (lex.h), same length, NUL-terminated */
	size_t len;
	const uint32_t *line_off; /**< byte offset of each line's start */
	uint32_t nlines;
	ot_lang lang;
	const ot_ix_pparm *pparms; /**< C: the preprocessor arms, id i at [i - 1] */
	uint32_t npparms;
	bool no_operators;  /**< C: #defines TORCH_ASSERT_NO_OPERATORS before its
				 includes, so it can call no ATen op */
} ot_ix_file;

/* ---- C++ / CUDA --------------------------------------------------------------- */

typedef enum {
	OT_CALL_PLAIN,  /**< f(...), ns::f(...), f<T>(...) */
	OT_CALL_MEMBER, /**< x.f(...), x->f(...) */
	OT_CALL_LAUNCH, /**< f<<<grid, block>>>(...) */
	OT_CALL_REF,    /**< a stub named but not called: impl(..., cumsum_stub) */
	OT_CALL_MACRO_LAUNCH, /**< SMALL_INDEX(...), a macro of the file whose
			          expansion launches `name`; `qual` is the macro */
	OT_CALL_RETURN, /**< not a call: a `return expr;` of the body itself (not
			     of a lambda or a loop in it); `qual` is expr, blanks
			     collapsed ("" for a bare return) */
	OT_CALL_FUNCTOR, /**< Foo{}(...), Foo<T>{}(...): a temporary's operator() */
	OT_CALL_OPERATOR /**< a binary arithmetic operator or a comparison (a * b,
			      a -= b, a <= b), at `off`: `name` is the aten op it
			      calls when an operand is a Tensor ("mul", "sub_",
			      "le"); callkind.h decides */
} ot_ix_call_kind;

/** ot_ix_call.off of a call whose text is not in its definition's file (a
 * macro defined elsewhere generated it): its arguments are not known. */
#define OT_IX_CALL_NO_TEXT UINT32_MAX

/** A call inside a function body. */
typedef struct ot_ix_call {
	const char *name; /**< the called identifier, "gemm" */
	const char *qual; /**< what precedes "::" ("at::cuda::blas"), "::" for the
			       global namespace's (::isinf(x)), or ""; the
			       macro's name for OT_CALL_MACRO_LAUNCH */
	uint32_t line;
	uint32_t off;     /**< byte offset of the name in the file: the receiver
			       and the arguments are read from the code view there;
			       OT_IX_CALL_NO_TEXT when not known */
	uint32_t pp;      /**< the preprocessor arm it sits in (ot_ix_pparm), or 0 */
	uint16_t guard;   /**< the innermost guard of the body it runs under
			       (1-based in the function's table), or 0 */
	uint8_t kind;     /**< ot_ix_call_kind */
} ot_ix_call;

typedef enum {
	OT_GUARD_IF,       /**< if (text) */
	OT_GUARD_ELSE_IF,  /**< else if (text): `prev` is the arm before */
	OT_GUARD_ELSE,     /**< else: `prev` is the arm before */
	OT_GUARD_AFTER,    /**< the rest of a block after an if chain one of whose
			        arms returns or throws: none of those arms was
			        taken; `prev` is the chain's last arm */
	OT_GUARD_CASE,     /**< case label of switch (...): text "expr == label"
			        ("default" for default:) */
	OT_GUARD_THEN,     /**< the second operand of text ? a : b */
	OT_GUARD_OTHERWISE,/**< the third operand; `prev` is the THEN guard */
	OT_GUARD_CHECK,    /**< an argument of TORCH_CHECK(text, ...) and its kin:
			        evaluated only to validate */
	OT_GUARD_EXCEPT    /**< Python: an except block, run only when the try raised */
} ot_ix_guard_kind;

/** A condition a part of a function body runs under (C++ bodies, and
 * Python bodies as pyflow.h reads them). */
typedef struct {
	const char *text; /**< the condition, blanks collapsed, or NULL (else) */
	uint32_t line;
	uint16_t parent;  /**< the enclosing guard (1-based), or 0 */
	uint16_t prev;    /**< see ot_ix_guard_kind, or 0 */
	uint8_t kind;     /**< ot_ix_guard_kind */
	bool exits;       /**< an arm whose body returns (at its own top level) */
	bool raises;      /**< an arm whose body throws or fails a check */
	uint32_t pp;      /**< C++: the preprocessor arm the guard is written in, or 0 */
	const char *subject; /**< CASE: what the switch tests ("backend"); `text` is the
			          label as written ("case ConvBackend::Cudnn", "default") */
	bool may_exit;    /**< an arm with a return nested in an inner arm: what
			       follows its chain runs only when that return was not */
} ot_ix_guard;

/* ---- function-like macros that define functions ------------------------------ */

/** One piece of a token sequence written in a macro body: literal text, or
 * a parameter of the macro (replaced by the invocation's argument). */
typedef struct {
	const char *text; /**< literal text, or NULL for a parameter */
	uint16_t param;   /**< the parameter's index when `text` is NULL; the
			       variadic `__VA_ARGS__` is index `nparams` */
} ot_ix_part;

/** A token sequence of a macro body with parameters left open: the pieces,
 * concatenated, give the expansion ("foreach_tensor_" OP "_slow_" for
 * foreach_tensor_##OP##_slow_; one space between two words, none elsewhere). */
typedef struct {
	const ot_ix_part *parts;
	uint16_t nparts;
} ot_ix_template;

typedef enum {
	OT_MITEM_FUNC,  /**< Ret name(...) { ... }: a function named by pasting */
	OT_MITEM_IMPL,  /**< TORCH_IMPL_FUNC(name)(...) { ... } */
	OT_MITEM_INVOKE /**< OTHER_MACRO(args...) or PARAM(args...) at the body's top
			     level: a macro the expansion invokes in turn */
} ot_ix_mitem_kind;

/** Something a macro body defines or invokes at its top level (outside
 * braces and parentheses). */
typedef struct {
	uint8_t kind;             /**< ot_ix_mitem_kind */
	ot_ix_template name;      /**< the defined name, or the invoked macro */
	const ot_ix_template *args; /**< INVOKE: the arguments it passes */
	uint16_t nargs;
	const char *params;       /**< FUNC/IMPL: the function's parameter list as
				       written, one blank for any ("(TensorList tensors)") */
	const struct ot_ix_call *calls; /**< FUNC/IMPL: the calls its body writes out
					     (not through the macro's parameters),
					     at their place in the #define */
	uint32_t ncalls;
	const struct ot_ix_call *pcalls; /**< FUNC/IMPL: calls whose name the macro's
					      parameters make (OP(...), fn##_out(...));
					      `name` NULL, the name in pnames; and
					      parameters handed on (REF: a stub when
					      the argument is one) */
	const ot_ix_template *pnames;
	uint32_t npcalls;
	uint32_t body, body_end; /**< FUNC/IMPL: offsets of its body's '{' and '}' in
				      the file's text */
	const ot_ix_guard *guards; /**< FUNC/IMPL: the conditions parts of its
					      body run under (the calls' `guard`
					      index them), or NULL */
	uint16_t nguards;
} ot_ix_mitem;

/** A `#define NAME(params) body` whose body defines functions with names
 * built from its parameters, or invokes another macro with them. */
typedef struct ot_ix_macro {
	const char *name;
	uint16_t nparams;
	bool variadic;
	const ot_ix_mitem *items;
	uint32_t nitems;
	uint32_t file, line; /**< the line of `#define` */
	const struct ot_ix_macro *next; /**< next definition of the same name */
} ot_ix_macro;

/** A macro invoked at namespace or class scope, with all its arguments. */
typedef struct {
	const char *macro;       /**< "FOREACH_BINARY_OP_LIST" */
	const char *const *args; /**< arguments as written, blanks collapsed */
	uint16_t nargs;
	const char *text;        /**< the invocation as written ("OP(f, erfc, Erfc)")
				      when it fits on its line, else the macro name:
				      either way a substring of line `line` */
	const char *ns;          /**< enclosing namespaces, as for ot_ix_cdef */
	uint32_t file, line;     /**< the line of the macro name */
	uint32_t pp;             /**< the preprocessor arm it is written in, or 0 */
	bool in_class;
} ot_ix_minvoke;

/** How a macro invocation generated a definition (ot_ix_cdef.gen). */
typedef struct ot_ix_gen {
	const ot_ix_minvoke *site;  /**< the invocation in the source */
	const ot_ix_macro *macro;   /**< the definition of the invoked macro */
	const ot_ix_macro *paster;  /**< the definition whose body builds the name;
				         differs from `macro` when the invoked macro
				         invokes another one */
	const char *inner;          /**< that inner invocation with its arguments
				         substituted ("DEFINE_COMPARATOR(ne)"), or NULL */
	const char *params;         /**< the function's parameter list (ot_ix_mitem) */
} ot_ix_gen;

typedef enum {
	OT_CDEF_FUNC,       /**< Ret name(...) { ... } */
	OT_CDEF_IMPL,       /**< TORCH_IMPL_FUNC(name)(...) { ... } */
	OT_CDEF_META,       /**< TORCH_META_FUNC(op) / TORCH_META_FUNC2(op, overload) */
	OT_CDEF_PRECOMPUTE, /**< TORCH_PRECOMPUTE_META_FUNC(op) / ...FUNC2 */
	OT_CDEF_MACRO       /**< NAME(first, ...) at namespace scope: maybe what a
			         macro defines (a last resort for lookups) */
} ot_ix_cdef_kind;

/** A C++/CUDA function definition (never a declaration or a call), or a
 * namespace-scope macro invocation that may define one (`macro` set). */
typedef struct ot_ix_cdef {
	const char *name;  /**< "linear"; META2: "op.overload" */
	const char *qual;  /**< written qualifier ("at::native", "Foo"), or "" */
	const char *macro; /**< the macro that defines it (CREATE_UNARY_TORCH_IMPL_FUNC,
			        ONE_HIDDEN_RNN), or NULL for a written definition */
	const char *ns;    /**< enclosing namespaces: "at::native",
			        "at::native::(anonymous)", "" at global scope */
	uint32_t file;     /**< index into the file table */
	uint32_t line;     /**< line of the name token */
	uint32_t end_line; /**< line of the body's closing brace */
	uint8_t kind;      /**< ot_ix_cdef_kind */
	bool global;       /**< a CUDA __global__ kernel */
	bool in_class;     /**< defined inside a class/struct body */
	const char *cls;   /**< in_class: that class's name ("" when it has
			        none), else NULL */
	const char *cls_tparams; /**< in_class, of a class template: its template
				      parameters' names ("nonlinearity,cell_params"),
				      else NULL */
	const char *fn_tparams;  /**< a function template's own template
				      parameters' names, else NULL */
	bool cls_special;  /**< in_class, of a specialization of a class
			        template (struct sum_functor<c10::complex<Half>>) */
	const ot_ix_call *calls; /**< calls in the body, in order */
	uint32_t ncalls;
	const ot_ix_guard *guards; /**< the conditions parts of the body run under */
	uint16_t nguards;
	uint32_t pp;       /**< the preprocessor arm of the definition, or 0 */
	uint32_t body, body_end; /**< byte offsets of the body's '{' and '}' (0, 0
				      for a macro-generated definition) */
	uint32_t fails;    /**< line of a statement at the body's own top level,
			        before any return there, that throws on every call
			        (TORCH_CHECK(false, ...), AT_ERROR(...), throw): every
			        call of it raises; 0 when none */
	const ot_ix_gen *gen; /**< set when a macro invocation generated this
			           definition (FUNC or IMPL): `file` and `line` are
			           the invocation's, `macro` the invoked macro, and
			           the name is not on the line: show gen->site->text */
	const struct ot_ix_cdef *next; /**< next definition of the same name */
} ot_ix_cdef;

typedef enum {
	OT_DECL_MEMBER, /**< a data member of a class: `SmallVector<OperandInfo, 4> operands_;` */
	OT_DECL_ALIAS,  /**< a type alias: `using DimMask = TensorIterator::DimMask;`, `typedef T U;` */
	OT_DECL_ENUMERATOR /**< an enumerator with a known value: `MEAN = 1` of
			        `enum class EmbeddingBagMode`; `type` is the value
			        ("1"), `cls` the enum's name */
} ot_ix_decl_kind;

/** A declaration that gives a name a type, at class or namespace scope:
 * what C++ knows of `op` in `for (auto& op : operands_)`, or of a
 * parameter declared `const hidden_type&`. */
typedef struct ot_ix_decl {
	const char *name;
	const char *type;  /**< as written, blanks collapsed ("SmallVector<OperandInfo,4>") */
	const char *cls;   /**< the class it is declared in ("" when it has no name),
			        or NULL at namespace scope */
	uint32_t file, line;
	uint8_t kind;      /**< ot_ix_decl_kind */
	const struct ot_ix_decl *next; /**< next declaration of the same name */
} ot_ix_decl;

typedef enum { OT_STUB_DECLARE, OT_STUB_DEFINE, OT_STUB_REGISTER } ot_ix_stub_kind;

/** A DispatchStub site: DECLARE_DISPATCH, DEFINE_DISPATCH or REGISTER_*DISPATCH. */
typedef struct ot_ix_stub {
	const char *stub;   /**< "lstm_cudnn_stub" */
	const char *macro;  /**< "REGISTER_CUDA_DISPATCH" */
	const char *kernel; /**< registered function ("lstm_cudnn"), or NULL
			         (nullptr, REGISTER_NO_CPU_DISPATCH, a lambda) */
	const char *kernel_qual; /**< the kernel's written qualifier, or "" */
	const char *stub_qual;   /**< the stub's written qualifier ("cpublas" of
				      REGISTER_DISPATCH(cpublas::copy_stub, ...)), or "" */
	const char *ns;     /**< enclosing namespaces at the site, as for ot_ix_cdef */
	const char *arch;   /**< the CPU capability slot REGISTER_ARCH_DISPATCH(stub,
			         DEFAULT, fn) fills ("DEFAULT"), or NULL */
	uint32_t pp;        /**< preprocessor arm of the site, or 0 */
	uint32_t file, line;
	const char *gen_text; /**< a site a macro invocation wrote (ONE_HIDDEN_RNN(gru,
			           CUDNN_GRU) expands to REGISTER_CUDA_DISPATCH(
			           gru_cudnn_stub, &gru_cudnn)): the invocation as line
			           `line` holds it; NULL for a site written out */
	uint8_t kind;       /**< ot_ix_stub_kind */
	const struct ot_ix_stub *next; /**< next site of the same stub */
} ot_ix_stub;

/* ---- Python -------------------------------------------------------------------- */

typedef enum { OT_PY_CLASS, OT_PY_DEF, OT_PY_ASSIGN } ot_ix_py_kind;

/** A dotted name called or referenced in a Python body. */
typedef struct {
	const char *path; /**< "torch._C._nn.linear", "F.relu", "self._conv_forward";
			       ".g" for a method of what a call gave (x.f(a).g(b));
			       "*", "/", "+", "-", "@" for a binary operator */
	uint32_t line;
	bool call;        /**< followed by '(' */
} ot_ix_pyref;

/** A Python class, function/method, or module-level assignment. */
typedef struct ot_ix_pydef {
	const char *name;
	uint8_t kind;      /**< ot_ix_py_kind */
	uint32_t file, line, end_line;
	uint32_t indent;   /**< column of `class`/`def`/the name */
	const char *bases; /**< class: base list as written ("RNNBase"), else NULL */
	const struct ot_ix_pydef *parent; /**< enclosing class or def, or NULL */
	const ot_ix_pyref *refs; /**< calls (def: body; assign: right-hand side
				      references too), in order */
	uint32_t nrefs;
	const struct ot_ix_pydef *next; /**< next definition of the same name */
} ot_ix_pydef;

/** A `register_decomposition(aten.x...)` site. */
typedef struct ot_ix_decomp {
	const char *op;   /**< "addmm.default", "addmm" as written after "aten." */
	const char *func; /**< the decorated function's name, or NULL */
	uint32_t file, line;
	const struct ot_ix_decomp *next; /**< next site for the same base op */
} ot_ix_decomp;

/** A docstring anchor: add_docstr(torch.x, ...) or add_docstr_all("x", ...). */
typedef struct ot_ix_doc {
	const char *name;
	bool method; /**< from torch/_tensor_docs.py */
	uint32_t file, line;
	const struct ot_ix_doc *next;
} ot_ix_doc;

/* ---- one file's scan --------------------------------------------------------- */

/** Everything found in one file, owned by the arena given to the scanner. */
typedef struct {
	OT_VEC(ot_ix_pparm) pparms; /**< C: the file's preprocessor arms */
	OT_VEC(ot_ix_cdef) cdefs;
	OT_VEC(ot_ix_stub) stubs;
	OT_VEC(ot_ix_decl) decls;   /**< C: data members and type aliases */
	OT_VEC(ot_ix_pydef) pydefs;
	OT_VEC(ot_ix_decomp) decomps;
	OT_VEC(ot_ix_decomp) core_decomps; /**< Python: the ops the core ATen
				decomposition table lists (torch/_decomp/__init__.py) */
	OT_VEC(ot_ix_doc) docs;
	OT_VEC(const char *) defines; /**< C: names of object-like #defines */
	size_t ncalls;
	const ot_ix_macro *macros;   /**< C: macros that paste names (in the arena) */
	size_t nmacros;
	const ot_ix_minvoke *invokes; /**< C: macro invocations (in the arena) */
	size_t ninvokes;
} ot_scan_result;

#endif
