#include "graph_place.h"

#include <stdlib.h>
#include <string.h>

/* A main-path node pulls towards the node above it this much harder. */
#define MAIN_WEIGHT 8.0

/* Mark the edges that close a cycle (loops too): a depth-first walk from
 * every node in order, following edges in order. */
static void find_back_edges(bool *back, const ot_graph_place_in *in)
{
	size_t n = in->nnodes, m = in->nedges;
	int *state = ot_calloc(n + 1, sizeof(int));
	size_t *stack = ot_calloc(n + 1, sizeof(size_t)), *next = ot_calloc(n + 1, sizeof(size_t));
	for (size_t root = 0; root < n; root++) {
		size_t sp = 0;
		if (state[root])
			continue;
		stack[sp++] = root;
		state[root] = 1;
		while (sp) {
			size_t v = stack[sp - 1], e = next[v];
			while (e < m && in->from[e] != v)
				e++;
			if (e == m) {
				state[v] = 2;
				sp--;
				continue;
			}
			next[v] = e + 1;
			if (state[in->to[e]] == 1) {
				back[e] = true;
			} else if (!state[in->to[e]]) {
				state[in->to[e]] = 1;
				stack[sp++] = in->to[e];
			}
		}
	}
	free(state);
	free(stack);
	free(next);
}

/*
 * Rows: repeatedly take the node that may go highest (the row below the
 * lowest node with an edge to it; all of those placed), main-path nodes
 * first, then in order, and put it in the first row from there with room.
 */
static void pack_rows(ot_graph_placed *out, const ot_graph_place_in *in, const bool *back,
		      double width)
{
	size_t n = in->nnodes, m = in->nedges;
	bool *done = ot_calloc(n + 1, sizeof(bool));
	double *used = ot_calloc(n + 1, sizeof(double));

	for (size_t placed = 0; placed < n; placed++) {
		size_t pick = n;
		int pick_min = 0, r;
		for (size_t v = 0; v < n; v++) {
			int min = 0;
			bool ready = !done[v];
			for (size_t e = 0; e < m && ready; e++) {
				if (back[e] || in->to[e] != v)
					continue;
				if (!done[in->from[e]])
					ready = false;
				else if (out->row[in->from[e]] + 1 > min)
					min = out->row[in->from[e]] + 1;
			}
			if (!ready)
				continue;
			if (pick == n || min < pick_min ||
			    (min == pick_min && in->main[v] && !in->main[pick])) {
				pick = v;
				pick_min = min;
			}
		}
		if (pick == n)
			break; /* cannot happen: the edges left are acyclic */
		r = pick_min;
		while ((size_t)r < n && used[r] > 0 && used[r] + in->gap + in->width[pick] > width)
			r++;
		out->row[pick] = r;
		used[r] += (used[r] > 0 ? in->gap : 0) + in->width[pick];
		done[pick] = true;
		if (r + 1 > out->nrows)
			out->nrows = r + 1;
	}
	free(done);
	free(used);
}

typedef struct {
	size_t node;
	double want;   /* desired centre */
	double weight;
	bool main;
} slot;

