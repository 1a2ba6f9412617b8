/*
 * trace_back.c - the backward of an entry: its derivatives.yaml entry (or
 * the code generator's rule that applies, autograd.h), the helpers and
 * backward ops its formulas call, and its decompositions.
 */
#include "trace_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

static const char *fpath(const struct tb_ctx *c, uint32_t file)
{
	return ot_index_file(c->ix, file)->path;
}

static long deriv_node(struct tb_ctx *c, int64_t file, uint32_t line, const char *symbol,
		       const char *note, const char *op, int depth, const void *src)
{
	ot_node n = {0};
	n.kind = OT_NODE_DERIV;
	n.layer = OT_LAYER_BACKWARD;
	n.found = true;
	n.line = line;
	n.symbol = symbol;
	n.note = note;
	n.op = op;
	n.depth = (uint8_t)(depth > 255 ? 255 : depth);
	return tb_node(c, &n, (uint32_t)file, src, symbol, NULL);
}

/* Does the argument list at `open` ('(') hold numbers and M_ constants
 * only (sqrt(M_PI) / 2: a C math function of a constant, not an op)? */
static bool constant_args(const char *open)
{
	int level = 0;
	for (const char *q = open; *q; q++) {
		if (*q == '(')
			level++;
		else if (*q == ')' && --level == 0)
			return true;
		else if ((isalpha((unsigned char)*q) || *q == '_') &&
			 !(q[0] == 'M' && q[1] == '_') && !(q > open && isdigit((unsigned char)q[-1])))
			return false;
		else if (q[0] == 'M' && q[1] == '_')
			while (isalnum((unsigned char)q[1]) || q[1] == '_')
				q++;
	}
	return false;
}

/* Is the receiver of the method call whose name starts at `b` (after a
 * '.') an argument of `schema` that is not a Tensor (alpha.conj() conjugates
 * a Scalar)? */
static bool non_tensor_receiver(const ot_reg_schema *schema, const char *formula, const char *b)
{
	const char *e = b - 1, *r = e;
	while (r > formula && (isalnum((unsigned char)r[-1]) || r[-1] == '_'))
		r--;
	if (r == e || (r > formula && (r[-1] == '.' || r[-1] == ':' || r[-1] == ')')))
		return false; /* not a plain name */
	for (size_t i = 0; i < schema->nargs; i++)
		if (strlen(schema->args[i].name) == (size_t)(e - r) &&
		    !memcmp(schema->args[i].name, r, (size_t)(e - r)))
			return !ot_starts_with(schema->args[i].type, "Tensor");
	return false;
}

/* What the forward call passed: the entry's schema and, by position, its
 * arguments' values (defaults included). A formula names them. */
struct forward_args {
	const ot_reg_schema *schema;
	tb_binding values;
};

/* Is [s, e) a number as a formula writes one (1, 0.5, 1e-5), nothing more? */
static bool whole_number(const char *s, const char *e)
{
	char buf[64], *end;
	if (e - s <= 0 || e - s >= (long)sizeof(buf) || !isdigit((unsigned char)*s))
		return false;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	(void)strtod(buf, &end);
	return *end == '\0';
}

/* What a formula's call at `open` ('(') passes: the forward call's value
 * of an argument named alone (`sparse_grad`: its default, false), a
 * literal the formula writes ("trunc", 1, true), "?" for any other
 * expression; a method's receiver (`member`: self.pow(2)) is the first,
 * a defined Tensor. */
