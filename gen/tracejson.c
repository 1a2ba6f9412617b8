#include "tracejson.h"

#include <string.h>

#include "value.h"

/*
 * trace.json is written straight from the traces (no intermediate value
 * tree): a run of every op of a release produces tens of megabytes, and
 * building a tree first cost more than tracing. The format is fixed by
 * tracejson.h; `ind` is the current indentation in spaces.
 */

static void newline(ot_buf *b, int ind)
{
	ot_buf_grow_by(b, (size_t)ind + 1);
	b->ptr[b->size++] = '\n';
	memset(b->ptr + b->size, ' ', (size_t)ind);
	b->size += (size_t)ind;
	b->ptr[b->size] = '\0';
}

/* `,` (unless first), a newline with indentation, then the key: keys are
 * literals, written as they are (sizeof gives their length). */
#define key(b, ind, first, k) put_key(b, ind, first, "\"" k "\": ", sizeof("\"" k "\": ") - 1)

static void put_key(ot_buf *b, int ind, bool first, const char *quoted, size_t len)
{
	ot_buf_grow_by(b, (size_t)ind + len + 2);
	if (!first)
		b->ptr[b->size++] = ',';
	b->ptr[b->size++] = '\n';
	memset(b->ptr + b->size, ' ', (size_t)ind);
	b->size += (size_t)ind;
	memcpy(b->ptr + b->size, quoted, len);
	b->size += len;
	b->ptr[b->size] = '\0';
}

static void str(ot_buf *b, const char *s)
{
	if (s)
		ot_json_escape(b, s, strlen(s));
	else
		ot_buf_puts(b, "null");
}

static void strings(ot_buf *b, int ind, const ot_strvec *v)
{
	if (!v->len) {
		ot_buf_puts(b, "[]");
		return;
	}
	ot_buf_putc(b, '[');
	for (size_t i = 0; i < v->len; i++) {
		if (i)
			ot_buf_putc(b, ',');
		newline(b, ind + 2);
		str(b, v->items[i]);
	}
	newline(b, ind);
	ot_buf_putc(b, ']');
}

static void step(ot_buf *b, int ind, const ot_step *s)
{
	ot_buf_putc(b, '{');
	key(b, ind + 2, true, "layer");
	str(b, ot_layer_name(s->layer));
	key(b, ind + 2, false, "file");
	str(b, s->found ? s->file : NULL);
	key(b, ind + 2, false, "line");
	if (s->found)
		ot_buf_put_int(b, s->line);
	else
		ot_buf_puts(b, "null");
	key(b, ind + 2, false, "symbol");
	str(b, s->symbol);
	key(b, ind + 2, false, "note");
	str(b, s->note);
	key(b, ind + 2, false, "op");
	str(b, s->op);
	key(b, ind + 2, false, "backend");
	str(b, s->backend);
	key(b, ind + 2, false, "depth");
	ot_buf_put_int(b, s->depth);
	key(b, ind + 2, false, "parent");
	ot_buf_put_int(b, s->parent);
	newline(b, ind);
	ot_buf_putc(b, '}');
}