static int slot_cmp(const void *a, const void *b)
{
	const slot *x = a, *y = b;
	if (x->want != y->want)
		return x->want < y->want ? -1 : 1;
	if (x->main != y->main)
		return x->main ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/*
 * Centres for one row's slots (in order) as near their wanted centres as
 * the spacing allows (least squares, weighted: the pool-adjacent-violators
 * algorithm on the centres less their minimum offsets), then pushed into
 * [0, width]: from the left, from the right, from the left again (a row
 * wider than the width sticks out to the right).
 */
static void spread(double *x, const slot *s, size_t k, const double *room, double gap,
		   double width)
{
	double *off = ot_calloc(k + 1, sizeof(double)), *val = ot_calloc(k + 1, sizeof(double));
	double *wsum = ot_calloc(k + 1, sizeof(double));
	size_t *len = ot_calloc(k + 1, sizeof(size_t)), nb = 0;

	for (size_t i = 1; i < k; i++)
		off[i] = off[i - 1] + (room[s[i - 1].node] + room[s[i].node]) / 2 + gap;
	for (size_t i = 0; i < k; i++) {
		val[nb] = s[i].want - off[i];
		wsum[nb] = s[i].weight;
		len[nb] = 1;
		nb++;
		while (nb > 1 && val[nb - 2] > val[nb - 1]) {
			double w = wsum[nb - 2] + wsum[nb - 1];
			val[nb - 2] = (val[nb - 2] * wsum[nb - 2] + val[nb - 1] * wsum[nb - 1]) / w;
			wsum[nb - 2] = w;
			len[nb - 2] += len[nb - 1];
			nb--;
		}
	}
	for (size_t b = 0, i = 0; b < nb; b++)
		for (size_t j = 0; j < len[b]; j++, i++)
			x[i] = val[b] + off[i];
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			for (size_t i = k; i-- > 0;) {
				double w = room[s[i].node];
				double hi = i + 1 < k ? x[i + 1] - (room[s[i + 1].node] + w) / 2 - gap
						      : width - w / 2;
				if (x[i] > hi)
					x[i] = hi;
			}
			continue;
		}
		for (size_t i = 0; i < k; i++) {
			double w = room[s[i].node];
			double lo = i ? x[i - 1] + (room[s[i - 1].node] + w) / 2 + gap : w / 2;
			if (x[i] < lo)
				x[i] = lo;
		}
	}
	free(off);
	free(val);
	free(wsum);
	free(len);
}

/* Rows as the router sees them: their vertical extent and their nodes
 * left to right. */
typedef struct {
	double top, bottom;
	size_t *nodes, n;
	int *through; /* per gap (n + 1): edges routed through it so far */
} row_info;

/* A free x in a row for a curve that would pass at `ideal`: in the gap
 * nearest to it, counting the curves already through each (beside the
 * outermost nodes only within the width). */
static double gap_x(row_info *ri, const ot_graph_placed *out, const ot_graph_place_in *in,
		    double ideal, double width)
{
	double best = ideal, dist = -1, margin = 5, lo = 0, hi = 0;
	size_t pick = 0;
	for (size_t g = 0; g <= ri->n; g++) {
		double a = g ? out->x[ri->nodes[g - 1]] + in->width[ri->nodes[g - 1]] / 2 + margin : margin;
		double b = g < ri->n ? out->x[ri->nodes[g]] - in->width[ri->nodes[g]] / 2 - margin
				     : width - margin;
		double c, d;
		if (b < a) {
			if (g == 0 || g == ri->n)
				continue; /* no room beside the row */
			a = b = (a + b) / 2;
		}
		c = ideal < a ? a : ideal > b ? b : ideal;
		/* a gap other curves already take costs as much as going round a
		 * few points further */
		d = (c > ideal ? c - ideal : ideal - c) + 16.0 * ri->through[g];
		if (dist < 0 || d < dist) {
			dist = d;
			best = c;
			pick = g;
			lo = a;
			hi = b;
		}
	}
	if (dist < 0) /* a row wider than the width: pass right of it */
		return out->x[ri->nodes[ri->n - 1]] + in->width[ri->nodes[ri->n - 1]] / 2 + margin;
	/* curves through the same gap side by side, 3 points apart, from its
	 * middle outwards as far as it is wide */
	{
		int k = ri->through[pick]++;
		double mid = (lo + hi) / 2, off = 3.0 * ((k + 1) / 2) * (k % 2 ? 1 : -1);
		if (ri->n && pick > 0 && pick < ri->n)
			best = mid;
		if (off > (hi - lo) / 2 || -off > (hi - lo) / 2)
			off = 0;
		best += off;
	}
	return best;
}

typedef OT_VEC(double) dvec;

static void put_pt(dvec *v, double x, double y)
{
	ot_vec_push(v, x);
	ot_vec_push(v, y);
}

