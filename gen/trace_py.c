/*
 * trace_py.c - the Python half of a trace: from what the user wrote (a
 * Module, a functional, a torch function, a Tensor method) through Python
 * bodies to the generated bindings that cross into C++.
 *
 * Each body is read with pyflow (its guards, calls and arguments); each
 * call becomes an edge whose condition is judged for a default call
 * (cond.h), and is followed when it is a call of Python code (F.x,
 * torch.x wrappers, self.method, self.submodule(...) -> its forward,
 * module-level helpers) or crosses into C++ (_VF.x, torch._C._nn.x,
 * torch.x of a generated binding, a Tensor method on a Tensor). A Python
 * function reached on the way stays in the trace only when something
 * beneath it reaches an aten op.
 */
#include "trace_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "pyflow.h"

struct pyvisit {
	struct tb_ctx *c;
	const ot_ix_pydef *def;
	const ot_ix_pydef *cls; /* the class of a method, or NULL */
	ot_pyflow flow;
	const char *bind[TB_MAX_PARAMS]; /* what the caller passed per parameter */
	bool passed[TB_MAX_PARAMS];
	uint32_t node;
	int depth;
	bool module;
};

static bool follow_def(struct tb_ctx *c, const ot_ix_pydef *def, const ot_ix_pydef *cls,
		       const struct pyvisit *caller, const ot_pycall *call, int depth, long *node_out);

static const char *fpath(const struct tb_ctx *c, uint32_t file)
{
	return ot_index_file(c->ix, file)->path;
}

/* ---- finding Python definitions ------------------------------------------------------- */

/* The last top-level record named `name` in `path` (Python: the last
 * definition wins), of any kind but class unless `want_class`. */
static const ot_ix_pydef *py_top(const struct tb_ctx *c, const char *name, const char *path,
				 bool want_class)
{
	const ot_ix_pydef *best = NULL;
	for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, name); p; p = p->next) {
		if (p->parent || strcmp(fpath(c, p->file), path))
			continue;
		if ((p->kind == OT_PY_CLASS) != want_class)
			continue;
		best = p;
	}
	return best;
}

/* A class named `name`: in `prefer_file` first, then under `dir`. */
static const ot_ix_pydef *py_class(const struct tb_ctx *c, const char *name,
				   const char *prefer_file, const char *dir)
{
	const ot_ix_pydef *any = NULL;
	for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, name); p; p = p->next) {
		if (p->kind != OT_PY_CLASS || p->parent)
			continue;
		if (prefer_file && !strcmp(fpath(c, p->file), prefer_file))
			return p;
		if (!any && ot_starts_with(fpath(c, p->file), dir))
			any = p;
	}
	return any;
}

/* Method `name` of class `cls`, following base classes (declaration order,
 * depth-bounded). The last definition in a class wins. */
static const ot_ix_pydef *py_method(const struct tb_ctx *c, const ot_ix_pydef *cls,
				    const char *name, int depth)
{
	const ot_ix_pydef *found = NULL;
	const char *s;
	if (!cls || depth > 8)
		return NULL;
	for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, name); p; p = p->next)
		if (p->parent == cls && p->kind == OT_PY_DEF)
			found = p;
	if (found)
		return found;
	for (s = cls->bases ? cls->bases : ""; *s;) {
		char base[128];
		size_t n = strcspn(s, ",");
		const char *last;
		snprintf(base, sizeof(base), "%.*s", (int)(n < sizeof(base) ? n : sizeof(base) - 1), s);
		base[strcspn(base, "[")] = '\0'; /* Generic[T] */
		last = strrchr(base, '.');
		last = last ? last + 1 : base;
		while (*last == ' ')
			last++;
		if (*last && strcmp(last, "object") && !strchr(last, '=')) {
			const ot_ix_pydef *b = py_class(c, last, fpath(c, cls->file), "torch/nn/");
			if (b && b != cls) {
				const ot_ix_pydef *m = py_method(c, b, name, depth + 1);
				if (m)
					return m;
			}
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return NULL;
}

/* ---- values a default call gives names --------------------------------------------------- */

static bool is_literal(const char *v)
{
	if (!v || !*v)
		return false;
	if (!strcmp(v, "None") || !strcmp(v, "True") || !strcmp(v, "False"))
		return true;
	if (v[0] == '\'' || v[0] == '"')
		return true;
	if (isdigit((unsigned char)v[0]) || (v[0] == '-' && isdigit((unsigned char)v[1]))) {
		for (const char *p = v; *p; p++)
			if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_'))
				return false;
		return true;
	}
	return false;
}

static bool tensor_producer(const char *value);

/* A value made by a call that gives an object, never None: a Parameter, a
 * tensor, a Module (a class, by its capital). */
static bool constructed(const char *value)
{
	const char *paren = strchr(value, '(');
	const char *last;
	if (!paren || tensor_producer(value))
		return paren != NULL;
	last = paren;
	while (last > value && (isalnum((unsigned char)last[-1]) || last[-1] == '_'))
		last--;
	return isupper((unsigned char)*last);
}

/* The __init__s a default construction of `cls` runs: its own, then its
 * bases' (first base each), most derived first; their count. */
static size_t init_chain(struct tb_ctx *c, const ot_ix_pydef *cls, const ot_ix_pydef **chain, size_t max)
{
	size_t n = 0;
	for (const ot_ix_pydef *k = cls; k && n < max;) {
		const ot_ix_pydef *init = NULL, *next = NULL;
		char base[128];
		for (const ot_ix_pydef *p = ot_index_pydefs(c->ix, "__init__"); p; p = p->next)
			if (p->parent == k && p->kind == OT_PY_DEF)
				init = p;
		if (init)
			chain[n++] = init;
		if (k->bases && *k->bases) {
			const char *b = k->bases, *dot;
			snprintf(base, sizeof(base), "%.*s", (int)strcspn(b, ",["), b);
			dot = strrchr(base, '.');
			next = py_class(c, dot ? dot + 1 : base, fpath(c, k->file), "torch/nn/");
		}
		k = next && next != k ? next : NULL;
	}
	return n;
}

/* A constructor's parameter in a default construction: its literal default
 * in that __init__, else in a more derived one that passes it on by name. */
struct init_env {
	ot_pyflow *flows;
	size_t n, at; /* flows[at] is the __init__ being read */
};

static const char *init_param(const ot_pyenv *env, const char *name)
{
	const struct init_env *ie = env->payload;
	for (size_t i = ie->at + 1; i-- > 0;) {
		const ot_pyparam *p = ot_pyflow_param(&ie->flows[i], name);
		if (p && is_literal(p->def))
			return p->def;
		if (p && p->def)
			return NULL;
	}
	return NULL;
}

/* The name a number conversion of a parameter converts ("dropout" of
 * `float(dropout)`: the value is the parameter's), else `value` itself. */
static const char *conversion_arg(const char *value, char *buf, size_t n)
{
	static const char *const conv[] = {"float(", "int(", "bool("};
	for (size_t i = 0; i < OT_ARRAY_LEN(conv); i++) {
		size_t k = strlen(conv[i]), len = strlen(value);
		if (ot_starts_with(value, conv[i]) && len > k + 1 && value[len - 1] == ')' &&
		    len - k - 1 < n && strspn(value + k, "abcdefghijklmnopqrstuvwxyz_0123456789") == len - k - 1) {
			snprintf(buf, n, "%.*s", (int)(len - k - 1), value + k);
			return buf;
		}
	}
	return value;
}

/* The literal a Module's attribute holds after a default construction: the
 * last assignment of `self.attr` (or register_parameter/register_buffer of
 * it as None) in the __init__s of the class and its bases whose guard holds
 * for the constructor's defaults; a parameter assigned is its default
 * (init_param). NULL when not known, or when an assignment under a guard
 * that is not known may have replaced it. */
static const char *attr_literal(struct tb_ctx *c, const ot_ix_pydef *cls, const char *attr)
{
	const ot_ix_pydef *chain[6];
	ot_pyflow flows[6];
	size_t n = init_chain(c, cls, chain, OT_ARRAY_LEN(chain));
	char self_attr[160], quoted[2][160], conv[160];
	const char *val = NULL, *out = NULL;
	bool sure = true, found = false;
	struct init_env ie = {flows, n, 0};

	snprintf(self_attr, sizeof(self_attr), "self.%s", attr);
	snprintf(quoted[0], sizeof(quoted[0]), "'%s'", attr);
	snprintf(quoted[1], sizeof(quoted[1]), "\"%s\"", attr);
	for (size_t i = 0; i < n; i++)
		ot_pyflow_read(&flows[i], c->ix, chain[i], c->a);
	/* bases run first (super().__init__ at the top), the derived class last */
	for (size_t i = n; i-- > 0;) {
		ot_pyenv env = {OT_DEV_CPU, true, 0, init_param, &ie};
		const ot_pyflow *f = &flows[i];
		size_t ai = 0, ci = 0;
		ie.at = i;
		/* assignments and register_* calls, in line order */
		while (ai < f->assigns.len || ci < f->calls.len) {
			const ot_pyassign *as = ai < f->assigns.len ? &f->assigns.items[ai] : NULL;
			const ot_pycall *pc = ci < f->calls.len ? &f->calls.items[ci] : NULL;
			const char *v = NULL;
			uint16_t g;
			ot_verdict vd;
			if (as && (!pc || as->line <= pc->ref->line)) {
				ai++;
				if (strcmp(as->name, self_attr))
					continue;
				v = as->value;
				g = as->guard;
			} else {
				ci++;
				if (!(ot_ends_with(pc->ref->path, "register_parameter") ||
				      ot_ends_with(pc->ref->path, "register_buffer")) ||
				    pc->npos < 2 || (strcmp(pc->pos[0], quoted[0]) && strcmp(pc->pos[0], quoted[1])))
					continue;
				v = pc->pos[1];
				g = pc->guard;
			}
			vd = ot_cond_pyguard(&env, f->guards.items, f->guards.len, g);
			if (vd.value == OT_TRI_FALSE || vd.validation)
				continue;
			found = true;
			val = v;
			sure = vd.value == OT_TRI_TRUE;
			if (sure && v && !is_literal(v))
				out = init_param(&env, conversion_arg(v, conv, sizeof(conv))); /* a parameter passed on */
			else
				out = NULL;
		}
	}
	for (size_t i = 0; i < n; i++)
		ot_pyflow_free(&flows[i]);
	if (!found || !sure || !val)
		return NULL;
	if (!is_literal(val) && !out && constructed(val))
		return OT_COND_OBJECT;
	return is_literal(val) ? val : out;
}

struct lookup {
	const struct pyvisit *v;
	uint32_t line;
	int depth;
};

static const char *value_of(const ot_pyenv *env, const char *name);
static const char *reduction_enum(const ot_pyenv *env, const char *text);

static ot_pyenv env_at(const struct pyvisit *v, ot_device dev, const struct lookup *lk)
{
	ot_pyenv e = {dev, v->module, 0, value_of, lk};
	return e;
}

/* Is v a literal true in Python: a non-empty string (an f-string too, in
 * parentheses or not), a number not 0, True? */
static bool truthy_literal(const char *v)
{
	size_t n;
	if (!v)
		return false;
	while (*v == '(' || *v == ' ')
		v++;
	n = strlen(v);
	while (n && (v[n - 1] == ')' || v[n - 1] == ' '))
		n--;
	if (n && (*v == 'f' || *v == 'r') && (v[1] == '"' || v[1] == '\'')) {
		v++;
		n--;
	}
	if (n >= 2 && (v[0] == '\'' || v[0] == '"'))
		return v[n - 1] == v[0] && n > 2;
	if (!is_literal(v))
		return false;
	if (isdigit((unsigned char)v[0]) || v[0] == '-')
		return strtod(v, NULL) != 0;
	return !strcmp(v, "True");
}

/*
 * The assignments of a name that may run last (cand, n of them, in line
 * order, the first one every call makes) when they all set a true literal
 * and one of them surely runs after the first: the arms of one if/elif
 * chain, each assigning directly, up to an arm whose own condition holds
 * (why_not_fast_path = "" then `elif self.training: why_not_fast_path =
 * "training is enabled"`, each earlier arm another message).
 */
static bool truthy_chain(const struct pyvisit *v, const ot_pyenv *env, const ot_pyassign *const *cand, size_t n)
{
	uint16_t arms[64];
	size_t narms = 0, k = 1;
	uint16_t g;
	if (n < 2)
		return false;
	for (size_t i = 1; i < n; i++)
		if (!truthy_literal(cand[i]->value) || !cand[i]->guard)
			return false;
	/* the chain of the last candidate's arm, first arm first */
	for (g = cand[n - 1]->guard; g && narms < OT_ARRAY_LEN(arms); g = v->flow.guards.items[g - 1].prev) {
		arms[narms++] = g;
		if (v->flow.guards.items[g - 1].kind == OT_GUARD_IF)
			break;
	}
	if (!g)
		return false;
	for (size_t a = narms; a-- > 0;) {
		const ot_ix_guard *arm = &v->flow.guards.items[arms[a] - 1];
		ot_verdict own = arm->kind == OT_GUARD_ELSE ? ot_verdict_true() : ot_cond_pyexpr(env, arm->text);
		if (own.value == OT_TRI_FALSE)
			continue; /* an arm no default call takes */
		if (k >= n || cand[k]->guard != arms[a])
			return false; /* an arm that does not assign it */
		k++;
		if (own.value == OT_TRI_TRUE && !own.validation)
			return k == n;
	}
	return false;
}

/* The literal a name holds at a line of the body: its last assignment
 * before the line whose guard holds (an assignment under an open guard
 * leaves it unknown, unless every assignment that may run last sets a
 * true literal: truthy_chain), else what the caller passed, else the
 * default. */
static const char *value_of(const ot_pyenv *env, const char *name)
{
	const struct lookup *lk = env->payload;
	const struct pyvisit *v = lk->v;
	const char *val = NULL;
	bool assigned = false, sure = true;
	uint32_t line = env->line ? env->line : lk->line;
	const ot_pyassign *cand[64];
	size_t ncand = 0;
	if (lk->depth > 3)
		return NULL;
	for (size_t i = 0; i < v->flow.assigns.len; i++) {
		const ot_pyassign *a = &v->flow.assigns.items[i];
		struct lookup inner = {v, a->line, lk->depth + 1};
		ot_pyenv e;
		ot_verdict vd;
		if (a->line >= line || strcmp(a->name, name))
			continue;
		e = env_at(v, env->dev, &inner);
		vd = ot_cond_pyguard(&e, v->flow.guards.items, v->flow.guards.len, a->guard);
		if (vd.value == OT_TRI_FALSE || vd.validation)
			continue;
		assigned = true;
		val = a->value;
		sure = vd.value == OT_TRI_TRUE;
		if (sure)
			ncand = 0; /* what ran before it no longer counts */
		if (ncand < OT_ARRAY_LEN(cand))
			cand[ncand++] = a;
	}
	if (assigned && sure && val && ot_starts_with(val, "_Reduction.get_enum("))
		return reduction_enum(env, val); /* reduction_enum = _Reduction.get_enum(reduction) */
	if (assigned && !sure && ncand && cand[0]->guard == 0) {
		struct lookup at = {v, line, lk->depth + 1};
		ot_pyenv e = env_at(v, env->dev, &at);
		if (truthy_chain(v, &e, cand, ncand))
			return OT_COND_TRUTHY;
	}
	if (assigned)
		return sure && is_literal(val) ? val : NULL;
	if (ot_starts_with(name, "self.") && v->cls && !strchr(name + 5, '.'))
		return attr_literal(v->c, v->cls, name + 5);
	for (size_t i = 0; i < v->flow.params.len && i < TB_MAX_PARAMS; i++) {
		const ot_pyparam *p = &v->flow.params.items[i];
		if (strcmp(p->name, name))
			continue;
		if (v->passed[i])
			return v->bind[i];
		return is_literal(p->def) ? p->def : NULL;
	}
	return NULL;
}

/* Verdicts for code at guard `guard` of the body, per device. */
static void verdicts(const struct pyvisit *v, uint16_t guard, uint32_t line, ot_verdict out[OT_DEV_COUNT])
{
	struct lookup lk = {v, line, 0};
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		ot_pyenv e = env_at(v, (ot_device)d, &lk);
		out[d] = ot_cond_pyguard(&e, v->flow.guards.items, v->flow.guards.len, guard);
	}
}