static void op(ot_buf *b, int ind, const ot_trace *tr)
{
	bool named = tr->target.canonical[0] != '\0';
	int in = ind + 2;

	ot_buf_putc(b, '{');
	key(b, in, true, "input");
	str(b, tr->input);
	key(b, in, false, "name");
	str(b, named ? tr->target.canonical : NULL);
	key(b, in, false, "slug");
	str(b, named ? tr->target.slug : NULL);
	key(b, in, false, "page");
	if (named)
		ot_buf_printf(b, "\"ops/%s.md\"", tr->target.slug); /* slugs need no escaping */
	else
		ot_buf_puts(b, "null");
	key(b, in, false, "status");
	str(b, ot_status_name(tr->status));
	key(b, in, false, "strategy");
	str(b, named ? ot_strategy_id(tr->target.strategy) : NULL);
	key(b, in, false, "aten");
	strings(b, in, &tr->aten);
	key(b, in, false, "steps");
	if (!tr->steps.len) {
		ot_buf_puts(b, "[]");
	} else {
		ot_buf_putc(b, '[');
		for (size_t i = 0; i < tr->steps.len; i++) {
			if (i)
				ot_buf_putc(b, ',');
			newline(b, in + 2);
			step(b, in + 2, &tr->steps.items[i]);
		}
		newline(b, in);
		ot_buf_putc(b, ']');
	}
	key(b, in, false, "backends");
	ot_buf_putc(b, '{');
	key(b, in + 2, true, "keys");
	strings(b, in + 2, &tr->backends);
	key(b, in + 2, false, "gpu");
	strings(b, in + 2, &tr->gpu_libs);
	key(b, in + 2, false, "selection");
	if (!tr->selection.len) {
		ot_buf_puts(b, "[]");
	} else {
		ot_buf_putc(b, '[');
		for (size_t i = 0; i < tr->selection.len; i++) {
			const ot_selection *s = &tr->selection.items[i];
			if (i)
				ot_buf_putc(b, ',');
			newline(b, in + 4);
			ot_buf_putc(b, '{');
			key(b, in + 6, true, "symbol");
			str(b, s->symbol);
			key(b, in + 6, false, "file");
			str(b, s->file);
			key(b, in + 6, false, "line");
			ot_buf_put_int(b, s->line);
			newline(b, in + 4);
			ot_buf_putc(b, '}');
		}
		newline(b, in + 2);
		ot_buf_putc(b, ']');
	}
	newline(b, in);
	ot_buf_putc(b, '}');
	key(b, in, false, "calls");
	strings(b, in, &tr->calls);
	key(b, in, false, "messages");
	strings(b, in, &tr->messages);
	key(b, in, false, "suggestions");
	strings(b, in, &tr->suggestions);
	newline(b, ind);
	ot_buf_putc(b, '}');
}

void ot_tracejson_op(ot_buf *out, const ot_trace *tr)
{
	op(out, 4, tr);
}

void ot_tracejson_assemble(ot_buf *out, const ot_release *rel, const ot_buf *ops, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += ops[i].size + 6;
	ot_buf_grow_by(out, total + 512);
	ot_buf_putc(out, '{');
	key(out, 2, true, "schema_version");
	ot_buf_printf(out, "%d", OT_TRACEJSON_SCHEMA);
	key(out, 2, false, "tool");
	ot_buf_putc(out, '{');
	key(out, 4, true, "name");
	str(out, "optrace");
	key(out, 4, false, "version");
	str(out, OPTRACE_VERSION);
	newline(out, 2);
	ot_buf_putc(out, '}');
	key(out, 2, false, "pytorch");
	ot_buf_putc(out, '{');
	key(out, 4, true, "version");
	str(out, rel->version);
	key(out, 4, false, "tag");
	str(out, rel->tag);
	key(out, 4, false, "commit");
	str(out, rel->commit);
	key(out, 4, false, "verified");
	ot_buf_puts(out, rel->verified ? "true" : "false");
	newline(out, 2);
	ot_buf_putc(out, '}');
	key(out, 2, false, "ops");
	if (!n) {
		ot_buf_puts(out, "[]");
	} else {
		ot_buf_putc(out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				ot_buf_putc(out, ',');
			newline(out, 4);
			ot_buf_put(out, ops[i].ptr, ops[i].size);
		}
		newline(out, 2);
		ot_buf_putc(out, ']');
	}
	newline(out, 0);
	ot_buf_puts(out, "}\n");
}

void ot_tracejson_write(ot_buf *out, const ot_release *rel, ot_trace *const *traces, size_t n)
{
	ot_buf *ops = ot_calloc(n ? n : 1, sizeof(*ops));
	for (size_t i = 0; i < n; i++) {
		ops[i] = (ot_buf)OT_BUF_INIT;
		ot_tracejson_op(&ops[i], traces[i]);
	}
	ot_tracejson_assemble(out, rel, ops, n);
	for (size_t i = 0; i < n; i++)
		ot_buf_free(&ops[i]);
	free(ops);
}
