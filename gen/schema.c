/*
 * schema.c - the function-schema parser of native_functions.yaml and
 * derivatives.yaml: `name.overload(args) -> returns`.
 *
 * A hand-written scanner over the text, without recursion: a schema nests
 * at most one level (a parenthesised return list), and defaults are copied
 * as text after bracket/quote matching with a counter, so hostile input
 * costs linear time and constant stack.
 */
#include "registry.h"

#include <stdlib.h>
#include <string.h>

struct scan {
	ot_arena *arena;
	const char *text;
	size_t pos;
	bool kwarg_only;
};

typedef OT_VEC(ot_reg_arg) arg_vec;

static int fail(const struct scan *sc, const char *reason)
{
	return ot_error_set("column %zu: %s", sc->pos + 1, reason);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_spaces(struct scan *sc)
{
	while (is_space(sc->text[sc->pos]))
		sc->pos++;
}

static size_t ident_len(const struct scan *sc)
{
	size_t n = 0;
	while (ot_is_ident_char(sc->text[sc->pos + n]))
		n++;
	return n;
}

static const char *trimmed_copy(ot_arena *arena, const char *s, size_t len)
{
	while (len && is_space(*s))
		s++, len--;
	while (len && is_space(s[len - 1]))
		len--;
	return ot_arena_strndup(arena, s, len);
}

/*
 * A type: an identifier, an optional alias annotation in parentheses right
 * after it, then any run of `[N]` / `?` suffixes. The annotation is cut out
 * of the type text ("Tensor(a!)[]" -> "Tensor[]" + "a!").
 */
static int parse_type(struct scan *sc, ot_reg_arg *arg)
{
	ot_buf type = OT_BUF_INIT;
	size_t n = ident_len(sc);
	int rc = 0;

	if (!n) {
		rc = fail(sc, "expected a type");
		goto done;
	}
	ot_buf_put(&type, sc->text + sc->pos, n);
	sc->pos += n;
	if (sc->text[sc->pos] == '(') {
		size_t start = ++sc->pos;
		while (sc->text[sc->pos] && sc->text[sc->pos] != ')' && sc->text[sc->pos] != '(')
			sc->pos++;
		if (sc->text[sc->pos] != ')') {
			rc = fail(sc, "expected ')' to close the alias annotation");
			goto done;
		}
		arg->annotation = trimmed_copy(sc->arena, sc->text + start, sc->pos - start);
		if (!*arg->annotation) {
			rc = fail(sc, "empty alias annotation");
			goto done;
		}
		arg->is_write = strchr(arg->annotation, '!') != NULL;
		sc->pos++;
	}
	for (;;) {
		char c = sc->text[sc->pos];
		if (c == '?') {
			ot_buf_putc(&type, '?');
			sc->pos++;
		} else if (c == '[') {
			size_t start = sc->pos++;
			while (sc->text[sc->pos] >= '0' && sc->text[sc->pos] <= '9')
				sc->pos++;
			if (sc->text[sc->pos] != ']') {
				rc = fail(sc, "expected ']' in a list type");
				goto done;
			}
			sc->pos++;
			ot_buf_put(&type, sc->text + start, sc->pos - start);
		} else {
			break;
		}
	}
	arg->type = ot_arena_strndup(sc->arena, type.ptr, type.size);
	arg->optional = type.size && type.ptr[type.size - 1] == '?';
done:
	ot_buf_free(&type);
	return rc;
}

/*
 * A default value runs to the next ',' or ')' outside brackets and quotes:
 * `int[2] stride=[1, 1]`, `str reduce="mean"`.
 */
static int parse_default(struct scan *sc, ot_reg_arg *arg)
{
	size_t start = sc->pos, depth = 0;
	char quote = 0;

	for (;;) {
		char c = sc->text[sc->pos];
		if (!c) {
			if (quote)
				return fail(sc, "unterminated string in a default value");
			break;
		}
		if (quote) {
			if (c == '\\' && sc->text[sc->pos + 1])
				sc->pos++;
			else if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '[' || c == '(') {
			depth++;
		} else if (c == ']' || c == ')') {
			if (!depth)
				break;
			depth--;
		} else if (c == ',' && !depth) {
			break;
		}
		sc->pos++;
	}
	arg->def = trimmed_copy(sc->arena, sc->text + start, sc->pos - start);
	if (!*arg->def)
		return fail(sc, "empty default value");
	return 0;
}

/* One argument (`is_args`) or return, up to but not including ',' / close. */
static int parse_item(struct scan *sc, ot_reg_arg *arg, bool is_args)
{
	size_t n;
	int rc;

	memset(arg, 0, sizeof(*arg));
	if (!strncmp(sc->text + sc->pos, "...", 3)) {
		/* JIT-style varargs; kept as an item named and typed "...". */
		sc->pos += 3;
		arg->type = "...";
		arg->name = "...";
		arg->kwarg_only = sc->kwarg_only;
		return 0;
	}
	if ((rc = parse_type(sc, arg)) < 0)
		return rc;
	arg->kwarg_only = sc->kwarg_only;
	if (!is_space(sc->text[sc->pos])) {
		if (is_args)
			return fail(sc, "expected an argument name");
		return 0;
	}
	skip_spaces(sc);
	n = ident_len(sc);
	if (!n) {
		if (is_args)
			return fail(sc, "expected an argument name");
		return 0;
	}
	arg->name = ot_arena_strndup(sc->arena, sc->text + sc->pos, n);
	sc->pos += n;
	skip_spaces(sc);
	if (sc->text[sc->pos] == '=') {
		if (!is_args)
			return fail(sc, "a return cannot have a default");
		sc->pos++;
		if ((rc = parse_default(sc, arg)) < 0)
			return rc;
	}
	return 0;
}

/* A parenthesised list; sc->pos is just after '('. Leaves pos after ')'. */
static int parse_list(struct scan *sc, arg_vec *into, bool is_args)
{
	bool saw_star = false;
	int rc;

	sc->kwarg_only = false;
	skip_spaces(sc);
	if (sc->text[sc->pos] == ')') {
		sc->pos++;
		return 0;
	}
	for (;;) {
		skip_spaces(sc);
		if (sc->text[sc->pos] == '*') {
			if (!is_args)
				return fail(sc, "'*' is only allowed among the arguments");
			if (saw_star)
				return fail(sc, "second '*' marker");
			saw_star = true;
			sc->kwarg_only = true;
			sc->pos++;
		} else {
			ot_reg_arg arg;
			if ((rc = parse_item(sc, &arg, is_args)) < 0)
				return rc;
			ot_vec_push(into, arg);
		}
		skip_spaces(sc);
		if (sc->text[sc->pos] == ')') {
			sc->pos++;
			return 0;
		}
		if (sc->text[sc->pos] != ',')
			return fail(sc, "expected ',' or ')'");
		sc->pos++;
	}
}

static void set_names(ot_reg_schema *out, ot_arena *arena, const char *name, size_t name_len,
		      const char *overload, size_t overload_len)
{
	bool dunder = name_len > 4 && !strncmp(name, "__", 2) &&
		      !strncmp(name + name_len - 2, "__", 2);

	out->name = ot_arena_strndup(arena, name, name_len);
	out->overload = ot_arena_strndup(arena, overload, overload_len);
	out->full = overload_len ? ot_arena_printf(arena, "%s.%s", out->name, out->overload)
				 : out->name;
	out->inplace = !dunder && name_len > 1 && name[name_len - 1] == '_';
	out->base = out->inplace ? ot_arena_strndup(arena, name, name_len - 1) : out->name;
}

int ot_reg_schema_parse(ot_reg_schema *out, ot_arena *arena, const char *text)
{
	struct scan sc = {arena, text, 0, false};
	arg_vec args = {0}, rets = {0};
	size_t name_start, name_len, ov_start = 0, ov_len = 0, i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	skip_spaces(&sc);
	name_start = sc.pos;
	name_len = ident_len(&sc);
	if (!name_len) {
		rc = fail(&sc, "expected an operator name");
		goto done;
	}
	sc.pos += name_len;
	if (text[sc.pos] == '.') {
		sc.pos++;
		ov_start = sc.pos;
		ov_len = ident_len(&sc);
		if (!ov_len) {
			rc = fail(&sc, "expected an overload name after '.'");
			goto done;
		}
		sc.pos += ov_len;
	}
	if (text[sc.pos] != '(') {
		rc = fail(&sc, "expected '('");
		goto done;
	}
	sc.pos++;
	if ((rc = parse_list(&sc, &args, true)) < 0)
		goto done;
	skip_spaces(&sc);
	if (strncmp(text + sc.pos, "->", 2)) {
		rc = fail(&sc, "expected '->'");
		goto done;
	}
	sc.pos += 2;
	skip_spaces(&sc);
	if (text[sc.pos] == '(') {
		sc.pos++;
		if ((rc = parse_list(&sc, &rets, false)) < 0)
			goto done;
	} else {
		ot_reg_arg ret;
		sc.kwarg_only = false;
		if ((rc = parse_item(&sc, &ret, false)) < 0)
			goto done;
		ot_vec_push(&rets, ret);
	}
	skip_spaces(&sc);
	if (text[sc.pos]) {
		rc = fail(&sc, "unexpected text after the returns");
		goto done;
	}

	set_names(out, arena, text + name_start, name_len, text + ov_start, ov_len);
	out->args = OT_ARENA_VEC(arena, &args);
	out->nargs = args.len;
	out->returns = OT_ARENA_VEC(arena, &rets);
	out->nreturns = rets.len;
	for (i = 0; i < out->nargs; i++)
		if (out->args[i].kwarg_only && out->args[i].is_write)
			out->is_out = true;
done:
	ot_vec_free(&args);
	ot_vec_free(&rets);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}
