#include "diff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "body.h"
#include "escape.h"
#include "opslist.h"
#include "output.h"
#include "run.h"
#include "value.h"
#include "version.h"

static const char *const class_ids[OT_DIFF_CLASS_COUNT] = {
	"removed", "added", "schema", "dispatch", "moved", "backward", "gpu", "implementation"};
static const char *const class_labels[OT_DIFF_CLASS_COUNT] = {
	"removed", "added", "schema changed", "dispatch changed", "implementation moved",
	"backward changed", "GPU library changed", "implementation changed"};

const char *ot_diff_class_id(ot_diff_class c)
{
	return c < OT_DIFF_CLASS_COUNT ? class_ids[c] : "?";
}

const char *ot_diff_class_label(ot_diff_class c)
{
	return c < OT_DIFF_CLASS_COUNT ? class_labels[c] : "?";
}

/* ---- building changes ------------------------------------------------------------------- */

typedef OT_VEC(ot_diff_item) item_vec;
typedef OT_VEC(ot_diff_change) change_vec;

struct cmp {
	ot_diff *d;
	ot_arena *a;
	ot_map *autogen[2]; /* per side: every overload an entry's `autogen:` generates */
	ot_map *known[2];   /* per side: every entry some op names */
	change_vec changes; /* of each op, in input order */
	item_vec items; /* of the change being built */
	bool generated;  /* compare_op: the op is generated (autogen) on one side */
	bool changed;    /* overloads_changed: some overload is in one release only */
	bool elsewhere;  /* compare_op: an input of one release whose overloads
			    all are in the other, under other inputs */
	ot_diff_change cur;
};

static void begin(struct cmp *c, ot_diff_class cls, const char *op, const char *overload)
{
	memset(&c->cur, 0, sizeof(c->cur));
	c->cur.cls = cls;
	c->cur.op = op;
	c->cur.overload = overload ? overload : "";
	c->items.len = 0;
}

static void item(struct cmp *c, const char *what, const char *subject, const char *old,
		 const char *new, bool breaking)
{
	ot_diff_item it = {.what = what, .subject = subject, .old = old, .new = new, .breaking = breaking};
	ot_vec_push(&c->items, it);
}

/* Keep the change when it has items. */
static void end(struct cmp *c)
{
	ot_diff_change *ch = &c->cur;
	if (!c->items.len)
		return;
	ch->nitems = c->items.len;
	ch->items = ot_arena_alloc(c->a, ch->nitems * sizeof(*ch->items));
	memcpy(ch->items, c->items.items, ch->nitems * sizeof(*ch->items));
	for (size_t i = 0; i < ch->nitems; i++)
		ch->breaking |= ch->items[i].breaking;
	ot_vec_push(&c->changes, *ch);
}

/* Keep each item as a change of its own, at the item's places. */
static void one_each(struct cmp *c)
{
	item_vec all = c->items;
	ot_diff_change base = c->cur;
	c->items = (item_vec){0};
	for (size_t i = 0; i < all.len; i++) {
		ot_diff_item it = all.items[i];
		c->cur = base;
		c->cur.old_loc = it.old_loc;
		c->cur.new_loc = it.new_loc;
		it.old_loc = it.new_loc = (ot_diff_loc){NULL, 0};
		c->items.len = 0;
		ot_vec_push(&c->items, it);
		end(c);
	}
	ot_vec_free(&all);
}