/* Verdicts for call `call` of the body: its guard's, and when it is an
 * operand of an if's condition (`attn_mask is not None and
 * torch.is_floating_point(attn_mask)`), the operand before it that
 * `and`/`or` decide it by: the call runs only when that holds. */
static void call_verdicts(const struct pyvisit *v, const ot_pycall *call, ot_verdict out[OT_DEV_COUNT])
{
	const char *text, *name, *at;
	size_t n;
	verdicts(v, call->guard, call->ref->line, out);
	if (!call->cond_guard || !(text = v->flow.guards.items[call->cond_guard - 1].text))
		return;
	name = strrchr(call->ref->path, '.');
	name = name ? name + 1 : call->ref->path;
	n = strlen(name);
	for (at = strstr(text, name); at; at = strstr(at + 1, name))
		if ((at == text || !ot_is_ident_char(at[-1])) && at[n] == '(')
			break;
	if (!n || !at)
		return;
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		struct lookup lk = {v, call->ref->line, 0};
		ot_pyenv e = env_at(v, (ot_device)d, &lk);
		size_t from, to;
		bool negated;
		ot_tri r = ot_cond_py_reaches(&e, text, (size_t)(at - text), &from, &to, &negated);
		if (r == OT_TRI_TRUE || to <= from)
			continue;
		out[d] = ot_verdict_and(out[d], (ot_verdict){.value = r,
							      .text = ot_arena_strndup(v->c->a, text + from, to - from),
							      .negated = negated,
							      .line = call->ref->line});
	}
}

/* What the caller's argument text gives the callee: a literal as the
 * callee reads it, "?" for a value not known. */
static const char *arg_value(const struct pyvisit *v, const char *text, uint32_t line)
{
	struct lookup lk = {v, line, 0};
	ot_pyenv e = env_at(v, OT_DEV_CPU, &lk);
	const char *val;
	if (!text)
		return "?";
	if (is_literal(text))
		return text;
	if (!strcmp(text, "self.training") && v->module)
		return "True";
	if (ot_starts_with(text, "_Reduction.get_enum(")) {
		val = reduction_enum(&e, text);
		return val ? val : "?";
	}
	val = value_of(&e, text);
	return val ? val : "?";
}

/* `_Reduction.get_enum(x)`: the loss functions' reduction as the C++ enum
 * reads it ("0" none, "1" mean, "2" sum), or NULL when x is not known. */
static const char *reduction_enum(const ot_pyenv *env, const char *text)
{
	char inner[64];
	const char *r;
	if (!ot_starts_with(text, "_Reduction.get_enum(") || !ot_ends_with(text, ")"))
		return NULL;
	snprintf(inner, sizeof(inner), "%.*s", (int)(strlen(text) - 21), text + 20);
	r = is_literal(inner) ? inner : value_of(env, inner);
	if (r && strstr(r, "none"))
		return "0";
	if (r && strstr(r, "mean"))
		return "1";
	if (r && strstr(r, "sum"))
		return "2";
	return NULL;
}

/* ---- Tensors ---------------------------------------------------------------------------- */

/* Does the class `cls` (or a base) assign `self.attr = Parameter(...)` or a
 * Module in __init__? Returns the assigned value's text, or NULL. */
static const char *init_value(struct tb_ctx *c, const ot_ix_pydef *cls, const char *attr)
{
	const ot_ix_pydef *init = py_method(c, cls, "__init__", 0);
	ot_pyflow f;
	const char *found = NULL;
	char self_attr[160];
	if (!init)
		return NULL;
	snprintf(self_attr, sizeof(self_attr), "self.%s", attr);
	ot_pyflow_read(&f, c->ix, init, c->a);
	for (size_t i = 0; i < f.assigns.len; i++)
		if (!strcmp(f.assigns.items[i].name, self_attr) && f.assigns.items[i].value)
			found = f.assigns.items[i].value;
	ot_pyflow_free(&f);
	return found;
}

enum pyty { PT_UNKNOWN, PT_TENSOR, PT_OTHER };

static bool tensor_producer(const char *value)
{
	return (ot_starts_with(value, "torch.") && !ot_starts_with(value, "torch.Size") &&
		!ot_starts_with(value, "torch.device") && !ot_starts_with(value, "torch.dtype") &&
		!ot_starts_with(value, "torch.jit") && !ot_starts_with(value, "torch.finfo") &&
		!ot_starts_with(value, "torch.iinfo")) ||
	       ot_starts_with(value, "F.") || ot_starts_with(value, "_VF.") ||
	       ot_starts_with(value, "Parameter(") || ot_starts_with(value, "nn.Parameter(") ||
	       ot_starts_with(value, "torch.nn.Parameter(");
}

static enum pyty name_type(struct pyvisit *v, const char *name, uint32_t line, int depth);

/* What Tensor method `meth` gives: a Tensor when its first functional
 * overload returns one (x.size(0) is an int), else something else; not
 * known for a name that is no op. */
static enum pyty op_result_type(const ot_registry *reg, const char *meth)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(reg, meth, &n);
	for (size_t i = 0; ov && i < n; i++) {
		const ot_reg_schema *s = &ov[i]->schema;
		if (s->is_out)
			continue;
		/* Tensor, or Tensor(a) of a view */
		return s->nreturns == 1 && ot_starts_with(s->returns[0].type, "Tensor") &&
				       (!s->returns[0].type[6] || s->returns[0].type[6] == '(')
			       ? PT_TENSOR
			       : PT_OTHER;
	}
	return PT_UNKNOWN;
}

/* Past the bracketed group opening at `open` (its closing bracket
 * included), or at the end of the text when it does not close. */
static const char *past_group(const char *open)
{
	int d = 0;
	for (const char *p = open; *p; p++) {
		d += *p == '(' || *p == '[' || *p == '{' ? 1 : *p == ')' || *p == ']' || *p == '}' ? -1 : 0;
		if (d == 0)
			return p + 1;
	}
	return open + strlen(open);
}

