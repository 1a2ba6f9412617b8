/*
 * pyflow.c - read one Python function's body (see pyflow.h).
 *
 * The walk goes over the logical lines of the body in the code view
 * (strings' contents and comments blanked), keeping a stack of open blocks
 * by indentation: an if/elif/else arm is a guard, a chain of arms ends at
 * the first statement of the same indentation that is not elif/else, and
 * when one of its arms returned or raised, what follows in the enclosing
 * block runs under an AFTER guard. Texts shown to readers (conditions,
 * arguments) are taken from the original text, comments dropped.
 */
#include "pyflow.h"

#include <ctype.h>
#include <string.h>

#include "buf.h"
#include "scan.h"

enum block_kind { B_ARM, B_OTHER, B_AFTER, B_DEF };

struct block {
	uint32_t indent; /* the header's indentation (AFTER: the chain's) */
	uint16_t guard;  /* in force inside (1-based), or 0 */
	uint8_t kind;
};

struct reader {
	const ot_ix_file *f;
	const char *c, *t; /* code view, text */
	ot_arena *a;
	ot_pyflow *out;
	OT_VEC(struct block) blocks;
	uint16_t last_arm;     /* the arm of an if chain that just ended, or 0 */
	uint32_t last_indent;  /* its header's indentation */
};

static size_t line_start(const ot_ix_file *f, uint32_t line)
{
	return line >= 1 && line <= f->nlines ? f->line_off[line - 1] : f->len;
}

static size_t line_end(const ot_ix_file *f, uint32_t line)
{
	size_t e = line < f->nlines ? f->line_off[line] : f->len;
	while (e > line_start(f, line) && (f->code[e - 1] == '\n' || f->code[e - 1] == '\r'))
		e--;
	return e;
}

static uint16_t cur_guard(const struct reader *r)
{
	return r->blocks.len ? r->blocks.items[r->blocks.len - 1].guard : 0;
}

static ot_ix_guard *guard_at(struct reader *r, uint16_t id)
{
	return &r->out->guards.items[id - 1];
}

static uint16_t add_guard(struct reader *r, uint8_t kind, const char *text, uint32_t line,
			  uint16_t prev)
{
	ot_ix_guard g = {text, line, cur_guard(r), prev, kind, false, false, 0, NULL, false};
	if (r->out->guards.len >= UINT16_MAX - 1)
		return cur_guard(r);
	ot_vec_push(&r->out->guards, g);
	return (uint16_t)r->out->guards.len;
}

/* Original text of [s, e) with comments dropped and each run of blanks
 * (line breaks included) one space. */
static const char *quote(struct reader *r, size_t s, size_t e)
{
	ot_buf b = OT_BUF_INIT;
	const char *out;
	bool blank = false, in_str = false;
	char q = 0;
	for (size_t i = s; i < e && b.size < 400; i++) {
		char cv = r->c[i], ch = r->t[i];
		if (!in_str && (cv == '"' || cv == '\'')) {
			in_str = true;
			q = cv;
		} else if (in_str && cv == q && ch == q) {
			in_str = false;
		} else if (!in_str && cv == ' ' && ch == '#') {
			while (i < e && r->t[i] != '\n')
				i++;
			blank = true;
			continue;
		}
		if (!in_str && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\\')) {
			blank = true;
			continue;
		}
		if (blank && b.size)
			ot_buf_putc(&b, ' ');
		blank = false;
		ot_buf_putc(&b, ch);
	}
	out = ot_arena_strndup(r->a, b.ptr ? b.ptr : "", b.size);
	ot_buf_free(&b);
	return out;
}

static bool word_at(const char *c, size_t i, size_t e, const char *w)
{
	size_t n = strlen(w);
	return i + n <= e && !memcmp(c + i, w, n) && (i + n == e || !(isalnum((unsigned char)c[i + n]) || c[i + n] == '_'));
}

/* The offset of the ':' that ends a compound statement's header in [s, e)
 * (at bracket depth 0, not part of a slice or an annotation inside brackets). */