static ot_diff_loc loc(const char *file, int line)
{
	ot_diff_loc l = {file, line > 0 ? (uint32_t)line : 0};
	if (line <= 0)
		l.file = NULL;
	return l;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* ---- registry entries of one op ------------------------------------------------------------ */

struct side {
	const ot_tj_op *op;
	ot_map *entries; /* full name -> const ot_reg_func * */
	ot_map *names;   /* schema name -> (void *)1 */
	ot_map *autogen; /* overloads torchgen generates from an entry's `autogen:` */
};

static void side_init(struct side *s, const ot_tj_op *op)
{
	s->op = op;
	s->entries = ot_map_new();
	s->names = ot_map_new();
	s->autogen = ot_map_new();
	for (size_t i = 0; op && i < op->nregistry; i++) {
		const ot_reg_func *f = op->registry[i];
		ot_map_put(s->entries, f->schema.full, (void *)f);
		ot_map_put(s->names, f->schema.name, (void *)1);
		for (size_t k = 0; k < f->nautogen; k++)
			ot_map_put(s->autogen, f->autogen[k], (void *)f);
	}
}

static void side_free(struct side *s)
{
	ot_map_free(s->entries);
	ot_map_free(s->names);
	ot_map_free(s->autogen);
}

static const ot_reg_func *entry(const struct side *s, const char *full)
{
	return ot_map_get(s->entries, full);
}

/* ---- schema ----------------------------------------------------------------------------- */

static const char *arg_text(ot_arena *a, const ot_reg_arg *g)
{
	const char *t = g->annotation ? ot_arena_printf(a, "%s(%s)", g->type, g->annotation) : g->type;
	if (!g->name)
		return t;
	return ot_arena_printf(a, "%s %s%s%s", t, g->name, g->def ? "=" : "", g->def ? g->def : "");
}

static const char *returns_text(ot_arena *a, const ot_reg_schema *s)
{
	ot_buf b = OT_BUF_INIT;
	const char *t;
	if (s->nreturns != 1)
		ot_buf_putc(&b, '(');
	for (size_t i = 0; i < s->nreturns; i++)
		ot_buf_printf(&b, "%s%s", i ? ", " : "", arg_text(a, &s->returns[i]));
	if (s->nreturns != 1)
		ot_buf_putc(&b, ')');
	t = ot_arena_strdup(a, b.ptr);
	ot_buf_free(&b);
	return t;
}

static bool same_returns(const ot_reg_schema *o, const ot_reg_schema *n)
{
	if (o->nreturns != n->nreturns)
		return false;
	for (size_t i = 0; i < o->nreturns; i++)
		if (!str_eq(o->returns[i].type, n->returns[i].type) ||
		    !str_eq(o->returns[i].annotation, n->returns[i].annotation) ||
		    !str_eq(o->returns[i].name, n->returns[i].name))
			return false;
	return true;
}

/* Why a retyped argument keeps its callers (PyTorch's schema check, which
 * compares the JIT types - SymInt and DeviceIndex are `int` there -, the
 * Python argument parser and the C++ API torchgen writes). */
#define WHY_SYMINT "a SymInt takes an int: Python passes ints as before, and C++ keeps the int " \
		   "overload beside the `_symint` one"
#define WHY_OPTIONAL "an optional argument takes what the required one took"
#define WHY_SCALAR "a Scalar takes an int or a float, in Python and C++"
#define WHY_DEVICE_INDEX "PyTorch's schema check reads DeviceIndex as int; Python passes an int, " \
			 "and C++ converts an int64_t to c10::DeviceIndex implicitly"

/* A schema type as its base ("int", "Tensor") and the rest ("[2]?", "?[]"). */
static size_t type_base(const char *t)
{
	size_t n = 0;
	while ((t[n] >= 'a' && t[n] <= 'z') || (t[n] >= 'A' && t[n] <= 'Z') || (t[n] >= '0' && t[n] <= '9') ||
	       t[n] == '_')
		n++;
	return n;
}

/*
 * Does type `n` take every value type `o` took? Returns the reason (see
 * WHY_*; *widened tells a wider type from one PyTorch reads as the same),
 * or NULL when callers may break: another list size (int[2] -> int[]), an
 * optional made required, another base type.
 */
static const char *type_accepts(ot_arena *a, const char *o, const char *n, bool *widened)
{
	size_t bo = type_base(o), bn = type_base(n);
	const char *so = o + bo, *sn = n + bn, *base_why = NULL, *opt_why = NULL;
	size_t lo = strlen(so);

	*widened = true;
	if (!strcmp(so, sn))
		opt_why = NULL;
	else if (strlen(sn) == lo + 1 && !strncmp(so, sn, lo) && sn[lo] == '?' && (!lo || so[lo - 1] != '?'))
		opt_why = WHY_OPTIONAL; /* T -> T?, int[2] -> int[2]? */
	else
		return NULL;
	if (bo == bn && !strncmp(o, n, bo))
		base_why = NULL;
	else if (bo == 3 && !strncmp(o, "int", 3) && bn == 6 && !strncmp(n, "SymInt", 6))
		base_why = WHY_SYMINT;
	else if (((bo == 3 && !strncmp(o, "int", 3)) || (bo == 5 && !strncmp(o, "float", 5))) &&
		 bn == 6 && !strncmp(n, "Scalar", 6) && (!*so || !strcmp(so, "?")))
		base_why = WHY_SCALAR;
	else if (bo == 3 && !strncmp(o, "int", 3) && bn == 11 && !strncmp(n, "DeviceIndex", 11)) {
		base_why = WHY_DEVICE_INDEX;
		*widened = false;
	} else
		return NULL;
	if (base_why && opt_why)
		return ot_arena_printf(a, "%s; %s", base_why, opt_why);
	return base_why ? base_why : opt_why;
}

static void schema_item(struct cmp *c, const char *what, const char *subject, const char *old,
			const char *new, bool breaking, const char *why)
{
	item(c, what, subject, old, new, breaking);
	c->items.items[c->items.len - 1].why = why;
}

static bool is_out_arg(const ot_reg_arg *g)
{
	return g->kwarg_only && g->is_write;
}

static void diff_arg(struct cmp *c, const ot_reg_arg *ga, const ot_reg_arg *gb)
{
	if (!str_eq(ga->type, gb->type)) {
		bool widened;
		const char *why = type_accepts(c->a, ga->type, gb->type, &widened);
		schema_item(c, why && widened ? "argument-widened" : "argument-retyped", gb->name, ga->type,
			    gb->type, !why,
			    why ? why
				: ot_arena_printf(c->a, "`%s` does not take every `%s` callers passed",
						  gb->type, ga->type));
	}
	if (!str_eq(ga->annotation, gb->annotation))
		schema_item(c, "alias-changed", gb->name, ga->annotation, gb->annotation, true,
			    "the alias annotation says whether the op writes or returns the argument: "
			    "PyTorch's schema check requires the same one");
	if (!str_eq(ga->def, gb->def)) {
		if (!ga->def)
			schema_item(c, "default-changed", gb->name, ga->def, gb->def, false,
				    "a default added: callers that pass it still may");
		else
			schema_item(c, "default-changed", gb->name, ga->def, gb->def, true,
				    gb->def ? "callers that leave it out get another value"
					    : "callers that leave it out fail");
	}
	if (ga->kwarg_only != gb->kwarg_only)
		schema_item(c, "keyword-only-changed", gb->name, ga->kwarg_only ? "keyword-only" : "positional",
			    gb->kwarg_only ? "keyword-only" : "positional", gb->kwarg_only,
			    gb->kwarg_only ? "callers that pass it by position fail"
					   : "callers that pass it by keyword still may");
}

static void diff_schema(struct cmp *c, const ot_reg_func *fo, const ot_reg_func *fn)
{
	const ot_reg_schema *o = &fo->schema, *n = &fn->schema;
	int *to_new = ot_calloc(o->nargs + 1, sizeof(int)), *to_old = ot_calloc(n->nargs + 1, sizeof(int));
	int last_new = -1; /* index in new of the last matched old argument that is no out= one */
	int last_out = -1; /* ... and of the last out= one */

	for (size_t i = 0; i < o->nargs; i++)
		to_new[i] = -1;
	for (size_t j = 0; j < n->nargs; j++)
		to_old[j] = -1;
	for (size_t i = 0; i < o->nargs; i++)
		for (size_t j = 0; j < n->nargs; j++)
			if (to_old[j] < 0 && str_eq(o->args[i].name, n->args[j].name)) {
				to_new[i] = (int)j;
				to_old[j] = (int)i;
				break;
			}
	/* an argument that lost its name in the same place, with the same type: renamed */
	for (size_t i = 0; i < o->nargs && i < n->nargs; i++) {
		if (to_new[i] >= 0 || to_old[i] >= 0 || !str_eq(o->args[i].type, n->args[i].type) ||
		    o->args[i].kwarg_only != n->args[i].kwarg_only)
			continue;
		to_new[i] = (int)i;
		to_old[i] = (int)i;
		schema_item(c, "argument-renamed", o->args[i].name, o->args[i].name, n->args[i].name, true,
			    "callers that pass it by keyword fail");
	}
	for (size_t i = 0; i < o->nargs; i++) {
		const ot_reg_arg *ga = &o->args[i];
		if (to_new[i] < 0) {
			schema_item(c, "argument-removed", ga->name, arg_text(c->a, ga), NULL, true,
				    "callers that pass it fail");
			continue;
		}
		if (!is_out_arg(ga) && to_new[i] > last_new)
			last_new = to_new[i];
		if (is_out_arg(ga) && to_new[i] > last_out)
			last_out = to_new[i];
		diff_arg(c, ga, &n->args[to_new[i]]);
	}
	/* matched positional arguments must keep their relative order */
	{
		int prev = -1;
		bool reordered = false;
		ot_buf ob = OT_BUF_INIT, nb = OT_BUF_INIT;
		for (size_t i = 0; i < o->nargs; i++) {
			if (to_new[i] < 0 || o->args[i].kwarg_only || n->args[to_new[i]].kwarg_only)
				continue;
			if (to_new[i] < prev)
				reordered = true;
			prev = to_new[i];
		}
		if (reordered) {
			for (size_t i = 0; i < o->nargs; i++)
				if (!o->args[i].kwarg_only && o->args[i].name)
					ot_buf_printf(&ob, "%s%s", ob.size ? ", " : "", o->args[i].name);
			for (size_t j = 0; j < n->nargs; j++)
				if (!n->args[j].kwarg_only && n->args[j].name)
					ot_buf_printf(&nb, "%s%s", nb.size ? ", " : "", n->args[j].name);
			schema_item(c, "argument-order-changed", NULL, ot_arena_strdup(c->a, ob.ptr),
				    ot_arena_strdup(c->a, nb.ptr), true,
				    "callers that pass arguments by position give them to other parameters");
		}
		ot_buf_free(&ob);
		ot_buf_free(&nb);
	}
	for (size_t j = 0; j < n->nargs; j++) {
		const ot_reg_arg *g = &n->args[j];
		bool after = (int)j > last_new;
		if (to_old[j] >= 0)
			continue;
		/* PyTorch's rule: a new argument has a default and comes after
		 * every old one but the out= arguments (C++ passes keyword-only
		 * arguments by position too) */
		schema_item(c, g->kwarg_only ? "keyword-argument-added" : "argument-added", g->name, NULL,
			    arg_text(c->a, g), !(g->def && after),
			    !g->def  ? "it has no default: callers that do not pass it fail"
			    : !after ? "it comes before old arguments: callers that pass those by position "
				       "(C++ passes keyword-only arguments by position) fail"
			    : (int)j < last_out ? "it has a default and comes after every old argument but "
						  "the out= ones"
						: "it has a default and comes after every old argument");
	}
	if (!same_returns(o, n))
		schema_item(c, "returns-changed", NULL, returns_text(c->a, o), returns_text(c->a, n), true,
			    o->nreturns != n->nreturns ? "callers that unpack the results get another number of them"
						       : "callers that use the results get other types or names");
	if (fo->variant_function != fn->variant_function)
		schema_item(c, fn->variant_function ? "variant-added" : "variant-removed", "function", NULL,
			    NULL, !fn->variant_function,
			    fn->variant_function ? NULL : "callers of the function (torch.X, at::X) fail");
	if (fo->variant_method != fn->variant_method)
		schema_item(c, fn->variant_method ? "variant-added" : "variant-removed", "method", NULL, NULL,
			    !fn->variant_method,
			    fn->variant_method ? NULL : "callers of the method (Tensor.X) fail");
	if (!str_eq(fo->python_module, fn->python_module))
		schema_item(c, "python-module-changed", NULL, fo->python_module, fn->python_module, true,
			    "Python callers find it in another module");
	free(to_new);
	free(to_old);
}

/* ---- dispatch --------------------------------------------------------------------------- */

/* An entry without a table, a delegate or ufunc loops: torchgen gives it
 * the CompositeImplicitAutograd kernel named after its C++ API. */
static bool implied_table(const ot_reg_func *f)
{
	return !f->has_dispatch && !f->structured_delegate && !f->nufunc_inner_loop;
}

/* The entry's dispatch table as key -> kernel, the implied one included. */
static ot_map *dispatch_table(ot_arena *a, const ot_reg_func *f)
{
	ot_map *m = ot_map_new();
	for (size_t i = 0; i < f->ndispatch; i++)
		ot_map_put(m, f->dispatch[i].key, (void *)f->dispatch[i].kernel);
	if (implied_table(f))
		ot_map_put(m, "CompositeImplicitAutograd", (void *)ot_reg_func_implicit_kernel(a, f));
	return m;
}

static const char *composite_kind(const ot_map *t)
{
	/* CompositeImplicitAutogradNestedTensor serves nested tensors only */
	if (ot_map_get(t, "CompositeImplicitAutograd"))
		return "CompositeImplicitAutograd";
	if (ot_map_get(t, "CompositeExplicitAutograd"))
		return "CompositeExplicitAutograd";
	if (ot_map_get(t, "CompositeExplicitAutogradNonFunctional"))
		return "CompositeExplicitAutogradNonFunctional";
	return NULL;
}

/* Does the new entry still give backend `key` a kernel? */
static bool covered(const ot_reg_func *n, const ot_map *tn, const char *key)
{
	if (composite_kind(tn) || n->structured_delegate)
		return true;
	if (n->nufunc_inner_loop && (!strcmp(key, "CPU") || !strcmp(key, "CUDA")))
		return true;
	return false;
}

static const char *joined(ot_arena *a, const char *const *items, size_t n, const char *sep)
{
	ot_buf b = OT_BUF_INIT;
	const char *s;
	for (size_t i = 0; i < n; i++)
		ot_buf_printf(&b, "%s%s", i ? sep : "", items[i]);
	s = ot_arena_strdup(a, b.ptr);
	ot_buf_free(&b);
	return s;
}

/* Keys of `from` (the table of `ffrom`) missing in `other` (added or
 * removed), grouped by kernel. */
static void key_groups(struct cmp *c, const ot_reg_func *ffrom, const ot_map *from, const ot_map *other,
		       const char *what, bool removed, const ot_reg_func *n, const ot_map *tn)
{
	ot_map *by_kernel = ot_map_new();
	OT_VEC(const char *) keys = {0};
	for (size_t i = 0; i < ot_map_len(from); i++) {
		const char *k = ot_map_key_at(from, i);
		/* an implied CompositeImplicitAutograd (no table) is told by composite-changed */
		if (!ot_map_get(other, k) && !(implied_table(ffrom) && !strcmp(k, "CompositeImplicitAutograd")))
			ot_vec_push(&keys, k);
	}
	for (size_t i = 0; i < keys.len; i++) {
		const char *kernel = ot_map_get(from, keys.items[i]);
		ot_buf b = OT_BUF_INIT;
		bool breaking = false;
		if (ot_map_get(by_kernel, kernel))
			continue;
		ot_map_put(by_kernel, kernel, (void *)1);
		for (size_t j = i; j < keys.len; j++) {
			if (strcmp(ot_map_get(from, keys.items[j]), kernel))
				continue;
			ot_buf_printf(&b, "%s%s", b.size ? ", " : "", keys.items[j]);
			if (removed && !covered(n, tn, keys.items[j]))
				breaking = true;
		}
		item(c, what, ot_arena_strdup(c->a, b.ptr), removed && *kernel ? kernel : NULL,
		     !removed && *kernel ? kernel : NULL, breaking);
		ot_buf_free(&b);
	}
	ot_vec_free(&keys);
	ot_map_free(by_kernel);
}

/* Where a side's trace reached the kernel of `overload` for `key`: the
 * definition a renamed kernel is linked to, or none. */
static ot_diff_loc kernel_loc(const ot_tj_op *op, const char *overload, const char *key, const char *kernel)
{
	size_t kl = strlen(kernel);
	for (size_t i = 0; op && i < op->nsteps; i++) {
		const ot_step *s = &op->steps[i];
		size_t sl;
		if (!s->found || strcmp(s->op, overload) || strcmp(s->backend, key))
			continue;
		sl = strlen(s->symbol);
		/* "conv2d_symint", or qualified: "at::native::conv2d_symint" */
		if (!strcmp(s->symbol, kernel) ||
		    (sl > kl + 2 && !strcmp(s->symbol + sl - kl, kernel) && s->symbol[sl - kl - 1] == ':'))
			return loc(s->file, (int)s->line);
	}
	return loc(NULL, 0);
}

static void diff_dispatch(struct cmp *c, const ot_reg_func *fo, const ot_reg_func *fn, const ot_tj_op *o,
			  const ot_tj_op *n)
{
	ot_map *to = dispatch_table(c->a, fo), *tn = dispatch_table(c->a, fn);
	const char *ko = composite_kind(to), *kn = composite_kind(tn);

	if (fo->structured != fn->structured)
		item(c, "structured-changed", NULL, fo->structured ? "True" : "False",
		     fn->structured ? "True" : "False", false);
	if (!str_eq(fo->structured_delegate, fn->structured_delegate))
		item(c, "delegate-changed", NULL, fo->structured_delegate, fn->structured_delegate, false);
	if (!str_eq(fo->structured_inherits, fn->structured_inherits))
		item(c, "inherits-changed", NULL, fo->structured_inherits, fn->structured_inherits, false);
	{
		const char *uo = joined(c->a, fo->ufunc_inner_loop, fo->nufunc_inner_loop, "; ");
		const char *un = joined(c->a, fn->ufunc_inner_loop, fn->nufunc_inner_loop, "; ");
		if (strcmp(uo, un))
			item(c, "ufunc-changed", NULL, *uo ? uo : NULL, *un ? un : NULL, false);
	}
	if (!str_eq(ko, kn))
		item(c, "composite-changed", NULL, ko, kn, false);
	key_groups(c, fn, tn, to, "keys-added", false, fn, tn);
	key_groups(c, fo, to, tn, "keys-removed", true, fn, tn);
	for (size_t i = 0; i < ot_map_len(to); i++) {
		const char *k = ot_map_key_at(to, i), *a = ot_map_value_at(to, i), *b = ot_map_get(tn, k);
		bool io = implied_table(fo) && !strcmp(k, "CompositeImplicitAutograd");
		bool in = implied_table(fn) && !strcmp(k, "CompositeImplicitAutograd");
		ot_diff_item *it;
		if (!b || !strcmp(a, b))
			continue;
		item(c, "kernel-renamed", k, a, b, false);
		it = &c->items.items[c->items.len - 1];
		/* both definitions, as the traces found them */
		it->old_loc = kernel_loc(o, fo->schema.full, k, a);
		it->new_loc = kernel_loc(n, fn->schema.full, k, b);
		if (io || in)
			it->why = io ? "the old entry has no dispatch table: torchgen names its "
				       "CompositeImplicitAutograd kernel after the op"
				     : "the new entry has no dispatch table: torchgen names its "
				       "CompositeImplicitAutograd kernel after the op";
	}
	ot_map_free(to);
	ot_map_free(tn);
}

/* ---- backward --------------------------------------------------------------------------- */

/* Formulas as "inputs" (top level or the Default block) or "Key: inputs". */
struct formula {
	const char *key;
	const char *text; /* whitespace collapsed */
	bool forward;
	int line;
};

static const char *collapse(ot_arena *a, const char *s)
{
	char *out = ot_arena_alloc(a, strlen(s) + 1), *p = out;
	bool space = false;
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			space = p != out;
			continue;
		}
		if (space)
			*p++ = ' ';
		space = false;
		*p++ = *s;
	}
	*p = '\0';
	return out;
}

static ot_map *formula_map(ot_arena *a, const ot_reg_deriv *d)
{
	ot_map *m = ot_map_new();
	for (size_t i = 0; i < d->nformulas; i++) {
		struct formula *f = ot_arena_alloc(a, sizeof(*f));
		f->key = d->formulas[i].inputs;
		f->text = collapse(a, d->formulas[i].formula);
		f->forward = d->formulas[i].forward;
		f->line = d->formulas[i].line;
		ot_map_put(m, f->key, f);
	}
	for (size_t b = 0; b < d->ndispatch; b++) {
		const ot_reg_deriv_dispatch *dd = &d->dispatch[b];
		bool dflt = !strcmp(dd->key, "Default");
		for (size_t i = 0; i < dd->nformulas; i++) {
			struct formula *f = ot_arena_alloc(a, sizeof(*f));
			f->key = dflt ? dd->formulas[i].inputs
				      : ot_arena_printf(a, "%s: %s", dd->key, dd->formulas[i].inputs);
			f->text = collapse(a, dd->formulas[i].formula);
			f->forward = dd->formulas[i].forward;
			f->line = dd->formulas[i].line;
			ot_map_put(m, f->key, f);
		}
	}
	return m;
}

/* The dispatch block of a formula key ("" for the top level) and its names. */
static void split_key(const char *key, char *block, size_t bn, const char **names)
{
	const char *colon = strstr(key, ": ");
	if (colon) {
		snprintf(block, bn, "%.*s", (int)(colon - key), key);
		*names = colon + 2;
	} else {
		block[0] = '\0';
		*names = key;
	}
}

/* Is every name of `key` still given a formula (of the same kind, in the
 * same block) by some key of `m`? Then the formulas were only regrouped. */
