/*
 * callkind.h - what a call in a C++ body is: an aten op through the
 * dispatcher, a direct call of a native kernel, a DispatchStub, a helper
 * function, a library's API, a CUDA kernel launch, or nothing the trace
 * follows (a method of Vectorized, IntArrayRef, Device, Scalar...).
 *
 * Calls are told apart by what C++ would resolve them to, not by their
 * bare name: a member call names an op only when its receiver is a Tensor
 * (a parameter, local or element declared Tensor, TensorBase,
 * MaybeOwned<Tensor> through -> or *, the result of an ATen call); an
 * unqualified call is looked up in the file, then in the enclosing
 * namespaces, then among the ops (argument-dependent lookup finds at::x
 * for Tensor arguments); `thrust::pair` is a type, `cpublas::copy_stub` is
 * not `at::native::copy_stub`. When the receiver's type cannot be told, the
 * answer says so (exact = false), and the trace never puts such a call on
 * the main path.
 *
 * The receiver, the arguments and the declarations are read from the code
 * view of the calling function at the call's offset, when the call is
 * classified: the scanner keeps only where the call is.
 */
#ifndef OT_CALLKIND_H
#define OT_CALLKIND_H

#include "index.h"
#include "registry.h"

typedef enum {
	OT_CK_NONE,   /**< nothing to follow */
	OT_CK_OP,     /**< an aten op through the dispatcher: at::x, x.method() on a Tensor */
	OT_CK_NATIVE, /**< at::native::x / native::x / x inside at::native: the kernel function itself */
	OT_CK_STUB,   /**< a DispatchStub called (or handed to a helper) */
	OT_CK_HELPER, /**< a C++ function of ATen */
	OT_CK_LIB,    /**< a library's API (cuBLAS, cuDNN, MKL, LAPACK, oneDNN, ...) */
	OT_CK_LAUNCH  /**< a CUDA kernel launch, or a TensorIterator GPU loop */
} ot_ck_kind;

#define OT_CK_MAX_DEFS 8
#define OT_CK_MAX_ARGS 24

/** What one call is. Strings are in the arena given to ot_callkind_of. */
typedef struct {
	ot_ck_kind kind;
	bool exact;                   /**< resolved by type or scope; false: by name only */
	const char *why;              /**< for !exact: what could not be told */
	const char *op;               /**< OP: the registry name ("mm", "add_") */
	const ot_reg_func *overload;  /**< OP: the overload the arguments fit, or NULL */
	const ot_ix_stub *stub;       /**< STUB: the first site of the stub called */
	const ot_ix_cdef *defs[OT_CK_MAX_DEFS]; /**< HELPER, NATIVE: the definitions it binds */
	size_t ndefs;
	const char *lib;              /**< LIB: "cuBLAS", "cuDNN", "MKL", ...; LAUNCH:
				           OT_GPU_CUSTOM_KERNEL or OT_GPU_TI_KERNEL */
	const char *text;             /**< the call as written ("at::cuda::blas::gemm") */
	const char *args[OT_CK_MAX_ARGS]; /**< the arguments as written, blanks collapsed */
	size_t nargs;
	bool receiver_tensor;         /**< a member call on a Tensor: self is args[-1] */
} ot_callkind;

/* Library labels that name no library. */
#define OT_GPU_CUSTOM_KERNEL "custom CUDA kernel"
#define OT_GPU_TI_KERNEL "TensorIterator CUDA kernel"

typedef struct ot_callkinds ot_callkinds;

/** Per-name facts worked out once for a tracer (read-only afterwards). */
ot_callkinds *ot_callkinds_new(const ot_index *ix, const ot_registry *reg);
void ot_callkinds_free(ot_callkinds *ck);

/** Classify call `c` of definition `d`. Never fails; `out->kind` is
 * OT_CK_NONE for what the trace does not follow. */
void ot_callkind_of(ot_callkind *out, const ot_callkinds *ck, const ot_ix_cdef *d,
		    const ot_ix_call *c, ot_arena *arena);

#define OT_CK_MAX_SUBST 12