/* Waypoints joined by curves that are vertical at every waypoint. */
static void curve_through(dvec *pts, const double *wp, size_t nwp)
{
	put_pt(pts, wp[0], wp[1]);
	for (size_t i = 1; i < nwp; i++) {
		double x0 = wp[2 * i - 2], y0 = wp[2 * i - 1], x1 = wp[2 * i], y1 = wp[2 * i + 1];
		double dy = (y1 - y0) / 2;
		if (dy >= 0 && dy < 8) /* a short hop still bends smoothly */
			dy = 8;
		else if (dy < 0 && dy > -8)
			dy = -8;
		put_pt(pts, x0, y0 + dy);
		put_pt(pts, x1, y1 - dy);
		put_pt(pts, x1, y1);
	}
}

static void route(ot_graph_route *rt, size_t e, const ot_graph_place_in *in,
		  const ot_graph_placed *out, row_info *rows, const bool *back, double width,
		  double *label_offset)
{
	size_t u = in->from[e], v = in->to[e];
	int a = out->row[u], b = out->row[v];
	dvec wp = {0}, pts = {0};
	double xu = out->x[u], yu = out->y[u], hu = in->height[u] / 2;
	double xv = out->x[v], yv = out->y[v], hv = in->height[v] / 2;

	if (u == v) {
		double xr = xu + in->width[u] / 2;
		put_pt(&pts, xr, yu - 4);
		put_pt(&pts, xr + 24, yu - 16);
		put_pt(&pts, xr + 24, yu + 16);
		put_pt(&pts, xr + OT_GRAPH_ARROW * 0.7, yu + 4 + OT_GRAPH_ARROW * 0.7);
		rt->tip_x = xr;
		rt->tip_y = yu + 4;
		rt->label_x = xr + 24 + in->label_width[e] / 2 + 2;
		rt->label_y = yu;
	} else if (b > a && !back[e]) {
		/* down: out of u's bottom, through the rows between, into v's top */
		put_pt(&wp, xu, yu + hu);
		for (int k = a + 1; k < b; k++) {
			double t = (rows[k].top + rows[k].bottom) / 2, f = (t - yu) / (yv - yu);
			double x = gap_x(&rows[k], out, in, xu + (xv - xu) * f, width);
			put_pt(&wp, x, rows[k].top);
			put_pt(&wp, x, rows[k].bottom);
		}
		put_pt(&wp, xv, yv - hv - OT_GRAPH_ARROW);
		curve_through(&pts, wp.items, wp.len / 2);
		rt->tip_x = xv;
		rt->tip_y = yv - hv;
		rt->label_x = xv + 3 + in->label_width[e] / 2;
		rt->label_y = yv - hv - OT_GRAPH_ARROW - 2 - *label_offset - in->label_height[e] / 2;
		*label_offset += in->label_height[e];
	} else {
		/* up (it closes a cycle): out of u's top, into v's bottom, or over
		 * the top of both in one row */
		bool same = a == b;
		put_pt(&wp, xu, yu - hu);
		for (int k = a - 1; k > b; k--) {
			double t = (rows[k].top + rows[k].bottom) / 2, f = (yu - t) / (yu - yv);
			double x = gap_x(&rows[k], out, in, xu + (xv - xu) * f, width);
			put_pt(&wp, x, rows[k].bottom);
			put_pt(&wp, x, rows[k].top);
		}
		if (same) {
			put_pt(&pts, xu, yu - hu);
			put_pt(&pts, xu, yu - hu - 24);
			put_pt(&pts, xv, yv - hv - 24);
			put_pt(&pts, xv, yv - hv - OT_GRAPH_ARROW);
			rt->tip_x = xv;
			rt->tip_y = yv - hv;
		} else {
			put_pt(&wp, xv, yv + hv + OT_GRAPH_ARROW);
			curve_through(&pts, wp.items, wp.len / 2);
			rt->tip_x = xv;
			rt->tip_y = yv + hv;
		}
		rt->label_x = xu + 3 + in->label_width[e] / 2;
		rt->label_y = yu - hu - 8 - in->label_height[e] / 2;
	}
	rt->pts = pts.items;
	rt->npts = pts.len / 2;
	ot_vec_free(&wp);
}

