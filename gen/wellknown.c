#include "wellknown.h"

#include <stdlib.h>
#include <string.h>

#include "yamldoc.h"

struct group {
	const char *id;
	ot_value *title, *summary, *facts;
};

struct entry {
	const char *name;
	const char *group;
	const char *group_title;
	const char *aten;
	ot_value *data;
	bool inplace;          /* entry of the in-place group */
	const char *twin_name; /* "add_" when the entry has an in-place twin */
	const char *twin_aten;
	ot_value *twin_data;
	size_t suffix_len; /* pattern entries: length of the suffix */
};

struct ot_wellknown {
	ot_arena *arena;
	ot_map *by_name; /* op names and aliases -> entry */
	ot_map *by_aten; /* aten names -> entry, for aten:: inputs */
	OT_VEC(struct entry *) patterns; /* longest suffix first */
	OT_VEC(const char *) names;      /* sorted */
};

/* Loader state: the source name for messages, groups by id. */
struct loader {
	ot_wellknown *wk;
	const char *name;
	ot_map *groups;
	ot_value *inplace_facts; /* the in-place group's facts, or NULL */
};

#define fail_at(ld, line, col, ...) ot_error_at((ld)->name, line, col, __VA_ARGS__)

/* A "what 'key':" prefix for field errors: "group 'math'" or "op 'view'". */
struct owner {
	const char *what;
	const char *key;
	const ot_member *member; /* the owner's own member, for its mark */
};

/* An error at `field` of the owner, or at the owner's key when it has none. */
static int fail_field(const struct loader *ld, const struct owner *o, const char *field,
		      const char *problem)
{
	const ot_member *m = field ? ot_v_member(o->member->value, field) : NULL;
	int line = m ? m->line : o->member->line, col = m ? m->col : o->member->col;
	return fail_at(ld, line, col, "%s '%s': %s", o->what, o->key, problem);
}

static bool is_text(const ot_value *v)
{
	return v && v->type == OT_V_STR && v->u.str.len > 0;
}

/* A required (or optional) non-empty string field; *out is NULL when absent. */
static int get_text(ot_value **out, const struct loader *ld, const struct owner *o,
		    const char *field, bool required)
{
	ot_value *v = ot_v_get(o->member->value, field);
	ot_buf msg = OT_BUF_INIT;
	int rc = 0;

	*out = NULL;
	if (!v) {
		if (required) {
			ot_buf_printf(&msg, "missing field '%s'", field);
			rc = fail_field(ld, o, field, msg.ptr);
		}
		goto done;
	}
	if (!is_text(v)) {
		ot_buf_printf(&msg, "'%s' must be a non-empty string", field);
		rc = fail_field(ld, o, field, msg.ptr);
		goto done;
	}
	*out = v;
done:
	ot_buf_free(&msg);
	return rc;
}

/* An optional list of non-empty strings; absent gives an empty list. */
static int get_text_list(ot_value **out, const struct loader *ld, const struct owner *o,
			 const char *field, bool required)
{
	ot_value *v = ot_v_get(o->member->value, field);
	ot_buf msg = OT_BUF_INIT;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!v) {
		if (required) {
			ot_buf_printf(&msg, "missing field '%s'", field);
			rc = fail_field(ld, o, field, msg.ptr);
		} else {
			*out = ot_v_list(ld->wk->arena);
		}
		goto done;
	}
	if (v->type == OT_V_LIST && (v->u.list.len > 0 || !required)) {
		for (i = 0; i < v->u.list.len; i++)
			if (!is_text(v->u.list.items[i]))
				break;
		if (i == v->u.list.len) {
			*out = v;
			goto done;
		}
	}
	ot_buf_printf(&msg, "'%s' must be a %slist of non-empty strings", field,
		      required ? "non-empty " : "");
	rc = fail_field(ld, o, field, msg.ptr);
done:
	ot_buf_free(&msg);
	return rc;
}

static int check_fields(const struct loader *ld, const struct owner *o,
			const char *const *allowed)
{
	const ot_value *map = o->member->value;
	size_t i, j;
	for (i = 0; i < map->u.map.len; i++) {
		const ot_member *m = &map->u.map.items[i];
		for (j = 0; allowed[j]; j++)
			if (!strcmp(m->key, allowed[j]))
				break;
		if (!allowed[j])
			return fail_at(ld, m->line, m->col, "%s '%s': unknown field '%s'", o->what,
				       o->key, m->key);
	}
	return 0;
}

