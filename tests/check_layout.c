/*
 * check_layout.c - diagrams drawn by worker processes (gen/layout.c): the
 * same results as one process, in order, whatever the number of workers,
 * and a worker that dies leaves its diagrams to the parent.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout.h"
#include "testutil.h"

static pid_t parent;

/* Diagram i: DOT "dot <i>", SVG "<i> drawn by a worker|the parent"; every
 * fifth has nothing to draw, every seventh fails. */
static int draw(size_t i, void *payload, ot_buf *dot, ot_buf *svg)
{
	(void)payload;
	ot_buf_clear(dot);
	ot_buf_clear(svg);
	if (i % 5 == 4)
		return 0;
	if (i % 7 == 6)
		return OT_ERROR;
	ot_buf_printf(dot, "dot %zu", i);
	/* big enough that a pipe fills and the worker waits for its reader */
	for (int k = 0; k < 200; k++)
		ot_buf_printf(svg, "<g id=\"%zu-%d\"/>", i, k);
	return 1;
}

/* As draw, but a worker dies at diagram 10 (the parent draws it). */
static int draw_or_die(size_t i, void *payload, ot_buf *dot, ot_buf *svg)
{
	if (i == 10 && getpid() != parent)
		_exit(3);
	return draw(i, payload, dot, svg);
}

static void tick(void *payload)
{
	(*(size_t *)payload)++;
}

static void check_all(ot_draw_fn fn, int jobs, size_t n)
{
	ot_diagram *got = ot_calloc(n, sizeof(*got));
	size_t ticks = 0;
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	ot_layout_all(n, jobs, fn, NULL, tick, &ticks, got);
	ck_assert_uint_eq(ticks, n);
	for (size_t i = 0; i < n; i++) {
		int want = draw(i, NULL, &dot, &svg);
		ck_assert_msg(got[i].status == want, "jobs %d, diagram %zu: status %d, want %d", jobs, i,
			      got[i].status, want);
		if (want != 1)
			continue;
		ck_assert_msg(ot_buf_equal(&got[i].dot, &dot) && ot_buf_equal(&got[i].svg, &svg),
			      "jobs %d, diagram %zu differs", jobs, i);
	}
	ot_buf_free(&dot);
	ot_buf_free(&svg);
	ot_diagrams_free(got, n);
}

START_TEST(same_as_one_process)
{
	static const int jobs[] = {1, 2, 3, 8};
	for (size_t k = 0; k < OT_ARRAY_LEN(jobs); k++) {
		check_all(draw, jobs[k], 60);
		check_all(draw, jobs[k], 1);
		check_all(draw, jobs[k], 0);
	}
}
END_TEST

START_TEST(a_dead_worker_loses_nothing)
{
	parent = getpid();
	check_all(draw_or_die, 2, 30);
	check_all(draw_or_die, 4, 30);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("layout");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, same_as_one_process);
	tcase_add_test(tc, a_dead_worker_loses_nothing);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
