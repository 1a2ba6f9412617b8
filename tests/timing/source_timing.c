/*
 * source_timing.c - how long listing and reading a release takes.
 *
 *   make && cc -std=c11 -D_GNU_SOURCE -O2 -pthread -Igen \
 *       tests/timing/source_timing.c build/liboptrace.a -lgit2 -o build/source_timing
 *   build/source_timing CHECKOUT VERSION [THREADS]
 *
 * Lists every file under aten/src/ATen/ and torch/ at VERSION, then reads
 * all of them with THREADS readers (default 1), and prints the times.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "buf.h"
#include "source.h"

typedef struct {
	ot_source *src;
	ot_source_files *files;
	size_t first, step;
	size_t bytes;
	int failed;
} job;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	job *j = arg;
	ot_source_reader *r;
	ot_buf buf = OT_BUF_INIT;
	size_t i;
	if (ot_source_reader_new(&r, j->src) < 0) {
		j->failed = 1;
		return NULL;
	}
	for (i = j->first; i < j->files->len; i += j->step) {
		if (ot_source_reader_read(&buf, r, &j->files->items[i]) < 0) {
			fprintf(stderr, "%s\n", ot_error_last());
			j->failed = 1;
			break;
		}
		j->bytes += buf.size;
	}
	ot_buf_free(&buf);
	ot_source_reader_free(r);
	return NULL;
}

int main(int argc, char **argv)
{
	ot_source_opts opts = {0};
	ot_source *src;
	ot_source_files files = {0};
	ot_arena *arena = ot_arena_new();
	const char *prefixes[] = {"aten/src/ATen/", "torch/", NULL};
	int threads = argc > 3 ? atoi(argv[3]) : 1, t;
	job jobs[64];
	pthread_t tid[64];
	size_t bytes = 0;
	double t0, t1, t2;

	if (argc < 3 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: source_timing CHECKOUT VERSION [THREADS]\n");
		return 2;
	}
	opts.path = argv[1];
	t0 = now();
	if (ot_source_open(&src, &opts) < 0 || ot_source_select(src, argv[2], NULL) < 0) {
		fprintf(stderr, "%s\n", ot_error_last());
		return 1;
	}
	if (ot_source_list(&files, arena, src, prefixes, NULL, NULL) < 0) {
		fprintf(stderr, "%s\n", ot_error_last());
		return 1;
	}
	t1 = now();
	for (t = 0; t < threads; t++) {
		jobs[t] = (job){src, &files, (size_t)t, (size_t)threads, 0, 0};
		pthread_create(&tid[t], NULL, run, &jobs[t]);
	}
	for (t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		bytes += jobs[t].bytes;
		if (jobs[t].failed)
			return 1;
	}
	t2 = now();
	printf("%zu files, %.1f MB; open+select+list %.3f s; read (%d thread%s) %.3f s; total %.3f s\n",
	       files.len, (double)bytes / 1e6, t1 - t0, threads, threads > 1 ? "s" : "", t2 - t1,
	       t2 - t0);
	ot_vec_free(&files);
	ot_arena_free(arena);
	ot_source_free(src);
	return 0;
}