static void formula_call_binding(ot_arena *a, const struct forward_args *fw, const char *open, bool member,
				 tb_binding *b)
{
	const char *p = open + 1;
	memset(b, 0, sizeof(*b));
	b->known = true;
	if (member)
		b->value[b->n++] = "defined";
	while (*p && *p != ')' && b->n < TB_MAX_PARAMS) {
		const char *start, *end;
		int depth = 0;
		while (*p == ' ')
			p++;
		start = p;
		for (; *p && (depth || (*p != ',' && *p != ')')); p++)
			depth += *p == '(' || *p == '[' || *p == '{' ? 1 : *p == ')' || *p == ']' || *p == '}' ? -1 : 0;
		end = p;
		while (end > start && end[-1] == ' ')
			end--;
		/* a comment naming the parameter before the value: a C comment
		 * holding rounding_mode=, then "trunc" */
		if (end - start > 4 && !memcmp(start, "/*", 2)) {
			const char *close = strstr(start + 2, "*/");
			if (close && close + 2 <= end)
				for (start = close + 2; start < end && *start == ' '; start++)
					;
		}
		b->value[b->n] = "?";
		/* a literal the formula writes: a string, a number, true/false */
		if (end > start && ((*start == '"' && end - start >= 2 && end[-1] == '"' &&
				     !memchr(start + 1, '"', (size_t)(end - start - 2))) ||
				    whole_number(start, end) ||
				    (end - start == 4 && !memcmp(start, "true", 4)) ||
				    (end - start == 5 && !memcmp(start, "false", 5))))
			b->value[b->n] = ot_arena_strndup(a, start, (size_t)(end - start));
		for (size_t k = 0; fw && k < fw->schema->nargs && k < fw->values.n; k++) {
			const char *name = fw->schema->args[k].name;
			if (strlen(name) == (size_t)(end - start) && !memcmp(name, start, (size_t)(end - start)))
				b->value[b->n] = fw->values.value[k];
		}
		b->n++;
		if (*p == ',')
			p++;
	}
}

/* Do the arguments of the call whose '(' is at `open` that are numbers
 * (self.pow(2)) go to parameters of `s` that take one, not a Tensor? A
 * method's arguments start at the schema's second parameter. */
static bool numbers_fit(const ot_reg_schema *s, const char *open, bool member)
{
	size_t k = member ? 1 : 0;
	int level = 0;
	const char *a = open + 1;
	for (const char *q = open; *q; q++) {
		if (*q == '(' || *q == '[' || *q == '{')
			level++;
		else if (*q == ')' || *q == ']' || *q == '}')
			level--;
		if (!(level == 0 || (level == 1 && *q == ',')))
			continue;
		while (*a == ' ')
			a++;
		if (q > a && (isdigit((unsigned char)*a) || (*a == '-' && isdigit((unsigned char)a[1])))) {
			const char *e = a;
			while (e < q && (isalnum((unsigned char)*e) || *e == '.' || *e == '-'))
				e++;
			while (e < q && *e == ' ')
				e++;
			if (e == q && (k >= s->nargs || ot_starts_with(s->args[k].type, "Tensor")))
				return false; /* a number alone, for a Tensor or for nothing */
		}
		k++;
		a = q + 1;
		if (level == 0)
			break;
	}
	return true;
}

/* Does overload `sc` take dimension names (a named-tensor overload)? */
static bool takes_dimnames(const ot_reg_schema *sc)
{
	for (size_t k = 0; k < sc->nargs; k++)
		if (ot_starts_with(sc->args[k].type, "Dimname"))
			return true;
	return false;
}

/* Does the number of arguments of the call whose '(' is at `open` fit
 * `s` (every parameter without a default given, no more than it has)? In
 * C++ a keyword-only parameter is positional too; a method's receiver is
 * the schema's first parameter. */
static bool count_fits(const ot_reg_schema *s, const char *open, bool member)
{
	size_t given = member ? 1 : 0, required = 0;
	int level = 0;
	bool any = false;
	for (const char *q = open + 1; *q && level >= 0; q++) {
		if (*q == '(' || *q == '[' || *q == '{')
			level++;
		else if (*q == ')' || *q == ']' || *q == '}')
			level--;
		else if (level == 0 && *q == ',')
			given++;
		else if (level == 0 && *q != ' ')
			any = true;
	}
	given += any;
	for (size_t k = 0; k < s->nargs; k++)
		required += !s->args[k].def;
	return given >= required && given <= s->nargs;
}

/* Names called in a derivatives.yaml formula that are backward helpers
 * (FunctionsManual.cpp) or ops: a backward op (_softmax_backward_data,
 * grad.bmm(...)) is an entry like any op, followed to its kernels; a
 * method of a non-Tensor argument of `schema` is neither. */