/* The type of what an expression gives, as far as its text tells. */
static enum pyty value_type(struct pyvisit *v, const char *value, uint32_t line, int depth)
{
	char head[128];
	size_t n;
	if (!value || !*value || depth > 4)
		return PT_UNKNOWN;
	if (value[0] == '(') {
		/* ( x.f(...) .g(...) ): a parenthesized expression, not a tuple */
		size_t len = strlen(value), k;
		int d = 0;
		for (k = 0; k < len; k++) {
			d += value[k] == '(' || value[k] == '[' || value[k] == '{' ? 1
			     : value[k] == ')' || value[k] == ']' || value[k] == '}' ? -1 : 0;
			if ((d == 0 && k + 1 < len) || (d == 1 && value[k] == ','))
				break;
		}
		if (k == len && value[len - 1] == ')') {
			char *inner = ot_arena_strndup(v->c->a, value + 1, len - 2);
			while (*inner == ' ')
				inner++;
			return value_type(v, inner, line, depth + 1);
		}
	}
	if ((value[0] == '-' || value[0] == '~') && value[1] && !isdigit((unsigned char)value[1]) &&
	    value[1] != '.') {
		/* -input: the negation of a Tensor is a Tensor */
		enum pyty t = value_type(v, value + 1, line, depth + 1);
		return t == PT_TENSOR ? PT_TENSOR : PT_UNKNOWN;
	}
	if (strchr("[({'\"0123456789", value[0]) || ot_starts_with(value, "set(") ||
	    ot_starts_with(value, "dict(") || ot_starts_with(value, "list(") ||
	    ot_starts_with(value, "tuple(") || ot_starts_with(value, "str(") ||
	    ot_starts_with(value, "int(") || ot_starts_with(value, "float(") ||
	    ot_starts_with(value, "len(") || !strcmp(value, "None") || !strcmp(value, "True") ||
	    !strcmp(value, "False"))
		return PT_OTHER;
	if (tensor_producer(value)) {
		/* torch.x(...), _VF.x(...): what op x gives, when it is one
		 * (_VF.lstm gives a tuple) */
		const char *paren = strchr(value, '(');
		if (paren) {
			const char *name = paren;
			enum pyty t;
			while (name > value && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
				name--;
			t = op_result_type(v->c->t->reg, ot_arena_strndup(v->c->a, name, (size_t)(paren - name)));
			if (t != PT_UNKNOWN)
				return t;
		}
		return PT_TENSOR;
	}
	n = strcspn(value, ".(");
	if (n < sizeof(head) && value[n] == '(') {
		/* f(...) of a function of the same file: what its annotation says */
		const ot_ix_pydef *f;
		const char *ret;
		snprintf(head, sizeof(head), "%.*s", (int)n, value);
		f = py_top(v->c, head, fpath(v->c, v->def->file), false);
		if (f && f->kind == OT_PY_ASSIGN) {
			/* linear = _add_docstr(torch._C._nn.linear, ...): the op it names */
			for (uint32_t i = 0; i < f->nrefs; i++)
				if (ot_starts_with(f->refs[i].path, "torch."))
					return op_result_type(v->c->t->reg, strrchr(f->refs[i].path, '.') + 1);
			return PT_UNKNOWN;
		}
		ret = f ? ot_pyflow_returns(v->c->ix, f, v->c->a) : NULL;
		return !ret ? PT_UNKNOWN : !strcmp(ret, "Tensor") ? PT_TENSOR : PT_OTHER;
	}
	/* x.f(...).g(...) on a Tensor: each method an op that gives a Tensor
	 * to the next; the last one's result is the value's */
	if (n < sizeof(head) && value[n] == '.') {
		enum pyty t;
		snprintf(head, sizeof(head), "%.*s", (int)n, value);
		t = name_type(v, head, line, depth + 1);
		for (const char *m = value + n; t == PT_TENSOR && *m == '.';) {
			char meth[128];
			size_t k = strcspn(++m, "(.");
			if (m[k] != '(')
				return PT_UNKNOWN; /* x.T, x.shape: an attribute */
			snprintf(meth, sizeof(meth), "%.*s", (int)(k < sizeof(meth) ? k : sizeof(meth) - 1), m);
			t = op_result_type(v->c->t->reg, meth);
			m = past_group(m + k);
			while (*m == ' ')
				m++;
			if (*m && *m != '.')
				return PT_UNKNOWN; /* x.f(...)[0], x.f(...) + y */
		}
		return t == PT_TENSOR ? t : PT_UNKNOWN;
	}
	if (ot_is_identifier(value))
		return name_type(v, value, line, depth + 1); /* y = x: what x is */
	return PT_UNKNOWN;
}

static enum pyty name_type(struct pyvisit *v, const char *name, uint32_t line, int depth)
{
	const ot_pyassign *last = NULL;
	if (depth > 4)
		return PT_UNKNOWN;
	if (ot_starts_with(name, "self.") && v->cls && !strchr(name + 5, '.')) {
		const char *init = init_value(v->c, v->cls, name + 5);
		return init && (strstr(init, "Parameter(") || tensor_producer(init)) ? PT_TENSOR
		       : init ? PT_OTHER : PT_UNKNOWN;
	}
	if (strchr(name, '.'))
		return PT_UNKNOWN;
	for (size_t i = 0; i < v->flow.assigns.len; i++) {
		const ot_pyassign *a = &v->flow.assigns.items[i];
		ot_verdict vd[OT_DEV_COUNT];
		if (a->line >= line || strcmp(a->name, name))
			continue;
		verdicts(v, a->guard, a->line, vd);
		if ((vd[0].value == OT_TRI_FALSE || vd[0].validation) &&
		    (vd[1].value == OT_TRI_FALSE || vd[1].validation))
			continue; /* an assignment a default call never makes */
		last = a;
	}
	if (last)
		return value_type(v, last->value, last->line, depth + 1);
	{
		const ot_pyparam *p = ot_pyflow_param(&v->flow, name);
		if (!p || !strcmp(name, "self"))
			return PT_UNKNOWN;
		if (p->star)
			return PT_OTHER; /* *tensors: a tuple */
		if (p->annotation) {
			bool tensor = strstr(p->annotation, "Tensor") && !strstr(p->annotation, "List") &&
				      !strstr(p->annotation, "Tuple") && !strstr(p->annotation, "Sequence") &&
				      !strstr(p->annotation, "Dict") && !strstr(p->annotation, "list") &&
				      !strstr(p->annotation, "tuple");
			return tensor ? PT_TENSOR : PT_OTHER;
		}
		/* an unannotated parameter with no default: the data the call is given */
		return !p->def ? PT_TENSOR : !strcmp(p->def, "None") ? PT_UNKNOWN : PT_OTHER;
	}
}

/* ---- overloads a Python call binds ---------------------------------------------------------------- */

enum pcat { PC_UNKNOWN, PC_TENSOR, PC_INT, PC_FLOAT, PC_BOOL, PC_STR, PC_NONE, PC_LIST };

static enum pcat arg_cat(struct pyvisit *v, const char *text, uint32_t line)
{
	if (!text || !*text)
		return PC_UNKNOWN;
	if (!strcmp(text, "True") || !strcmp(text, "False"))
		return PC_BOOL;
	if (!strcmp(text, "None"))
		return PC_NONE;
	if (text[0] == '\'' || text[0] == '"')
		return PC_STR;
	if (text[0] == '[' || text[0] == '(')
		return PC_LIST;
	if (isdigit((unsigned char)text[0]) || (text[0] == '-' && isdigit((unsigned char)text[1])))
		return strchr(text, '.') || strchr(text, 'e') ? PC_FLOAT : PC_INT;
	if (name_type(v, text, line, 0) == PT_TENSOR)
		return PC_TENSOR;
	{
		const ot_pyparam *p = ot_pyflow_param(&v->flow, text);
		if (p && p->annotation) {
			if (strstr(p->annotation, "int") && !strstr(p->annotation, "List") &&
			    !strstr(p->annotation, "Tuple"))
				return PC_INT;
			if (strstr(p->annotation, "float"))
				return PC_FLOAT;
			if (strstr(p->annotation, "bool"))
				return PC_BOOL;
			if (strstr(p->annotation, "str"))
				return PC_STR;
		}
	}
	return PC_UNKNOWN;
}

static int cat_fit(enum pcat a, const char *type)
{
	bool optional = ot_ends_with(type, "?");
	if (a == PC_UNKNOWN)
		return 0;
	if (a == PC_NONE)
		return optional ? 1 : -5;
	if (ot_starts_with(type, "Tensor") && !strchr(type, '['))
		return a == PC_TENSOR ? 2 : -5;
	if (ot_starts_with(type, "Dimname"))
		return a == PC_STR ? 2 : -5;
	if (strchr(type, '['))
		return a == PC_LIST || a == PC_INT ? 1 : a == PC_TENSOR ? -5 : 0;
	if (ot_starts_with(type, "int") || ot_starts_with(type, "SymInt"))
		return a == PC_INT ? 2 : a == PC_BOOL ? 1 : -5;
	if (ot_starts_with(type, "float"))
		return a == PC_FLOAT || a == PC_INT ? 2 : -5;
	if (ot_starts_with(type, "bool"))
		return a == PC_BOOL ? 2 : -5;
	if (ot_starts_with(type, "Scalar"))
		return a == PC_INT || a == PC_FLOAT || a == PC_BOOL ? 1 : a == PC_TENSOR ? -3 : 0;
	if (ot_starts_with(type, "str"))
		return a == PC_STR ? 2 : -5;
	return 0;
}

/* The overload of `op` the call binds (self being the receiver for a
 * method); NULL when none takes these arguments. Without arguments to go by
 * (a generated binding asked for by name), the default overload. */
static const ot_reg_func *py_overload(struct pyvisit *v, const char *op, const ot_pycall *call,
				      bool method)
{
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(v->c->t->reg, op, &n);
	const ot_reg_func *best = NULL;
	int best_score = -1000;
	bool out_kw = false;
	if (call)
		for (size_t k = 0; k < call->nkw; k++)
			out_kw = out_kw || !strcmp(call->kw[k], "out");
	for (size_t i = 0; i < n; i++) {
		const ot_reg_schema *s = &ov[i]->schema;
		size_t npos_schema = 0, required = 0;
		int score = 0;
		bool fits = true;
		if (s->is_out != out_kw)
			continue;
		if (method ? !ov[i]->variant_method : !ov[i]->variant_function && !ov[i]->python_module)
			continue;
		if (ot_map_get(v->c->t->py_hidden, s->full))
			continue; /* no Python binding: x / 2 is div.Tensor with 2 wrapped */
		for (size_t k = 0; k < s->nargs; k++) {
			if (s->args[k].kwarg_only)
				continue;
			npos_schema++;
			if (!s->args[k].def)
				required = npos_schema;
		}
		if (call && call->npos >= 0) {
			size_t given = (size_t)call->npos + (method ? 1 : 0);
			/* torch.zeros(2, 3): an int[] first argument takes the
			 * positional ints (the Python argument parser's rule) */
			size_t first = method ? 1 : 0;
			bool varargs = first < s->nargs && !s->args[first].kwarg_only &&
				       strchr(s->args[first].type, '[') &&
				       (ot_starts_with(s->args[first].type, "int") ||
					ot_starts_with(s->args[first].type, "SymInt"));
			if (varargs && given > first + 1) {
				given = first + 1;
				score += 1;
			}
			if (given > npos_schema)
				fits = false;
			/* what is not given by position must be given by keyword or default */
			for (size_t k = given; fits && k < required; k++) {
				bool by_kw = false;
				for (size_t j = 0; j < call->nkw; j++)
					by_kw = by_kw || !strcmp(call->kw[j], s->args[k].name);
				if (!by_kw)
					fits = false;
			}
			/* a keyword-only argument without a default must be given
			 * (norm(..., *, ScalarType dtype) is not norm(x, p, dim)) */
			for (size_t k = 0; fits && k < s->nargs; k++) {
				bool by_kw = false;
				if (!s->args[k].kwarg_only || s->args[k].def || s->args[k].is_write)
					continue;
				for (size_t j = 0; j < call->nkw; j++)
					by_kw = by_kw || !strcmp(call->kw[j], s->args[k].name);
				if (!by_kw && !call->star_kwargs)
					fits = false;
			}
			for (size_t j = 0; fits && j < call->nkw; j++) {
				bool known = false;
				for (size_t k = 0; k < s->nargs; k++)
					known = known || !strcmp(s->args[k].name, call->kw[j]);
				if (!known && !call->star_kwargs)
					fits = false;
			}
			for (size_t k = method ? 1 : 0; fits && k < given; k++) {
				size_t ai = k - (method ? 1 : 0);
				score += cat_fit(arg_cat(v, ai < OT_PYFLOW_MAX_ARGS ? call->pos[ai] : NULL,
							 call->ref->line),
						 s->args[k].type);
			}
			for (size_t j = 0; fits && j < call->nkw; j++)
				for (size_t k = 0; k < s->nargs; k++)
					if (!strcmp(s->args[k].name, call->kw[j]))
						score += cat_fit(arg_cat(v, call->kwval[j], call->ref->line),
								 s->args[k].type);
		} else if (required > (method ? 1u : 0u) && !call) {
			score -= 0; /* asked for by name: any overload, the default first */
		}
		if (!fits)
			continue;
		/* an unknown argument fits a Tensor best (add.Tensor before add.Scalar) */
		/* named-tensor overloads only for a call that names dimensions */
		for (size_t k = 0; k < s->nargs; k++)
			if (ot_starts_with(s->args[k].type, "Dimname"))
				score -= 2;
		if (!*s->overload)
			score += 1;
		if (strstr(s->overload, "Tensor") || strstr(s->overload, "int") || !*s->overload)
			score += 1;
		if (score > best_score) {
			best_score = score;
			best = ov[i];
		}
	}
	return best;
}

/* ---- edges from Python ------------------------------------------------------------------------------ */

static void set_site(ot_edge *e, struct pyvisit *v, const ot_pycall *call)
{
	e->site_file = fpath(v->c, v->def->file);
	e->site_line = call->ref->line;
	e->site_symbol = call->text ? call->text : call->ref->path; /* q * k, proj[0] */
	e->site_step = true;
}

/* What a default call of op `f` named by the user (torch.x, Tensor.x,
 * aten::x) passes: dense contiguous Tensors, what else it requires (not
 * known), and the defaults for the rest. */
static void user_binding(const ot_reg_func *f, tb_binding *b)
{
	memset(b, 0, sizeof(*b));
	b->known = true;
	b->n = f->schema.nargs < TB_MAX_PARAMS ? f->schema.nargs : TB_MAX_PARAMS;
	for (size_t k = 0; k < b->n; k++)
		b->value[k] = !strcmp(f->schema.args[k].type, "Tensor") ? OT_COND_CONTIGUOUS
			      : f->schema.args[k].def			 ? NULL
									 : "?";
}

/* Is Python argument `text` a Tensor the user passed as it is: a required
 * parameter of the function the trace starts at, given no other value
 * before `line`? (A default call's tensors are contiguous.) */
static bool user_tensor(const struct pyvisit *v, const char *text, uint32_t line)
{
	bool param = false;
	if (v->depth || !text || !ot_is_identifier(text))
		return false;
	for (size_t i = 0; i < v->flow.params.len; i++)
		param = param || (!strcmp(v->flow.params.items[i].name, text) && !v->flow.params.items[i].def &&
				  !v->flow.params.items[i].star);
	for (size_t i = 0; i < v->flow.assigns.len && param; i++)
		if (v->flow.assigns.items[i].line < line && !strcmp(v->flow.assigns.items[i].name, text))
			return false;
	return param;
}

/* arg_value for schema argument `a`: a Tensor the user passed is contiguous. */
static const char *tensor_arg_value(const struct pyvisit *v, const char *text, uint32_t line, const ot_reg_arg *a)
{
	const char *val = arg_value(v, text, line);
	return !strcmp(val, "?") && !strcmp(a->type, "Tensor") && user_tensor(v, text, line) ? OT_COND_CONTIGUOUS
											      : val;
}

/* What the call passes to each argument of entry `f` (self first for a
 * method). */
static void entry_binding(struct pyvisit *v, const ot_pycall *call, const ot_reg_func *f,
			  bool method, tb_binding *b)
{
	const ot_reg_schema *s = &f->schema;
	memset(b, 0, sizeof(*b));
	b->n = s->nargs < TB_MAX_PARAMS ? s->nargs : TB_MAX_PARAMS;
	if (call && call->default_call) {
		/* what is required, not known; the defaults for the rest */
		b->known = true;
		for (size_t k = 0; k < b->n; k++)
			b->value[k] = s->args[k].def ? NULL : "?";
		return;
	}
	if (!call || call->npos < 0)
		return;
	b->known = true;
	if (method && b->n)
		b->value[0] = "?";
	for (int k = 0; k < call->npos; k++) {
		size_t ai = (size_t)k + (method ? 1 : 0);
		if (ai < b->n && k < OT_PYFLOW_MAX_ARGS)
			b->value[ai] = tensor_arg_value(v, call->pos[k], call->ref->line, &s->args[ai]);
	}
	for (size_t j = 0; j < call->nkw; j++)
		for (size_t k = 0; k < b->n; k++)
			if (!strcmp(s->args[k].name, call->kw[j]))
				b->value[k] = tensor_arg_value(v, call->kwval[j], call->ref->line, &s->args[k]);
}

/* Add the op the Python code reaches to the op's own overloads (tr->aten). */
static void own_op(struct tb_ctx *c, const ot_reg_func *f)
{
	for (size_t i = 0; i < c->tr->aten.len; i++)
		if (!strcmp(c->tr->aten.items[i], f->schema.full))
			return;
	ot_vec_push(&c->tr->aten, ot_arena_strdup(c->a, f->schema.full));
}

/* The in-place variant name_ of the op the user asked for: its overloads,
 * as side edges from `from` (a call of the functional never runs them). */
static void inplace_variants(struct tb_ctx *c, uint32_t from, const char *name)
{
	char inplace[160];
	size_t n;
	const ot_reg_func *const *ov;
	if (ot_ends_with(name, "_"))
		return;
	snprintf(inplace, sizeof(inplace), "%s_", name);
	ov = ot_registry_overloads(c->t->reg, inplace, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t en = tb_entry(c, ov[i], 0, NULL, true);
		ot_edge e = tb_always(OT_EDGE_BRIDGE, from, en);
		const char *w = ot_arena_printf(c->a, "the in-place variant, called as %s", ov[i]->func);
		tb_never(&e, OT_DEV_CPU, OT_WHEN_OVERLOAD, w);
		tb_never(&e, OT_DEV_CUDA, OT_WHEN_OVERLOAD, w);
		tb_edge(c, &e);
		own_op(c, ov[i]);
	}
}

/*
 * A call that crosses into C++ and names op `name`: edges to the overload
 * the call binds (taken as the call's guard says), and to the op's other
 * overloads as side paths. `via` is a BINDING node between them, or -1.
 */
static bool reach_op(struct pyvisit *v, const ot_pycall *call, const char *name, const char *note,
		     bool method, bool exact, const char *why, long via)
{
	struct tb_ctx *c = v->c;
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, name, &n);
	const ot_reg_func *chosen;
	ot_verdict vd[OT_DEV_COUNT];
	uint32_t from = v->node, chosen_en;
	tb_binding b;
	if (!ov)
		return false;
	chosen = py_overload(v, name, call, method);
	if (!chosen)
		chosen = ov[0];
	if (call)
		call_verdicts(v, call, vd);
	else
		verdicts(v, 0, v->def->line, vd);
	if (via >= 0) {
		ot_edge e = tb_always(OT_EDGE_BRIDGE, v->node, (uint32_t)via);
		if (call)
			set_site(&e, v, call);
		e.site_note = note;
		tb_reach(c, &e, vd, OT_WHEN_GUARD, fpath(c, v->def->file));
		tb_edge(c, &e);
		from = (uint32_t)via;
		note = NULL;
	}
	entry_binding(v, call, chosen, method, &b);
	/* the overload the call binds first: what it shares with the others is
	 * expanded with this call's arguments, not with their defaults */
	chosen_en = tb_entry(c, chosen, 0, &b, true);
	for (size_t i = 0; i < n; i++) {
		const ot_reg_func *f = ov[i];
		uint32_t en;
		if (f != chosen && !ot_trace_names_op(c->tr, name))
			continue; /* the other overloads of an op the code only uses */
		en = f == chosen ? chosen_en : tb_entry(c, f, 0, NULL, true);
		ot_edge e = tb_always(OT_EDGE_BRIDGE, from, en);
		if (!en && f != chosen)
			continue;
		if (call && via < 0)
			set_site(&e, v, call);
		e.site_note = note;
		if (f == chosen) {
			if (via < 0)
				tb_reach(c, &e, vd, OT_WHEN_GUARD, fpath(c, v->def->file));
			if (!exact) {
				const char *w = ot_arena_printf(c->a, OT_WHY_BY_NAME ": %s", why);
				e.exact = false;
				tb_never(&e, OT_DEV_CPU, OT_WHEN_NAME, w);
				tb_never(&e, OT_DEV_CUDA, OT_WHEN_NAME, w);
			}
		} else {
			/* another overload: a call with other arguments reaches it */
			const char *w = ot_arena_printf(c->a, "called as %s", f->func);
			tb_never(&e, OT_DEV_CPU, OT_WHEN_OVERLOAD, w);
			tb_never(&e, OT_DEV_CUDA, OT_WHEN_OVERLOAD, w);
			e.site_step = false;
		}
		tb_edge(c, &e);
		own_op(c, f);
	}
	if (ot_trace_names_op(c->tr, name))
		inplace_variants(c, from, name);
	return true;
}