static const char *const group_fields[] = {"title", "summary", "facts", NULL};

static int load_group(struct loader *ld, const ot_member *m)
{
	struct owner o = {"group", m->key, m};
	struct group *g;
	int rc;

	if (m->value->type != OT_V_MAP)
		return fail_at(ld, m->line, m->col, "group '%s' must be a mapping", m->key);
	if ((rc = check_fields(ld, &o, group_fields)) < 0)
		return rc;
	g = ot_arena_alloc(ld->wk->arena, sizeof(*g));
	g->id = m->key;
	if ((rc = get_text(&g->title, ld, &o, "title", true)) < 0 ||
	    (rc = get_text(&g->summary, ld, &o, "summary", true)) < 0 ||
	    (rc = get_text_list(&g->facts, ld, &o, "facts", true)) < 0)
		return rc;
	ot_map_put(ld->groups, g->id, g);
	if (!strcmp(g->id, "in-place"))
		ld->inplace_facts = g->facts;
	return 0;
}

/* Claim `name` for `e` in the name map; a second claim is an error. */
static int claim_name(struct loader *ld, const struct owner *o, const char *field,
		      const char *name, struct entry *e)
{
	struct entry *prev = ot_map_get(ld->wk->by_name, name);
	ot_buf msg = OT_BUF_INIT;
	int rc = 0;
	if (prev) {
		ot_buf_printf(&msg, "name '%s' is already taken by op '%s'", name, prev->name);
		rc = fail_field(ld, o, field, msg.ptr);
	} else {
		ot_map_put(ld->wk->by_name, name, e);
	}
	ot_buf_free(&msg);
	return rc;
}

static const char *const op_fields[] = {
	"group", "summary", "kind",  "facts",   "gpu",     "backward", "aten", "aten_note",
	"aten_releases", "files", "inplace", "aliases", "pattern", NULL};

/* The template data of one entry (see wellknown.h for the keys). */
static ot_value *entry_data(ot_arena *a, const char *name, const struct group *g,
			    ot_value *const fields[], ot_value *aten, ot_value *aten_note,
			    ot_value *aten_releases, ot_value *files, ot_value *aliases,
			    bool pattern, bool inplace)
{
	ot_value *d = ot_v_map(a);
	ot_v_set_str(a, d, "name", name);
	ot_v_set_str(a, d, "base", name);
	ot_v_set(a, d, "group", ot_v_str(a, g->id));
	ot_v_set(a, d, "group_title", g->title);
	ot_v_set(a, d, "group_summary", g->summary);
	ot_v_set(a, d, "group_facts", g->facts);
	ot_v_set(a, d, "summary", fields[0]);
	ot_v_set(a, d, "kind", fields[1]);
	ot_v_set(a, d, "facts", fields[2]);
	ot_v_set(a, d, "gpu", fields[3]);
	ot_v_set(a, d, "backward", fields[4]);
	ot_v_set(a, d, "aten", aten);
	ot_v_set(a, d, "aten_note", aten_note ? aten_note : ot_v_null(a));
	ot_v_set(a, d, "aten_releases", aten_releases);
	ot_v_set(a, d, "files", files);
	ot_v_set(a, d, "aliases", aliases);
	ot_v_set_bool(a, d, "pattern", pattern);
	ot_v_set_bool(a, d, "inplace", inplace);
	ot_v_set(a, d, "inplace_summary", ot_v_null(a));
	ot_v_set(a, d, "inplace_facts", ot_v_list(a));
	return d;
}

/* The in-place twin's data: the entry's data with the twin's name and aten. */
static ot_value *twin_data(struct loader *ld, const struct entry *e, ot_value *summary)
{
	ot_arena *a = ld->wk->arena;
	ot_value *d = ot_v_map(a);
	size_t i;
	for (i = 0; i < e->data->u.map.len; i++)
		ot_v_set(a, d, e->data->u.map.items[i].key, e->data->u.map.items[i].value);
	ot_v_set_str(a, d, "name", e->twin_name);
	ot_v_set_str(a, d, "aten", e->twin_aten);
	ot_v_set(a, d, "aten_note", ot_v_null(a));
	ot_v_set_bool(a, d, "inplace", true);
	ot_v_set(a, d, "inplace_summary", summary);
	ot_v_set(a, d, "inplace_facts", ld->inplace_facts ? ld->inplace_facts : ot_v_list(a));
	return d;
}