static bool still_covered(const ot_map *m, const struct formula *f)
{
	char block[128], nblock[128], name[128];
	const char *names, *p;
	split_key(f->key, block, sizeof(block), &names);
	for (p = names; *p;) {
		size_t len = strcspn(p, ",");
		bool found = false;
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		for (size_t i = 0; i < ot_map_len(m) && !found; i++) {
			const struct formula *g = ot_map_value_at(m, i);
			const char *gnames, *q;
			if (g->forward != f->forward)
				continue;
			split_key(g->key, nblock, sizeof(nblock), &gnames);
			if (strcmp(block, nblock))
				continue;
			for (q = gnames; *q && !found;) {
				size_t gl = strcspn(q, ",");
				found = gl == strlen(name) && !strncmp(q, name, gl);
				q += gl;
				while (*q == ',' || *q == ' ')
					q++;
			}
		}
		if (!found)
			return false;
		p += len;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return true;
}

/* "[True, False]" -> does any output go from True to False? */
static bool lost_differentiability(const char *o, const char *n)
{
	const char *p = o ? o : "", *q = n ? n : "";
	while (*q) {
		const char *tn = strstr(q, "False");
		const char *to;
		size_t idx = 0;
		if (!tn)
			break;
		for (const char *s = n; s < tn; s++)
			idx += *s == ',';
		/* the idx-th item of old */
		to = p;
		for (size_t k = 0; k < idx && to; k++) {
			to = strchr(to, ',');
			if (to)
				to++;
		}
		if (!o || (to && strncmp(to + strspn(to, " ["), "True", 4) == 0))
			return true;
		q = tn + 5;
	}
	return false;
}

static bool is_implicit(ot_arena *a, const ot_reg_func *f)
{
	ot_map *t = dispatch_table(a, f);
	const char *k = composite_kind(t);
	bool r = k && !strcmp(k, "CompositeImplicitAutograd");
	ot_map_free(t);
	return r;
}

static void diff_backward(struct cmp *c, const ot_reg_func *fo, const ot_reg_func *fn)
{
	const ot_reg_deriv *o = fo->deriv, *n = fn->deriv;
	ot_map *mo, *mn;

	if (!o && !n)
		return;
	if (!o) {
		item(c, "derivative-added", NULL, NULL, NULL, false);
		c->cur.new_loc = loc(OT_REGISTRY_DERIV_PATH, n->line);
		return;
	}
	if (!n) {
		/* a composite's gradient comes from the ops it is built from */
		item(c, "derivative-removed", NULL, NULL, NULL, !is_implicit(c->a, fn));
		c->cur.old_loc = loc(OT_REGISTRY_DERIV_PATH, o->line);
		return;
	}
	c->cur.old_loc = loc(OT_REGISTRY_DERIV_PATH, o->line);
	c->cur.new_loc = loc(OT_REGISTRY_DERIV_PATH, n->line);
	mo = formula_map(c->a, o);
	mn = formula_map(c->a, n);
	for (size_t i = 0; i < ot_map_len(mn); i++) {
		const struct formula *f = ot_map_value_at(mn, i), *g = ot_map_get(mo, f->key);
		if (!g) {
			item(c, f->forward ? "forward-formula-added" : "formula-added", f->key, NULL, f->text,
			     false);
		} else if (strcmp(f->text, g->text)) {
			bool ni = strstr(f->text, "not_implemented") && !strstr(g->text, "not_implemented");
			item(c, f->forward ? "forward-formula-changed" : "formula-changed", f->key, g->text,
			     f->text, ni);
		}
	}
	for (size_t i = 0; i < ot_map_len(mo); i++) {
		const struct formula *g = ot_map_value_at(mo, i);
		if (ot_map_get(mn, g->key))
			continue;
		item(c, g->forward ? "forward-formula-removed" : "formula-removed", g->key, g->text, NULL,
		     !still_covered(mn, g));
	}
	if (!str_eq(o->output_differentiability, n->output_differentiability))
		item(c, "output-differentiability-changed", NULL, o->output_differentiability,
		     n->output_differentiability,
		     lost_differentiability(o->output_differentiability, n->output_differentiability));
	ot_map_free(mo);
	ot_map_free(mn);
}

/* ---- implementation moved ----------------------------------------------------------------- */

/* A step that is a definition (where code lives), not a call site: call
 * sites follow their caller, and a different first caller is no move. */
static bool is_definition(const ot_step *s)
{
	if (!s->found || s->depth != 0)
		return false;
	if (ot_starts_with(s->note, "calls "))
		return false; /* a call site ("calls at::native::x directly"): it is where its caller is */
	switch (s->layer) {
	case OT_LAYER_YAML:
		return false; /* native_functions.yaml never moves */
	case OT_LAYER_BACKWARD:
		return strcmp(s->file, OT_REGISTRY_DERIV_PATH) != 0;
	case OT_LAYER_CPP:
		return !ot_starts_with(s->note, "branch:");
	case OT_LAYER_STUB:
		return ot_starts_with(s->note, "DECLARE_DISPATCH") || ot_starts_with(s->note, "DEFINE_DISPATCH");
	case OT_LAYER_CUDA:
		return ot_starts_with(s->note, "__global__");
	default:
		return true;
	}
}

/* A registration step: "MACRO: stub -> kernel" or "MACRO: no kernel ...". */
static bool registration(ot_arena *a, const ot_step *s, const char **macro, const char **kernel)
{
	const char *colon, *arrow;
	if (!s->found || s->depth != 0 || s->layer != OT_LAYER_STUB ||
	    ot_starts_with(s->note, "DECLARE_DISPATCH") || ot_starts_with(s->note, "DEFINE_DISPATCH") ||
	    !strstr(s->note, "DISPATCH") || !(colon = strstr(s->note, ": ")))
		return false;
	for (const char *p = s->note; p < colon; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	*macro = ot_arena_strndup(a, s->note, (size_t)(colon - s->note));
	arrow = strstr(colon, " -> ");
	*kernel = arrow ? ot_arena_strdup(a, arrow + 4) : "";
	return true;
}

struct def {
	const char *layer;
	const char *symbol;
	OT_VEC(const ot_step *) steps; /* where it is, one per file */
};

/* (layer, symbol) -> its files at depth 0 */
static ot_map *definitions(ot_arena *a, const ot_tj_op *op)
{
	ot_map *m = ot_map_new();
	for (size_t i = 0; i < op->nsteps; i++) {
		const ot_step *s = &op->steps[i];
		const char *key;
		struct def *d;
		bool seen = false;
		if (!is_definition(s))
			continue;
		key = ot_arena_printf(a, "%s\t%s", ot_layer_name(s->layer), s->symbol);
		d = ot_map_get(m, key);
		if (!d) {
			d = ot_arena_alloc(a, sizeof(*d));
			d->layer = ot_layer_name(s->layer);
			d->symbol = s->symbol;
			ot_map_put(m, key, d);
		}
		for (size_t k = 0; k < d->steps.len; k++)
			seen |= !strcmp(d->steps.items[k]->file, s->file);
		if (!seen)
			ot_vec_push(&d->steps, s);
	}
	return m;
}

static void free_defs(ot_map *m)
{
	for (size_t i = 0; i < ot_map_len(m); i++) {
		struct def *d = ot_map_value_at(m, i);
		ot_vec_free(&d->steps);
	}
	ot_map_free(m);
}

static bool has_file(const struct def *d, const char *file)
{
	for (size_t k = 0; k < d->steps.len; k++)
		if (!strcmp(d->steps.items[k]->file, file))
			return true;
	return false;
}

/* Files of `d` that `other` does not have, joined. */
static const char *files_only(ot_arena *a, const struct def *d, const struct def *other,
			      const ot_step **first)
{
	ot_buf b = OT_BUF_INIT;
	const char *s;
	*first = NULL;
	for (size_t k = 0; k < d->steps.len; k++) {
		if (has_file(other, d->steps.items[k]->file))
			continue;
		if (!*first)
			*first = d->steps.items[k];
		ot_buf_printf(&b, "%s%s", b.size ? ", " : "", d->steps.items[k]->file);
	}
	s = b.size ? ot_arena_strdup(a, b.ptr) : NULL;
	ot_buf_free(&b);
	return s;
}

struct reg {
	const char *stub, *macro, *kernel;
	const ot_step *step;
};

typedef OT_VEC(struct reg) reg_vec;

/* The registrations op's trace lists, into out, and into `stubs` the stubs
 * it reaches itself (depth 0) whose registrations it lists: a stub the trace
 * stopped at says nothing about its registrations. */
static void registrations(ot_arena *a, const ot_tj_op *op, reg_vec *out, ot_map *stubs)
{
	ot_map *reached = ot_map_new();
	for (size_t i = 0; i < op->nsteps; i++) {
		const ot_step *s = &op->steps[i];
		struct reg r = {s->symbol, NULL, NULL, s};
		if (s->found && s->depth == 0 && s->layer == OT_LAYER_STUB)
			ot_map_put(reached, s->symbol, (void *)1);
		if (registration(a, s, &r.macro, &r.kernel))
			ot_vec_push(out, r);
	}
	for (size_t i = 0; i < out->len; i++)
		if (ot_map_get(reached, out->items[i].stub))
			ot_map_put(stubs, out->items[i].stub, (void *)1);
	ot_map_free(reached);
}

static const char *reg_text(ot_arena *a, const struct reg *r)
{
	if (*r->kernel)
		return ot_arena_printf(a, "%s(%s, &%s)", r->macro, r->stub, r->kernel);
	/* REGISTER_NO_CPU_DISPATCH(stub) says so by its name; REGISTER_DISPATCH(stub, nullptr) does not */
	return ot_arena_printf(a, strstr(r->macro, "_NO_") ? "%s(%s)" : "%s(%s, no kernel)", r->macro,
			       r->stub);
}

static void diff_moved(struct cmp *c, const ot_tj_op *o, const ot_tj_op *n)
{
	ot_map *dn = definitions(c->a, n), *d_o = definitions(c->a, o);
	reg_vec ro = {0}, rn = {0};
	ot_map *so = ot_map_new(), *sn = ot_map_new();
	bool *used_n, *used_o;

	for (size_t i = 0; i < ot_map_len(d_o); i++) {
		const struct def *a = ot_map_value_at(d_o, i);
		const struct def *b = ot_map_get(dn, ot_map_key_at(d_o, i));
		const ot_step *fa, *fb;
		const char *from, *to;
		ot_diff_item *it;
		if (!b)
			continue;
		from = files_only(c->a, a, b, &fa);
		to = files_only(c->a, b, a, &fb);
		if (!from || !to)
			continue; /* only gained or lost a place: not a move */
		/* one item per definition: ops that reach it share it (one_each) */
		item(c, "moved", a->symbol, from, to, false);
		it = &c->items.items[c->items.len - 1];
		it->layer = a->layer;
		it->old_loc = loc(fa->file, (int)fa->line);
		it->new_loc = loc(fb->file, (int)fb->line);
	}

	/* registrations of stubs both sides reach */
	registrations(c->a, o, &ro, so);
	registrations(c->a, n, &rn, sn);
	used_n = ot_calloc(rn.len + 1, sizeof(bool));
	used_o = ot_calloc(ro.len + 1, sizeof(bool));
	/* pair old and new registrations: identical ones first (no change), then
	 * one in the same file that kept its macro or its kernel, then the same
	 * registration in another file */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < ro.len; i++) {
			const struct reg *a = &ro.items[i];
			if (used_o[i] || !ot_map_get(sn, a->stub))
				continue;
			for (size_t j = 0; j < rn.len; j++) {
				const struct reg *b = &rn.items[j];
				bool same_file = !strcmp(a->step->file, b->step->file);
				bool same_macro = !strcmp(a->macro, b->macro);
				bool same_kernel = !strcmp(a->kernel, b->kernel);
				if (used_n[j] || strcmp(a->stub, b->stub))
					continue;
				if (pass == 0 ? !(same_file && same_macro && same_kernel)
				    : pass == 1 ? !(same_file && (same_macro || same_kernel))
						: !(same_macro && same_kernel && !same_file))
					continue;
				used_o[i] = used_n[j] = true;
				if (pass == 1)
					item(c, "registration-changed", a->step->file, reg_text(c->a, a),
					     reg_text(c->a, b), false);
				else if (pass == 2)
					item(c, "registration-moved", reg_text(c->a, a), a->step->file,
					     b->step->file, false);
				if (pass) {
					c->items.items[c->items.len - 1].old_loc =
						loc(a->step->file, (int)a->step->line);
					c->items.items[c->items.len - 1].new_loc =
						loc(b->step->file, (int)b->step->line);
				}
				break;
			}
		}
	}
	for (size_t i = 0; i < ro.len; i++) {
		const struct reg *a = &ro.items[i];
		if (used_o[i] || !ot_map_get(sn, a->stub))
			continue;
		item(c, "registration-removed", a->step->file, reg_text(c->a, a), NULL, false);
		c->items.items[c->items.len - 1].old_loc = loc(a->step->file, (int)a->step->line);
	}
	for (size_t j = 0; j < rn.len; j++) {
		const struct reg *b = &rn.items[j];
		if (used_n[j] || !ot_map_get(so, b->stub))
			continue;
		item(c, "registration-added", b->step->file, NULL, reg_text(c->a, b), false);
		c->items.items[c->items.len - 1].new_loc = loc(b->step->file, (int)b->step->line);
	}
	free(used_n);
	free(used_o);
	ot_vec_free(&ro);
	ot_vec_free(&rn);
	ot_map_free(so);
	ot_map_free(sn);
	free_defs(dn);
	free_defs(d_o);
}

/* ---- implementation changed --------------------------------------------------------------- */

struct body {
	const ot_step *step;
	const char *name; /* what the function is called: a meta function by
			     its overload (TORCH_META_FUNC2(mean, dim) is
			     mean.dim, not "dim") */
	bool paired;
};

typedef OT_VEC(struct body) body_vec;

/* The definitions on the op's main paths, with their code (fingerprinted
 * by the trace: body.h), each once. */
static void main_bodies(const ot_tj_op *op, body_vec *out)
{
	for (size_t i = 0; i < op->nsteps; i++) {
		const ot_step *s = &op->steps[i];
		struct body b = {s, s->layer == OT_LAYER_META && *s->op ? s->op : s->symbol, false};
		if (s->found && s->main && s->body)
			ot_vec_push(out, b);
	}
}

