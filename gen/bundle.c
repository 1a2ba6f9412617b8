#include "bundle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "escape.h"
#include "markdown.h"
#include "mustache.h"
#include "value.h"

/* The files every page loads, by their names under html/ and the
 * templates they come from. */
static const char *const asset_names[] = {"style.css", "optrace.js", "search-index.js"};
enum { A_CSS, A_JS, A_INDEX, A_COUNT };

typedef struct {
	const char *title;
	ot_buf id; /* the group's heading id in the index */
	size_t count;
} group_info;

struct ot_bundle {
	const char *version;
	ot_mustache *page;
	ot_buf asset[A_COUNT];
	group_info *groups;
	int ngroups;
	ot_map *group_of_page; /* "ops/<slug>.html" -> group + 1 */
	char **paths;          /* keys of group_of_page */
	size_t npaths;
};

/* "ops/x.html" -> "../": the way from a page back to html/. */
static void root_of(ot_buf *out, const char *path)
{
	ot_buf_clear(out);
	for (const char *p = path; *p; p++)
		if (*p == '/')
			ot_buf_puts(out, "../");
}

/*
 * search-index.js: the groups, then every op with a page, by group and
 * name as displayed: "n" its name, "i" the input when it differs, "p" its
 * page, "g" its group, "a" its aten overloads.
 */
static void search_index(ot_buf *out, const ot_bundle *b, ot_trace *const *traces,
			 const int *group, const size_t *order, size_t n)
{
	ot_buf_sets(out, "/* optrace: the ops of this bundle, for its sidebar and search. */\n"
			 "window.OPTRACE_INDEX = {\"version\": ");
	ot_esc_json(out, b->version, strlen(b->version));
	ot_buf_puts(out, ",\n\"groups\": [");
	for (int g = 0; g < b->ngroups; g++) {
		ot_buf_puts(out, g ? ",\n  {\"title\": " : "\n  {\"title\": ");
		ot_esc_json(out, b->groups[g].title, strlen(b->groups[g].title));
		ot_buf_puts(out, ", \"id\": ");
		ot_esc_json(out, b->groups[g].id.ptr, b->groups[g].id.size);
		ot_buf_puts(out, "}");
	}
	ot_buf_puts(out, "],\n\"ops\": [");
	for (size_t j = 0, k = 0; j < n; j++) {
		size_t i = order[j];
		const ot_trace *tr = traces[i];
		if (group[i] < 0)
			continue;
		ot_buf_puts(out, k++ ? ",\n  {\"n\": " : "\n  {\"n\": ");
		ot_esc_json(out, tr->target.canonical, strlen(tr->target.canonical));
		if (strcmp(tr->input, tr->target.canonical)) {
			ot_buf_puts(out, ", \"i\": ");
			ot_esc_json(out, tr->input, strlen(tr->input));
		}
		ot_buf_printf(out, ", \"p\": \"ops/%s.html\", \"g\": %d, \"a\": [", tr->target.slug,
			      group[i]);
		for (size_t a = 0; a < tr->aten.len; a++) {
			if (a)
				ot_buf_puts(out, ", ");
			ot_esc_json(out, tr->aten.items[a], strlen(tr->aten.items[a]));
		}
		ot_buf_puts(out, "]}");
	}
	ot_buf_puts(out, "]};\n");
}

typedef struct {
	ot_trace *const *traces;
	const int *group;
} sort_ctx;

static int by_group_and_name(const void *x, const void *y, void *payload)
{
	const sort_ctx *c = payload;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int r;
	if (c->group[a] != c->group[b])
		return c->group[a] < c->group[b] ? -1 : 1;
	r = strcmp(c->traces[a]->target.canonical, c->traces[b]->target.canonical);
	return r ? r : (a < b ? -1 : a > b);
}