static const char *const bridge_prefixes[][2] = {
	{"torch._C._nn.", "nn"},         {"torch._C._linalg.", "linalg"},
	{"torch._C._fft.", "fft"},       {"torch._C._special.", "special"},
	{"torch._C._nested.", "nested"}, {"torch._C._sparse.", "sparse"},
	{"_linalg.", "linalg"},          {"_fft.", "fft"},
	{"_special.", "special"},        {"_nested.", "nested"},
	{"_nn.", "nn"},                  {"torch._C._VariableFunctions.", ""},
	{"_VF.", ""},                    {"torch._VF.", ""},
	{"torch.ops.aten.", ""},
};

/* The BINDING node of torch/_VF.py's forwarding line, one per call site:
 * a node shared by two sites would join their paths. */
static long vf_node(struct tb_ctx *c, const struct pyvisit *v, const ot_pycall *call)
{
	uint32_t l;
	ot_node n = {0};
	if (c->t->f_vf < 0 || !(l = ot_index_find_line(c->ix, c->t->f_vf, "= torch._C._VariableFunctions")))
		return -1;
	n.kind = OT_NODE_BINDING;
	n.layer = OT_LAYER_BRIDGE;
	n.found = true;
	n.line = l;
	n.symbol = "_VariableFunctions";
	n.note = "torch._VF is torch._C._VariableFunctions: generated C++ bindings";
	return tb_node(c, &n, (uint32_t)c->t->f_vf, v->def,
		       ot_arena_printf(c->a, "vf:%u", call ? call->ref->line : 0), NULL);
}