static void formula_helpers(struct tb_ctx *c, const ot_reg_schema *schema, const char *formula,
			    const char *op, int depth, uint32_t parent, ot_map *seen,
			    const struct forward_args *fw, const ot_verdict v[OT_DEV_COUNT])
{
	const char *s = formula;
	while (*s) {
		if (isalpha((unsigned char)*s) || *s == '_') {
			const char *b = s;
			char name[128];
			bool qualified = b > formula && b[-1] == ':' && !(b - formula >= 4 && !memcmp(b - 4, "at::", 4));
			bool member = b > formula && b[-1] == '.';
			long hn = -1;
			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
			if (*s != '(' || qualified || (size_t)(s - b) >= sizeof(name) ||
			    (!member && constant_args(s)) || (member && non_tensor_receiver(schema, formula, b)))
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)(s - b), b);
			if (ot_map_get(seen, name))
				continue;
			ot_map_put(seen, ot_arena_strdup(c->a, name), (void *)1);
			for (const ot_ix_cdef *d = ot_index_cdefs(c->ix, name); d && hn < 0 && !member; d = d->next)
				if (d->kind == OT_CDEF_FUNC && !d->in_class && !*d->qual &&
				    ot_starts_with(fpath(c, d->file), "torch/csrc/autograd/"))
					hn = deriv_node(c, d->file, d->line, d->gen ? d->gen->site->text : d->name,
							"backward helper (torch/csrc/autograd)", op, depth, d);
			if (hn < 0) {
				/* a backward op: its functional overload (not the out= one),
				 * also when spelled name_symint */
				size_t n;
				const ot_reg_func *const *ov = ot_registry_overloads(c->t->reg, name, &n);
				const ot_reg_func *pick = NULL;
				if (!ov && ot_ends_with(name, "_symint")) {
					name[strlen(name) - strlen("_symint")] = '\0';
					ov = ot_registry_overloads(c->t->reg, name, &n);
				}
				/* a named-tensor overload (zeros.names) only when no
				 * other fits: a formula names no dimensions */
				for (int named = 0; named < 2 && !pick; named++)
					for (size_t k = 0; ov && k < n && !pick; k++)
						if (!ov[k]->schema.is_out && (!member || ov[k]->variant_method) &&
						    takes_dimnames(&ov[k]->schema) == (named == 1) &&
						    numbers_fit(&ov[k]->schema, s, member) &&
						    count_fits(&ov[k]->schema, s, member))
							pick = ov[k];
				if (!pick && ov && !member)
					pick = ov[0];
				if (ot_callkind_inline_for_real(pick))
					pick = NULL; /* grad.conj() of a real tensor is grad */
				/* the op the formula calls: an entry, expanded to its
				 * kernels within --depth */
				if (pick && !ot_callkind_is_metadata(pick->schema.name)) {
					tb_binding b;
					formula_call_binding(c->a, fw, s, member, &b);
					hn = tb_entry(c, pick, depth + 1, &b, depth + 1 <= c->max_depth);
				}
			}
			if (hn >= 0) {
				ot_edge e = {.kind = OT_EDGE_DERIVATIVE, .from = parent, .to = (uint32_t)hn,
					     .exact = true};
				tb_reach(c, &e, v, OT_WHEN_GUARD, NULL); /* the condition is in the formula shown */
				tb_edge(c, &e);
			}
			continue;
		}
		s++;
	}
}

/* ---- the operators of a formula: grad * x is at::mul ---------------------------------- */

/* What an operand of a formula is: a Tensor, a number, or not known. */
enum operand { OPND_UNKNOWN, OPND_TENSOR, OPND_NUMBER };

/* Methods whose result is a number whatever they are called on. */
static const char *const number_methods[] = {"toDouble", "toComplexDouble", "toFloat", "toLong", "toInt",
					     "toBool", "item", "size", "sym_size", "numel", "sym_numel", "dim",
					     "stride", "sym_stride", "is_complex", "defined", "scalar_type"};