static int load_op(struct loader *ld, const ot_member *m)
{
	ot_arena *a = ld->wk->arena;
	struct owner o = {"op", m->key, m};
	ot_value *group, *fields[5], *aten, *aten_note, *aten_releases, *files, *aliases,
		*inplace, *pattern_v;
	static const char *const field_names[] = {"summary", "kind", "facts", "gpu",
						  "backward"};
	const struct group *g;
	struct entry *e;
	bool pattern = false;
	size_t i;
	int rc;

	if (!*m->key)
		return fail_at(ld, m->line, m->col, "an op name must not be empty");
	if (m->value->type != OT_V_MAP)
		return fail_at(ld, m->line, m->col, "op '%s' must be a mapping", m->key);
	if ((rc = check_fields(ld, &o, op_fields)) < 0)
		return rc;
	if ((rc = get_text(&group, ld, &o, "group", true)) < 0)
		return rc;
	g = ot_map_get(ld->groups, ot_v_cstr(group));
	if (!g)
		return fail_at(ld, group->line, group->col, "op '%s': unknown group '%s'",
			       m->key, ot_v_cstr(group));
	for (i = 0; i < OT_ARRAY_LEN(field_names); i++) {
		rc = i == 2 ? get_text_list(&fields[i], ld, &o, field_names[i], false)
			    : get_text(&fields[i], ld, &o, field_names[i], true);
		if (rc < 0)
			return rc;
	}

	/* aten is required but may be null: a null must be explained. */
	aten = ot_v_get(m->value, "aten");
	if (!aten)
		return fail_field(ld, &o, "aten",
				  "missing field 'aten' (write 'aten: null' when the op has "
				  "no native_functions.yaml entry)");
	if (aten->type != OT_V_NULL && !is_text(aten))
		return fail_field(ld, &o, "aten", "'aten' must be a non-empty string or null");
	if ((rc = get_text(&aten_note, ld, &o, "aten_note", false)) < 0)
		return rc;
	if (aten->type == OT_V_NULL && !aten_note)
		return fail_field(ld, &o, "aten",
				  "'aten' is null, so 'aten_note' must say where the op is "
				  "implemented");
	if ((rc = get_text_list(&aten_releases, ld, &o, "aten_releases", false)) < 0 ||
	    (rc = get_text_list(&files, ld, &o, "files", false)) < 0 ||
	    (rc = get_text_list(&aliases, ld, &o, "aliases", false)) < 0 ||
	    (rc = get_text(&inplace, ld, &o, "inplace", false)) < 0)
		return rc;
	if (aten_releases->u.list.len && aten->type == OT_V_NULL)
		return fail_field(ld, &o, "aten_releases", "'aten_releases' needs an 'aten' name");
	pattern_v = ot_v_get(m->value, "pattern");
	if (pattern_v) {
		if (pattern_v->type != OT_V_BOOL)
			return fail_field(ld, &o, "pattern", "'pattern' must be true or false");
		pattern = pattern_v->u.b;
	}
	if (pattern && (inplace || aliases->u.list.len))
		return fail_field(ld, &o, inplace ? "inplace" : "aliases",
				  "a pattern entry cannot have 'inplace' or 'aliases'");
	if (inplace && aten->type == OT_V_NULL)
		return fail_field(ld, &o, "inplace",
				  "'inplace' needs an 'aten' name (the twin's entry is "
				  "aten + '_')");

	e = ot_arena_alloc(a, sizeof(*e));
	e->name = m->key;
	e->group = g->id;
	e->group_title = ot_v_cstr(g->title);
	e->aten = ot_v_cstr(aten);
	e->inplace = !strcmp(g->id, "in-place");
	e->data = entry_data(a, m->key, g, fields, aten, aten_note, aten_releases, files,
			     aliases, pattern, e->inplace);

	if (pattern) {
		e->suffix_len = strlen(m->key);
		ot_vec_push(&ld->wk->patterns, e);
		return 0;
	}
	if ((rc = claim_name(ld, &o, NULL, e->name, e)) < 0)
		return rc;
	ot_vec_push(&ld->wk->names, e->name);
	for (i = 0; i < aliases->u.list.len; i++) {
		const char *alias = ot_v_cstr(aliases->u.list.items[i]);
		if ((rc = claim_name(ld, &o, "aliases", alias, e)) < 0)
			return rc;
		ot_vec_push(&ld->wk->names, alias);
	}
	if (inplace) {
		e->twin_name = ot_arena_printf(a, "%s_", e->name);
		e->twin_aten = ot_arena_printf(a, "%s_", e->aten);
		e->twin_data = twin_data(ld, e, inplace);
	}
	return 0;
}