static bool py_bridge(struct pyvisit *v, const ot_pycall *call, const char *path,
		      const char *prefix, const char *module)
{
	const char *op = path + strlen(prefix);
	char name[128], note[256];
	bool vf = !strcmp(prefix, "_VF.") || !strcmp(prefix, "torch._VF.");
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(op, "."), op);
	if (!*name || ot_callkind_is_selection(name))
		return false;
	if (vf)
		snprintf(note, sizeof(note), "_VF.%s: torch/_VF.py forwards to torch._C._VariableFunctions.%s", name, name);
	else if (!strcmp(prefix, "torch.ops.aten."))
		snprintf(note, sizeof(note), "torch.ops.aten.%s: the dispatcher's op handle", name);
	else if (*module)
		snprintf(note, sizeof(note), "generated binding in torch._C._%s (python_module: %s)",
			 module, module);
	else
		snprintf(note, sizeof(note), "generated binding in torch._C._VariableFunctions");
	return reach_op(v, call, name, ot_arena_strdup(v->c->a, note), false, true, NULL,
			vf ? vf_node(v->c, v, call) : -1);
}

/* A CALL edge to the Python function `f`, followed; kept when something
 * beneath reaches C++. */
static bool call_python(struct pyvisit *v, const ot_pycall *call, const ot_ix_pydef *f,
			const ot_ix_pydef *cls, const char *note)
{
	long node;
	ot_verdict vd[OT_DEV_COUNT];
	if (!f || f == v->def || !follow_def(v->c, f, cls, v, call, v->depth + 1, &node))
		return false;
	{
		ot_edge e = tb_always(OT_EDGE_CALL, v->node, (uint32_t)node);
		set_site(&e, v, call);
		e.site_step = note != NULL;
		e.site_note = note;
		call_verdicts(v, call, vd);
		tb_reach(v->c, &e, vd, OT_WHEN_GUARD, fpath(v->c, v->def->file));
		tb_edge(v->c, &e);
	}
	return true;
}

/* self.sub(...) where __init__ assigns self.sub = Cls(...): Cls's forward. */
static bool call_submodule(struct pyvisit *v, const ot_pycall *call, const char *attr)
{
	const char *init = v->cls ? init_value(v->c, v->cls, attr) : NULL;
	char cls_name[128];
	const char *p, *dot;
	const ot_ix_pydef *cls, *fwd;
	size_t n;
	if (!init)
		return false;
	n = strcspn(init, "(");
	if (!init[n] || n >= sizeof(cls_name))
		return false;
	snprintf(cls_name, sizeof(cls_name), "%.*s", (int)n, init);
	dot = strrchr(cls_name, '.');
	p = dot ? dot + 1 : cls_name;
	cls = py_class(v->c, p, NULL, "torch/nn/modules/");
	if (!cls || !(fwd = py_method(v->c, cls, "forward", 0)))
		return false;
	return call_python(v, call, fwd, fwd->parent,
			   ot_arena_printf(v->c->a, "calls submodule self.%s (%s)", attr, cls->name));
}

/* The type of an operand as written: a local or parameter by its name, an
 * expression by what it gives. */
static enum pyty operand_type(struct pyvisit *v, const char *text, uint32_t line)
{
	if (!text)
		return PT_UNKNOWN;
	if (ot_is_identifier(text))
		return name_type(v, text, line, 0);
	return value_type(v, text, line, 0);
}

/* A binary operator of the body (a ref named "*", "/", ...): the Tensor
 * method Python runs for it (Tensor.__mul__ is mul, __truediv__ div,
 * __matmul__ matmul; a number - Tensor is rsub, number + and * take the
 * Tensor's add and mul) when an operand is known to be a Tensor. */
static bool py_operator(struct pyvisit *v, const ot_pycall *call)
{
	static const struct {
		char sym;
		const char *op, *reflected; /* reflected: a Tensor on the right only */
	} ops[] = {{'+', "add", "add"}, {'-', "sub", "rsub"}, {'*', "mul", "mul"},
		   {'/', "div", NULL}, {'@', "matmul", NULL}};
	uint32_t line = call->ref->line;
	enum pyty lt = operand_type(v, call->receiver, line);
	enum pyty rt = operand_type(v, call->npos == 1 ? call->pos[0] : NULL, line);
	if (!call->receiver && call->ref->path[0] == '-') {
		/* -x of a Tensor: Tensor.__neg__ is neg */
		ot_pycall as_method = *call;
		if (rt != PT_TENSOR)
			return false;
		as_method.receiver = call->pos[0];
		as_method.npos = 0;
		return reach_op(v, &as_method, "neg", "Tensor unary minus: Tensor.neg", true, true, NULL, -1);
	}
	for (size_t i = 0; i < OT_ARRAY_LEN(ops); i++) {
		ot_pycall as_method = *call;
		if (ops[i].sym != call->ref->path[0])
			continue;
		if (lt == PT_TENSOR)
			return reach_op(v, call, ops[i].op,
					ot_arena_printf(v->c->a, "Tensor operator %c: Tensor.%s", ops[i].sym, ops[i].op),
					true, true, NULL, -1);
		if (rt != PT_TENSOR || !ops[i].reflected || lt != PT_OTHER)
			return false;
		/* 2 * x: the Tensor on the right is self, the number the argument */
		as_method.pos[0] = call->receiver;
		return reach_op(v, &as_method, ops[i].reflected,
				ot_arena_printf(v->c->a, "Tensor operator %c with the Tensor on the right: Tensor.%s",
						ops[i].sym, ops[i].reflected),
				true, true, NULL, -1);
	}
	return false;
}

/* A subscript of a Tensor (a ref named "["): what Tensor.__getitem__ runs
 * for it. An integer index selects along dim 0 (x[0] is select.int), one
 * slice slices it (x[1:] is slice.Tensor); anything else (a Tensor index,
 * several dims, None, ...) takes paths not read here. */
static bool py_subscript(struct pyvisit *v, const ot_pycall *call)
{
	const char *ix = call->npos == 1 ? call->pos[0] : NULL;
	ot_pycall as_method = *call;
	bool number = ix && *ix;
	if (!ix || operand_type(v, call->receiver, call->ref->line) != PT_TENSOR || strchr(ix, ','))
		return false;
	for (const char *p = ix + (*ix == '-'); number && *p; p++)
		number = *p >= '0' && *p <= '9';
	as_method.pos[0] = "0";
	if (number) {
		as_method.pos[1] = ix;
		as_method.npos = 2;
		return reach_op(v, &as_method, "select",
				ot_arena_printf(v->c->a, "Tensor subscript [%s]: Tensor.select(0, %s)", ix, ix), true,
				true, NULL, -1);
	}
	if (!strchr(ix, ':'))
		return false;
	as_method.npos = 1;
	return reach_op(v, &as_method, "slice",
			ot_arena_printf(v->c->a, "Tensor subscript [%s]: Tensor.slice along dim 0", ix), true, true,
			NULL, -1);
}

/* Method `name` written in Python in class Tensor itself (torch/_tensor.py),
 * or NULL: the C++ binding of _C.TensorBase answers the rest. */
static const ot_ix_pydef *tensor_python_method(const struct tb_ctx *c, const char *name)
{
	const ot_ix_pydef *tensor = py_class(c, "Tensor", "torch/_tensor.py", "torch/_tensor.py");
	const ot_ix_pydef *m = tensor ? py_method(c, tensor, name, 7) : NULL;
	return m && m->parent == tensor ? m : NULL;
}

/* One call of the body. Returns true when it leads to an aten op. */
static bool py_call(struct pyvisit *v, const ot_pycall *call)
{
	struct tb_ctx *c = v->c;
	const char *path = call->ref->path;
	if (path[0] && strchr("+-*/@", path[0]) && !path[1])
		return py_operator(v, call);
	if (!strcmp(path, "["))
		return py_subscript(v, call);
	const char *dot = strrchr(path, '.');
	const char *last = dot ? dot + 1 : path;
	int ndots = 0;
	for (const char *p = path; *p; p++)
		ndots += *p == '.';

	for (size_t i = 0; i < OT_ARRAY_LEN(bridge_prefixes); i++)
		if (ot_starts_with(path, bridge_prefixes[i][0]))
			return py_bridge(v, call, path, bridge_prefixes[i][0], bridge_prefixes[i][1]);
	if (ot_starts_with(path, "F.") || ot_starts_with(path, "torch.nn.functional.")) {
		if (ndots != (ot_starts_with(path, "F.") ? 1 : 3))
			return false;
		return call_python(v, call, py_top(c, last, "torch/nn/functional.py", false), NULL,
				   "calls the functional");
	}
	if (ot_starts_with(path, "torch.") && ndots == 2) {
		/* torch.linalg.x, torch.fft.x, torch.special.x */
		char sub[32], file[80];
		snprintf(sub, sizeof(sub), "%.*s", (int)(dot - path - 6), path + 6);
		snprintf(file, sizeof(file), "torch/%s/__init__.py", sub);
		return call_python(v, call, py_top(c, last, file, false), NULL,
				   ot_arena_printf(c->a, "calls torch.%s.%s", sub, last));
	}
	if (ot_starts_with(path, "torch.") && ndots == 1) {
		const ot_ix_pydef *f = py_top(c, last, "torch/functional.py", false);
		size_t n;
		const ot_reg_func *const *ov;
		bool function = false;
		if (f)
			return call_python(v, call, f, NULL, "calls a Python wrapper in torch/functional.py");
		ov = ot_registry_overloads(c->t->reg, last, &n);
		for (size_t i = 0; i < n; i++)
			function = function || ov[i]->variant_function;
		if (!function || ot_callkind_is_selection(last))
			return false;
		return reach_op(v, call, last, "generated binding in torch._C._VariableFunctions", false,
				true, NULL, -1);
	}
	if (ot_starts_with(path, "self.") && ndots == 1) {
		const ot_ix_pydef *m = py_method(c, v->cls, last, 0);
		if (m)
			return call_python(v, call, m, m->parent, NULL);
		return call_submodule(v, call, last);
	}
	if (!dot) {
		/* a module-level helper of the same file, or a name assigned
		 * there (linear = _add_docstr(torch._C._nn.linear, ...)) */
		const ot_ix_pydef *f = py_top(c, path, fpath(c, v->def->file), false);
		return f && f->kind != OT_PY_CLASS && call_python(v, call, f, NULL, NULL);
	}
	if (ndots == 1 && !ot_starts_with(path, "torch.")) {
		/* a Tensor method: input.softmax(dim), or one called on what a
		 * call gave: input.norm(p).clamp_min(eps) */
		char recv[128];
		size_t n;
		const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, last, &n);
		bool method = false, base_call;
		enum pyty t;
		for (size_t i = 0; i < n; i++)
			method = method || ov[i]->variant_method;
		if (!method || ot_callkind_is_selection(last) || ot_callkind_is_metadata(last))
			return false; /* size(), dim(): answered by the binding itself */
		if (path == dot && !call->receiver)
			return false; /* the receiver could not be read */
		snprintf(recv, sizeof(recv), "%.*s", path == dot ? (int)strlen(call->receiver) : (int)(dot - path),
			 path == dot ? call->receiver : path);
		/* super().x(...) in class Tensor's own method: the C++ binding
		 * of its base, _C.TensorBase */
		base_call = path == dot && !strcmp(call->receiver, "super()") && v->cls &&
			    v->cls == py_class(c, "Tensor", "torch/_tensor.py", "torch/_tensor.py");
		t = base_call	  ? PT_TENSOR
		    : path == dot ? value_type(v, call->receiver, call->ref->line, 0)
				  : name_type(v, recv, call->ref->line, 0);
		if (t == PT_OTHER)
			return false; /* a method of a list, a set, a string... */
		if (t == PT_TENSOR && !base_call) {
			/* class Tensor's own Python method (torch/_tensor.py's
			 * norm, split, unflatten) is what the call runs, not the
			 * C++ binding it overrides */
			const ot_ix_pydef *m = tensor_python_method(c, last);
			if (m)
				return call_python(v, call, m, m->parent,
						   ot_arena_printf(c->a, "Tensor method %s, written in Python", last));
		}
		return reach_op(v, call, last,
				ot_arena_printf(c->a, "Tensor method %s (generated binding on the C++ Tensor base class)", last),
				true, t == PT_TENSOR,
				ot_arena_printf(c->a, "`%s` is not known to be a Tensor", recv), -1);
	}
	return false;
}

