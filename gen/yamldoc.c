#include "yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct frame {
	ot_value *node;
	const char *key; /* map frames: key waiting for its value */
	int key_line, key_col;
	ot_map *keys;    /* a long mapping's keys -> member index + 1 (duplicates found
			    in constant time); NULL while it has few */
};

#define FEW_KEYS 8

struct loader {
	ot_arena *arena;
	const char *name;
	ot_map *anchors;
	struct frame stack[OT_YAML_MAX_DEPTH + 1];
	int depth;
	ot_value *root;
};

static bool is_int_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool is_float_text(const char *s)
{
	bool digits = false;
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF"))
		return true;
	while (*s >= '0' && *s <= '9')
		s++, digits = true;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9')
			s++, digits = true;
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

static ot_value *scalar_value(struct loader *ld, const yaml_event_t *ev)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	ot_value *v = NULL;

	if (plain && !(tag && !strcmp(tag, YAML_STR_TAG)) && strlen(text) == len) {
		if (!*text || !strcmp(text, "~") || !strcmp(text, "null") ||
		    !strcmp(text, "Null") || !strcmp(text, "NULL")) {
			v = ot_v_null(ld->arena);
		} else if (!strcmp(text, "true") || !strcmp(text, "True") ||
			   !strcmp(text, "TRUE")) {
			v = ot_v_bool(ld->arena, true);
		} else if (!strcmp(text, "false") || !strcmp(text, "False") ||
			   !strcmp(text, "FALSE")) {
			v = ot_v_bool(ld->arena, false);
		} else if (is_int_text(text)) {
			long long i;
			errno = 0;
			i = strtoll(text, NULL, 10);
			if (!errno)
				v = ot_v_int(ld->arena, i);
		} else if (is_float_text(text)) {
			const char *t = text + (*text == '-' || *text == '+');
			if (*t == '.' && (t[1] == 'i' || t[1] == 'I'))
				v = ot_v_float(ld->arena, *text == '-' ? -HUGE_VAL : HUGE_VAL);
			else
				v = ot_v_float(ld->arena, strtod(text, NULL));
		}
	}
	if (!v) {
		v = ot_v_strn(ld->arena, text, len);
		v->text = v->u.str.ptr;
	} else {
		v->text = ot_arena_strndup(ld->arena, text, len);
	}
	v->plain = plain;
	return v;
}

static int fail(struct loader *ld, const yaml_mark_t *mark, const char *reason)
{
	return ot_error_set("%s:%zu:%zu: %s", ld->name, mark->line + 1, mark->column + 1,
			    reason);
}

/* Attach a finished (or aliased) node to whatever is on top of the stack. */
static int attach(struct loader *ld, ot_value *node, const yaml_mark_t *mark, bool is_scalar)
{
	struct frame *top;
	if (ld->depth == 0) {
		ld->root = node;
		return 0;
	}
	top = &ld->stack[ld->depth - 1];
	if (top->node->type == OT_V_LIST) {
		ot_v_push(ld->arena, top->node, node);
		return 0;
	}
	if (!top->key) {
		const ot_member *dup;
		if (!is_scalar)
			return fail(ld, mark, "a mapping key must be a scalar");
		if (top->keys) {
			void *k = ot_map_get(top->keys, node->text);
			dup = k ? &top->node->u.map.items[(uintptr_t)k - 1] : NULL;
		} else {
			dup = ot_v_member(top->node, node->text);
		}
		if (dup)
			return ot_error_set("%s:%zu:%zu: duplicate key '%s' (first at line %d)",
					    ld->name, mark->line + 1, mark->column + 1, node->text,
					    dup->line);
		top->key = node->text;
		top->key_line = (int)mark->line + 1;
		top->key_col = (int)mark->column + 1;
		return 0;
	}
	{
		/* the key was checked to be new */
		ot_member *m = ot_v_append(ld->arena, top->node, top->key, node);
		size_t n = top->node->u.map.len;
		m->line = top->key_line;
		m->col = top->key_col;
		if (n == FEW_KEYS) {
			top->keys = ot_map_new();
			for (size_t i = 0; i < n; i++)
				ot_map_put(top->keys, top->node->u.map.items[i].key,
					   (void *)(uintptr_t)(i + 1));
		} else if (n > FEW_KEYS) {
			ot_map_put(top->keys, m->key, (void *)(uintptr_t)n);
		}
	}
	top->key = NULL;
	return 0;
}