static void body_item(struct cmp *c, const struct body *x, const struct body *y)
{
	const ot_step *a = x->step, *b = y->step;
	ot_diff_item *it;
	if (ot_body_same(a->body, b->body))
		return;
	/* the places as file:line: overloads of one name in one file differ */
	item(c, "body-changed", x->name, ot_arena_printf(c->a, "%s:%u", a->file, a->line),
	     ot_arena_printf(c->a, "%s:%u", b->file, b->line), false);
	it = &c->items.items[c->items.len - 1];
	it->layer = ot_layer_name(b->layer);
	it->old_loc = loc(a->file, (int)a->line);
	it->new_loc = loc(b->file, (int)b->line);
	ot_body_compare(a->body, b->body, &it->added, &it->removed);
}

/* Pair each definition of the old main paths with the same function in
 * the new ones: the same name in the same file (one whose code is
 * unchanged first, then in file order, for overloads), then a name both
 * releases define once, in different files (it moved); report the pairs
 * whose code differs. */
static void diff_bodies(struct cmp *c, const ot_tj_op *o, const ot_tj_op *n)
{
	body_vec bo = {0}, bn = {0};
	main_bodies(o, &bo);
	main_bodies(n, &bn);
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < bo.len; i++) {
			struct body *a = &bo.items[i];
			struct body *only = NULL;
			size_t count = 0, count_old = 0;
			if (a->paired)
				continue;
			for (size_t j = 0; j < bn.len; j++) {
				struct body *b = &bn.items[j];
				bool same_file = !strcmp(a->step->file, b->step->file);
				if (b->paired || strcmp(a->name, b->name))
					continue;
				if (pass == 2) {
					only = b;
					count++;
					continue;
				}
				if (!same_file || (pass == 0 && !ot_body_same(a->step->body, b->step->body)))
					continue;
				a->paired = b->paired = true;
				body_item(c, a, b);
				break;
			}
			if (pass != 2 || count != 1)
				continue;
			for (size_t k = 0; k < bo.len; k++)
				count_old += !bo.items[k].paired && !strcmp(bo.items[k].name, a->name);
			if (count_old == 1 && strcmp(a->step->file, only->step->file)) {
				a->paired = only->paired = true;
				body_item(c, a, only);
			}
		}
	ot_vec_free(&bo);
	ot_vec_free(&bn);
}

/* ---- GPU libraries ------------------------------------------------------------------------ */

#define UFUNC_LIB "generated ufunc kernel"

/* Is step i on the op's forward CUDA main path (a schema-3 trace marks it;
 * below a backward step is the backward's)? */
static bool cuda_main(const ot_tj_op *op, size_t i)
{
	if (!(op->steps[i].main & OT_MAIN_CUDA))
		return false;
	for (int k = (int)i; k >= 0 && (size_t)k < op->nsteps; k = op->steps[k].parent)
		if (op->steps[k].layer == OT_LAYER_BACKWARD)
			return false;
	return true;
}

/* The library step i of the op's trace says does GPU work, or NULL: a step
 * of the CUDA main path, or of the op's own trace for a file without main
 * marks (schema 2). */
static const char *step_lib(ot_arena *a, const ot_tj_op *op, size_t i, bool marked)
{
	const ot_step *s = &op->steps[i];
	const char *colon;
	if (!s->found || (marked ? !cuda_main(op, i) : s->depth != 0))
		return NULL;
	if (strstr(s->file, "/cudnn/"))
		return "cuDNN";
	if (s->layer != OT_LAYER_CUDA || ot_starts_with(s->note, "__global__"))
		return NULL;
	if (ot_starts_with(s->note, OT_NOTE_LAUNCH))
		return OT_GPU_CUSTOM_KERNEL;
	colon = strstr(s->note, ": ");
	return colon ? ot_arena_strndup(a, s->note, (size_t)(colon - s->note)) : NULL;
}

static bool is_generic_kernel(const char *lib)
{
	return !strcmp(lib, OT_GPU_CUSTOM_KERNEL) || !strcmp(lib, OT_GPU_TI_KERNEL);
}

static ot_map *gpu_libs(ot_arena *a, const ot_tj_op *op, const struct side *sd, const ot_strvec *ovs)
{
	ot_map *m = ot_map_new();
	bool marked = false;
	for (size_t i = 0; i < op->nsteps && !marked; i++)
		marked = op->steps[i].main != 0;
	for (size_t i = 0; i < op->nsteps; i++) {
		const char *lib = step_lib(a, op, i, marked);
		/* UFUNC_LIB comes from the registry only: its value is an entry */
		if (lib && strcmp(lib, UFUNC_LIB) != 0 && !ot_map_get(m, lib))
			ot_map_put(m, lib, (void *)&op->steps[i]);
	}
	/* ufunc_inner_loop: torchgen writes the CPU and CUDA kernels (known from
	 * the registry: only when both sides have it, to compare like with like) */
	for (size_t i = 0; sd && i < ovs->len; i++) {
		const ot_reg_func *f = entry(sd, ovs->items[i]);
		const ot_reg_func *e = f && f->structured_delegate ? entry(sd, f->structured_delegate) : f;
		if (e && e->nufunc_inner_loop && !ot_map_get(m, UFUNC_LIB))
			ot_map_put(m, UFUNC_LIB, (void *)e);
	}
	return m;
}

static const char *sorted_keys(ot_arena *a, const ot_map *m)
{
	size_t n = ot_map_len(m);
	const char **k = ot_calloc(n + 1, sizeof(*k));
	const char *s;
	for (size_t i = 0; i < n; i++)
		k[i] = ot_map_key_at(m, i);
	if (n)
		qsort(k, n, sizeof(*k), ot_strptr_cmp);
	s = n ? joined(a, k, n, ", ") : NULL;
	free(k);
	return s;
}

/* Where a library shows in a side: its step, or the ufunc entry's line. */
static ot_diff_loc lib_loc(const ot_map *m, const char *lib)
{
	const void *p = ot_map_get(m, lib);
	if (!strcmp(lib, UFUNC_LIB)) {
		const ot_reg_func *f = p;
		return loc(OT_REGISTRY_NATIVE_PATH, f->line);
	}
	return loc(((const ot_step *)p)->file, (int)((const ot_step *)p)->line);
}

static void diff_gpu(struct cmp *c, const ot_tj_op *o, const struct side *so, const ot_tj_op *n,
		     const struct side *sn, const ot_strvec *ovs)
{
	bool reg = o->has_registry && n->has_registry;
	ot_map *lo = gpu_libs(c->a, o, reg ? so : NULL, ovs), *ln = gpu_libs(c->a, n, reg ? sn : NULL, ovs);
	bool same = true;
	/* compared: the named libraries; whether the tracer reaches a hand-written
	 * or TensorIterator kernel varies with helper depth, not with the release */
	for (size_t i = 0; same && i < ot_map_len(lo); i++)
		same = is_generic_kernel(ot_map_key_at(lo, i)) || ot_map_get(ln, ot_map_key_at(lo, i));
	for (size_t i = 0; same && i < ot_map_len(ln); i++)
		same = is_generic_kernel(ot_map_key_at(ln, i)) || ot_map_get(lo, ot_map_key_at(ln, i));
	if (!same) {
		item(c, "gpu-libraries", NULL, sorted_keys(c->a, lo), sorted_keys(c->a, ln), false);
		for (size_t i = 0; i < ot_map_len(lo) && !c->cur.old_loc.file; i++)
			if (!ot_map_get(ln, ot_map_key_at(lo, i)) && !is_generic_kernel(ot_map_key_at(lo, i)))
				c->cur.old_loc = lib_loc(lo, ot_map_key_at(lo, i));
		for (size_t i = 0; i < ot_map_len(ln) && !c->cur.new_loc.file; i++)
			if (!ot_map_get(lo, ot_map_key_at(ln, i)) && !is_generic_kernel(ot_map_key_at(ln, i)))
				c->cur.new_loc = lib_loc(ln, ot_map_key_at(ln, i));
		/* a library replaced by a kernel: point at the kernel */
		for (size_t i = 0; i < ot_map_len(ln) && !c->cur.new_loc.file; i++)
			if (!ot_map_get(lo, ot_map_key_at(ln, i)))
				c->cur.new_loc = lib_loc(ln, ot_map_key_at(ln, i));
		for (size_t i = 0; i < ot_map_len(lo) && !c->cur.old_loc.file; i++)
			if (!ot_map_get(ln, ot_map_key_at(lo, i)))
				c->cur.old_loc = lib_loc(lo, ot_map_key_at(lo, i));
	}
	ot_map_free(lo);
	ot_map_free(ln);
}

/* ---- one op ------------------------------------------------------------------------------- */

static bool present(const ot_tj_op *op)
{
	return op && (op->status == OT_STATUS_TRACED || op->status == OT_STATUS_WELLKNOWN);
}

/* The first place a side's trace names: its root step, else its first entry. */
static ot_diff_loc op_loc(const ot_tj_op *op)
{
	for (size_t i = 0; i < op->nsteps; i++)
		if (op->steps[i].found)
			return loc(op->steps[i].file, (int)op->steps[i].line);
	if (op->nregistry)
		return loc(OT_REGISTRY_NATIVE_PATH, op->registry[0]->line);
	return loc(NULL, 0);
}

/* Add `s` (borrowed) to `v` unless `set` (what v holds) has it: an op can
 * name 200,000 overloads. */
static void strvec_add(ot_strvec *v, ot_map *set, const char *s)
{
	if (ot_map_get(set, s))
		return;
	ot_map_put(set, s, (void *)1);
	ot_vec_push(v, s);
}

/* An overload of `input` that one release has (f, in it) and the other not. */
static void overload_change(struct cmp *c, const char *input, const ot_reg_func *f, bool removed)
{
	begin(c, removed ? OT_DIFF_REMOVED : OT_DIFF_ADDED, input, f->schema.full);
	item(c, removed ? "overload-removed" : "overload-added", f->schema.full, removed ? f->func : NULL,
	     removed ? NULL : f->func, removed);
	if (removed)
		c->cur.old_loc = loc(OT_REGISTRY_NATIVE_PATH, f->line);
	else
		c->cur.new_loc = loc(OT_REGISTRY_NATIVE_PATH, f->line);
	end(c);
}

/* An aten input ("aten::X.vec") found in one release only is its overloads
 * removed (added): the same changes as another op that reaches them, so
 * a removal is reported once. False when the registry does not know them. */
static bool overloads_changed(struct cmp *c, const char *input, const ot_tj_op *here, bool removed)
{
	struct side sh;
	bool known = here->has_registry && here->strategy && !strcmp(here->strategy, "aten") &&
		     here->aten.len > 0;
	if (!known)
		return false;
	side_init(&sh, here);
	for (size_t i = 0; i < here->aten.len && known; i++)
		known = entry(&sh, here->aten.items[i]) != NULL;
	for (size_t i = 0; i < here->aten.len && known; i++) {
		const char *ov = here->aten.items[i];
		/* the other release may have it under another input (--all lists
		 * frobenius_norm.dim apart from frobenius_norm) */
		if (ot_map_get(c->autogen[removed ? 1 : 0], ov) || ot_map_get(c->known[removed ? 1 : 0], ov))
			continue;
		overload_change(c, input, entry(&sh, ov), removed);
		c->changed = true;
	}
	side_free(&sh);
	return known;
}

static void compare_op(struct cmp *c, const char *input, const ot_tj_op *o, const ot_tj_op *n)
{
	struct side so, sn;
	ot_strvec ovs = {0}, dels = {0};
	ot_map *in_ovs, *in_dels;

	if (!present(o) || !present(n)) {
		bool removed = present(o);
		const ot_tj_op *here = removed ? o : n;
		bool generated = here->aten.len > 0;
		/* written out in one release, generated from another entry's
		 * `autogen:` in the other: the op exists in both */
		for (size_t i = 0; i < here->aten.len; i++)
			generated &= ot_map_get(c->autogen[removed ? 1 : 0], here->aten.items[i]) != NULL;
		if (generated) {
			c->generated = true;
			return;
		}
		c->changed = false;
		if (overloads_changed(c, input, here, removed)) {
			/* every overload is in the other release, under other inputs */
			c->elsewhere = !c->changed;
			return;
		}
		begin(c, removed ? OT_DIFF_REMOVED : OT_DIFF_ADDED, input, "");
		item(c, removed ? "op-removed" : "op-added", input, NULL, NULL, removed);
		if (removed)
			c->cur.old_loc = op_loc(o);
		else
			c->cur.new_loc = op_loc(n);
		end(c);
		return;
	}
	side_init(&so, o);
	side_init(&sn, n);
	in_ovs = ot_map_new();
	in_dels = ot_map_new();
	for (size_t i = 0; i < o->aten.len; i++)
		strvec_add(&ovs, in_ovs, o->aten.items[i]);
	for (size_t i = 0; i < n->aten.len; i++)
		strvec_add(&ovs, in_ovs, n->aten.items[i]);

	if (o->has_registry && n->has_registry) {
		for (size_t i = 0; i < ovs.len; i++) {
			const char *ov = ovs.items[i];
			const ot_reg_func *fo = entry(&so, ov), *fn = entry(&sn, ov);
			/* an overload written out on one side and generated (autogen:) on
			 * the other exists in both releases */
			if (fo && !fn && ot_map_get(sn.names, fo->schema.name) && !ot_map_get(sn.autogen, ov))
				overload_change(c, input, fo, true);
			else if (fn && !fo && ot_map_get(so.names, fn->schema.name) &&
				 !ot_map_get(so.autogen, ov))
				overload_change(c, input, fn, false);
			if (!fo || !fn)
				continue;
			begin(c, OT_DIFF_SCHEMA, input, ov);
			diff_schema(c, fo, fn);
			c->cur.old_loc = loc(OT_REGISTRY_NATIVE_PATH, fo->line);
			c->cur.new_loc = loc(OT_REGISTRY_NATIVE_PATH, fn->line);
			end(c);
			begin(c, OT_DIFF_BACKWARD, input, ov);
			diff_backward(c, fo, fn);
			end(c);
			if (fo->structured_delegate)
				strvec_add(&dels, in_dels, fo->structured_delegate);
			if (fn->structured_delegate)
				strvec_add(&dels, in_dels, fn->structured_delegate);
		}
		/* dispatch: the overloads, then the delegates that compute them */
		for (size_t i = 0; i < dels.len; i++)
			strvec_add(&ovs, in_ovs, dels.items[i]);
		for (size_t i = 0; i < ovs.len; i++) {
			const ot_reg_func *fo = entry(&so, ovs.items[i]), *fn = entry(&sn, ovs.items[i]);
			if (!fo || !fn)
				continue;
			begin(c, OT_DIFF_DISPATCH, input, ovs.items[i]);
			diff_dispatch(c, fo, fn, o, n);
			c->cur.old_loc = loc(OT_REGISTRY_NATIVE_PATH, fo->line);
			c->cur.new_loc = loc(OT_REGISTRY_NATIVE_PATH, fn->line);
			end(c);
		}
	} else {
		c->d->no_registry = true;
	}

	/* what the traces found: only when both went through the source */
	if (o->status == OT_STATUS_TRACED && n->status == OT_STATUS_TRACED) {
		begin(c, OT_DIFF_MOVED, input, "");
		diff_moved(c, o, n);
		one_each(c);
		begin(c, OT_DIFF_IMPL, input, "");
		diff_bodies(c, o, n);
		one_each(c);
		begin(c, OT_DIFF_GPU, input, "");
		diff_gpu(c, o, &so, n, &sn, &ovs);
		end(c);
	}
	ot_vec_free(&ovs);
	ot_vec_free(&dels);
	ot_map_free(in_ovs);
	ot_map_free(in_dels);
	side_free(&so);
	side_free(&sn);
}