/* boolean_dispatch(..., default=D, if_true=A, if_false=B): the function the
 * default picks, and the other with the flag's condition. */
static bool boolean_dispatch(struct pyvisit *v)
{
	struct tb_ctx *c = v->c;
	const ot_ix_file *f = ot_index_file(c->ix, v->def->file);
	size_t s = f->line_off[v->def->line - 1];
	size_t e = v->def->end_line < f->nlines ? f->line_off[v->def->end_line] : f->len;
	char text[2048], t_name[128] = "", f_name[128] = "", arg[64] = "", def[16] = "False";
	const char *p;
	bool found = false;
	snprintf(text, sizeof(text), "%.*s", (int)(e - s), f->text + s);
	if (!strstr(text, "boolean_dispatch"))
		return false;
#define READ(key, out)                                                                  \
	if ((p = strstr(text, key))) {                                                  \
		p += strlen(key);                                                       \
		while (*p == ' ' || *p == '=' || *p == '"' || *p == '\'')               \
			p++;                                                            \
		snprintf(out, sizeof(out), "%.*s", (int)strcspn(p, ",) \n\"'"), p);     \
	}
	READ("if_true", t_name);
	READ("if_false", f_name);
	READ("arg_name", arg);
	READ("default", def);
#undef READ
	for (int side = 0; side < 2; side++) {
		const char *name = side ? t_name : f_name;
		const ot_ix_pydef *target = py_top(c, name, fpath(c, v->def->file), false);
		bool chosen = (side == 1) == !strcmp(def, "True");
		long node;
		if (!*name || !target || !follow_def(c, target, NULL, v, NULL, v->depth + 1, &node))
			continue;
		{
			ot_edge ed = tb_always(OT_EDGE_CALL, v->node, (uint32_t)node);
			ed.site_file = fpath(c, v->def->file);
			ed.site_line = v->def->line;
			ed.site_symbol = name;
			ed.site_step = false;
			if (!chosen) {
				const char *w = ot_arena_printf(c->a, "%s=%s", *arg ? arg : "flag",
								side ? "True" : "False");
				ed.when_file = ed.site_file;
				tb_never(&ed, OT_DEV_CPU, OT_WHEN_GUARD, w);
				tb_never(&ed, OT_DEV_CUDA, OT_WHEN_GUARD, w);
				ed.cond[0].line = ed.cond[1].line = ed.when_line = v->def->line;
			}
			tb_edge(c, &ed);
		}
		found = true;
	}
	return found;
}

/* The node of a Python definition. */
static long def_node(struct tb_ctx *c, const ot_ix_pydef *def, const ot_ix_pydef *cls, int depth)
{
	ot_node n = {0};
	n.kind = OT_NODE_PYFUNC;
	n.layer = OT_LAYER_PYTHON;
	n.found = true;
	n.line = def->line;
	n.depth = 0;
	(void)depth;
	if (def->kind == OT_PY_ASSIGN) {
		n.symbol = def->name;
		n.note = "defined by assignment (no Python body)";
	} else if (def->kind == OT_PY_CLASS) {
		n.symbol = ot_arena_printf(c->a, "class %s", def->name);
		n.note = ot_arena_printf(c->a, "nn.Module subclass (bases: %s)",
					 def->bases && *def->bases ? def->bases : "none");
	} else {
		n.symbol = ot_arena_printf(c->a, "def %s", def->name);
		n.note = cls ? ot_arena_printf(c->a, "method of class %s", cls->name) : "Python function";
	}
	return tb_node(c, &n, def->file, def, NULL, NULL);
}

/*
 * What `call` (made in `caller`) passes for parameter `pi` of the callee
 * whose parameters `flow` reads (`first`: 1 when the callee's self is not
 * among the call's arguments): the value, or NULL when unknown;
 * *passed says whether the call gives it at all (else its default holds).
 */
static const char *site_value(const struct pyvisit *caller, const ot_pycall *call, const ot_pyflow *flow,
			      size_t first, size_t pi, bool *passed)
{
	const char *val = NULL;
	*passed = false;
	if (pi >= first && pi - first < (size_t)call->npos && pi - first < OT_PYFLOW_MAX_ARGS) {
		*passed = true;
		val = arg_value(caller, call->pos[pi - first], call->ref->line);
	}
	for (size_t j = 0; j < call->nkw; j++)
		if (!strcmp(flow->params.items[pi].name, call->kw[j])) {
			*passed = true;
			val = arg_value(caller, call->kwval[j], call->ref->line);
		}
	return val && strcmp(val, "?") ? val : NULL;
}

/*
 * Follow a Python function: its node, then its calls. Called from `caller`
 * with `call` (both NULL for a root), what the call passes is bound to the
 * parameters. Returns whether an aten op is reached beneath; *node_out is
 * its node either way (dropped at the end when nothing is).
 */
static bool follow_def(struct tb_ctx *c, const ot_ix_pydef *def, const ot_ix_pydef *cls,
		       const struct pyvisit *caller, const ot_pycall *call, int depth, long *node_out)
{
	struct pyvisit v = {0};
	long node;
	struct tb_state *st;
	bool found = false;

	if (!def || depth > 6)
		return false;
	if (def->kind == OT_PY_DEF && def->parent && def->parent->kind == OT_PY_CLASS)
		cls = def->parent;
	if ((node = def_node(c, def, cls, depth)) < 0)
		return false;
	*node_out = node;
	st = tb_state(c, (uint32_t)node);
	if (st->expanded)
		return st->interesting;
	st->expanded = true;
	v.c = c;
	v.def = def;
	v.cls = cls;
	v.node = (uint32_t)node;
	v.depth = depth;
	v.module = cls != NULL && (ot_starts_with(fpath(c, cls->file), "torch/nn/modules/"));
	ot_pyflow_read(&v.flow, c->ix, def, c->a);
	/* what the caller passes: positional after self, then keywords */
	if (caller && call && call->npos >= 0) {
		size_t first = cls && v.flow.params.len && !strcmp(v.flow.params.items[0].name, "self") ? 1 : 0;
		for (size_t pi = 0; pi < v.flow.params.len && pi < TB_MAX_PARAMS; pi++)
			v.bind[pi] = site_value(caller, call, &v.flow, first, pi, &v.passed[pi]);
		for (size_t i = 0; i < caller->flow.calls.len; i++) {
			/* the same function called at another site a default call
			 * may take (MultiheadAttention.forward's two calls of
			 * F.multi_head_attention_forward, in the arms of `if not
			 * self._qkv_same_embed_dim`): its node is one, so it keeps
			 * only what every such site passes alike */
			const ot_pycall *other = &caller->flow.calls.items[i];
			ot_verdict vd[OT_DEV_COUNT];
			if (other == call || other->npos < 0 || strcmp(other->ref->path, call->ref->path))
				continue;
			call_verdicts(caller, other, vd);
			if (vd[0].value == OT_TRI_FALSE && vd[1].value == OT_TRI_FALSE)
				continue;
			for (size_t pi = 0; pi < v.flow.params.len && pi < TB_MAX_PARAMS; pi++) {
				bool passed;
				const char *val = site_value(caller, other, &v.flow, first, pi, &passed);
				if (passed != v.passed[pi] ||
				    (passed && (!val || !v.bind[pi] || strcmp(val, v.bind[pi])))) {
					v.passed[pi] = true; /* passed, its value unknown */
					v.bind[pi] = NULL;
				}
			}
		}
	}
	if (def->kind == OT_PY_ASSIGN) {
		/* the references of the right-hand side: a binding, or a
		 * boolean_dispatch between two functions */
		if (boolean_dispatch(&v)) {
			found = true;
		} else {
			/* conv2d = _add_docstr(torch.conv2d, ...): what it names
			 * (called or not) is the function */
			for (uint32_t i = 0; i < def->nrefs && !found; i++) {
				ot_pycall pc = {0};
				pc.ref = &def->refs[i];
				pc.npos = -1;
				pc.default_call = !caller;
				found = strchr(pc.ref->path, '.') && py_call(&v, &pc);
			}
		}
	} else {
		/* the calls a default call can make first: a function reached
		 * from both a main and a side call takes the main call's
		 * arguments */
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < v.flow.calls.len; i++) {
				const ot_pycall *pc = &v.flow.calls.items[i];
				ot_verdict vd[OT_DEV_COUNT];
				bool taken;
				call_verdicts(&v, pc, vd);
				taken = (vd[0].value != OT_TRI_FALSE && !vd[0].validation) ||
					(vd[1].value != OT_TRI_FALSE && !vd[1].validation);
				if (taken == (pass == 0) && py_call(&v, pc))
					found = true;
			}
	}
	st = tb_state(c, (uint32_t)node);
	st->interesting = found;
	if (!found && depth > 0)
		st->dropped = true; /* nothing beneath reached C++ */
	ot_pyflow_free(&v.flow);
	return found;
}

/* ---- entry points per strategy ------------------------------------------------------------------- */

static bool start_module(struct tb_ctx *c)
{
	const char *name = c->tr->target.name;
	const ot_ix_pydef *cls = py_class(c, name, NULL, "torch/nn/modules/"), *fwd;
	long at, fnode;
	if (!cls)
		return false;
	if ((at = def_node(c, cls, NULL, 0)) < 0)
		return true;
	ot_vec_push(&c->tr->roots, (uint32_t)at);
	fwd = py_method(c, cls, "forward", 0);
	if (!fwd) {
		uint32_t m = tb_missing(c, OT_LAYER_PYTHON,
					ot_arena_printf(c->a, "forward of %s or its bases", name),
					fpath(c, cls->file), NULL, 0);
		tb_edge(c, &(ot_edge){.kind = OT_EDGE_CALL, .from = (uint32_t)at, .to = m, .exact = true,
				      .reach = {OT_REACH_YES, OT_REACH_YES}});
		return true;
	}
	if (fwd->parent != cls)
		tb_message(c, "forward is inherited from %s", fwd->parent->name);
	if (follow_def(c, fwd, fwd->parent, NULL, NULL, 0, &fnode))
		tb_edge(c, &(ot_edge){.kind = OT_EDGE_CALL, .from = (uint32_t)at, .to = (uint32_t)fnode,
				      .exact = true, .reach = {OT_REACH_YES, OT_REACH_YES}});
	else if (fnode >= 0)
		tb_edge(c, &(ot_edge){.kind = OT_EDGE_CALL, .from = (uint32_t)at, .to = (uint32_t)fnode,
				      .exact = true, .reach = {OT_REACH_YES, OT_REACH_YES}});
	return true;
}