/** What the template parameters of a class or function template stand for
 * where it is called: GRUCell<CellParams>{}(...) makes GRUCell's
 * `cell_params` CellParams, so `params.linear_ih(input)` on a `const
 * cell_params&` is CellParams::linear_ih. Also what objects handed in are:
 * "@layer" the class of the argument passed for parameter `layer` (a
 * FullLayer<Tensor,CellParams> the callee calls), "@layer.cell_" what that
 * object's data member refers to (the GRUCell its constructor was given),
 * "@this.cell_" the same seen from the object's own methods. */
typedef struct {
	const char *name[OT_CK_MAX_SUBST];
	const char *type[OT_CK_MAX_SUBST];
	size_t n;
} ot_ck_subst;

/** ot_callkind_of where `subst` holds (NULL: nothing known), not kept. */
void ot_callkind_of_in(ot_callkind *out, const ot_callkinds *ck, const ot_ix_cdef *d,
		       const ot_ix_call *c, ot_arena *arena, const ot_ck_subst *subst);

/**
 * What the template parameters of definition `to` stand for when call `c`
 * of `from` (where `outer` holds, or NULL) reaches it: the template
 * arguments the call writes (Foo<T>{}(...), f<T>(...)) or its receiver's
 * type has (a Foo<T> object's method), or, for a method of the class
 * `from` is a method of, `outer` itself; template parameters deduced from
 * the arguments `kind` (the call classified) read; the objects handed to
 * parameters the callee calls. Each argument is read where `outer` holds.
 * Returns out->n.
 */
size_t ot_callkind_subst(const ot_callkinds *ck, const ot_ix_cdef *from, const ot_ix_call *c,
			 const ot_callkind *kind, const ot_ix_cdef *to, const ot_ck_subst *outer, ot_ck_subst *out,
			 ot_arena *arena);

/**
 * Every call of `d` classified, d->ncalls of them in order: what
 * ot_callkind_of answers, worked out once per thread and kept for the
 * tracer's life (borrowed; the thread's). The classification does not
 * depend on the op being traced, so every trace a thread makes shares it.
 */
const ot_callkind *ot_callkinds_body(const ot_callkinds *ck, const ot_ix_cdef *d);

/** The same where `subst` holds (NULL or empty: ot_callkinds_body), kept
 * per thread for each distinct substitution. */
const ot_callkind *ot_callkinds_body_in(const ot_callkinds *ck, const ot_ix_cdef *d,
					const ot_ck_subst *subst);

/**
 * The overload an op's C++ function named as a value means (`at::abs_out`
 * handed to a helper that calls it): for NAME_out / NAME_outf the out=
 * overload of NAME when there is one, for NAME the op's only overload;
 * NULL otherwise. `text` is the argument as written; at:: names only.
 */
const ot_reg_func *ot_callkind_function_ref(const ot_callkinds *ck, const char *text, ot_arena *arena);

/** The parameters of `d` (as ot_callkind_params), kept per thread: *names
 * and *types point into the thread's cache. */
size_t ot_callkinds_params(const ot_callkinds *ck, const ot_ix_cdef *d, const char *const **names,
			   const char *const **types);

/** The dispatch entry that names C++ function `name` as a kernel (the
 * first such entry), or NULL. */
const ot_reg_func *ot_callkinds_kernel_entry(const ot_callkinds *ck, const char *name);

/** The default arguments of d's parameters (as ot_callkinds_params
 * counts them), written in its definition or in a declaration of it before
 * it in its file or in a header the file includes: per parameter the value
 * as written, or NULL. NULL when none has one. */
const char *const *ot_callkinds_param_defaults(const ot_callkinds *ck, const ot_ix_cdef *d);

/** The definitions an unqualified or qualified call `qual::name(...)` with
 * `nargs` arguments made from definition `from` binds (as OT_CK_HELPER
 * would find them). Returns the count (at most `max`). */
size_t ot_callkind_helpers(const ot_callkinds *ck, const ot_ix_cdef *from, const char *qual,
			   const char *name, size_t nargs, const ot_ix_cdef **out, size_t max,
			   ot_arena *arena);

