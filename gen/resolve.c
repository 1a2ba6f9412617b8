#include "resolve.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const submodules[] = {"linalg", "fft", "special", "nested", "sparse"};

static bool take_prefix(const char **s, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(*s, prefix, n))
		return false;
	*s += n;
	return true;
}

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

static void make_slug(ot_target *t)
{
	char raw[256];
	size_t j = 0;
	for (const char *p = t->canonical; *p && j + 1 < sizeof(raw); p++) {
		unsigned char c = (unsigned char)*p;
		if (isalnum(c) || c == '_')
			raw[j++] = (char)tolower(c);
		else if (j && raw[j - 1] != '-')
			raw[j++] = '-';
	}
	raw[j] = '\0';
	if (j < sizeof(t->slug) - 1) {
		copy(t->slug, sizeof(t->slug), raw);
	} else {
		/* keep slugs short: a prefix plus a hash of the whole name */
		snprintf(t->slug, sizeof(t->slug), "%.60s-%016llx", raw,
			 (unsigned long long)ot_hash(t->canonical, strlen(t->canonical)));
	}
}

int ot_resolve_parse(ot_target *out, const char *input)
{
	const char *s = input, *rest;
	char name[256];

	memset(out, 0, sizeof(*out));
	if (!*s)
		return ot_error_set("empty op name");
	if (strlen(s) >= sizeof(name))
		return ot_error_set("op name is too long");

	if (take_prefix(&s, "aten::") || take_prefix(&s, "torch.ops.aten.")) {
		const char *dot = strchr(s, '.');
		out->strategy = OT_STRAT_ATEN;
		if (dot) {
			snprintf(name, sizeof(name), "%.*s", (int)(dot - s), s);
			if (!ot_is_identifier(dot + 1))
				return ot_error_set("'%s': bad overload name '%s'", input, dot + 1);
			copy(out->overload, sizeof(out->overload), dot + 1);
			if (!strcmp(out->overload, "default"))
				out->overload[0] = '\0';
		} else {
			copy(name, sizeof(name), s);
		}
	} else if (take_prefix(&s, "torch.nn.functional.") || take_prefix(&s, "nn.functional.") ||
		   take_prefix(&s, "F.")) {
		out->strategy = OT_STRAT_FUNCTIONAL;
		copy(name, sizeof(name), s);
	} else if (take_prefix(&s, "torch.nn.") || take_prefix(&s, "nn.")) {
		out->strategy = OT_STRAT_MODULE;
		copy(name, sizeof(name), s);
	} else if (take_prefix(&s, "torch.Tensor.") || take_prefix(&s, "Tensor.")) {
		out->strategy = OT_STRAT_METHOD;
		copy(name, sizeof(name), s);
	} else {
		out->strategy = OT_STRAT_TORCH;
		take_prefix(&s, "torch.");
		rest = s;
		for (size_t i = 0; i < OT_ARRAY_LEN(submodules); i++) {
			size_t n = strlen(submodules[i]);
			if (!strncmp(rest, submodules[i], n) && rest[n] == '.') {
				copy(out->submodule, sizeof(out->submodule), submodules[i]);
				s = rest + n + 1;
				break;
			}
		}
		copy(name, sizeof(name), s);
	}
	if (!*name)
		return ot_error_set("'%s' names no op", input);
	if (!ot_is_identifier(name))
		return ot_error_set("'%s': '%s' is not an op name", input, name);
	copy(out->name, sizeof(out->name), name);

	switch (out->strategy) {
	case OT_STRAT_MODULE:
		snprintf(out->canonical, sizeof(out->canonical), "nn.%s", name);
		break;
	case OT_STRAT_FUNCTIONAL:
		snprintf(out->canonical, sizeof(out->canonical), "F.%s", name);
		break;
	case OT_STRAT_METHOD:
		snprintf(out->canonical, sizeof(out->canonical), "Tensor.%s", name);
		break;
	case OT_STRAT_TORCH:
		if (out->submodule[0])
			snprintf(out->canonical, sizeof(out->canonical), "torch.%s.%s",
				 out->submodule, name);
		else
			snprintf(out->canonical, sizeof(out->canonical), "torch.%s", name);
		break;
	default:
		if (out->overload[0])
			snprintf(out->canonical, sizeof(out->canonical), "aten::%s.%s", name,
				 out->overload);
		else
			snprintf(out->canonical, sizeof(out->canonical), "aten::%s", name);
		break;
	}
	make_slug(out);
	return 0;
}

const char *ot_strategy_id(ot_strategy s)
{
	static const char *const ids[] = {"module", "functional", "method", "torch", "aten"};
	return s < OT_STRAT_COUNT ? ids[s] : "?";
}

void ot_resolve_aten_name(char *out, size_t n, const ot_target *t)
{
	if (t->strategy == OT_STRAT_TORCH && t->submodule[0] &&
	    strcmp(t->submodule, "nested") && strcmp(t->submodule, "sparse"))
		snprintf(out, n, "%s_%s", t->submodule, t->name);
	else
		snprintf(out, n, "%s", t->name);
}

static size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t n = strlen(a), m = strlen(b), row[128], i, j;
	if (n >= OT_ARRAY_LEN(row) || m >= OT_ARRAY_LEN(row))
		return SIZE_MAX;
	if ((n > m ? n - m : m - n) > limit)
		return SIZE_MAX;
	for (j = 0; j <= m; j++)
		row[j] = j;
	for (i = 1; i <= n; i++) {
		size_t prev = row[0], best;
		row[0] = i;
		best = row[0];
		for (j = 1; j <= m; j++) {
			size_t cur = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = prev + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return SIZE_MAX;
	}
	return row[m];
}

size_t ot_resolve_suggest(const char **out, size_t max, const char *word,
			  const char *const *candidates, size_t ncandidates)
{
	size_t dist[16], n = 0, limit = strlen(word) / 3 + 2;
	if (max > OT_ARRAY_LEN(dist))
		max = OT_ARRAY_LEN(dist);
	for (size_t c = 0; c < ncandidates; c++) {
		const char *cand = candidates[c];
		size_t d = edit_distance(word, cand, limit), k;
		if (d == SIZE_MAX || d > limit || !strcmp(cand, word))
			continue;
		/* skip a name already suggested */
		for (k = 0; k < n; k++)
			if (!strcmp(out[k], cand))
				break;
		if (k < n)
			continue;
		/* insertion into the sorted top list */
		k = n;
		while (k > 0 && (dist[k - 1] > d || (dist[k - 1] == d && strcmp(out[k - 1], cand) > 0)))
			k--;
		if (k >= max)
			continue;
		if (n < max)
			n++;
		for (size_t j = n - 1; j > k; j--) {
			out[j] = out[j - 1];
			dist[j] = dist[j - 1];
		}
		out[k] = cand;
		dist[k] = d;
	}
	return n;
}