static void remember_anchor(struct loader *ld, const yaml_char_t *anchor, ot_value *node)
{
	if (anchor)
		ot_map_put(ld->anchors, ot_arena_strdup(ld->arena, (const char *)anchor), node);
}

static int on_event(struct loader *ld, const yaml_event_t *ev, bool *done)
{
	const yaml_mark_t *mark = &ev->start_mark;
	ot_value *node;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		node = scalar_value(ld, ev);
		node->line = (int)mark->line + 1;
		node->col = (int)mark->column + 1;
		remember_anchor(ld, ev->data.scalar.anchor, node);
		return attach(ld, node, mark, true);
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		int i;
		node = ot_map_get(ld->anchors, name);
		if (!node)
			return fail(ld, mark, "alias to an unknown anchor");
		for (i = 0; i < ld->depth; i++)
			if (ld->stack[i].node == node)
				return fail(ld, mark, "recursive alias (a node that contains itself)");
		return attach(ld, node, mark, node->type != OT_V_LIST && node->type != OT_V_MAP);
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		const yaml_char_t *anchor = ev->type == YAML_SEQUENCE_START_EVENT
						    ? ev->data.sequence_start.anchor
						    : ev->data.mapping_start.anchor;
		if (ld->depth >= OT_YAML_MAX_DEPTH)
			return fail(ld, mark, "nesting is too deep");
		if (ld->depth > 0) {
			struct frame *top = &ld->stack[ld->depth - 1];
			if (top->node->type == OT_V_MAP && !top->key)
				return fail(ld, mark, "a mapping key must be a scalar");
		}
		node = ev->type == YAML_SEQUENCE_START_EVENT ? ot_v_list(ld->arena)
							     : ot_v_map(ld->arena);
		node->line = (int)mark->line + 1;
		node->col = (int)mark->column + 1;
		remember_anchor(ld, anchor, node);
		ld->stack[ld->depth++] = (struct frame){node, NULL, 0, 0, NULL};
		return 0;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		node = ld->stack[--ld->depth].node;
		ot_map_free(ld->stack[ld->depth].keys);
		ld->stack[ld->depth].keys = NULL;
		return attach(ld, node, mark, false);
	case YAML_DOCUMENT_END_EVENT:
	case YAML_STREAM_END_EVENT:
		*done = true;
		return 0;
	default:
		return 0;
	}
}

int ot_yaml_load(ot_value **out, ot_arena *arena, const char *data, size_t len,
		 const char *name)
{
	yaml_parser_t parser;
	yaml_event_t event;
	struct loader ld = {0};
	bool done = false;
	int rc = 0;

	*out = NULL;
	ld.arena = arena;
	ld.name = name;
	ld.anchors = ot_map_new();
	if (!yaml_parser_initialize(&parser)) {
		ot_map_free(ld.anchors);
		return ot_error_set("%s: cannot initialise the YAML parser", name);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &event)) {
			const char *problem = parser.problem ? parser.problem : "malformed YAML";
			if (parser.context)
				rc = ot_error_set("%s:%zu:%zu: %s (%s at line %zu)", name,
						  parser.problem_mark.line + 1,
						  parser.problem_mark.column + 1, problem,
						  parser.context, parser.context_mark.line + 1);
			else
				rc = ot_error_set("%s:%zu:%zu: %s", name,
						  parser.problem_mark.line + 1,
						  parser.problem_mark.column + 1, problem);
			break;
		}
		rc = on_event(&ld, &event, &done);
		yaml_event_delete(&event);
		if (rc)
			break;
	}
	yaml_parser_delete(&parser);
	ot_map_free(ld.anchors);
	for (int i = 0; i < ld.depth; i++) /* a document that stopped half-way */
		ot_map_free(ld.stack[i].keys);
	if (rc)
		return rc;
	*out = ld.root ? ld.root : ot_v_null(arena);
	return 0;
}

const char *ot_yaml_library_version(void)
{
	return yaml_get_version_string();
}