/* A reading of one formula: the ops its Tensor operators run, in order. */
struct arith {
	const ot_reg_schema *schema;
	const ot_registry *reg;
	const char *ops[16];
	size_t nops;
};

static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

/* A name of a formula: grad and result are Tensors, the schema's
 * arguments what their types say. */
static enum operand name_kind(const ot_reg_schema *schema, const char *s, size_t n)
{
	if (word_is(s, n, "grad") || word_is(s, n, "result"))
		return OPND_TENSOR;
	for (size_t i = 0; i < schema->nargs; i++) {
		const char *t = schema->args[i].type;
		if (!word_is(s, n, schema->args[i].name) || strchr(t, '['))
			continue;
		if (ot_starts_with(t, "Tensor"))
			return OPND_TENSOR;
		if (ot_starts_with(t, "Scalar") || ot_starts_with(t, "float") || ot_starts_with(t, "int") ||
		    ot_starts_with(t, "SymInt") || ot_starts_with(t, "bool"))
			return OPND_NUMBER;
	}
	return OPND_UNKNOWN;
}

static enum operand combined(enum operand a, enum operand b)
{
	return a == OPND_TENSOR || b == OPND_TENSOR	  ? OPND_TENSOR
	       : a == OPND_NUMBER && b == OPND_NUMBER ? OPND_NUMBER
						      : OPND_UNKNOWN;
}

/* The ops of `l op r` for at::Tensor's operators (TensorOperators.h): with
 * a Tensor l, l.add(r), l.mul(r), l.sub(r), l.div(r); with a number l,
 * r.add(l), r.mul(l), or empty_like(r).fill_(l).sub_(r) / .div_(r). */
static void operator_ops(struct arith *ar, char op, enum operand l, enum operand r)
{
	static const char *const with_tensor[] = {"add.Tensor", "mul.Tensor", "sub.Tensor", "div.Tensor"};
	static const char *const with_number[] = {"add.Scalar", "mul.Scalar", "sub.Scalar", "div.Scalar"};
	int i = op == '+' ? 0 : op == '*' ? 1 : op == '-' ? 2 : 3;
	const char *add[2] = {NULL, NULL};
	if (l == OPND_TENSOR && r != OPND_UNKNOWN)
		add[0] = r == OPND_TENSOR ? with_tensor[i] : with_number[i];
	else if (l == OPND_NUMBER && r == OPND_TENSOR && i < 2)
		add[0] = with_number[i];
	else if (l == OPND_NUMBER && r == OPND_TENSOR) {
		add[0] = "fill_.Scalar";
		add[1] = i == 2 ? "sub_.Tensor" : "div_.Tensor";
	}
	for (int k = 0; k < 2 && add[k] && ar->nops < OT_ARRAY_LEN(ar->ops); k++)
		ar->ops[ar->nops++] = add[k];
}

static enum operand sum_of(struct arith *ar, const char **s, const char *end, int level);

/* Past the bracket group opening at `s`, its arguments read for the
 * operators they hold (at::mul(grad * x, y)). */
static const char *call_args(struct arith *ar, const char *s, const char *end, int level)
{
	s++;
	while (s < end && *s != ')') {
		sum_of(ar, &s, end, level + 1);
		while (s < end && *s != ',' && *s != ')') {
			/* what the grammar does not take: skip to the next argument */
			if (*s == '(' || *s == '[' || *s == '{') {
				int depth = 0;
				for (; s < end; s++)
					if (*s == '(' || *s == '[' || *s == '{')
						depth++;
					else if ((*s == ')' || *s == ']' || *s == '}') && --depth == 0)
						break;
			}
			if (s < end)
				s++;
		}
		if (s < end && *s == ',')
			s++;
	}
	return s < end ? s + 1 : s;
}

/* One operand at *s: a number, a name, a call, a group, with the methods
 * called on it; *s moves past it. */