/* ---- the diff ----------------------------------------------------------------------------- */

static int cmp_change(const void *pa, const void *pb)
{
	const ot_diff_change *a = pa, *b = pb;
	int r;
	if (a->breaking != b->breaking)
		return a->breaking ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if ((r = strcmp(a->op, b->op)))
		return r;
	if ((r = strcmp(a->overload, b->overload)))
		return r;
	/* several changes of one op in one class (definitions): by name, then place */
	if (a->nitems && b->nitems && (r = strcmp(a->items[0].subject ? a->items[0].subject : "",
						    b->items[0].subject ? b->items[0].subject : "")))
		return r;
	if ((r = strcmp(a->new_loc.file ? a->new_loc.file : "", b->new_loc.file ? b->new_loc.file : "")))
		return r;
	if (a->new_loc.line != b->new_loc.line)
		return a->new_loc.line < b->new_loc.line ? -1 : 1;
	if ((r = strcmp(a->old_loc.file ? a->old_loc.file : "", b->old_loc.file ? b->old_loc.file : "")))
		return r;
	return a->old_loc.line < b->old_loc.line ? -1 : a->old_loc.line > b->old_loc.line;
}

/* ---- one change per fact ------------------------------------------------------------------ */

static void key_str(ot_buf *b, char sep, const char *s)
{
	ot_buf_putc(b, sep);
	ot_buf_puts(b, s ? s : "\x01"); /* NULL is not "" */
}

/* What makes the changes of two ops one: the class, the overload and the
 * items, not their places (one op's trace may have found a definition
 * another's did not). An op (not an overload) added or removed is its
 * own; a GPU library change is one where both traces show it in the same
 * places. */
static const char *change_key(ot_arena *a, const ot_diff_change *ch)
{
	ot_buf b = OT_BUF_INIT;
	const char *k;
	ot_buf_printf(&b, "%d", (int)ch->cls);
	key_str(&b, '\x1d', ch->overload);
	if (!*ch->overload && (ch->cls == OT_DIFF_REMOVED || ch->cls == OT_DIFF_ADDED))
		key_str(&b, '\x1d', ch->op);
	if (ch->cls == OT_DIFF_GPU || ch->cls == OT_DIFF_IMPL) {
		ot_buf_printf(&b, "\x1d%s:%u", ch->old_loc.file ? ch->old_loc.file : "", ch->old_loc.line);
		ot_buf_printf(&b, "\x1d%s:%u", ch->new_loc.file ? ch->new_loc.file : "", ch->new_loc.line);
	}
	for (size_t i = 0; i < ch->nitems; i++) {
		const ot_diff_item *it = &ch->items[i];
		key_str(&b, '\x1e', it->what);
		key_str(&b, '\x1f', it->subject);
		key_str(&b, '\x1f', it->layer);
		key_str(&b, '\x1f', it->old);
		key_str(&b, '\x1f', it->new);
	}
	k = ot_arena_strdup(a, b.ptr);
	ot_buf_free(&b);
	return k;
}

static void fill_loc(ot_diff_loc *to, const ot_diff_loc *from)
{
	if (!to->file && from->file)
		*to = *from;
}

/* Merge `add` (changes of one op each, in input order) into one change
 * per fact, each with the ops it affects (in input order, so sorted). */
static void merge_changes(ot_arena *a, change_vec *out, const change_vec *add)
{
	ot_map *seen = ot_map_new(); /* key -> 1 + index in out */
	OT_VEC(ot_strvec) ops = {0};
	for (size_t i = 0; i < add->len; i++) {
		const ot_diff_change *ch = &add->items[i];
		const char *k = change_key(a, ch);
		size_t at = (size_t)(uintptr_t)ot_map_get(seen, k);
		ot_diff_change *u;
		if (!at) {
			ot_strvec none = {0};
			ot_vec_push(out, *ch);
			ot_vec_push(&ops, none);
			at = out->len;
			ot_map_put(seen, k, (void *)(uintptr_t)at);
		}
		u = &out->items[at - 1];
		if (!ops.items[at - 1].len || strcmp(ops.items[at - 1].items[ops.items[at - 1].len - 1], ch->op))
			ot_vec_push(&ops.items[at - 1], ch->op);
		fill_loc(&u->old_loc, &ch->old_loc);
		fill_loc(&u->new_loc, &ch->new_loc);
		for (size_t k2 = 0; k2 < u->nitems; k2++) {
			fill_loc(&u->items[k2].old_loc, &ch->items[k2].old_loc);
			fill_loc(&u->items[k2].new_loc, &ch->items[k2].new_loc);
		}
	}
	for (size_t i = 0; i < out->len; i++) {
		out->items[i].nops = ops.items[i].len;
		out->items[i].ops = ot_arena_alloc(a, ops.items[i].len * sizeof(char *));
		memcpy(out->items[i].ops, ops.items[i].items, ops.items[i].len * sizeof(char *));
		out->items[i].op = out->items[i].ops[0];
		ot_vec_free(&ops.items[i]);
	}
	ot_vec_free(&ops);
	ot_map_free(seen);
}

struct moved_def {
	const char *symbol;
	ot_diff_loc old_loc, new_loc;
};

static int cmp_moved_def(const void *pa, const void *pb)
{
	return strcmp(((const struct moved_def *)pa)->symbol, ((const struct moved_def *)pb)->symbol);
}

/* Definitions that moved between the same files, reached by the same ops,
 * are one row: "matmul_nested, matmul_out_nested: A -> B" (sorted, linked
 * at the first). */
static void group_moves(ot_arena *a, change_vec *v)
{
	typedef OT_VEC(struct moved_def) def_vec;
	ot_map *groups = ot_map_new(); /* layer, files, ops -> 1 + index */
	OT_VEC(def_vec) defs = {0};     /* per kept change: the definitions of its group */
	size_t kept = 0;
	for (size_t i = 0; i < v->len; i++) {
		ot_diff_change *ch = &v->items[i];
		struct moved_def md = {ch->items[0].subject, ch->old_loc, ch->new_loc};
		def_vec none = {0};
		ot_buf b = OT_BUF_INIT;
		size_t at;
		if (ch->cls == OT_DIFF_MOVED && ch->nitems == 1 && !strcmp(ch->items[0].what, "moved")) {
			ot_buf_printf(&b, "%s\x1f%s\x1f%s", ch->items[0].layer, ch->items[0].old,
				      ch->items[0].new);
			for (size_t k = 0; k < ch->nops; k++)
				key_str(&b, '\x1e', ch->ops[k]);
			at = (size_t)(uintptr_t)ot_map_get(groups, b.ptr);
			if (at) {
				ot_vec_push(&defs.items[at - 1], md);
				ot_buf_free(&b);
				continue;
			}
			ot_map_put(groups, ot_arena_strdup(a, b.ptr), (void *)(uintptr_t)(kept + 1));
			ot_vec_push(&none, md);
		}
		ot_buf_free(&b);
		v->items[kept++] = *ch;
		ot_vec_push(&defs, none);
	}
	v->len = kept;
	for (size_t i = 0; i < kept; i++) {
		def_vec *g = &defs.items[i];
		if (g->len > 1) {
			ot_buf b = OT_BUF_INIT;
			qsort(g->items, g->len, sizeof(*g->items), cmp_moved_def);
			for (size_t k = 0; k < g->len; k++)
				ot_buf_printf(&b, "%s%s", k ? ", " : "", g->items[k].symbol);
			v->items[i].items[0].subject = ot_arena_strdup(a, b.ptr);
			v->items[i].old_loc = g->items[0].old_loc;
			v->items[i].new_loc = g->items[0].new_loc;
			ot_buf_free(&b);
		}
		ot_vec_free(g);
	}
	ot_vec_free(&defs);
	ot_map_free(groups);
}

static int index_ops(ot_map **out, const ot_tj_doc *doc, const char *side)
{
	ot_map *m = ot_map_new();
	for (size_t i = 0; i < doc->ops.len; i++) {
		const ot_tj_op *op = &doc->ops.items[i];
		if (ot_map_put(m, op->input, (void *)op)) {
			ot_map_free(m);
			return ot_error_set("%s release %s: '%s' is listed twice", side, doc->version,
					    op->input);
		}
	}
	*out = m;
	return 0;
}

int ot_diff_compare(ot_diff **out, const ot_tj_doc *old, const ot_tj_doc *new)
{
	ot_diff *d = ot_calloc(1, sizeof(*d));
	struct cmp c = {0};
	change_vec merged = {0};
	ot_map *mo = NULL, *mn = NULL;
	ot_strvec inputs = {0}, unchanged = {0};
	OT_VEC(ot_diff_skip) skipped = {0};
	int rc;

	*out = NULL;
	d->arena = ot_arena_new();
	c.d = d;
	c.a = d->arena;
	if ((rc = index_ops(&mo, old, "old")) < 0 || (rc = index_ops(&mn, new, "new")) < 0)
		goto done;
	for (int s = 0; s < 2; s++) {
		const ot_tj_doc *doc = s ? new : old;
		c.autogen[s] = ot_map_new();
		c.known[s] = ot_map_new();
		for (size_t i = 0; i < doc->ops.len; i++)
			for (size_t k = 0; k < doc->ops.items[i].nregistry; k++) {
				const ot_reg_func *f = doc->ops.items[i].registry[k];
				ot_map_put(c.known[s], f->schema.full, (void *)f);
				for (size_t g = 0; g < f->nautogen; g++)
					ot_map_put(c.autogen[s], f->autogen[g], (void *)f);
			}
	}
	for (size_t i = 0; i < ot_map_len(mo); i++)
		ot_vec_push(&inputs, ot_map_key_at(mo, i));
	for (size_t i = 0; i < ot_map_len(mn); i++)
		if (!ot_map_get(mo, ot_map_key_at(mn, i)))
			ot_vec_push(&inputs, ot_map_key_at(mn, i));
	if (inputs.len)
		qsort(inputs.items, inputs.len, sizeof(*inputs.items), ot_strptr_cmp);
	d->nops = inputs.len;
	for (size_t i = 0; i < inputs.len; i++) {
		const ot_tj_op *o = ot_map_get(mo, inputs.items[i]), *n = ot_map_get(mn, inputs.items[i]);
		size_t before = c.changes.len;
		if (!present(o) && !present(n)) {
			const ot_tj_op *any = o ? o : n;
			ot_diff_skip sk = {inputs.items[i], NULL};
			if (o && n && o->status == OT_STATUS_NOTFOUND && n->status == OT_STATUS_NOTFOUND)
				sk.reason = "not found in either release";
			else if (o && n)
				sk.reason = ot_arena_printf(d->arena, "not traced in either release (%s, %s)",
							    ot_status_name(o->status), ot_status_name(n->status));
			else
				sk.reason = ot_arena_printf(d->arena, "listed in the %s release only, %s there",
							    o ? "old" : "new", ot_status_name(any->status));
			ot_vec_push(&skipped, sk);
			continue;
		}
		/* a trace.json written without --full did not trace it: nothing to
		 * compare (its registry entries alone would pass for "unchanged") */
		if ((o && o->status == OT_STATUS_WELLKNOWN) || (n && n->status == OT_STATUS_WELLKNOWN)) {
			bool wo = o && o->status == OT_STATUS_WELLKNOWN, wn = n && n->status == OT_STATUS_WELLKNOWN;
			ot_diff_skip sk = {inputs.items[i],
					   wo && wn ? "well-known in both trace.json files (written without "
						      "--full): not traced"
					   : wo	    ? "well-known in the old trace.json (written without --full): "
						      "not traced"
						    : "well-known in the new trace.json (written without --full): "
						      "not traced"};
			d->wellknown_side[0] |= wo;
			d->wellknown_side[1] |= wn;
			d->wellknown_skipped++;
			ot_vec_push(&skipped, sk);
			continue;
		}
		c.generated = c.elsewhere = false;
		compare_op(&c, inputs.items[i], o, n);
		if (c.elsewhere) {
			ot_diff_skip sk = {inputs.items[i], o && present(o)
						? "listed in the old release only; its overloads are in the new "
						  "one, under other inputs"
						: "listed in the new release only; its overloads are in the old "
						  "one, under other inputs"};
			ot_vec_push(&skipped, sk);
			continue;
		}
		if (c.generated) {
			ot_diff_skip sk = {inputs.items[i], o && present(o)
						? "generated from another entry's autogen: in the new release"
						: "generated from another entry's autogen: in the old release"};
			ot_vec_push(&skipped, sk);
			continue;
		}
		if (c.changes.len == before)
			ot_vec_push(&unchanged, inputs.items[i]);
		else
			d->changed_ops++;
	}
	merge_changes(d->arena, &merged, &c.changes);
	group_moves(d->arena, &merged);
	if (merged.len)
		qsort(merged.items, merged.len, sizeof(*merged.items), cmp_change);
	for (size_t i = 0; i < merged.len; i++) {
		d->counts[merged.items[i].cls]++;
		if (merged.items[i].breaking) {
			d->breaking[merged.items[i].cls]++;
			d->nbreaking++;
		}
	}
	d->nchanges = merged.len;
	d->changes = ot_arena_alloc(d->arena, (d->nchanges + 1) * sizeof(*d->changes));
	if (d->nchanges)
		memcpy(d->changes, merged.items, d->nchanges * sizeof(*d->changes));
	d->nunchanged = unchanged.len;
	d->unchanged = ot_arena_alloc(d->arena, (unchanged.len + 1) * sizeof(*d->unchanged));
	if (unchanged.len)
		memcpy(d->unchanged, unchanged.items, unchanged.len * sizeof(*d->unchanged));
	d->nskipped = skipped.len;
	d->skipped = ot_arena_alloc(d->arena, (skipped.len + 1) * sizeof(*d->skipped));
	if (skipped.len)
		memcpy(d->skipped, skipped.items, skipped.len * sizeof(*d->skipped));
	*out = d;
	d = NULL;
done:
	ot_diff_free(d);
	ot_vec_free(&c.changes);
	ot_vec_free(&merged);
	ot_vec_free(&c.items);
	ot_vec_free(&inputs);
	ot_vec_free(&unchanged);
	ot_vec_free(&skipped);
	ot_map_free(mo);
	ot_map_free(mn);
	ot_map_free(c.autogen[0]);
	ot_map_free(c.autogen[1]);
	ot_map_free(c.known[0]);
	ot_map_free(c.known[1]);
	return rc;
}