static bool start_def(struct tb_ctx *c, const ot_ix_pydef *f)
{
	long node = -1;
	if (!f)
		return false;
	follow_def(c, f, NULL, NULL, NULL, 0, &node);
	if (node >= 0)
		ot_vec_push(&c->tr->roots, (uint32_t)node);
	return true;
}

/* The add_docstr anchor of a generated function or method, as a root. */
static long doc_anchor(struct tb_ctx *c, const char *name, bool method)
{
	for (const ot_ix_doc *d = ot_index_docs(c->ix, name); d; d = d->next) {
		ot_node n = {0};
		long id;
		if (d->method != method)
			continue;
		n.kind = OT_NODE_PYFUNC;
		n.layer = OT_LAYER_PYTHON;
		n.found = true;
		n.line = d->line;
		n.symbol = method ? name : ot_arena_printf(c->a, "torch.%s", name);
		n.note = method ? "docstring anchor: add_docstr_all (the method itself is generated)"
				: "docstring anchor: add_docstr (the function itself is generated)";
		id = tb_node(c, &n, d->file, d, NULL, NULL);
		if (id >= 0)
			ot_vec_push(&c->tr->roots, (uint32_t)id);
		return id;
	}
	return -1;
}

/* A binding of generated code (class Tensor, torch/__init__.py's re-export). */
static long binding_node(struct tb_ctx *c, int64_t file, uint32_t line, const char *symbol,
			 const char *note)
{
	ot_node n = {0};
	n.kind = OT_NODE_BINDING;
	n.layer = OT_LAYER_BRIDGE;
	n.found = true;
	n.line = line;
	n.symbol = symbol;
	n.note = note;
	return tb_node(c, &n, (uint32_t)file, NULL, symbol, NULL);
}

/* The lines of docstring anchor d: from its add_docstr line to the next
 * one's (a docstring may be several strings joined), at most 400. */
static uint32_t doc_end(struct tb_ctx *c, const ot_ix_doc *d)
{
	uint32_t k;
	for (k = d->line + 1; k < d->line + 400; k++) {
		size_t len;
		const char *t = ot_index_line(c->ix, d->file, k, &len);
		if (!t || memmem(t, len, "add_docstr", 10))
			break;
	}
	return k;
}

/*
 * A stand-in literal for parameter `param` as docstring d's Args section
 * types it with one number type (`value (float): the value to fill in
 * with`): "0.0", "1", "True"; NULL for any other type ("float or tensor",
 * "Tensor") or none. An out-of-place method documented as the "version of
 * :meth:`torch.Tensor.x_`" takes x_'s.
 */
static const char *doc_arg_literal(struct tb_ctx *c, const ot_ix_doc *d, const char *param, int hops)
{
	static const char *const kinds[][2] = {{"float", "0.0"}, {"int", "1"},	  {"bool", "True"},
					       {"Number", "0.0"}, {"number", "0.0"}};
	size_t pn = strlen(param);
	uint32_t end = doc_end(c, d);
	for (uint32_t k = d->line; k < end; k++) {
		size_t len;
		const char *t = ot_index_line(c->ix, d->file, k, &len), *e, *ty, *m;
		if (!t)
			break;
		e = t + len;
		if (hops < 1 && d->method && (m = memmem(t, len, "version of :meth:`torch.Tensor.", 31))) {
			char other[128];
			size_t on;
			m += 31;
			on = strcspn(m, "`");
			if (m + on < e && on < sizeof(other)) {
				snprintf(other, sizeof(other), "%.*s", (int)on, m);
				for (const ot_ix_doc *o = ot_index_docs(c->ix, other); o; o = o->next)
					if (o->method) {
						const char *lit = doc_arg_literal(c, o, param, hops + 1);
						if (lit)
							return lit;
					}
			}
		}
		while (t < e && *t == ' ')
			t++;
		if ((size_t)(e - t) < pn + 3 || memcmp(t, param, pn) || memcmp(t + pn, " (", 2))
			continue;
		ty = t + pn + 2;
		for (size_t i = 0; i < OT_ARRAY_LEN(kinds); i++) {
			size_t kn = strlen(kinds[i][0]);
			if ((size_t)(e - ty) > kn && !memcmp(ty, kinds[i][0], kn) && ty[kn] == ')')
				return kinds[i][1];
		}
		return NULL;
	}
	return NULL;
}

/*
 * The call a generated function's docstring documents first
 * (`add_docstr(torch.where, r"""where(condition, input, other, *, out=None)
 * -> Tensor`): its parameters without a default before `*` as positional
 * arguments, and whether it returns one Tensor (`-> Tensor`). False when
 * the docstring does not open with such a signature, or takes *args.
 */
static bool documented_call(struct tb_ctx *c, const char *name, bool method, ot_pycall *call,
			    ot_ix_pyref *ref, bool *one_tensor)
{
	size_t n = strlen(name);
	for (const ot_ix_doc *d = ot_index_docs(c->ix, name); d; d = d->next) {
		if (d->method != method)
			continue;
		for (uint32_t k = d->line; k < d->line + 4; k++) {
			size_t len;
			const char *t = ot_index_line(c->ix, d->file, k, &len), *end, *p;
			int depth = 0, npos = 0;
			bool param = false, has_default = false, keyword_only = false;
			const char *names[OT_PYFLOW_MAX_ARGS] = {0}, *pname = NULL;
			if (!t)
				return false;
			end = t + len;
			while (t < end && (*t == ' ' || *t == '\t'))
				t++;
			/* the signature may open the string: r"""where(...) */
			if (end - t >= 4 && *t == 'r' && (t[1] == '"' || t[1] == '\'') && t[2] == t[1] && t[3] == t[1])
				t += 4;
			else if (end - t >= 3 && (*t == '"' || *t == '\'') && t[1] == *t && t[2] == *t)
				t += 3;
			if ((size_t)(end - t) <= n || memcmp(t, name, n) || t[n] != '(')
				continue;
			for (p = t + n + 1; p < end && !keyword_only; p++) {
				if (*p == '(' || *p == '[')
					depth++;
				else if ((*p == ')' || *p == ']') && depth-- == 0)
					break;
				else if (depth == 0 && *p == ',') {
					if (param && !has_default && npos < OT_PYFLOW_MAX_ARGS)
						names[npos++] = pname;
					param = has_default = false;
				} else if (depth == 0 && *p == '*') {
					if (p + 1 < end && (isalpha((unsigned char)p[1]) || p[1] == '_'))
						return false; /* *size: varargs */
					keyword_only = true;
				} else if (depth == 0 && *p == '=') {
					has_default = true;
				} else if (*p != ' ') {
					if (!param && depth == 0) {
						size_t k = 0;
						while (p + k < end && ot_is_ident_char(p[k]))
							k++;
						pname = ot_arena_strndup(c->a, p, k);
					}
					param = true;
				}
			}
			if (!keyword_only && param && !has_default && npos < OT_PYFLOW_MAX_ARGS)
				names[npos++] = pname;
			{
				const char *arrow = p < end ? memmem(p, (size_t)(end - p), "-> ", 3) : NULL;
				*one_tensor = arrow && (size_t)(end - arrow) >= 9 && !memcmp(arrow + 3, "Tensor", 6) &&
					      (arrow + 9 == end || !isalnum((unsigned char)arrow[9]));
			}
			memset(call, 0, sizeof(*call));
			memset(ref, 0, sizeof(*ref));
			ref->line = d->line;
			call->ref = ref;
			call->npos = npos;
			for (int i = 0; i < npos; i++)
				call->pos[i] = names[i] && *names[i] ? doc_arg_literal(c, d, names[i], 0) : NULL;
			return true;
		}
		return false;
	}
	return false;
}

/*
 * The call the docstring's first example makes (`>>> torch.pow(a, 2)`,
 * `>>> x.lerp(y, 0.5)` for a method), cut to its first `required`
 * positional arguments (what the documented signature requires: a default
 * call passes no more) as call: the literals (numbers, strings, None,
 * True/False, list and tuple displays) as written and every other argument
 * (a name, an expression) unknown, as a call with no code around it reads
 * them. False when no example calls the op on one line.
 */
static bool documented_example(struct tb_ctx *c, const char *name, bool method, const ot_pycall *sig,
			       ot_pycall *call, ot_ix_pyref *ref)
{
	int required = sig->npos;
	size_t n = strlen(name);
	for (const ot_ix_doc *d = ot_index_docs(c->ix, name); d; d = d->next) {
		uint32_t last;
		if (d->method != method)
			continue;
		last = doc_end(c, d);
		for (uint32_t k = d->line; k < last; k++) {
			size_t len;
			const char *t = ot_index_line(c->ix, d->file, k, &len), *end, *p, *q;
			int depth = 0;
			char arg[96];
			size_t an = 0;
			if (!t)
				break;
			end = t + len;
			while (t < end && (*t == ' ' || *t == '\t'))
				t++;
			if (end - t < 4 || memcmp(t, ">>> ", 4))
				continue;
			t += 4;
			/* torch.NAME( or, for a method, IDENT.NAME( */
			if (method) {
				q = t;
				while (q < end && ot_is_ident_char(*q))
					q++;
				if (q == t || q >= end || *q != '.')
					continue;
				p = q + 1;
			} else {
				if (end - t < 6 || memcmp(t, "torch.", 6))
					continue;
				p = t + 6;
			}
			if ((size_t)(end - p) <= n || memcmp(p, name, n) || p[n] != '(')
				continue;
			memset(call, 0, sizeof(*call));
			memset(ref, 0, sizeof(*ref));
			ref->line = k;
			call->ref = ref;
			for (p += n + 1; p < end; p++) {
				bool close = depth == 0 && *p == ')';
				if (*p == '(' || *p == '[')
					depth++;
				else if ((*p == ')' || *p == ']') && depth)
					depth--;
				if ((close || (depth == 0 && *p == ',')) && an) {
					const char *txt = ot_arena_strndup(c->a, arg, an), *eq = strchr(txt, '=');
					bool keyword = eq && eq[1] != '=' && eq > txt && eq[-1] != '!' &&
						       eq[-1] != '<' && eq[-1] != '>';
					if (!keyword && call->npos < required && call->npos < OT_PYFLOW_MAX_ARGS) {
						call->pos[call->npos] = is_literal(txt) || *txt == '[' || *txt == '('
									? txt
									: sig->pos[call->npos];
						call->npos++;
					}
					an = 0;
				} else if (*p != ' ' && an + 1 < sizeof(arg)) {
					arg[an++] = *p;
				}
				if (close)
					return true;
			}
			return false; /* the call goes on past its line */
		}
	}
	return false;
}

/* A generated op with no Python code of its own: from its anchor (and
 * binding node), every overload, the default one taken. */