static enum operand operand_of(struct arith *ar, const char **sp, const char *end, int level)
{
	const char *s = *sp, *b;
	enum operand k = OPND_UNKNOWN;
	bool neg = false;
	while (s < end && (*s == ' ' || *s == '-' || *s == '+'))
		neg = neg || *s++ == '-';
	b = s;
	if (level > 8 || s >= end) {
		*sp = s;
		return OPND_UNKNOWN;
	}
	if (*s == '(') {
		s++;
		k = sum_of(ar, &s, end, level + 1);
		while (s < end && *s == ' ')
			s++;
		if (s < end && *s == ')')
			s++;
		else
			k = OPND_UNKNOWN;
	} else if (isdigit((unsigned char)*s)) {
		while (s < end && (isalnum((unsigned char)*s) || *s == '.'))
			s++;
		k = OPND_NUMBER;
	} else if (isalpha((unsigned char)*s) || *s == '_') {
		while (s < end && (isalnum((unsigned char)*s) || *s == '_' || *s == ':'))
			s++;
		if (s < end && *s == '(') {
			/* a call: of an op (x or at::x), a Tensor */
			const char *name = ot_starts_with(b, "at::") ? b + 4 : b;
			char nm[96];
			size_t n;
			snprintf(nm, sizeof(nm), "%.*s", (int)(s - name), name);
			k = ot_registry_overloads(ar->reg, nm, &n) ? OPND_TENSOR : OPND_UNKNOWN;
			s = call_args(ar, s, end, level);
		} else {
			k = name_kind(ar->schema, b, (size_t)(s - b));
		}
	} else {
		*sp = s;
		return OPND_UNKNOWN;
	}
	/* methods: a number's give numbers (alpha.conj()), a Tensor's Tensors
	 * but for those that give a number */
	while (s + 1 < end && *s == '.' && (isalpha((unsigned char)s[1]) || s[1] == '_')) {
		const char *m = ++s;
		bool number = false;
		while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
			s++;
		for (size_t i = 0; i < OT_ARRAY_LEN(number_methods); i++)
			number = number || word_is(m, (size_t)(s - m), number_methods[i]);
		if (s < end && *s == '(')
			s = call_args(ar, s, end, level);
		if (number)
			k = OPND_NUMBER;
	}
	if (neg && k == OPND_TENSOR && ar->nops < OT_ARRAY_LEN(ar->ops))
		ar->ops[ar->nops++] = "neg"; /* -x is x.neg() */
	*sp = s;
	return k;
}

/* The binary operator at *s of the given ones, or 0. */
static char operator_at(const char **sp, const char *end, const char *ops)
{
	const char *s = *sp;
	while (s < end && *s == ' ')
		s++;
	*sp = s;
	if (s + 1 < end && (s[1] == '=' || s[1] == s[0] || (s[0] == '-' && s[1] == '>')))
		return 0;
	return s < end && strchr(ops, *s) && *s ? *s : 0;
}

/* Operands joined left to right by the operators of one precedence: a
 * sum of products (`sums`), or a product of operands. */
static enum operand chain_of(struct arith *ar, const char **s, const char *end, int level, bool sums)
{
	enum operand acc = sums ? chain_of(ar, s, end, level, false) : operand_of(ar, s, end, level);
	char op;
	while ((op = operator_at(s, end, sums ? "+-" : "*/"))) {
		enum operand r;
		(*s)++;
		r = sums ? chain_of(ar, s, end, level, false) : operand_of(ar, s, end, level);
		operator_ops(ar, op, acc, r);
		acc = combined(acc, r);
	}
	return acc;
}

static enum operand sum_of(struct arith *ar, const char **s, const char *end, int level)
{
	return chain_of(ar, s, end, level, true);
}

/* The ops the Tensor operators of `formula` run, as derivative edges from
 * `parent` (each op once per entry: `seen`). */