void ot_diff_free(ot_diff *d)
{
	if (!d)
		return;
	ot_arena_free(d->arena);
	free(d);
}

/* ---- text of an item ----------------------------------------------------------------------- */

#define MD_VALUE_MAX 120

/* A code span (escape.h). In Markdown table cells long values are cut (at
 * a UTF-8 boundary) with an ellipsis; the JSON text keeps them whole. */
static void code(ot_buf *b, const char *s, bool md)
{
	size_t len = s ? strlen(s) : 0, cut = len;
	ot_buf t = OT_BUF_INIT;
	if (!s || !*s) {
		ot_buf_puts(b, "(none)");
		return;
	}
	if (md && len > MD_VALUE_MAX) {
		cut = MD_VALUE_MAX;
		while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
			cut--;
	}
	ot_buf_put(&t, s, cut);
	if (cut < len)
		ot_buf_puts(&t, "…");
	ot_esc_md_code(b, t.ptr, t.size, md);
	ot_buf_free(&t);
}

/* Text of a trace.json as Markdown prose (escape.h). */
static void text(ot_buf *b, const char *s)
{
	ot_esc_md_text(b, s, strlen(s));
}

static void code_aten(ot_buf *b, const char *name, bool md)
{
	ot_buf t = OT_BUF_INIT;
	ot_buf_printf(&t, "aten::%s", name);
	code(b, t.ptr, md);
	ot_buf_free(&t);
}

/* "old → new"; a missing value is written `none` ("(no default)", ...). */
static void from_to_or(ot_buf *b, const ot_diff_item *it, bool md, const char *none)
{
	if (it->old)
		code(b, it->old, md);
	else
		ot_buf_puts(b, none);
	ot_buf_puts(b, " → ");
	if (it->new)
		code(b, it->new, md);
	else
		ot_buf_puts(b, none);
}

static void from_to(ot_buf *b, const ot_diff_item *it, bool md)
{
	from_to_or(b, it, md, "(none)");
}

/* Kinds written "label: old → new", or "`subject` label: old → new". */
static const char *from_to_label(const char *what, bool *with_subject)
{
	static const struct {
		const char *what, *label;
		bool subject;
	} labels[] = {
		{"argument-renamed", "argument renamed", false},
		{"argument-order-changed", "argument order", false},
		{"returns-changed", "returns", false},
		{"python-module-changed", "python_module", false},
		{"structured-changed", "structured", false},
		{"delegate-changed", "structured_delegate", false},
		{"inherits-changed", "structured_inherits", false},
		{"ufunc-changed", "ufunc_inner_loop", false},
		{"output-differentiability-changed", "output_differentiability", false},
		{"argument-retyped", "type", true},
		{"argument-widened", "type widened", true},
		{"alias-changed", "alias annotation", true},
		{"default-changed", "default", true},
		{"kernel-renamed", "kernel", true},
		{"registration-moved", "", true},
	};
	for (size_t i = 0; i < OT_ARRAY_LEN(labels); i++) {
		if (!strcmp(labels[i].what, what)) {
			*with_subject = labels[i].subject;
			return labels[i].label;
		}
	}
	return NULL;
}

/* One sentence per item kind. */
static void item_text(ot_buf *b, const ot_diff_item *it, bool md)
{
	const char *w = it->what, *label;
	bool with_subject = false;
#define IS(x) (!strcmp(w, x))
	if (IS("op-removed") || IS("op-added")) {
		ot_buf_puts(b, IS("op-removed") ? "not found in the new release"
						: "not found in the old release");
	} else if (IS("overload-removed")) {
		ot_buf_puts(b, "overload ");
		code_aten(b, it->subject, md);
		ot_buf_puts(b, " removed");
	} else if (IS("overload-added")) {
		ot_buf_puts(b, "overload added: ");
		code(b, it->new, md);
	} else if (IS("argument-removed")) {
		ot_buf_puts(b, "argument ");
		code(b, it->old, md);
		ot_buf_puts(b, " removed");
	} else if (IS("argument-added") || IS("keyword-argument-added")) {
		ot_buf_puts(b, IS("argument-added") ? "argument " : "keyword-only argument ");
		code(b, it->new, md);
		ot_buf_puts(b, " added");
	} else if (IS("keyword-only-changed")) {
		code(b, it->subject, md);
		ot_buf_puts(b, " is now ");
		text(b, it->new ? it->new : "");
	} else if (IS("variant-added") || IS("variant-removed")) {
		text(b, it->subject ? it->subject : "");
		ot_buf_printf(b, " variant %s", IS("variant-added") ? "added" : "removed");
	} else if ((label = from_to_label(w, &with_subject))) {
		if (with_subject) {
			code(b, it->subject, md);
			ot_buf_printf(b, "%s%s: ", *label ? " " : "", label);
		} else {
			ot_buf_printf(b, "%s: ", label);
		}
		from_to_or(b, it, md, IS("default-changed") ? "(no default)" : "(none)");
	} else if (IS("composite-changed")) {
		if (it->old && it->new) {
			from_to(b, it, md);
		} else {
			ot_buf_puts(b, it->new ? "now " : "no longer ");
			code(b, it->new ? it->new : it->old, md);
		}
	} else if (IS("keys-added")) {
		ot_buf_puts(b, "dispatch keys added: ");
		code(b, it->subject, md);
		if (it->new) {
			ot_buf_puts(b, " → ");
			code(b, it->new, md);
		}
	} else if (IS("keys-removed")) {
		ot_buf_puts(b, "dispatch keys removed: ");
		code(b, it->subject, md);
		if (it->old) {
			ot_buf_puts(b, " (was ");
			code(b, it->old, md);
			ot_buf_puts(b, ")");
		}
	} else if (IS("moved")) {
		text(b, it->layer ? it->layer : "");
		ot_buf_putc(b, ' ');
		code(b, it->subject, md);
		ot_buf_puts(b, ": ");
		from_to(b, it, md);
	} else if (IS("registration-changed")) {
		ot_buf_puts(b, "stub registration ");
		from_to(b, it, md);
		ot_buf_puts(b, " in ");
		code(b, it->subject, md);
	} else if (IS("registration-added") || IS("registration-removed")) {
		ot_buf_puts(b, "stub registration ");
		code(b, IS("registration-added") ? it->new : it->old, md);
		ot_buf_printf(b, " %s ", IS("registration-added") ? "added in" : "removed from");
		code(b, it->subject, md);
	} else if (IS("derivative-added") || IS("derivative-removed")) {
		ot_buf_printf(b, "derivatives.yaml entry %s", IS("derivative-added") ? "added" : "removed");
	} else if (IS("formula-added") || IS("forward-formula-added")) {
		ot_buf_puts(b, IS("formula-added") ? "formula added: " : "forward-mode formula added: ");
		code(b, it->subject, md);
		ot_buf_puts(b, ": ");
		code(b, it->new, md);
	} else if (IS("formula-removed") || IS("forward-formula-removed")) {
		ot_buf_puts(b, IS("formula-removed") ? "formula removed: " : "forward-mode formula removed: ");
		code(b, it->subject, md);
	} else if (IS("formula-changed") || IS("forward-formula-changed")) {
		ot_buf_puts(b, IS("formula-changed") ? "formula " : "forward-mode formula ");
		code(b, it->subject, md);
		ot_buf_puts(b, ": ");
		from_to(b, it, md);
	} else if (IS("body-changed")) {
		text(b, it->layer ? it->layer : "");
		ot_buf_putc(b, ' ');
		code(b, it->subject, md);
		if (it->old && it->new && strcspn(it->old, ":") == strcspn(it->new, ":") &&
		    !strncmp(it->old, it->new, strcspn(it->old, ":"))) {
			ot_buf_puts(b, " at ");
			code(b, it->new, md);
		} else {
			ot_buf_puts(b, ", moved: ");
			from_to(b, it, md);
		}
		ot_buf_printf(b, ": +%u −%u statements", it->added, it->removed);
	} else if (IS("gpu-libraries")) {
		ot_buf_puts(b, "GPU work: ");
		from_to_or(b, it, md, "(none found)");
	} else {
		text(b, w);
	}
#undef IS
}

/* ---- links -------------------------------------------------------------------------------- */

#define DEFAULT_BASE_URL "https://github.com/pytorch/pytorch/blob"

/* BASE/<tag or commit>/<path>#L<line>, or "" when the side cannot be linked
 * (no base URL, an unverified tree, no place). */
static void url_of(ot_buf *b, const ot_tj_doc *doc, const ot_diff_loc *l, const char *base)
{
	ot_buf enc = OT_BUF_INIT;
	const char *ref = doc->tag ? doc->tag : doc->verified ? doc->commit : NULL;
	ot_buf_clear(b);
	if (!base)
		base = DEFAULT_BASE_URL;
	if (!*base || !ref || !*ref || !l->file)
		return;
	/* the tag comes from a trace.json too: encoded like the path, so no
	 * text of a file can end the link or start markup */
	ot_esc_url(b, base, strlen(base));
	ot_buf_putc(b, '/');
	ot_buf_clear(&enc);
	ot_esc_url_path(&enc, ref, strlen(ref));
	for (size_t i = 0; i < enc.size; i++) /* a '/' in a tag is not a folder */
		if (enc.ptr[i] == '/')
			ot_buf_puts(b, "%2F");
		else
			ot_buf_putc(b, enc.ptr[i]);
	ot_buf_putc(b, '/');
	ot_esc_url_path(b, l->file, strlen(l->file));
	ot_buf_free(&enc);
	if (l->line)
		ot_buf_printf(b, "#L%u", l->line);
}

/* ---- Markdown ----------------------------------------------------------------------------- */