/** Is `name` a metadata query (size, dim, numel, dtype...): an op in the
 * registry, but no computation worth following? */
bool ot_callkind_is_metadata(const char *name);

/** Is `f` an op whose C++ method is written inline and returns the tensor
 * itself when it is not complex (conj: templates/TensorBody.h, and
 * at::conj calls it)? A C++ call of it with a float32 tensor dispatches
 * nothing (a complex one dispatches _conj); a Python call still goes to
 * the op's entry. */
bool ot_callkind_inline_for_real(const ot_reg_func *f);

/** Is `name` (unqualified) one of TensorIterator's CUDA launchers
 * (gpu_kernel, opmath_gpu_kernel_with_scalars, jitted_gpu_kernel,
 * gpu_reduce_kernel, ...)? They launch once per piece of the iterator that
 * 32-bit indexing can address. */
bool ot_callkind_is_ti_launcher(const char *name);

/** Is `name` (a call's name) a runtime selection point (use_cudnn, ...)? */
bool ot_callkind_is_selection(const char *name);

/** The parameters of definition `d` as written: names into `names`, their
 * types into `types` (at most `max`). Returns the count. */
size_t ot_callkind_params(const ot_index *ix, const ot_ix_cdef *d, const char **names,
			  const char **types, size_t max, ot_arena *arena);

/** Is `type` (a declaration's type as written) a Tensor, a MaybeOwned or
 * optional Tensor (through -> or *), or a list of Tensors? */
typedef enum {
	OT_TY_UNKNOWN,     /**< not known (a member, a macro argument, ...) */
	OT_TY_OTHER,       /**< known, and not a Tensor */
	OT_TY_TENSOR,      /**< Tensor, TensorBase, const at::Tensor& */
	OT_TY_TENSOR_PTR,  /**< MaybeOwned<Tensor>, optional<Tensor>, Tensor*: -> or * gives a Tensor */
	OT_TY_TENSOR_LIST, /**< TensorList, ITensorListRef, std::vector<Tensor>: [i] gives one */
	OT_TY_AUTO,        /**< auto: the initializer tells */
	OT_TY_TENSOR_ITER  /**< TensorIterator(Base): output(i), input(i), tensor(i) give Tensors */
} ot_ty;
ot_ty ot_callkind_type(const char *type);

/** Is `type` (as written) one whose value is always there when passed for
 * an optional parameter: a Scalar (an OptionalScalarRef made of it holds
 * it), unlike a Tensor, which may be undefined? */
bool ot_callkind_always_present(const char *type);

/**
 * The declaration of the stub a DispatchStub site names (DECLARE_DISPATCH,
 * else DEFINE_DISPATCH, in the namespace the site's name resolves to:
 * `copy_stub` in at::native is not `cpublas::copy_stub`). `site` itself
 * for a declaration; NULL when no declaration of that name is visible.
 */
const ot_ix_stub *ot_callkind_stub_decl(const ot_index *ix, const ot_ix_stub *site);

/**
 * The name of the lambda d's body names (`auto fn = [...](...) { ... };`)
 * whose body holds offset `at` (the innermost), or NULL: a call there is
 * made when the lambda is called, not where it is written. NULL too when
 * the body hands that lambda on (`parallel_for(0, n, 1, fn)`).
 */
const char *ot_callkind_lambda_around(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at);

/**
 * The initializer of local `name` as declared in d's body before offset
 * `at` (`auto x = f(y);` gives "f(y)"), or NULL when it has none there.
 * Borrowed from the calling thread's cache (freed with `ck`).
 */
const char *ot_callkind_local_init(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at,
				   const char *name);

/**
 * Is local `name`, where offset `at` of d's body sees it, a Tensor declared
 * without a value (`at::Tensor result, unused;`: an undefined Tensor) and
 * not named again before `at` (where it could have been given one)?
 */
bool ot_callkind_local_unset(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at, const char *name);

/** Is local `name`, where offset `at` of d's body sees it, declared with a
 * type whose value is always there (ot_callkind_always_present)? */
bool ot_callkind_local_present(const ot_callkinds *ck, const ot_ix_cdef *d, uint32_t at, const char *name);

#endif