/* In-place twin names may not shadow (or be shadowed by) an op entry. */
static int check_twins(struct loader *ld, const ot_value *ops)
{
	size_t i;
	for (i = 0; i < ops->u.map.len; i++) {
		const ot_member *m = &ops->u.map.items[i];
		struct entry *e = ot_map_get(ld->wk->by_name, m->key), *other;
		if (!e || strcmp(e->name, m->key) || !e->twin_name)
			continue;
		other = ot_map_get(ld->wk->by_name, e->twin_name);
		if (other) {
			struct owner o = {"op", m->key, m};
			ot_buf msg = OT_BUF_INIT;
			int rc;
			ot_buf_printf(&msg, "in-place twin '%s' is already taken by op '%s'",
				      e->twin_name, other->name);
			rc = fail_field(ld, &o, "inplace", msg.ptr);
			ot_buf_free(&msg);
			return rc;
		}
	}
	return 0;
}

/* aten names for aten:: inputs; an entry named like its aten entry wins. */
static void index_aten(ot_wellknown *wk)
{
	size_t i, pass;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < ot_map_len(wk->by_name); i++) {
			struct entry *e = ot_map_value_at(wk->by_name, i);
			if (!e->aten || strcmp(ot_map_key_at(wk->by_name, i), e->name))
				continue;
			if ((pass == 0) != !strcmp(e->name, e->aten))
				continue;
			if (!ot_map_get(wk->by_aten, e->aten))
				ot_map_put(wk->by_aten, e->aten, e);
		}
	}
}