/* A release's version as Markdown text: a trace.json may hold anything. */
static void label(ot_buf *b, const ot_tj_doc *doc)
{
	for (const char *p = doc->version; *p && p - doc->version < 64; p++)
		ot_buf_putc(b, (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
					(*p >= '0' && *p <= '9') || strchr(".+-", *p)
				       ? *p
				       : '?');
}

static void links(ot_buf *b, const ot_diff_loc *lo, const ot_diff_loc *ln, const ot_tj_doc *old,
		  const ot_tj_doc *new, const char *base)
{
	ot_buf uo = OT_BUF_INIT, un = OT_BUF_INIT;
	url_of(&uo, old, lo, base);
	url_of(&un, new, ln, base);
	if (uo.size || un.size) {
		ot_buf_puts(b, " (");
		if (uo.size) {
			ot_buf_putc(b, '[');
			label(b, old);
			ot_buf_printf(b, "](%s)", uo.ptr);
		}
		if (uo.size && un.size)
			ot_buf_puts(b, " → ");
		if (un.size) {
			ot_buf_putc(b, '[');
			label(b, new);
			ot_buf_printf(b, "](%s)", un.ptr);
		}
		ot_buf_puts(b, ")");
	}
	ot_buf_free(&uo);
	ot_buf_free(&un);
}

/* The item texts; md: each with its own links. */
static void details(ot_buf *b, const ot_diff_change *ch, bool md, const ot_tj_doc *old,
		    const ot_tj_doc *new, const char *base)
{
	if (*ch->overload && ch->cls != OT_DIFF_ADDED && ch->cls != OT_DIFF_REMOVED) {
		code_aten(b, ch->overload, md);
		ot_buf_puts(b, ": ");
	}
	for (size_t i = 0; i < ch->nitems; i++) {
		if (i)
			ot_buf_puts(b, "; ");
		item_text(b, &ch->items[i], md);
		if (md)
			links(b, &ch->items[i].old_loc, &ch->items[i].new_loc, old, new, base);
	}
}

/* Why a change does or does not break callers (schema), or what it means:
 * each reason once, the breaking ones first. The reasons are optrace's
 * own words, never a file's, so they are written as they are. */
static void whys(ot_buf *b, const ot_diff_change *ch)
{
	for (int brk = 1; brk >= 0; brk--) {
		bool any = false;
		for (size_t i = 0; i < ch->nitems; i++) {
			const ot_diff_item *it = &ch->items[i];
			bool dup = false;
			if (!it->why || it->breaking != brk)
				continue;
			for (size_t k = 0; k < i && !dup; k++)
				dup = ch->items[k].why && ch->items[k].breaking == brk &&
				      !strcmp(ch->items[k].why, it->why);
			if (dup)
				continue;
			if (any)
				ot_buf_puts(b, "; ");
			else if (ch->cls == OT_DIFF_SCHEMA)
				ot_buf_puts(b, brk ? " — breaking: " : " — compatible: ");
			else
				ot_buf_puts(b, " — ");
			ot_buf_puts(b, it->why);
			any = true;
		}
	}
}

/* The ops a change affects, as code spans; at most OPS_SHOWN in Markdown. */
#define OPS_SHOWN 8
static void ops_cell(ot_buf *b, const ot_diff_change *ch)
{
	for (size_t i = 0; i < ch->nops && i < OPS_SHOWN; i++) {
		if (i)
			ot_buf_puts(b, ", ");
		code(b, ch->ops[i], true);
	}
	if (ch->nops > OPS_SHOWN)
		ot_buf_printf(b, " and %zu more", ch->nops - OPS_SHOWN);
}

static void short_ref(ot_buf *b, const ot_tj_doc *doc)
{
	code(b, doc->tag ? doc->tag : doc->version, true);
	if (doc->verified && strlen(doc->commit) >= 12) {
		char id[13];
		snprintf(id, sizeof(id), "%.12s", doc->commit);
		ot_buf_puts(b, " (");
		code(b, id, true);
		ot_buf_puts(b, ")");
	} else if (!doc->verified) {
		ot_buf_puts(b, " (unverified source)");
	}
}

void ot_diff_warning(ot_buf *out, const ot_diff *d, const ot_tj_doc *old, const ot_tj_doc *new, bool md)
{
	const char *q = md ? "`" : "";
	if (!d->wellknown_skipped)
		return;
	for (int s = 0, n = 0; s < 2; s++) {
		if (!d->wellknown_side[s])
			continue;
		ot_buf_printf(out, "%sthe %s trace.json (%s", n++ ? " and " : "", s ? "new" : "old", q);
		label(out, s ? new : old);
		ot_buf_printf(out, "%s)", q);
	}
	ot_buf_printf(out, " %s written without %s--full%s: %zu well-known op%s %s not traced there, so %s "
			   "not compared (not \"unchanged\"); write both with %soptrace --full%s to compare "
			   "them",
		      d->wellknown_side[0] && d->wellknown_side[1] ? "were" : "was", q, q, d->wellknown_skipped,
		      d->wellknown_skipped == 1 ? "" : "s", d->wellknown_skipped == 1 ? "was" : "were",
		      d->wellknown_skipped == 1 ? "it is" : "they are", q, q);
}

void ot_diff_markdown(ot_buf *out, const ot_diff *d, const ot_tj_doc *old, const ot_tj_doc *new,
		      const ot_diff_render_opts *ro)
{
	size_t max = ro && ro->max_bytes ? ro->max_bytes : OT_DIFF_MAX_BYTES, shown = 0;
	const char *base = ro ? ro->base_url : NULL;
	ot_buf row = OT_BUF_INIT, tail = OT_BUF_INIT;

	if (max < OT_DIFF_MIN_BYTES)
		max = OT_DIFF_MIN_BYTES;
	ot_buf_clear(out);
	ot_buf_puts(out, "## optrace diff: PyTorch ");
	label(out, old);
	ot_buf_puts(out, " → ");
	label(out, new);
	ot_buf_puts(out, "\n\nCompared ");
	short_ref(out, old);
	ot_buf_puts(out, " with ");
	short_ref(out, new);
	ot_buf_printf(out, ": %zu op%s", d->nops, d->nops == 1 ? "" : "s");
	if (!d->nchanges)
		ot_buf_puts(out, ", no changes");
	else
		ot_buf_printf(out, ", %zu with changes; %zu change%s: **%zu breaking**, %zu other%s",
			      d->changed_ops, d->nchanges, d->nchanges == 1 ? "" : "s", d->nbreaking,
			      d->nchanges - d->nbreaking, d->nchanges - d->nbreaking == 1 ? "" : "s");
	ot_buf_printf(out, "%s %zu unchanged", d->nchanges ? ";" : ",", d->nunchanged);
	if (d->nskipped && d->wellknown_skipped == d->nskipped)
		ot_buf_printf(out, ", %zu not compared (%zu well-known in a trace.json written without "
				   "`--full`; listed in the JSON report)", d->nskipped, d->wellknown_skipped);
	else if (d->nskipped && d->wellknown_skipped)
		ot_buf_printf(out, ", %zu not compared (%zu well-known in a trace.json written without "
				   "`--full`, %zu not traced in either release or generated by `autogen:` in "
				   "one; listed in the JSON report)", d->nskipped, d->wellknown_skipped,
			      d->nskipped - d->wellknown_skipped);
	else if (d->nskipped)
		ot_buf_printf(out, ", %zu not compared (not traced in either release, or generated by "
				   "`autogen:` in one; listed in the JSON report)", d->nskipped);
	ot_buf_puts(out, ".\n\n");
	if (d->wellknown_skipped) {
		ot_buf_puts(out, "**Warning:** ");
		ot_diff_warning(out, d, old, new, true);
		ot_buf_puts(out, "\n\n");
	}
	if (d->no_registry)
		ot_buf_puts(out, "**Note:** a trace.json without registry data (written by an older "
				 "optrace) was given: schema, dispatch and backward changes were not "
				 "compared.\n\n");
	if (d->nchanges) {
		ot_buf_puts(out, "| Class | Changes | Breaking |\n|:--|--:|--:|\n");
		for (int k = 0; k < OT_DIFF_CLASS_COUNT; k++)
			ot_buf_printf(out, "| %s | %zu | %zu |\n", class_labels[k], d->counts[k],
				      d->breaking[k]);
		ot_buf_puts(out, "\nLine shifts inside a file are not changes; values are as written "
				 "in `native_functions.yaml` and `derivatives.yaml`.\n\n");
		ot_buf_puts(out, "| Change | Ops | Details |\n|:--|:--|:--|\n");
	}
	for (size_t i = 0; i < d->nchanges; i++) {
		const ot_diff_change *ch = &d->changes[i];
		size_t left = d->nchanges - i - 1;
		ot_buf_clear(&row);
		if (ch->breaking)
			ot_buf_printf(&row, "| **%s (breaking)** | ", class_labels[ch->cls]);
		else
			ot_buf_printf(&row, "| %s | ", class_labels[ch->cls]);
		ops_cell(&row, ch);
		ot_buf_puts(&row, " | ");
		details(&row, ch, true, old, new, base);
		links(&row, &ch->old_loc, &ch->new_loc, old, new, base);
		whys(&row, ch);
		ot_buf_puts(&row, " |\n");
		/* room for this row and, if rows remain, the line that counts them */
		ot_buf_clear(&tail);
		if (left)
			ot_buf_printf(&tail, "\n_%zu more changes are not shown here%s%s%s._\n", left,
				      ro && ro->json_path ? "; see the JSON report `" : "; run with `--json FILE` for all of them",
				      ro && ro->json_path ? ro->json_path : "", ro && ro->json_path ? "`" : "");
		if (out->size + row.size + tail.size > max)
			break;
		ot_buf_put(out, row.ptr, row.size);
		shown++;
	}
	if (shown < d->nchanges) {
		ot_buf_clear(&tail);
		ot_buf_printf(&tail, "\n_%zu more change%s not shown here%s%s%s._\n", d->nchanges - shown,
			      d->nchanges - shown == 1 ? " is" : "s are",
			      ro && ro->json_path ? "; see the JSON report `" : "; run with `--json FILE` for all of them",
			      ro && ro->json_path ? ro->json_path : "", ro && ro->json_path ? "`" : "");
		if (out->size + tail.size <= max)
			ot_buf_put(out, tail.ptr, tail.size);
	}
	ot_buf_free(&row);
	ot_buf_free(&tail);
}

/* ---- JSON --------------------------------------------------------------------------------- */

static ot_value *release_value(ot_arena *a, const ot_tj_doc *doc)
{
	ot_value *m = ot_v_map(a);
	ot_v_set_str(a, m, "version", doc->version);
	ot_v_set_str(a, m, "tag", doc->tag); /* null when untagged */
	ot_v_set_str(a, m, "commit", doc->commit);
	ot_v_set_bool(a, m, "verified", doc->verified);
	return m;
}

static ot_value *loc_value(ot_arena *a, const ot_tj_doc *doc, const ot_diff_loc *l, const char *base)
{
	ot_value *m;
	ot_buf u = OT_BUF_INIT;
	if (!l->file)
		return ot_v_null(a);
	m = ot_v_map(a);
	ot_v_set_str(a, m, "file", l->file);
	ot_v_set_int(a, m, "line", l->line);
	url_of(&u, doc, l, base);
	ot_v_set(a, m, "url", u.size ? ot_v_str(a, u.ptr) : ot_v_null(a));
	ot_buf_free(&u);
	return m;
}

void ot_diff_json(ot_buf *out, const ot_diff *d, const ot_tj_doc *old, const ot_tj_doc *new,
		  const ot_diff_render_opts *ro)
{
	ot_arena *a = ot_arena_new();
	ot_value *root = ot_v_map(a), *tool = ot_v_map(a), *counts = ot_v_map(a), *classes = ot_v_map(a);
	ot_value *changes = ot_v_list(a), *unchanged = ot_v_list(a), *skipped = ot_v_list(a);
	const char *base = ro ? ro->base_url : NULL;
	ot_buf t = OT_BUF_INIT;

	ot_v_set_int(a, root, "schema_version", 1);
	ot_v_set_str(a, tool, "name", "optrace");
	ot_v_set_str(a, tool, "version", OPTRACE_VERSION);
	ot_v_set(a, root, "tool", tool);
	ot_v_set(a, root, "old", release_value(a, old));
	ot_v_set(a, root, "new", release_value(a, new));
	ot_v_set_int(a, counts, "ops", (long long)d->nops);
	ot_v_set_int(a, counts, "changed_ops", (long long)d->changed_ops);
	ot_v_set_int(a, counts, "unchanged_ops", (long long)d->nunchanged);
	ot_v_set_int(a, counts, "skipped_ops", (long long)d->nskipped);
	ot_v_set_int(a, counts, "changes", (long long)d->nchanges);
	ot_v_set_int(a, counts, "breaking", (long long)d->nbreaking);
	for (int k = 0; k < OT_DIFF_CLASS_COUNT; k++) {
		ot_value *c = ot_v_map(a);
		ot_v_set_int(a, c, "changes", (long long)d->counts[k]);
		ot_v_set_int(a, c, "breaking", (long long)d->breaking[k]);
		ot_v_set(a, classes, class_ids[k], c);
	}
	ot_v_set(a, counts, "classes", classes);
	ot_v_set(a, root, "counts", counts);
	ot_v_set_bool(a, root, "registry_compared", !d->no_registry);
	{
		ot_value *w = ot_v_list(a);
		if (d->wellknown_skipped) {
			ot_buf_clear(&t);
			ot_diff_warning(&t, d, old, new, false);
			ot_v_push(a, w, ot_v_str(a, t.ptr));
		}
		ot_v_set(a, root, "warnings", w);
	}
	for (size_t i = 0; i < d->nchanges; i++) {
		const ot_diff_change *ch = &d->changes[i];
		ot_value *m = ot_v_map(a), *items = ot_v_list(a);
		ot_v_set_str(a, m, "class", class_ids[ch->cls]);
		ot_v_set_str(a, m, "label", class_labels[ch->cls]);
		ot_v_set_bool(a, m, "breaking", ch->breaking);
		ot_v_set_str(a, m, "op", ch->op);
		{
			ot_value *ops = ot_v_list(a);
			for (size_t k = 0; k < ch->nops; k++)
				ot_v_push(a, ops, ot_v_str_borrow(a, ch->ops[k]));
			ot_v_set(a, m, "ops", ops);
		}
		ot_v_set(a, m, "overload", *ch->overload ? ot_v_str(a, ch->overload) : ot_v_null(a));
		for (size_t k = 0; k < ch->nitems; k++) {
			const ot_diff_item *it = &ch->items[k];
			ot_value *v = ot_v_map(a);
			ot_v_set_str(a, v, "what", it->what);
			ot_v_set(a, v, "subject", ot_v_str(a, it->subject));
			ot_v_set(a, v, "layer", ot_v_str(a, it->layer));
			ot_v_set(a, v, "old", ot_v_str(a, it->old));
			ot_v_set(a, v, "new", ot_v_str(a, it->new));
			ot_v_set_bool(a, v, "breaking", it->breaking);
			ot_buf_clear(&t);
			item_text(&t, it, false);
			ot_v_set_str(a, v, "text", t.ptr);
			ot_v_set(a, v, "why", ot_v_str(a, it->why));
			if (!strcmp(it->what, "body-changed")) {
				ot_v_set_int(a, v, "statements_added", it->added);
				ot_v_set_int(a, v, "statements_removed", it->removed);
			}
			if (it->old_loc.file || it->new_loc.file) {
				ot_v_set(a, v, "old_place", loc_value(a, old, &it->old_loc, base));
				ot_v_set(a, v, "new_place", loc_value(a, new, &it->new_loc, base));
			}
			ot_v_push(a, items, v);
		}
		ot_v_set(a, m, "items", items);
		ot_v_set(a, m, "old", loc_value(a, old, &ch->old_loc, base));
		ot_v_set(a, m, "new", loc_value(a, new, &ch->new_loc, base));
		ot_v_push(a, changes, m);
	}
	ot_v_set(a, root, "changes", changes);
	for (size_t i = 0; i < d->nunchanged; i++)
		ot_v_push(a, unchanged, ot_v_str_borrow(a, d->unchanged[i]));
	ot_v_set(a, root, "unchanged", unchanged);
	for (size_t i = 0; i < d->nskipped; i++) {
		ot_value *m = ot_v_map(a);
		ot_v_set_str(a, m, "op", d->skipped[i].op);
		ot_v_set_str(a, m, "reason", d->skipped[i].reason);
		ot_v_push(a, skipped, m);
	}
	ot_v_set(a, root, "skipped", skipped);
	ot_buf_clear(out);
	ot_v_to_json(out, root, 2);
	ot_buf_free(&t);
	ot_arena_free(a);
}

/* ---- the command -------------------------------------------------------------------------- */

#define say ot_run_say

/* A side is a trace.json when the argument names a file, or looks like a
 * path ("x/y", "*.json") - then a missing file is an error, not a release. */
static bool is_file_arg(const char *arg)
{
	struct stat st;
	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		return true;
	return strchr(arg, '/') || ot_ends_with(arg, ".json");
}

/* The traces of a release, as a document (what trace.json would hold of them). */
static int trace_side(ot_tj_doc **out, const ot_diff_opts *o, const ot_version *v,
		      const ot_opslist *list)
{
	ot_run_opts ro = o->run;
	ot_run_traces *t = NULL;
	ot_tj_doc *doc;
	int rc;

	ro.full = true; /* comparing reference text says nothing */
	/* the list was chosen already (ot_diff_run): with --all, both are traced */
	ro.ops_list_given = list != NULL;
	*out = NULL;
	if ((rc = ot_run_trace_release(&t, &ro, v->release, v->nightly ? v->commit : NULL, list)) < 0)
		return rc;
	if (!t->rel.verified) {
		ot_run_traces_free(t);
		return ot_error_set("a plain directory cannot prove which release it holds: give a git "
				    "checkout with both tags");
	}
	/* the document takes the registry: its ops point at the entries */
	doc = ot_tracejson_doc_new(&t->rel, t->reg);
	t->reg = NULL;
	for (size_t i = 0; i < t->n; i++) {
		ot_tracejson_doc_add_trace(doc, t->traces[i]);
		/* the document holds what the diff needs: free each trace at once */
		ot_trace_free(t->traces[i]);
		t->traces[i] = NULL;
	}
	ot_run_traces_free(t);
	*out = doc;
	return 0;
}

/* The inputs of a document as an ops list (a release compared with a
 * trace.json traces the same ops). */
static ot_opslist *list_of(const ot_tj_doc *doc)
{
	ot_opslist *l = ot_calloc(1, sizeof(*l));
	for (size_t i = 0; i < doc->ops.len; i++) {
		ot_opslist_entry e = {.name = ot_strdup(doc->ops.items[i].input), .full = true};
		ot_vec_push(&l->ops, e);
	}
	l->filename = ot_strdup("trace.json");
	return l;
}

/* The folders above the report `path`, made when missing; a folder made
 * here is marked as optrace's (ot_output_mark_folder), so that a run of the
 * main command may write into it later (out/ by default). */
static int make_parent_dirs(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	bool made;
	char *dir;
	int rc;
	if (!slash || slash == path)
		return 0;
	dir = ot_strndup(path, (size_t)(slash - path));
	made = lstat(dir, &st) < 0;
	rc = ot_output_make_dirs(dir);
	if (!rc && made)
		rc = ot_output_mark_folder(dir);
	free(dir);
	return rc;
}

/* Write into an existing file that is no regular file of its own (a
 * device, a FIFO, a symbolic link): it must stay what it is. */
static int write_through(FILE *f, const char *path, const ot_buf *b)
{
	int rc = 0;
	if (!f)
		return ot_error_set("cannot write %s: %s", path, strerror(errno));
	if (fwrite(b->ptr, 1, b->size, f) != b->size || fflush(f))
		rc = ot_error_set("cannot write %s: %s", path, strerror(errno));
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = ot_error_set("cannot write %s: %s", path, strerror(errno));
	return rc;
}

/*
 * Write `path` atomically (a new temporary file beside it, made with
 * mkstemp, then rename); unchanged bytes are not rewritten. "-" writes to
 * stdout. The report's folder follows the main command's rules for -o
 * (ot_output_check_folder: no link, not /, the home folder or the
 * checkout, unless --force). A device or FIFO (also behind a link, as
 * /dev/stdout is) is written through; a link to anything else is
 * replaced, like every file of the main command's, never followed.
 */
static int write_report(const char *path, const ot_buf *b, const ot_run_opts *ro)
{
	ot_buf tmp = OT_BUF_INIT;
	struct stat st;
	char *dir, *checkout;
	const char *slash;
	bool compare = false;
	mode_t mask;
	int fd, rc = 0;

	if (!strcmp(path, "-"))
		return write_through(stdout, "stdout", b);
	slash = strrchr(path, '/');
	dir = slash ? ot_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : ot_strdup(".");
	checkout = ro->source ? ot_strdup(ro->source) : ot_run_default_source();
	rc = ot_output_check_folder(dir, checkout, ro->force);
	free(dir);
	free(checkout);
	if (rc < 0)
		return rc;
	if (lstat(path, &st) == 0) {
		struct stat target;
		if (S_ISDIR(st.st_mode))
			return ot_error_set("cannot write %s: it is a folder", path);
		if (S_ISLNK(st.st_mode) && stat(path, &target) == 0 && !S_ISREG(target.st_mode) &&
		    !S_ISDIR(target.st_mode))
			return write_through(fopen(path, "wb"), path, b);
		if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode))
			return write_through(fopen(path, "wb"), path, b);
		compare = S_ISREG(st.st_mode);
	}
	if (compare && (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) >= 0) {
		ot_buf cur = OT_BUF_INIT;
		char chunk[65536];
		ssize_t n;
		bool same;
		while ((n = read(fd, chunk, sizeof(chunk))) > 0 && cur.size <= b->size)
			ot_buf_put(&cur, chunk, (size_t)n);
		close(fd);
		same = ot_buf_equal(&cur, b);
		ot_buf_free(&cur);
		if (same)
			return 0;
	}
	if ((rc = make_parent_dirs(path)) < 0)
		goto done;
	/* a new file of a name nobody could plant: O_CREAT | O_EXCL, never a link */
	ot_buf_printf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkostemp(tmp.ptr, O_CLOEXEC);
	if (fd < 0) {
		rc = ot_error_set("cannot write %s: %s", path, strerror(errno));
		goto done;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || write(fd, b->ptr, b->size) != (ssize_t)b->size ||
	    fsync(fd) < 0) {
		rc = ot_error_set("cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp.ptr);
		goto done;
	}
	close(fd);
	if (rename(tmp.ptr, path) < 0) {
		rc = ot_error_set("cannot write %s: %s", path, strerror(errno));
		unlink(tmp.ptr);
	}
done:
	ot_buf_free(&tmp);
	return rc;
}