static bool start_generated(struct tb_ctx *c, const char *name, long anchor, long binding,
			    bool method)
{
	struct pyvisit v = {0};
	long from = binding >= 0 ? binding : anchor;
	v.c = c;
	if (anchor >= 0 && binding >= 0)
		tb_edge(c, &(ot_edge){.kind = OT_EDGE_BRIDGE, .from = (uint32_t)anchor,
				      .to = (uint32_t)binding, .exact = true,
				      .reach = {OT_REACH_YES, OT_REACH_YES}});
	if (from < 0) {
		size_t n;
		const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, name, &n);
		const ot_reg_func *chosen = NULL;
		for (size_t i = 0; i < n && !chosen; i++)
			if (!ov[i]->schema.is_out && (!method || ov[i]->variant_method))
				chosen = ov[i];
		if (!chosen && n)
			chosen = ov[0];
		/* the default overload is the main root, the others side roots */
		for (size_t k = 0; k < n + 1; k++) {
			const ot_reg_func *f = k == 0 ? chosen : ov[k - 1];
			uint32_t en;
			tb_binding ub;
			if (!f || (k > 0 && f == chosen))
				continue;
			if (k == 0)
				user_binding(f, &ub); /* the main root: the user's call */
			en = tb_entry(c, f, 0, k == 0 ? &ub : NULL, true);
			ot_vec_push(&c->tr->roots, en);
			own_op(c, f);
		}
		return n > 0;
	}
	v.node = (uint32_t)from;
	v.def = NULL;
	{
		/* no call to read: the overload a call by name reaches first;
		 * when that one does not return the one Tensor the docstring's
		 * signature does (torch.where's where(condition) -> Tensor[]), the
		 * overload the documented call reaches (where.self); else the one
		 * the docstring's first example reaches with the arguments the
		 * signature requires (torch.pow(a, 2): pow.Tensor_Scalar), or its
		 * signature with the types of its Args (masked_fill's value
		 * (float): masked_fill.Scalar) */
		size_t n;
		const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, name, &n);
		const ot_reg_func *chosen = py_overload(&v, name, NULL, method), *documented;
		ot_pycall doc;
		ot_ix_pyref ref;
		bool one_tensor = false;
		bool signed_doc = chosen && documented_call(c, name, method, &doc, &ref, &one_tensor);
		if (signed_doc && one_tensor &&
		    !(chosen->schema.nreturns == 1 && !strcmp(chosen->schema.returns[0].type, "Tensor")) &&
		    (documented = py_overload(&v, name, &doc, method))) {
			chosen = documented;
		} else if (signed_doc) {
			/* the call the documentation shows first, else its
			 * signature with the argument types its Args section gives */
			ot_pycall ex;
			ot_ix_pyref exref;
			bool typed = false;
			for (int i = 0; i < doc.npos; i++)
				typed = typed || doc.pos[i];
			if (documented_example(c, name, method, &doc, &ex, &exref))
				documented = py_overload(&v, name, &ex, method);
			else
				documented = typed ? py_overload(&v, name, &doc, method) : NULL;
			if (documented)
				chosen = documented;
		}
		for (size_t i = 0; i < n; i++) {
			tb_binding ub;
			uint32_t en;
			ot_edge e;
			if (ov[i] == chosen)
				user_binding(ov[i], &ub);
			en = tb_entry(c, ov[i], 0, ov[i] == chosen ? &ub : NULL, true);
			e = tb_always(OT_EDGE_BRIDGE, (uint32_t)from, en);
			if (ov[i] != chosen) {
				const char *w = ot_arena_printf(c->a, "called as %s", ov[i]->func);
				tb_never(&e, OT_DEV_CPU, OT_WHEN_OVERLOAD, w);
				tb_never(&e, OT_DEV_CUDA, OT_WHEN_OVERLOAD, w);
			}
			tb_edge(c, &e);
			own_op(c, ov[i]);
		}
		inplace_variants(c, (uint32_t)from, name);
	}
	return true;
}

/* Where the Tensor properties written in C++ are bound (Tensor.T, .mT, .H, .data). */
#define PY_VARIABLE_PATH "torch/csrc/autograd/python_variable.cpp"

/*
 * Tensor.NAME as a property bound in C++: its row {"NAME", (getter)X...} of
 * THPVariable_properties, and for a getter X::getter (the GetterBase
 * classes) the Tensor method X::fn returns, an aten op followed from there.
 */
static bool start_property(struct tb_ctx *c)
{
	const char *name = c->tr->target.name;
	int64_t f = ot_index_file_id(c->ix, PY_VARIABLE_PATH);
	char needle[200], getter[128], sym[200];
	const char *text, *g;
	size_t len, n;
	uint32_t l;
	long at;

	if (f < 0)
		return false;
	snprintf(needle, sizeof(needle), "{\"%s\", (getter)", name);
	if (!(l = ot_index_find_line(c->ix, f, needle)) || !(text = ot_index_line(c->ix, (uint32_t)f, l, &len)))
		return false;
	g = strstr(text, "(getter)") + strlen("(getter)");
	n = strspn(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:");
	if (!n || n >= sizeof(getter) || (size_t)(g - text) + n > len)
		return false;
	snprintf(getter, sizeof(getter), "%.*s", (int)n, g);
	at = binding_node(c, f, l, ot_arena_strdup(c->a, getter),
			  ot_arena_printf(c->a, "Tensor.%s is a property written in C++: its getter %s is "
						"registered in THPVariable_properties",
					  name, getter));
	if (at < 0)
		return true;
	ot_vec_push(&c->tr->roots, (uint32_t)at);
	if (ot_ends_with(getter, "::getter")) {
		/* struct PropertyT : GetterBase<PropertyT> { ... static Tensor fn(const Tensor& t)
		 * { return t.numpy_T(); } } */
		uint32_t sl;
		snprintf(needle, sizeof(needle), "struct %.*s ", (int)(n - strlen("::getter")), getter);
		sl = ot_index_find_line(c->ix, f, needle);
		for (uint32_t k = sl; sl && k < sl + 12; k++) {
			const char *call;
			size_t m;
			long fn;
			if (!(text = ot_index_line(c->ix, (uint32_t)f, k, &len)))
				break;
			if (!(call = strstr(text, "return t.")) || call >= text + len)
				continue;
			call += strlen("return t.");
			m = strspn(call, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
			if (!m || m >= sizeof(sym) || call[m] != '(')
				break;
			snprintf(sym, sizeof(sym), "%.*s", (int)m, call);
			if (!ot_registry_overloads(c->t->reg, sym, &(size_t){0}))
				break;
			fn = binding_node(c, f, k, ot_arena_strdup(c->a, sym),
					  ot_arena_printf(c->a, "the getter returns Tensor::%s: the aten op %s", sym, sym));
			if (fn < 0)
				break;
			tb_edge(c, &(ot_edge){.kind = OT_EDGE_BRIDGE, .from = (uint32_t)at, .to = (uint32_t)fn,
					      .exact = true, .reach = {OT_REACH_YES, OT_REACH_YES}});
			start_generated(c, sym, -1, fn, true);
			break;
		}
	}
	return true;
}

static bool start_method(struct tb_ctx *c)
{
	const char *name = c->tr->target.name;
	const ot_ix_pydef *tensor = py_class(c, "Tensor", "torch/_tensor.py", "torch/_tensor.py");
	const ot_ix_pydef *m = tensor_python_method(c, name);
	size_t n;
	const ot_reg_func *const *ov;
	bool method = false;
	long anchor, binding = -1;
	if (m)
		return start_def(c, m);
	ov = ot_registry_overloads(c->t->reg, name, &n);
	for (size_t i = 0; i < n; i++)
		method = method || ov[i]->variant_method;
	if (!method)
		return start_property(c);
	anchor = doc_anchor(c, name, true);
	if (tensor)
		binding = binding_node(c, tensor->file, tensor->line, "class Tensor",
				       "Tensor methods without a Python override come from the generated "
				       "C++ base class");
	if (anchor < 0 && binding >= 0)
		ot_vec_push(&c->tr->roots, (uint32_t)binding);
	return start_generated(c, name, anchor, binding, true);
}

static bool start_torch(struct tb_ctx *c)
{
	const ot_target *tg = &c->tr->target;
	char aten[200];
	const ot_ix_pydef *f;
	long anchor, binding = -1;
	size_t n;
	const ot_reg_func *const *ov;
	bool function = false;
	ot_resolve_aten_name(aten, sizeof(aten), tg);
	if (tg->submodule[0]) {
		char path[64];
		snprintf(path, sizeof(path), "torch/%s/__init__.py", tg->submodule);
		f = py_top(c, tg->name, path, false);
	} else {
		f = py_top(c, tg->name, "torch/functional.py", false);
	}
	if (f)
		return start_def(c, f);
	ov = ot_registry_overloads(c->t->reg, aten, &n);
	for (size_t i = 0; i < n; i++)
		function = function || ov[i]->variant_function;
	if (!ov || (!tg->submodule[0] && !function))
		return false;
	anchor = doc_anchor(c, aten, false);
	if (!tg->submodule[0] && c->t->f_init >= 0) {
		uint32_t l = ot_index_find_line(c->ix, c->t->f_init, "dir(_C._VariableFunctions)");
		if (l)
			binding = binding_node(c, c->t->f_init, l, "_C._VariableFunctions",
					       "torch/__init__.py copies every generated binding of "
					       "torch._C._VariableFunctions into the torch namespace");
	}
	if (anchor < 0 && binding >= 0)
		ot_vec_push(&c->tr->roots, (uint32_t)binding);
	return start_generated(c, aten, anchor, binding, false);
}

/* The overload of an op without an unnamed one that a call passing the
 * fewest arguments takes: not an out= one, the fewest arguments without a
 * default, the first of those; the first overload when all are out=. */
static const ot_reg_func *fewest_required(const ot_reg_func *const *ov, size_t n)
{
	const ot_reg_func *best = ov[0];
	size_t best_req = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t req = 0;
		if (ov[i]->schema.is_out)
			continue;
		for (size_t k = 0; k < ov[i]->schema.nargs; k++)
			req += !ov[i]->schema.args[k].def;
		if (req < best_req) {
			best = ov[i];
			best_req = req;
		}
	}
	return best;
}

static bool start_aten(struct tb_ctx *c)
{
	const ot_target *tg = &c->tr->target;
	size_t n;
	const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, tg->name, &n);
	const ot_reg_func *chosen = NULL;
	tb_binding ub;
	if (!ov)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (tg->overload[0] ? !strcmp(ov[i]->schema.overload, tg->overload)
				    : !*ov[i]->schema.overload)
			chosen = ov[i];
	}
	if (tg->overload[0] && !chosen)
		return false;
	if (!chosen) /* aten::x with no default overload: the one a call of the
			fewest arguments takes (histogram(x) is histogram.bin_ct) */
		chosen = fewest_required(ov, n);
	user_binding(chosen, &ub);
	if (tg->overload[0]) {
		uint32_t en = tb_entry(c, chosen, 0, &ub, true);
		ot_vec_push(&c->tr->roots, en);
		own_op(c, chosen);
		return true;
	}
	/* every overload is the op's; the one named first leads */
	{
		uint32_t en = tb_entry(c, chosen, 0, &ub, true);
		ot_vec_push(&c->tr->roots, en);
		own_op(c, chosen);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t en;
		if (ov[i] == chosen)
			continue;
		en = tb_entry(c, ov[i], 0, NULL, true);
		ot_vec_push(&c->tr->roots, en);
		own_op(c, ov[i]);
	}
	return true;
}

bool tb_start(struct tb_ctx *c)
{
	switch (c->tr->target.strategy) {
	case OT_STRAT_MODULE:
		return start_module(c);
	case OT_STRAT_FUNCTIONAL:
		return start_def(c, py_top(c, c->tr->target.name, "torch/nn/functional.py", false));
	case OT_STRAT_METHOD:
		return start_method(c);
	case OT_STRAT_TORCH:
		return start_torch(c);
	default:
		return start_aten(c);
	}
}