static int pattern_cmp(const void *pa, const void *pb)
{
	const struct entry *a = *(const struct entry *const *)pa;
	const struct entry *b = *(const struct entry *const *)pb;
	if (a->suffix_len != b->suffix_len)
		return a->suffix_len > b->suffix_len ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int load_section(struct loader *ld, const ot_value *root, const char *key,
			int (*each)(struct loader *, const ot_member *), const ot_value **out)
{
	const ot_member *sec = ot_v_member(root, key);
	size_t i;
	int rc;

	*out = NULL;
	if (!sec)
		return fail_at(ld, root->line, root->col, "missing '%s'", key);
	if (sec->value->type != OT_V_MAP)
		return fail_at(ld, sec->line, sec->col, "'%s' must be a mapping", key);
	for (i = 0; i < sec->value->u.map.len; i++)
		if ((rc = each(ld, &sec->value->u.map.items[i])) < 0)
			return rc;
	*out = sec->value;
	return 0;
}

int ot_wellknown_load(ot_wellknown **out, const char *data, size_t len, const char *name)
{
	ot_wellknown *wk = ot_calloc(1, sizeof(*wk));
	struct loader ld = {0};
	const ot_value *groups, *ops;
	ot_value *root;
	size_t i;
	int rc;

	*out = NULL;
	wk->arena = ot_arena_new();
	wk->by_name = ot_map_new();
	wk->by_aten = ot_map_new();
	ld.wk = wk;
	ld.name = name;
	ld.groups = ot_map_new();

	if ((rc = ot_yaml_load(&root, wk->arena, data, len, name)) < 0)
		goto done;
	if (root->type != OT_V_MAP) {
		rc = fail_at(&ld, root->line, root->col,
			     "the reference must be a mapping with 'groups' and 'ops'");
		goto done;
	}
	for (i = 0; i < root->u.map.len; i++) {
		const ot_member *m = &root->u.map.items[i];
		if (strcmp(m->key, "groups") && strcmp(m->key, "ops")) {
			rc = fail_at(&ld, m->line, m->col,
				     "unknown key '%s' (expected 'groups' or 'ops')", m->key);
			goto done;
		}
	}
	if ((rc = load_section(&ld, root, "groups", load_group, &groups)) < 0 ||
	    (rc = load_section(&ld, root, "ops", load_op, &ops)) < 0 ||
	    (rc = check_twins(&ld, ops)) < 0)
		goto done;
	index_aten(wk);
	if (wk->patterns.len)
		qsort(wk->patterns.items, wk->patterns.len, sizeof(*wk->patterns.items),
		      pattern_cmp);
	if (wk->names.len)
		qsort(wk->names.items, wk->names.len, sizeof(*wk->names.items), ot_strptr_cmp);
	*out = wk;
	wk = NULL;
done:
	ot_map_free(ld.groups);
	ot_wellknown_free(wk);
	return rc;
}

void ot_wellknown_free(ot_wellknown *wk)
{
	if (!wk)
		return;
	ot_map_free(wk->by_name);
	ot_map_free(wk->by_aten);
	ot_vec_free(&wk->patterns);
	ot_vec_free(&wk->names);
	ot_arena_free(wk->arena);
	free(wk);
}

/* ---- lookup ------------------------------------------------------------------ */

static bool eat(const char **s, size_t *len, const char *prefix)
{
	size_t n = strlen(prefix);
	if (*len < n || memcmp(*s, prefix, n))
		return false;
	*s += n;
	*len -= n;
	return true;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Reduce an input to the name the reference is keyed by. Returns false for
 * names that must never match (torch.nn modules).
 */
static bool normalise(const char **s, size_t *len, bool *aten_form)
{
	const char *dot;

	while (*len && is_space(**s))
		(*s)++, (*len)--;
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
	*aten_form = false;
	if (eat(s, len, "torch.nn.functional."))
		return true;
	if (eat(s, len, "torch.nn.") || eat(s, len, "nn."))
		return false;
	if (eat(s, len, "torch.ops.aten.") || eat(s, len, "aten::")) {
		/* aten names carry an optional ".overload" */
		*aten_form = true;
		dot = memchr(*s, '.', *len);
		if (dot)
			*len = (size_t)(dot - *s);
		return true;
	}
	if (!eat(s, len, "torch.Tensor.") && !eat(s, len, "torch.") && !eat(s, len, "F."))
		eat(s, len, "Tensor.");
	return true;
}

static struct entry *find(const ot_wellknown *wk, const char *s, size_t len, bool aten_form)
{
	struct entry *e = ot_map_getn(wk->by_name, s, len);
	if (!e && aten_form)
		e = ot_map_getn(wk->by_aten, s, len);
	return e;
}

static bool fill(ot_wellknown_match *out, const struct entry *e, bool twin)
{
	out->name = twin ? e->twin_name : e->name;
	out->group = e->group;
	out->group_title = e->group_title;
	out->data = twin ? e->twin_data : e->data;
	out->aten = twin ? e->twin_aten : e->aten;
	out->inplace = twin || e->inplace;
	out->pattern = e->suffix_len > 0;
	return true;
}

bool ot_wellknown_lookup(ot_wellknown_match *out, const ot_wellknown *wk, const char *input)
{
	const char *s = input;
	size_t len = strlen(input), i;
	bool aten_form;
	struct entry *e;

	memset(out, 0, sizeof(*out));
	if (!normalise(&s, &len, &aten_form) || !len)
		return false;
	if ((e = find(wk, s, len, aten_form)))
		return fill(out, e, false);
	/* "x_" is the in-place twin of "x"; "__x__" is a dunder, not in-place */
	if (len >= 2 && s[len - 1] == '_' && s[len - 2] != '_') {
		e = find(wk, s, len - 1, aten_form);
		if (e && e->twin_name)
			return fill(out, e, true);
	}
	for (i = 0; i < wk->patterns.len; i++) {
		e = wk->patterns.items[i];
		if (len > e->suffix_len && s[len - e->suffix_len - 1] != '_' &&
		    !memcmp(s + len - e->suffix_len, e->name, e->suffix_len))
			return fill(out, e, false);
	}
	return false;
}

size_t ot_wellknown_count(const ot_wellknown *wk)
{
	return wk->names.len;
}

const char *ot_wellknown_name_at(const ot_wellknown *wk, size_t i)
{
	return wk->names.items[i];
}