static size_t header_colon(const char *c, size_t s, size_t e)
{
	int depth = 0;
	for (size_t i = s; i < e; i++) {
		char ch = c[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (ch == ':' && depth == 0 && (i + 1 >= e || c[i + 1] != '='))
			return i;
		else if (ch == 'l' && depth == 0 && word_at(c, i, e, "lambda") &&
			 (i == s || !(isalnum((unsigned char)c[i - 1]) || c[i - 1] == '_')))
			return e; /* a lambda's ':' is not the header's */
	}
	return e;
}

static size_t skip_blank(const char *c, size_t i, size_t e)
{
	while (i < e && (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r' || c[i] == '\\'))
		i++;
	return i;
}

/* Mark the arm the statement at `indent` sits in directly. */
static void mark_exit(struct reader *r, uint32_t indent, bool raises)
{
	if (!r->blocks.len)
		return;
	struct block *b = &r->blocks.items[r->blocks.len - 1];
	if (b->kind == B_AFTER) {
		/* the statement ends the enclosing arm's block: find it */
		for (size_t k = r->blocks.len; k-- > 0;) {
			if (r->blocks.items[k].kind == B_AFTER)
				continue;
			b = &r->blocks.items[k];
			break;
		}
	}
	if (b->kind == B_ARM && b->indent < indent && b->guard) {
		if (raises)
			guard_at(r, b->guard)->raises = true;
		else
			guard_at(r, b->guard)->exits = true;
	}
}

/* Does the if chain ending with arm g have an else, and every arm of it
 * return or raise? Then the chain leaves the block it sits in, as a return
 * would (*raises: every arm raises). */
static bool chain_always_leaves(struct reader *r, uint16_t g, bool *raises)
{
	*raises = true;
	if (!g || guard_at(r, g)->kind != OT_GUARD_ELSE)
		return false;
	for (uint16_t k = g; k; k = guard_at(r, k)->prev) {
		const ot_ix_guard *a = guard_at(r, k);
		if (!a->exits && !a->raises)
			return false;
		*raises = *raises && a->raises && !a->exits;
		if (a->kind == OT_GUARD_IF)
			return true;
	}
	return false;
}

/* The if chain that just ended (r->last_arm, at r->last_indent) leaves
 * the arm it sits in when every arm of it leaves. */
static void chain_exit(struct reader *r)
{
	bool raises;
	if (chain_always_leaves(r, r->last_arm, &raises))
		mark_exit(r, r->last_indent, raises);
}

/* An if chain ended with arm `last` at `indent`: if one of its arms left
 * the block, the statements after it run under AFTER. */
static void finish_chain(struct reader *r, uint32_t line)
{
	bool leaves = false;
	uint16_t g = r->last_arm;
	if (!g)
		return;
	chain_exit(r);
	for (uint16_t k = g; k; k = guard_at(r, k)->prev) {
		const ot_ix_guard *a = guard_at(r, k);
		leaves = leaves || a->exits || a->raises;
		if (a->kind == OT_GUARD_IF)
			break;
	}
	if (leaves) {
		uint16_t ag = add_guard(r, OT_GUARD_AFTER, NULL, line, g);
		struct block b = {r->last_indent, ag, B_AFTER};
		ot_vec_push(&r->blocks, b);
	}
	r->last_arm = 0;
}

/* Close the blocks a statement at `indent` is not inside. */
static void dedent(struct reader *r, uint32_t indent)
{
	while (r->blocks.len) {
		struct block *b = &r->blocks.items[r->blocks.len - 1];
		bool closes = b->kind == B_AFTER ? b->indent > indent : b->indent >= indent;
		if (!closes)
			break;
		if (r->last_arm && r->last_indent > indent) {
			chain_exit(r);
			r->last_arm = 0; /* its chain's block closed too */
		}
		if (b->kind == B_ARM && b->guard && guard_at(r, b->guard)->kind != OT_GUARD_EXCEPT) {
			/* an arm ended: its chain may go on with elif/else */
			r->last_arm = b->guard;
			r->last_indent = b->indent;
		}
		r->blocks.len--;
	}
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Element `at` of the tuple display `value` of `count` elements (`x, y`
 * or `(x, y)`, split at its top-level commas), or NULL when it is no such
 * display (a call that returns a tuple). */
static const char *tuple_element(ot_arena *a, const char *value, size_t at, size_t count)
{
	size_t n = strlen(value), b = 0, e = n, start, k = 0, es = 0, ee = 0;
	int depth = 0;
	char quote = 0;
	if (n >= 2 && value[0] == '(' && value[n - 1] == ')') {
		/* (x, y), when its parentheses pair with each other */
		size_t i = 0;
		for (int d = 0; i < n; i++) {
			d += value[i] == '(' ? 1 : value[i] == ')' ? -1 : 0;
			if (d == 0)
				break;
		}
		if (i == n - 1) {
			b = 1;
			e = n - 1;
		}
	}
	start = b;
	for (size_t i = b; i <= e; i++) {
		char ch = i < e ? value[i] : ',';
		if (quote)
			quote = ch == quote ? 0 : quote;
		else if (ch == '\'' || ch == '"')
			quote = ch;
		else if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (ch == ',' && depth == 0) {
			if (k++ == at) {
				es = start;
				ee = i;
			}
			start = i + 1;
		}
	}
	while (es < ee && value[es] == ' ')
		es++;
	while (ee > es && value[ee - 1] == ' ')
		ee--;
	return k == count && ee > es ? ot_arena_strndup(a, value + es, ee - es) : NULL;
}

/* The targets in [ts, te) of an assignment of `value`: each of a, b = ...
 * (a single target keeps the value; one of several, its element of a
 * tuple display: `weight, input = input, weight`), an annotation NAME: T
 * dropped. */
static void targets(struct reader *r, size_t ts, size_t te, const char *value, uint32_t line)
{
	const char *c = r->c;
	bool single;
	size_t k = ts, ntargets = 1, index = 0;
	while (te > ts && (c[te - 1] == ' ' || c[te - 1] == '\t'))
		te--;
	for (size_t i = ts; i < te; i++)
		if (c[i] == ':') {
			te = i;
			break;
		}
	single = !memchr(c + ts, ',', te - ts);
	for (size_t i = ts; i < te; i++)
		ntargets += c[i] == ',';
	while (k < te) {
		size_t ns, ne;
		while (k < te && (c[k] == ' ' || c[k] == '(' || c[k] == ',' || c[k] == '['))
			k++;
		ns = k;
		while (k < te && (is_name_char(c[k]) || c[k] == '.'))
			k++;
		ne = k;
		if (ne > ns && !isdigit((unsigned char)c[ns])) {
			const char *v = single ? value : value ? tuple_element(r->a, value, index, ntargets) : NULL;
			ot_pyassign a = {ot_arena_strndup(r->a, c + ns, ne - ns), v, line, cur_guard(r)};
			ot_vec_push(&r->out->assigns, a);
		}
		index++;
		while (k < te && c[k] != ',')
			k++;
	}
}

/* `NAME = value`, `self.x = value`, `NAME: T = value`, `a, b = value`,
 * `a = b = value` (every target gets the value). */
static void assignment(struct reader *r, size_t s, size_t e, uint32_t line)
{
	const char *c = r->c;
	size_t eqs[8], neq = 0;
	int depth = 0;
	for (size_t i = s; i < e && neq < OT_ARRAY_LEN(eqs); i++) {
		char ch = c[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (ch == '\'' || ch == '"')
			break; /* a string: the value has begun */
		else if (ch == '=' && depth == 0 && c[i + 1] != '=' && i > s &&
			 !strchr("=!<>+-*/%&|^@:", c[i - 1]))
			eqs[neq++] = i;
	}
	if (!neq)
		return;
	{
		const char *value = quote(r, eqs[neq - 1] + 1, e);
		size_t ts = s;
		for (size_t k = 0; k < neq; k++) {
			targets(r, ts, eqs[k], value, line);
			ts = eqs[k] + 1;
		}
	}
}

/* One logical statement [s, e) starting on `line` at `indent`; the body of a
 * one-line compound statement is handled as a statement of its own. */
static void statement(struct reader *r, size_t s, size_t e, uint32_t line, uint32_t indent)
{
	const char *c = r->c;
	size_t colon, body;
	uint16_t g = 0;
	uint8_t kind = B_OTHER;

	if (word_at(c, s, e, "if") || word_at(c, s, e, "elif")) {
		bool elif = c[s + 1] == 'l';
		size_t cs = s + (elif ? 4 : 2);
		colon = header_colon(c, cs, e);
		g = add_guard(r, elif ? OT_GUARD_ELSE_IF : OT_GUARD_IF, quote(r, cs, colon), line,
			      elif ? r->last_arm : 0);
		if (elif && r->last_arm && g)
			guard_at(r, g)->parent = guard_at(r, r->last_arm)->parent;
		r->last_arm = 0;
		kind = B_ARM;
	} else if (word_at(c, s, e, "else")) {
		colon = header_colon(c, s + 4, e);
		if (r->last_arm && r->last_indent == indent) {
			g = add_guard(r, OT_GUARD_ELSE, NULL, line, r->last_arm);
			if (g)
				guard_at(r, g)->parent = guard_at(r, r->last_arm)->parent;
			kind = B_ARM;
		} else {
			g = cur_guard(r); /* the else of a for, while or try */
		}
		r->last_arm = 0;
	} else if (word_at(c, s, e, "except")) {
		colon = header_colon(c, s + 6, e);
		g = add_guard(r, OT_GUARD_EXCEPT, quote(r, s, colon), line, 0);
		kind = B_ARM;
	} else if (word_at(c, s, e, "for") || word_at(c, s, e, "while") || word_at(c, s, e, "with") ||
		   word_at(c, s, e, "try") || word_at(c, s, e, "finally") ||
		   word_at(c, s, e, "async")) {
		colon = header_colon(c, s, e);
		g = cur_guard(r);
	} else if (word_at(c, s, e, "def") || word_at(c, s, e, "class")) {
		struct block b = {indent, cur_guard(r), B_DEF};
		ot_vec_push(&r->blocks, b);
		return;
	} else {
		if (word_at(c, s, e, "return"))
			mark_exit(r, indent, false);
		else if (word_at(c, s, e, "raise"))
			mark_exit(r, indent, true);
		else
			assignment(r, s, e, line);
		return;
	}
	{
		struct block b = {indent, g, kind};
		ot_vec_push(&r->blocks, b);
	}
	body = skip_blank(c, colon + 1, e);
	if (colon < e && body < e) {
		/* if x: return y */
		statement(r, body, e, line, indent + 1);
		dedent(r, indent);
	}
}

static void read_params(struct reader *r, const ot_ix_pydef *def)
{
	const char *c = r->c;
	size_t s = line_start(r->f, def->line), e = r->f->len, open, i, start;
	int depth = 0;
	bool kw_only = false;
	for (open = s; open < e && c[open] != '(' && c[open] != '\n'; open++)
		;
	if (open >= e || c[open] != '(')
		return;
	start = open + 1;
	for (i = open; i < e; i++) {
		char ch = c[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		if ((ch == ',' && depth == 1) || depth == 0) {
			size_t a = skip_blank(c, start, i), ne;
			ot_pyparam p = {0};
			size_t colon = 0, eq = 0;
			int d2 = 0;
			for (size_t k = a; k < i; k++) {
				if (c[k] == '[' || c[k] == '(')
					d2++;
				else if (c[k] == ']' || c[k] == ')')
					d2--;
				else if (!d2 && c[k] == ':' && !colon)
					colon = k;
				else if (!d2 && c[k] == '=' && !eq)
					eq = k;
			}
			if (a < i && c[a] == '*' && (a + 1 >= i || !is_name_char(c[a + 1]) || c[a + 1] == '*')) {
				kw_only = true; /* a bare * */
			} else if (a < i && c[a] != '/') {
				size_t ns = a;
				while (ns < i && c[ns] == '*')
					ns++;
				ne = ns;
				while (ne < i && is_name_char(c[ne]))
					ne++;
				if (ne > ns) {
					p.name = ot_arena_strndup(r->a, c + ns, ne - ns);
					if (colon)
						p.annotation = quote(r, colon + 1, eq ? eq : i);
					if (eq)
						p.def = quote(r, eq + 1, i);
					p.kw_only = kw_only;
					p.star = c[a] == '*';
					if (p.star)
						kw_only = true; /* after *args */
					ot_vec_push(&r->out->params, p);
				}
			}
			start = i + 1;
			if (depth == 0)
				break;
		}
	}
	/* ") -> Tensor:": the return annotation, up to the header's colon */
	if (i < e) {
		size_t a = skip_blank(c, i + 1, e), k;
		if (a + 1 < e && c[a] == '-' && c[a + 1] == '>') {
			depth = 0;
			for (k = a + 2; k < e && !(depth == 0 && (c[k] == ':' || c[k] == '\n')); k++)
				depth += c[k] == '[' || c[k] == '(' ? 1 : c[k] == ']' || c[k] == ')' ? -1 : 0;
			r->out->returns = quote(r, a + 2, k);
		}
	}
}

/* The arguments of the call whose '(' is at `open`. */
static void read_args(struct reader *r, ot_pycall *pc, size_t open)
{
	const char *c = r->c;
	size_t e = r->f->len, start = open + 1, i;
	int depth = 0;
	pc->npos = 0;
	for (i = open; i < e; i++) {
		char ch = c[i];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		if ((ch == ',' && depth == 1) || depth == 0) {
			size_t a = skip_blank(c, start, i), k, eq = 0;
			int d2 = 0;
			if (a < i) {
				for (k = a; k < i; k++) {
					if (c[k] == '(' || c[k] == '[' || c[k] == '{')
						d2++;
					else if (c[k] == ')' || c[k] == ']' || c[k] == '}')
						d2--;
					else if (!d2 && c[k] == '=' && c[k + 1] != '=' && k > a &&
						 !strchr("=!<>", c[k - 1])) {
						eq = k;
						break;
					}
				}
				if (c[a] == '*' && c[a + 1] == '*') {
					pc->star_kwargs = true;
				} else if (c[a] == '*') {
					pc->npos = -1;
				} else if (eq) {
					if (pc->nkw < OT_PYFLOW_MAX_ARGS) {
						pc->kw[pc->nkw] = quote(r, a, eq);
						pc->kwval[pc->nkw] = quote(r, eq + 1, i);
						pc->nkw++;
					}
				} else if (pc->npos >= 0) {
					if (pc->npos < OT_PYFLOW_MAX_ARGS)
						pc->pos[pc->npos] = quote(r, a, i);
					pc->npos++;
				}
			}
			start = i + 1;
			if (depth == 0)
				break;
		}
	}
}

/* The expression before the '.' at `dot`: back over calls, indexes and
 * dotted names (`x.f(a)[0]` of `x.f(a)[0].g()`), or NULL. */
static const char *receiver_text(struct reader *r, size_t dot)
{
	const char *c = r->c;
	size_t s = dot;
	while (s > 0 && (c[s - 1] == ' ' || c[s - 1] == '\t'))
		s--;
	for (;;) {
		if (s > 0 && (c[s - 1] == ')' || c[s - 1] == ']')) {
			int depth = 0;
			while (s > 0) {
				char ch = c[--s];
				if (ch == ')' || ch == ']')
					depth++;
				else if ((ch == '(' || ch == '[') && --depth == 0)
					break;
			}
			if (depth)
				return NULL;
			continue;
		}
		if (s > 0 && is_name_char(c[s - 1])) {
			while (s > 0 && is_name_char(c[s - 1]))
				s--;
			if (s > 1 && c[s - 1] == '.' &&
			    (is_name_char(c[s - 2]) || c[s - 2] == ')' || c[s - 2] == ']')) {
				s--;
				continue;
			}
			break;
		}
		break;
	}
	return s < dot ? quote(r, s, dot) : NULL;
}

/* The operand after the operator at `at`: a dotted name with its calls and
 * indexes, a number, or a bracketed expression; or NULL. */
static const char *operand_after(struct reader *r, size_t at)
{
	const char *c = r->c;
	size_t e = r->f->len, i = at;
	while (i < e && (c[i] == ' ' || c[i] == '\t'))
		i++;
	size_t s = i;
	for (;;) {
		if (i < e && (c[i] == '(' || c[i] == '[')) {
			int depth = 0;
			for (; i < e; i++) {
				if (c[i] == '(' || c[i] == '[')
					depth++;
				else if ((c[i] == ')' || c[i] == ']') && --depth == 0)
					break;
			}
			if (i >= e)
				return NULL;
			i++;
			continue;
		}
		if (i < e && is_name_char(c[i])) {
			while (i < e && is_name_char(c[i]))
				i++;
			continue;
		}
		if (i + 1 < e && c[i] == '.' && is_name_char(c[i + 1]) && i > s) {
			i++;
			continue;
		}
		break;
	}
	return i > s ? quote(r, s, i) : NULL;
}

/* The k-th binary operator `pc->ref->path` of the line [s, e): its left
 * operand as the receiver, its right one as the argument. */
static size_t locate_operator(struct reader *r, ot_pycall *pc, size_t k, size_t s, size_t e)
{
	size_t seen = 0;
	for (size_t i = s; i < e; i++) {
		bool unary;
		if (r->c[i] != pc->ref->path[0])
			continue;
		unary = r->c[i] == '-' && ot_scan_py_unary_minus(r->c, r->f->len, i);
		if (!unary && !ot_scan_py_binary_operator(r->c, r->f->len, i))
			continue;
		if (seen++ < k)
			continue;
		if (unary) {
			/* -x: no receiver, the operand as the argument */
			pc->receiver = NULL;
			pc->pos[0] = operand_after(r, i + 1);
			pc->npos = pc->pos[0] ? 1 : -1;
			if (pc->pos[0])
				pc->text = ot_arena_printf(r->a, "-%s", pc->pos[0]);
			return i;
		}
		pc->receiver = receiver_text(r, i);
		pc->pos[0] = operand_after(r, i + 1);
		pc->npos = pc->pos[0] ? 1 : -1;
		if (pc->receiver && pc->pos[0])
			pc->text = ot_arena_printf(r->a, "%s %s %s", pc->receiver, pc->ref->path, pc->pos[0]);
		return i;
	}
	pc->npos = -1;
	return SIZE_MAX;
}

/* The k-th subscript of the line [s, e): what it indexes as the receiver,
 * the index as written (`0`, `1:`, `:, 0`) as the one argument. */
static size_t locate_subscript(struct reader *r, ot_pycall *pc, size_t k, size_t s, size_t e)
{
	size_t seen = 0;
	for (size_t i = s; i < e; i++) {
		size_t close = i + 1;
		int depth = 1;
		if (r->c[i] != '[' || !ot_scan_py_subscript(r->c, i))
			continue;
		if (seen++ < k)
			continue;
		for (; close < r->f->len && depth; close++)
			depth += r->c[close] == '[' || r->c[close] == '(' ? 1 : r->c[close] == ']' || r->c[close] == ')' ? -1 : 0;
		pc->receiver = receiver_text(r, i);
		pc->pos[0] = depth ? NULL : quote(r, i + 1, close - 1);
		pc->npos = pc->pos[0] ? 1 : -1;
		if (pc->receiver && pc->pos[0])
			pc->text = ot_arena_printf(r->a, "%s[%s]", pc->receiver, pc->pos[0]);
		return i;
	}
	pc->npos = -1;
	return SIZE_MAX;
}

/* Where ref `ref` (the k-th one with its path on its line) is called: reads
 * its arguments, returns the offset of its name (SIZE_MAX: not found); a
 * chained method's receiver too. */
static size_t locate_call(struct reader *r, ot_pycall *pc, size_t k)
{
	const char *c = r->c, *path = pc->ref->path;
	size_t s = line_start(r->f, pc->ref->line), e = r->f->len, seen = 0;
	size_t limit = s + 4096 < e ? s + 4096 : e;
	if (path[0] && strchr("+-*/@", path[0]) && !path[1])
		return locate_operator(r, pc, k, s, line_end(r->f, pc->ref->line));
	if (!strcmp(path, "["))
		return locate_subscript(r, pc, k, s, line_end(r->f, pc->ref->line));
	for (size_t i = s; i < limit; i++) {
		size_t j = i, p = 0;
		if (i > 0 && (is_name_char(c[i - 1]) || c[i - 1] == '.'))
			continue;
		/* the dotted path, blanks around the dots allowed */
		while (path[p] && j < limit) {
			if (path[p] == '.') {
				while (j < limit && (c[j] == ' ' || c[j] == '\t'))
					j++;
				if (c[j] != '.')
					break;
				j++;
				while (j < limit && (c[j] == ' ' || c[j] == '\t'))
					j++;
				p++;
				continue;
			}
			if (c[j] != path[p])
				break;
			j++;
			p++;
		}
		if (path[p] || (j < limit && is_name_char(c[j])))
			continue;
		while (j < limit && (c[j] == ' ' || c[j] == '\t'))
			j++;
		if (j >= limit || c[j] != '(')
			continue;
		if (seen++ < k)
			continue;
		read_args(r, pc, j);
		if (path[0] == '.')
			pc->receiver = receiver_text(r, i);
		return i;
	}
	pc->npos = -1; /* not found: the arguments are not known */
	return SIZE_MAX;
}

/* The conditional expressions (X if C else Y) calls sit in: the THEN guard
 * of each, by the offset of its `if`. */
struct ternaries {
	size_t at[32];
	uint16_t then[32];
	size_t n;
};

/* The guard of the call at offset `at` of the statement [ss, se) when it is
 * the X or the Y of `X if C else Y` (at its own bracket depth), else `guard`.
 * The THEN guard (C) and its OTHERWISE are made once per expression. */
static uint16_t ternary_guard(struct reader *r, struct ternaries *t, size_t ss, size_t se, size_t at,
			      uint32_t line, uint16_t guard)
{
	const char *c = r->c;
	size_t rs = at, re = at, pi = 0, pe = 0;
	int depth = 0;
	/* the stretch of the expression at the call's depth */
	while (rs > ss) {
		char ch = c[rs - 1];
		if (ch == ')' || ch == ']' || ch == '}')
			depth++;
		else if (ch == '(' || ch == '[' || ch == '{') {
			if (depth-- == 0)
				break;
		} else if (depth == 0 && (ch == ',' || ch == ':' || ch == ';' ||
					  (ch == '=' && rs >= 2 && !strchr("=!<>", c[rs - 2]) && c[rs] != '=')))
			break;
		rs--;
	}
	depth = 0;
	while (re < se) {
		char ch = c[re];
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}') {
			if (depth-- == 0)
				break;
		} else if (depth == 0 && (ch == ',' || ch == ';'))
			break;
		re++;
	}
	/* `if` then `else` at depth 0 of the stretch (not a leading keyword) */
	rs = skip_blank(c, rs, re);
	if (word_at(c, rs, re, "return") || word_at(c, rs, re, "yield"))
		rs += 6;
	depth = 0;
	for (size_t i = rs + 1; i < re; i++) {
		char ch = c[i];
		bool boundary = !(is_name_char(c[i - 1]) || c[i - 1] == '.');
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if (ch == ')' || ch == ']' || ch == '}')
			depth--;
		else if (depth == 0 && boundary && !pi && word_at(c, i, re, "if"))
			pi = i;
		else if (depth == 0 && boundary && pi && word_at(c, i, re, "else")) {
			pe = i;
			break;
		}
	}
	if (!pe || (at > pi && at < pe))
		return guard;
	for (size_t k = 0; k < t->n; k++)
		if (t->at[k] == pi)
			return at < pi ? t->then[k] : (uint16_t)(t->then[k] + 1);
	if (t->n >= OT_ARRAY_LEN(t->at) || r->out->guards.len + 2 >= UINT16_MAX)
		return guard;
	{
		ot_ix_guard then = {quote(r, pi + 2, pe), line, guard, 0, OT_GUARD_THEN, false, false, 0, NULL, false};
		ot_ix_guard other = {NULL, line, guard, 0, OT_GUARD_OTHERWISE, false, false, 0, NULL, false};
		ot_vec_push(&r->out->guards, then);
		other.prev = (uint16_t)r->out->guards.len;
		ot_vec_push(&r->out->guards, other);
		t->at[t->n] = pi;
		t->then[t->n++] = other.prev;
		return at < pi ? other.prev : (uint16_t)(other.prev + 1);
	}
}

void ot_pyflow_read(ot_pyflow *out, const ot_index *ix, const ot_ix_pydef *def, ot_arena *arena)
{
	struct reader r = {0};
	uint16_t *line_guard, *header_guard; /* per line: its guard; the if/elif its header opens */
	size_t *stmt_start, *stmt_stop; /* per line: the statement it is part of */
	size_t *header_end;             /* per line: where that header's condition ends */
	struct ternaries tern = {0};
	uint32_t first, last, ln;
	int depth = 0;
	bool backslash = false;

	memset(out, 0, sizeof(*out));
	out->def = def;
	r.f = ot_index_file(ix, def->file);
	if (!r.f || !r.f->code)
		return;
	r.c = r.f->code;
	r.t = r.f->text;
	r.a = arena;
	r.out = out;
	r.last_arm = 0;
	if (def->kind == OT_PY_DEF)
		read_params(&r, def);
	first = def->line;
	last = def->end_line > def->line ? def->end_line : def->line;
	line_guard = ot_calloc(last - first + 2, sizeof(*line_guard));
	stmt_start = ot_calloc(last - first + 2, sizeof(*stmt_start));
	stmt_stop = ot_calloc(last - first + 2, sizeof(*stmt_stop));
	header_guard = ot_calloc(last - first + 2, sizeof(*header_guard));
	header_end = ot_calloc(last - first + 2, sizeof(*header_end));

	/* the body's logical statements (the def line and its signature skipped) */
	for (ln = first; ln <= last; ln++) {
		size_t s = line_start(r.f, ln), e = line_end(r.f, ln), i = s, stmt_end;
		uint32_t indent = 0, end_line = ln;
		bool cont = depth > 0 || backslash, blank;
		while (i < e && (r.c[i] == ' ' || r.c[i] == '\t')) {
			indent = r.c[i] == '\t' ? (indent / 8 + 1) * 8 : indent + 1;
			i++;
		}
		blank = i >= e;
		/* the brackets this line leaves open, and a trailing backslash */
		for (size_t k = s; k < e; k++) {
			if (r.c[k] == '(' || r.c[k] == '[' || r.c[k] == '{')
				depth++;
			else if ((r.c[k] == ')' || r.c[k] == ']' || r.c[k] == '}') && depth > 0)
				depth--;
		}
		{
			size_t k = e;
			while (k > s && (r.c[k - 1] == ' ' || r.c[k - 1] == '\t'))
				k--;
			backslash = k > s && r.c[k - 1] == '\\';
		}
		if (blank || cont) {
			if (ln > first) {
				line_guard[ln - first] = line_guard[ln - first - 1];
				stmt_start[ln - first] = stmt_start[ln - first - 1];
				stmt_stop[ln - first] = stmt_stop[ln - first - 1];
				header_guard[ln - first] = header_guard[ln - first - 1];
				header_end[ln - first] = header_end[ln - first - 1];
			}
			continue;
		}
		/* the statement runs over its continuation lines */
		stmt_end = e;
		{
			int d = depth;
			bool bs = backslash;
			while ((d > 0 || bs) && end_line < last) {
				size_t ns = line_start(r.f, end_line + 1), ne = line_end(r.f, end_line + 1);
				for (size_t k = ns; k < ne; k++) {
					if (r.c[k] == '(' || r.c[k] == '[' || r.c[k] == '{')
						d++;
					else if ((r.c[k] == ')' || r.c[k] == ']' || r.c[k] == '}') && d > 0)
						d--;
				}
				{
					size_t k = ne;
					while (k > ns && (r.c[k - 1] == ' ' || r.c[k - 1] == '\t'))
						k--;
					bs = k > ns && r.c[k - 1] == '\\';
				}
				end_line++;
				stmt_end = ne;
			}
		}
		stmt_start[ln - first] = i;
		stmt_stop[ln - first] = stmt_end;
		if (ln == first) {
			/* the def or assignment itself */
			continue;
		}
		dedent(&r, indent);
		if (r.blocks.len && r.blocks.items[r.blocks.len - 1].kind == B_DEF)
			continue; /* inside a nested def */
		/* a statement after an if chain that left the block runs
		 * under AFTER (itself included) */
		if (r.last_arm && r.last_indent == indent && !word_at(r.c, i, stmt_end, "elif") &&
		    !word_at(r.c, i, stmt_end, "else"))
			finish_chain(&r, ln);
		line_guard[ln - first] = cur_guard(&r);
		{
			size_t before = r.out->guards.len;
			bool header = word_at(r.c, i, stmt_end, "if") || word_at(r.c, i, stmt_end, "elif");
			statement(&r, i, stmt_end, ln, indent);
			if (header && r.out->guards.len > before) {
				/* the guard the header made: its condition's operands */
				header_guard[ln - first] = (uint16_t)(before + 1);
				header_end[ln - first] = header_colon(r.c, i, stmt_end);
			}
		}
		/* a compound header's body starts on the next line; a one-line
		 * compound statement's calls run under its arm */
		if (header_colon(r.c, i, stmt_end) < stmt_end &&
		    skip_blank(r.c, header_colon(r.c, i, stmt_end) + 1, stmt_end) < stmt_end &&
		    (word_at(r.c, i, stmt_end, "if") || word_at(r.c, i, stmt_end, "elif") ||
		     word_at(r.c, i, stmt_end, "else")))
			line_guard[ln - first] = (uint16_t)r.out->guards.len;
	}

	/* the calls, with the guard of their line (or of the conditional
	 * expression they sit in) and their arguments */
	for (uint32_t k = 0; k < def->nrefs; k++) {
		const ot_ix_pyref *ref = &def->refs[k];
		ot_pycall pc = {0};
		size_t same = 0, at;
		bool inside = ref->line >= first && ref->line <= last;
		if (!ref->call)
			continue;
		pc.ref = ref;
		pc.guard = inside ? line_guard[ref->line - first] : 0;
		for (uint32_t j = 0; j < k; j++)
			if (def->refs[j].call && def->refs[j].line == ref->line &&
			    !strcmp(def->refs[j].path, ref->path))
				same++;
		at = locate_call(&r, &pc, same);
		if (at != SIZE_MAX && inside && stmt_start[ref->line - first] < at)
			pc.guard = ternary_guard(&r, &tern, stmt_start[ref->line - first],
						 stmt_stop[ref->line - first], at, ref->line, pc.guard);
		if (at != SIZE_MAX && inside && header_guard[ref->line - first] && at < header_end[ref->line - first])
			pc.cond_guard = header_guard[ref->line - first];
		ot_vec_push(&out->calls, pc);
	}
	free(line_guard);
	free(stmt_start);
	free(stmt_stop);
	free(header_guard);
	free(header_end);
	ot_vec_free(&r.blocks);
}

const char *ot_pyflow_returns(const ot_index *ix, const ot_ix_pydef *def, ot_arena *arena)
{
	struct reader r = {0};
	ot_pyflow out = {0};
	r.f = ot_index_file(ix, def->file);
	if (def->kind != OT_PY_DEF || !r.f || !r.f->code)
		return NULL;
	r.c = r.f->code;
	r.t = r.f->text;
	r.a = arena;
	r.out = &out;
	read_params(&r, def);
	ot_vec_free(&out.params);
	return out.returns;
}

void ot_pyflow_free(ot_pyflow *f)
{
	if (!f)
		return;
	ot_vec_free(&f->params);
	ot_vec_free(&f->guards);
	ot_vec_free(&f->calls);
	ot_vec_free(&f->assigns);
}

const ot_pycall *ot_pyflow_call(const ot_pyflow *f, const ot_ix_pyref *r)
{
	for (size_t i = 0; i < f->calls.len; i++)
		if (f->calls.items[i].ref == r)
			return &f->calls.items[i];
	return NULL;
}

const ot_pyparam *ot_pyflow_param(const ot_pyflow *f, const char *name)
{
	for (size_t i = 0; i < f->params.len; i++)
		if (!strcmp(f->params.items[i].name, name))
			return &f->params.items[i];
	return NULL;
}