static void formula_operators(struct tb_ctx *c, const ot_reg_schema *schema, const char *formula, int depth,
			      uint32_t parent, ot_map *seen, const ot_verdict v[OT_DEV_COUNT])
{
	struct arith ar = {.schema = schema, .reg = c->t->reg};
	const char *s = formula, *end = formula + strlen(formula);
	sum_of(&ar, &s, end, 0);
	for (size_t i = 0; i < ar.nops; i++) {
		const char *key = ot_arena_printf(c->a, "operator %s", ar.ops[i]);
		const ot_reg_func *f = ot_registry_find(c->t->reg, ar.ops[i]);
		long hn;
		if (!f || ot_map_get(seen, key))
			continue;
		ot_map_put(seen, key, (void *)1);
		hn = tb_entry(c, f, depth + 1, NULL, depth + 1 <= c->max_depth);
		if (hn >= 0) {
			ot_edge e = {.kind = OT_EDGE_DERIVATIVE, .from = parent, .to = (uint32_t)hn, .exact = true};
			tb_reach(c, &e, v, OT_WHEN_GUARD, NULL); /* the condition is in the formula shown */
			tb_edge(c, &e);
		}
	}
}

/* The top-level `cond ? a : b` of a formula: the offsets of its '?' and
 * ':' (a `::` is no arm separator). */