void ot_graph_place(ot_graph_placed *out, const ot_graph_place_in *in, double width)
{
	size_t n = in->nnodes, m = in->nedges;
	bool *back = ot_calloc(m + 1, sizeof(bool));
	slot *slots = ot_calloc(n + 1, sizeof(slot));
	double *xs = ot_calloc(n + 1, sizeof(double)), *room = ot_calloc(n + 1, sizeof(double));
	double *labels = ot_calloc(n + 1, sizeof(double)), *offset = ot_calloc(n + 1, sizeof(double));
	double top = 0, lo = 0, hi = 0;
	row_info *rows;
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->row = ot_calloc(n + 1, sizeof(int));
	out->x = ot_calloc(n + 1, sizeof(double));
	out->y = ot_calloc(n + 1, sizeof(double));
	out->routes = ot_calloc(m + 1, sizeof(*out->routes));
	out->nroutes = m;
	find_back_edges(back, in);

	/* a node's room: its box, or the labels of the edges into it, drawn
	 * right of its centre */
	for (size_t v = 0; v < n; v++)
		room[v] = in->width[v];
	for (size_t e = 0; e < m; e++) {
		size_t v = in->to[e];
		if (back[e] || !in->label_width[e])
			continue;
		if (2 * (3 + in->label_width[e]) > room[v])
			room[v] = 2 * (3 + in->label_width[e]);
		labels[v] += in->label_height[e];
	}
	{
		ot_graph_place_in roomy = *in;
		roomy.width = room;
		pack_rows(out, &roomy, back, width);
	}
	rows = ot_calloc((size_t)out->nrows + 1, sizeof(*rows));

	for (int r = 0; r < out->nrows; r++) {
		size_t k = 0;
		double height = 0, band = 0, last = width / 2;
		for (size_t v = 0; v < n; v++) {
			double sum = 0, count = 0;
			if (out->row[v] != r)
				continue;
			for (size_t e = 0; e < m; e++) {
				size_t u = in->from[e];
				if (back[e] || in->to[e] != v || out->row[u] >= r)
					continue;
				sum += out->x[u];
				count++;
			}
			if (labels[v] > band)
				band = labels[v];
			slots[k].node = v;
			slots[k].main = in->main[v];
			slots[k].weight = in->main[v] ? MAIN_WEIGHT : 1.0;
			/* a node nothing above leads to stays after the one before it */
			slots[k].want = count ? sum / count : last;
			last = slots[k].want;
			if (in->height[v] > height)
				height = in->height[v];
			k++;
		}
		qsort(slots, k, sizeof(*slots), slot_cmp);
		spread(xs, slots, k, room, in->gap, width);
		if (r)
			top += in->ranksep + band + (band ? 4 : 0);
		rows[r].top = top;
		rows[r].bottom = top + height;
		rows[r].nodes = ot_calloc(k + 1, sizeof(size_t));
		rows[r].through = ot_calloc(k + 2, sizeof(int));
		rows[r].n = k;
		for (size_t i = 0; i < k; i++) {
			size_t v = slots[i].node;
			double l = xs[i] - in->width[v] / 2, rgt = xs[i] + room[v] - in->width[v] / 2;
			rows[r].nodes[i] = v;
			out->x[v] = xs[i];
			out->y[v] = top + height / 2;
			if (rgt < xs[i] + in->width[v] / 2)
				rgt = xs[i] + in->width[v] / 2;
			if (!any || l < lo)
				lo = l;
			if (!any || rgt > hi)
				hi = rgt;
			any = true;
		}
		top += height;
	}
	for (size_t e = 0; e < m; e++)
		route(&out->routes[e], e, in, out, rows, back, width, &offset[in->to[e]]);
	out->width = any ? hi - lo : 0;
	for (int r = 0; r < out->nrows; r++) {
		free(rows[r].nodes);
		free(rows[r].through);
	}
	free(rows);
	free(back);
	free(slots);
	free(xs);
	free(room);
	free(labels);
	free(offset);
}

void ot_graph_place_free(ot_graph_placed *p)
{
	if (!p)
		return;
	for (size_t e = 0; p->routes && e < p->nroutes; e++)
		free(p->routes[e].pts);
	free(p->routes);
	free(p->row);
	free(p->x);
	free(p->y);
	memset(p, 0, sizeof(*p));
}