int ot_bundle_new(ot_bundle **out, const ot_pages *pages, ot_trace *const *traces, size_t n,
		  const char *version, const char *templates_dir)
{
	ot_bundle *b = ot_calloc(1, sizeof(*b));
	ot_buf text = OT_BUF_INIT;
	int *group = ot_calloc(n + 1, sizeof(int));
	size_t *order = NULL;
	int rc = 0;

	*out = NULL;
	b->version = version;
	b->group_of_page = ot_map_new();
	for (int a = 0; a < A_COUNT; a++)
		b->asset[a] = (ot_buf)OT_BUF_INIT;
	if ((rc = ot_assets_get(&text, templates_dir, "page.html.mustache", NULL)) < 0 ||
	    (rc = ot_mustache_compile(&b->page, text.ptr, text.size, "page.html.mustache")) < 0 ||
	    (rc = ot_assets_get(&b->asset[A_CSS], templates_dir, asset_names[A_CSS], NULL)) < 0 ||
	    (rc = ot_assets_get(&b->asset[A_JS], templates_dir, asset_names[A_JS], NULL)) < 0)
		goto done;

	while (ot_pages_group_title(b->ngroups))
		b->ngroups++;
	b->groups = ot_calloc((size_t)b->ngroups + 1, sizeof(*b->groups));
	for (int g = 0; g < b->ngroups; g++) {
		b->groups[g].title = ot_pages_group_title(g);
		b->groups[g].id = (ot_buf)OT_BUF_INIT;
		ot_markdown_slug(&b->groups[g].id, b->groups[g].title);
	}
	b->paths = ot_calloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		ot_buf path = OT_BUF_INIT;
		group[i] = traces[i]->target.canonical[0] ? ot_pages_group_of(pages, i) : -1;
		if (group[i] < 0 || group[i] >= b->ngroups) {
			group[i] = -1;
			continue;
		}
		b->groups[group[i]].count++;
		ot_buf_printf(&path, "ops/%s.html", traces[i]->target.slug);
		b->paths[b->npaths] = ot_buf_detach(&path);
		ot_map_put(b->group_of_page, b->paths[b->npaths], (void *)(uintptr_t)(group[i] + 1));
		b->npaths++;
	}
	order = ot_calloc(n + 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	{
		sort_ctx c = {traces, group};
		qsort_r(order, n, sizeof(size_t), by_group_and_name, &c);
	}
	search_index(&b->asset[A_INDEX], b, traces, group, order, n);

done:
	ot_buf_free(&text);
	free(group);
	free(order);
	if (rc < 0) {
		ot_bundle_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

void ot_bundle_free(ot_bundle *b)
{
	if (!b)
		return;
	ot_mustache_free(b->page);
	for (int a = 0; a < A_COUNT; a++)
		ot_buf_free(&b->asset[a]);
	for (int g = 0; g < b->ngroups; g++)
		ot_buf_free(&b->groups[g].id);
	free(b->groups);
	ot_map_free(b->group_of_page);
	for (size_t i = 0; i < b->npaths; i++)
		free(b->paths[i]);
	free(b->paths);
	free(b);
}

/* The diagram as the page shows it: the SVG element itself (its XML
 * prolog dropped), then a link to the file. */
static void figure(ot_buf *out, const char *svg, const char *svg_name)
{
	const char *start = strstr(svg, "<svg");
	ot_buf_sets(out, "<figure class=\"diagram\">\n<div class=\"diagram-view\">\n");
	ot_buf_puts(out, start ? start : "");
	ot_buf_puts(out, "</div>\n<figcaption><a href=\"");
	ot_esc_html(out, svg_name, strlen(svg_name));
	ot_buf_puts(out, "\">Full-size diagram (SVG)</a></figcaption>\n</figure>\n");
}

int ot_bundle_page(ot_bundle *b, ot_buf *html, const char *md, size_t len, const char *title,
		   const char *path, const char *svg, const char *svg_name)
{
	ot_arena *a = ot_arena_new();
	ot_value *ctx = ot_v_map(a), *toc = ot_v_list(a), *groups = ot_v_list(a);
	ot_markdown_headings headings = {0};
	ot_markdown_html_opts opts = {0};
	ot_buf body = OT_BUF_INIT, root = OT_BUF_INIT, fig = OT_BUF_INIT;
	int current = (int)(uintptr_t)ot_map_get(b->group_of_page, path) - 1;
	int rc;

	opts.rewrite_md_links = true;
	opts.headings = &headings;
	opts.drop_directives = true;
	if (svg && svg_name) {
		figure(&fig, svg, svg_name);
		opts.embed_image = svg_name;
		opts.embed_html = fig.ptr;
	}
	if ((rc = ot_markdown_render_html(&body, md, len, &opts)) < 0)
		goto done;
	root_of(&root, path);

	/* the contents: the page's sections (its title aside) */
	for (size_t i = 0; i < headings.len; i++) {
		ot_value *h;
		if (headings.items[i].level < 2 || headings.items[i].level > 3)
			continue;
		h = ot_v_map(a);
		ot_v_set_int(a, h, "level", headings.items[i].level);
		ot_v_set_str(a, h, "text", headings.items[i].text);
		ot_v_set_str(a, h, "id", headings.items[i].id);
		ot_v_push(a, toc, h);
	}
	for (int g = 0; g < b->ngroups; g++) {
		ot_value *gm;
		if (!b->groups[g].count)
			continue;
		gm = ot_v_map(a);
		ot_v_set_str(a, gm, "title", b->groups[g].title);
		ot_v_set_str(a, gm, "id", b->groups[g].id.ptr);
		ot_v_set_int(a, gm, "index", g);
		ot_v_set_int(a, gm, "count", (long long)b->groups[g].count);
		ot_v_set_bool(a, gm, "open", g == current);
		ot_v_push(a, groups, gm);
	}
	ot_v_set_str(a, ctx, "title", title);
	ot_v_set_str(a, ctx, "version", b->version);
	ot_v_set_str(a, ctx, "root", root.ptr);
	ot_v_set_str(a, ctx, "page", path);
	ot_v_set(a, ctx, "body", ot_v_str_borrow(a, body.ptr));
	ot_v_set(a, ctx, "toc", toc);
	ot_v_set_bool(a, ctx, "has_toc", ot_v_len(toc) > 0);
	ot_v_set(a, ctx, "groups", groups);
	ot_buf_clear(html);
	rc = ot_mustache_render_compiled(html, b->page, ctx, NULL);
	if (rc >= 0)
		ot_utf8_sanitize(html);

done:
	ot_markdown_headings_free(&headings);
	ot_buf_free(&body);
	ot_buf_free(&root);
	ot_buf_free(&fig);
	ot_arena_free(a);
	return rc < 0 ? rc : 0;
}

int ot_bundle_asset(ot_bundle *b, size_t i, const char **name, ot_buf *out)
{
	if (i >= A_COUNT)
		return OT_ITEROVER;
	*name = asset_names[i];
	ot_buf_sets(out, b->asset[i].ptr ? b->asset[i].ptr : "");
	return 0;
}