static bool top_ternary(const char *f, size_t *q, size_t *colon)
{
	int depth = 0, nested = 0;
	*q = 0;
	for (size_t i = 0; f[i]; i++) {
		char ch = f[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (depth == 0 && ch == '?') {
			if (*q)
				nested++;
			else
				*q = i;
		} else if (depth == 0 && ch == ':' && *q) {
			if (f[i + 1] == ':' || (i && f[i - 1] == ':'))
				continue;
			if (nested) {
				nested--;
				continue;
			}
			*colon = i;
			return true;
		}
	}
	return false;
}

/* What one arm of a formula runs: the helpers and ops it calls, and the
 * ops of its Tensor operators. */
static void formula_arm(struct tb_ctx *c, const ot_reg_schema *schema, const char *f, const char *op, int depth,
			uint32_t parent, ot_map *seen, const struct forward_args *fw, const ot_verdict v[OT_DEV_COUNT])
{
	formula_helpers(c, schema, f, op, depth, parent, seen, fw, v);
	formula_operators(c, schema, f, depth, parent, seen, v);
}

/* The calls of formula `f` from `parent`, each arm of a top-level
 * `cond ? a : b` with cond as the guard a dense float32 input decides
 * (acosh's `self.is_complex() ? ... .conj() : ...` takes the second). */
static void formula_calls(struct tb_ctx *c, const ot_reg_schema *schema, const char *f, const char *op,
			  int depth, uint32_t parent, ot_map *seen, const struct forward_args *fw)
{
	size_t q, colon, cond_len;
	ot_verdict yes[OT_DEV_COUNT], then_v[OT_DEV_COUNT], else_v[OT_DEV_COUNT];
	const char *cond, *neg;
	for (int d = 0; d < OT_DEV_COUNT; d++)
		yes[d] = ot_verdict_true();
	if (!top_ternary(f, &q, &colon)) {
		formula_arm(c, schema, f, op, depth, parent, seen, fw, yes);
		return;
	}
	/* in the trace's arena: the edges' conditions quote them */
	cond_len = q;
	while (cond_len && f[cond_len - 1] == ' ')
		cond_len--; /* `grad.defined() ? a : b` shows grad.defined() */
	cond = ot_arena_strndup(c->a, f, cond_len);
	while (*cond == ' ')
		cond++;
	neg = ot_arena_printf(c->a, "not (%s)", cond);
	for (int d = 0; d < OT_DEV_COUNT; d++) {
		ot_cenv env = {.dev = (ot_device)d};
		then_v[d] = ot_cond_cexpr(&env, cond);
		else_v[d] = then_v[d];
		else_v[d].value = then_v[d].value == OT_TRI_TRUE	   ? OT_TRI_FALSE
				  : then_v[d].value == OT_TRI_FALSE ? OT_TRI_TRUE
								    : OT_TRI_UNKNOWN;
		else_v[d].text = neg;
	}
	/* the arm a default call takes first: a function both arms call is
	 * shown once, as that arm calls it */
	if (then_v[OT_DEV_CPU].value == OT_TRI_FALSE)
		formula_arm(c, schema, f + colon + 1, op, depth, parent, seen, fw, else_v);
	formula_arm(c, schema, ot_arena_strndup(c->a, f + q + 1, colon - q - 1), op, depth, parent,
			seen, fw, then_v);
	if (then_v[OT_DEV_CPU].value != OT_TRI_FALSE)
		formula_arm(c, schema, f + colon + 1, op, depth, parent, seen, fw, else_v);
}

/* The calls of backward formula fm (not a forward-mode `result:` one)
 * when its top level is a `cond ? a : b` as `conditional` says. */
static void formula_pass(struct tb_ctx *c, const ot_reg_deriv *dv, const ot_reg_formula *fm, int conditional,
			 const char *op, int depth, uint32_t at, ot_map *seen, const struct forward_args *fw)
{
	size_t q, colon;
	if (!fm->forward && top_ternary(fm->formula, &q, &colon) == (conditional != 0))
		formula_calls(c, &dv->schema, fm->formula, op, depth, at, seen, fw);
}

static long formula_node(struct tb_ctx *c, const ot_reg_deriv *dv, const char *op, const char *how,
			 int depth, const struct forward_args *fw)
{
	ot_buf note = OT_BUF_INIT;
	ot_map *seen;
	long at;
	ot_buf_puts(&note, how);
	for (size_t i = 0; i < dv->nformulas; i++)
		ot_buf_printf(&note, "%s%s: %s", i ? "; " : " ", dv->formulas[i].inputs, dv->formulas[i].formula);
	at = deriv_node(c, c->t->f_deriv, (uint32_t)dv->line, dv->schema.full, note.ptr, op, depth, dv);
	ot_buf_free(&note);
	if (at < 0)
		return at;
	/* What a backward of a dense tensor runs: the backward formulas (not
	 * the forward-mode `result:` ones), top level or the Default block
	 * (AutogradNestedTensor's are the nested tensors'). */
	seen = ot_map_new();
	/* the formulas without a top-level `cond ? a : b` first: what one of
	 * them calls runs whatever the condition of another's arm
	 * (lerp.Scalar's `end: grad * weight.conj()` is mul.Scalar as surely
	 * as self's `weight.isComplex() ? grad * ... : grad * ...` is) */
	for (int conditional = 0; conditional < 2; conditional++) {
		for (size_t i = 0; i < dv->nformulas; i++)
			formula_pass(c, dv, &dv->formulas[i], conditional, op, depth, (uint32_t)at, seen, fw);
		for (size_t k = 0; k < dv->ndispatch; k++)
			if (!strcmp(dv->dispatch[k].key, "Default"))
				for (size_t i = 0; i < dv->dispatch[k].nformulas; i++)
					formula_pass(c, dv, &dv->dispatch[k].formulas[i], conditional, op, depth,
						     (uint32_t)at, seen, fw);
	}
	ot_map_free(seen);
	return at;
}

/* The dispatch key of an entry's formulas when none is a dense tensor's
 * (no top-level formula and no Default block), else NULL. */
static const char *dense_less(const ot_reg_deriv *dv)
{
	if (dv->nformulas || !dv->ndispatch)
		return NULL;
	for (size_t k = 0; k < dv->ndispatch; k++)
		if (!strcmp(dv->dispatch[k].key, "Default"))
			return NULL;
	return dv->dispatch[0].key;
}

void tb_backward(struct tb_ctx *c, uint32_t entry, const ot_reg_func *f, const ot_reg_func *eff,
		 int depth)
{
	const char *op = f->schema.full;
	ot_autograd_answer ans;
	long node;
	bool was = c->in_backward;
	if (tb_state(c, entry)->backward_done)
		return;
	tb_state(c, entry)->backward_done = true;
	c->in_backward = true; /* the ops its formula calls are autograd's */
	if (!ot_autograd_explain(c->t->autograd, f, eff, c->a, &ans)) {
		if (!f->schema.is_out) { /* out= variants: nothing to say without the generator */
			uint32_t m = tb_missing(c, OT_LAYER_BACKWARD,
						ot_arena_printf(c->a, "derivatives.yaml entry for %s", op),
						OT_REGISTRY_DERIV_PATH, op, depth);
			tb_edge(c, &(ot_edge){.kind = OT_EDGE_DERIVATIVE, .from = entry, .to = m, .exact = true,
					      .reach = {OT_REACH_YES, OT_REACH_YES}});
		}
		return;
	}
	if (ans.formula) {
		struct forward_args fw = {.schema = &f->schema};
		const tb_binding passed = tb_state(c, entry)->binding;
		tb_kernel_binding(f, &passed, &fw.values);
		node = formula_node(c, ans.formula, op, ans.note, depth, &fw);
	} else {
		node = deriv_node(c, ans.file, ans.line, ans.symbol, ans.note, op, depth, NULL);
	}
	if (node >= 0) {
		ot_edge e = tb_always(OT_EDGE_DERIVATIVE, entry, (uint32_t)node);
		const char *only = ans.formula ? dense_less(ans.formula) : NULL;
		if (ans.formula && !only && ot_reg_func_composite_implicit(eff))
			only = "the other dispatch keys' (a dense tensor runs the CompositeImplicitAutograd "
			       "kernel, differentiated through the ops it calls)";
		if (only) {
			/* formulas for other tensors only (matmul: its NestedTensor
			 * kernels): a dense tensor's gradient comes from the ops the
			 * entry is built from */
			const char *why = ot_arena_printf(c->a, "formulas for %s only", only);
			tb_never(&e, OT_DEV_CPU, OT_WHEN_KEY, why);
			tb_never(&e, OT_DEV_CUDA, OT_WHEN_KEY, why);
		}
		tb_edge(c, &e);
	}
	c->in_backward = was;
}

/* When a graph capture runs the decomposition of aten.`op` (as written
 * after "aten."): the core ATen table lists it, or only a table of the
 * capture's own could; 1.13 has no core table. Whether torch.compile's
 * backend (Inductor) decomposes it or lowers the op itself is its own
 * table's choice, not read here. */
static const char *decomposition_when(struct tb_ctx *c, const char *op)
{
	char base[128];
	const ot_ix_decomp *core;
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(op, "."), op);
	if (!ot_index_has_core_decomps(c->ix))
		return ot_arena_printf(c->a, "a graph capture (make_fx, AOT autograd) whose decomposition table lists aten.%s",
				       base);
	core = ot_index_core_decomp(c->ix, base);
	if (!core)
		return ot_arena_printf(c->a,
				       "a graph capture whose own decomposition table lists aten.%s (the core ATen "
				       "table, torch.export's default, does not)",
				       base);
	return ot_arena_printf(c->a,
			       "a graph capture decomposing with the core ATen table (torch.export's default), "
			       "which lists aten.%s (%s:%u)",
			       base, ot_index_file(c->ix, core->file)->path, core->line);
}