/* A version as it may appear in a file name. */
static void name_part(ot_buf *b, const char *s)
{
	for (; *s; s++)
		ot_buf_putc(b, (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
					(*s >= '0' && *s <= '9') || strchr(".+_-", *s)
				       ? *s
				       : '_');
}

int ot_diff_run(const ot_diff_opts *o)
{
	const char *args[2] = {o->old_arg, o->new_arg};
	ot_tj_doc *docs[2] = {NULL, NULL};
	ot_version vers[2];
	bool file[2];
	ot_opslist *list = NULL;
	ot_diff *d = NULL;
	ot_buf md = OT_BUF_INIT, json = OT_BUF_INIT, path = OT_BUF_INIT;
	ot_diff_render_opts rdo = {o->run.base_url, o->max_bytes, o->out_json};
	int status = 2;
	double t0 = ot_clock(), t1;

	for (int s = 0; s < 2; s++) {
		file[s] = is_file_arg(args[s]);
		if (!file[s] && ot_version_parse(&vers[s], args[s], "the command line") < 0) {
			say("%s (give a release such as 2.6.0, or a trace.json)", ot_error_last());
			goto done;
		}
	}
	/* trace.json sides first: a release side may trace the file's inputs */
	for (int s = 0; s < 2; s++) {
		if (file[s] && ot_tracejson_load(&docs[s], args[s], o->run.max_read_bytes) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
	}
	if (!file[0] || !file[1]) {
		const char *path_list = o->run.ops_list ? o->run.ops_list : "ops.list";
		if (o->run.ops_list_given || (!o->run.all && !(file[0] || file[1])) ||
		    (o->run.all && access(path_list, F_OK) == 0)) {
			if (ot_opslist_load(&list, path_list) < 0) {
				say("%s", ot_error_last());
				goto done;
			}
			for (size_t i = 0; i < list->diags.len; i++)
				fprintf(stderr, "%s\n", list->diags.items[i].message);
		} else if (!o->run.all) {
			list = list_of(docs[file[0] ? 0 : 1]);
		}
	}
	for (int s = 0; s < 2; s++) {
		if (file[s])
			continue;
		if (trace_side(&docs[s], o, &vers[s], list) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
	}
	t1 = ot_clock();
	if (ot_diff_compare(&d, docs[0], docs[1]) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	if (d->wellknown_skipped) {
		/* even with -q: the report alone would not say why ops are missing */
		ot_buf w = OT_BUF_INIT;
		ot_diff_warning(&w, d, docs[0], docs[1], false);
		say("warning: %s", w.ptr);
		ot_buf_free(&w);
	}
	ot_diff_markdown(&md, d, docs[0], docs[1], &rdo);
	if (o->out_json) {
		ot_diff_json(&json, d, docs[0], docs[1], &rdo);
		if (write_report(o->out_json, &json, &o->run) < 0) {
			say("%s", ot_error_last());
			goto done;
		}
	}
	if (o->out_md) {
		ot_buf_puts(&path, o->out_md);
	} else {
		ot_buf_puts(&path, "out/diff-");
		name_part(&path, docs[0]->version);
		ot_buf_putc(&path, '-');
		name_part(&path, docs[1]->version);
		ot_buf_puts(&path, ".md");
	}
	if (write_report(path.ptr, &md, &o->run) < 0) {
		say("%s", ot_error_last());
		goto done;
	}
	if (!o->run.quiet) {
		say("%s -> %s: %zu ops, %zu changed (%zu changes, %zu breaking), %zu unchanged, %zu not "
		    "compared",
		    docs[0]->version, docs[1]->version, d->nops, d->changed_ops, d->nchanges, d->nbreaking,
		    d->nunchanged, d->nskipped);
		if (strcmp(path.ptr, "-"))
			say("report: %s%s%s", path.ptr, o->out_json ? ", " : "", o->out_json ? o->out_json : "");
		if (o->run.verbose)
			say("traced or read in %.3f s, compared and written in %.3f s", t1 - t0, ot_clock() - t1);
	}
	status = 0;
	if (o->fail_on != OT_DIFF_FAIL_NONE && d->nbreaking)
		status = OT_DIFF_EXIT_BREAKING;
	else if (o->fail_on == OT_DIFF_FAIL_ANY && d->nchanges)
		status = OT_DIFF_EXIT_CHANGED;
done:
	ot_diff_free(d);
	ot_tracejson_doc_free(docs[0]);
	ot_tracejson_doc_free(docs[1]);
	ot_opslist_free(list);
	ot_buf_free(&md);
	ot_buf_free(&json);
	ot_buf_free(&path);
	return status;
}