void tb_decompositions(struct tb_ctx *c, uint32_t entry, const char *base, const char *op, int depth)
{
	for (const ot_ix_decomp *d = ot_index_decomps(c->ix, base); d; d = d->next) {
		ot_node n = {0};
		long id;
		n.kind = OT_NODE_DECOMP;
		n.layer = OT_LAYER_DECOMPOSITION;
		n.found = true;
		n.line = d->line;
		n.symbol = ot_arena_printf(c->a, "aten.%s", d->op);
		n.note = ot_arena_printf(c->a,
					 "register_decomposition(aten.%s)%s%s: the op written in Python with other "
					 "ops; graph capture uses it where its decomposition table lists the op",
					 d->op, d->func ? " -> " : "", d->func ? d->func : "");
		n.op = op;
		n.depth = (uint8_t)(depth > 255 ? 255 : depth);
		id = tb_node(c, &n, d->file, d, NULL, NULL);
		if (id >= 0) {
			/* what a graph capture may run, never eager mode */
			const char *when = decomposition_when(c, d->op);
			ot_edge e = tb_always(OT_EDGE_DECOMPOSES, entry, (uint32_t)id);
			tb_never(&e, OT_DEV_CPU, OT_WHEN_SELECT, when);
			tb_never(&e, OT_DEV_CUDA, OT_WHEN_SELECT, when);
			tb_edge(c, &e);
		}
	}
}
