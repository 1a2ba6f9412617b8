#include "layout.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a worker sends per diagram, followed by the DOT and the SVG bytes. */
struct record {
	uint64_t index;
	int64_t status;
	uint64_t ndot, nsvg;
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* 0 when all n bytes came, -1 at an error or the end of the pipe. */
static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A worker process: draw diagrams first, first + step, ... and send them. */
static void worker(int fd, size_t first, size_t n, size_t step, ot_draw_fn draw, void *payload)
{
	ot_buf dot = OT_BUF_INIT, svg = OT_BUF_INIT;
	for (size_t i = first; i < n; i += step) {
		struct record rec = {i, draw(i, payload, &dot, &svg), 0, 0};
		if (rec.status == 1) {
			rec.ndot = dot.size;
			rec.nsvg = svg.size;
		}
		if (write_all(fd, &rec, sizeof(rec)) < 0 || write_all(fd, dot.ptr, rec.ndot) < 0 ||
		    write_all(fd, svg.ptr, rec.nsvg) < 0)
			_exit(1);
	}
	_exit(0); /* no atexit handlers, no stdio flush: they belong to the parent */
}

struct reader {
	int fd;
	size_t n;
	ot_diagram *out;
	bool *received;
	pthread_mutex_t *lock;
	void (*tick)(void *);
	void *tick_payload;
};

static int read_bytes(int fd, ot_buf *b, uint64_t n)
{
	ot_buf_clear(b);
	if (!n)
		return 0;
	ot_buf_grow_by(b, (size_t)n);
	if (read_all(fd, b->ptr, (size_t)n) < 0)
		return -1;
	b->size = (size_t)n;
	b->ptr[b->size] = '\0';
	return 0;
}

/* Take one worker's records until its pipe ends. */
static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct record rec;
	while (read_all(rd->fd, &rec, sizeof(rec)) == 0) {
		ot_diagram *d;
		if (rec.index >= rd->n || rd->received[rec.index])
			break; /* not what a worker writes: stop trusting this pipe */
		d = &rd->out[rec.index];
		if (read_bytes(rd->fd, &d->dot, rec.ndot) < 0 || read_bytes(rd->fd, &d->svg, rec.nsvg) < 0)
			break;
		d->status = (int)rec.status;
		rd->received[rec.index] = true;
		if (rd->tick) {
			pthread_mutex_lock(rd->lock);
			rd->tick(rd->tick_payload);
			pthread_mutex_unlock(rd->lock);
		}
	}
	close(rd->fd);
	return NULL;
}

void ot_layout_all(size_t n, int jobs, ot_draw_fn draw, void *payload, void (*tick)(void *),
		   void *tick_payload, ot_diagram *out)
{
	struct reader readers[64];
	pthread_t threads[64];
	pid_t pids[64];
	bool *received = ot_calloc(n ? n : 1, sizeof(*received));
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	size_t nworkers = 0, nthreads = 0;

	if (jobs > (int)OT_ARRAY_LEN(pids))
		jobs = OT_ARRAY_LEN(pids);
	if (jobs > 1 && n > 1) {
		size_t want = (size_t)jobs < n ? (size_t)jobs : n;
		/* every worker forked before any thread starts */
		for (size_t k = 0; k < want; k++) {
			int fds[2];
			pid_t pid;
			if (pipe(fds) < 0)
				break;
			pid = fork();
			if (pid < 0) {
				close(fds[0]);
				close(fds[1]);
				break;
			}
			if (pid == 0) {
				close(fds[0]);
				for (size_t j = 0; j < nworkers; j++)
					close(readers[j].fd);
				worker(fds[1], k, n, want, draw, payload);
			}
			close(fds[1]);
			pids[nworkers] = pid;
			readers[nworkers] = (struct reader){fds[0], n, out, received, &lock, tick,
							    tick_payload};
			nworkers++;
		}
		for (size_t k = 0; k < nworkers; k++)
			if (pthread_create(&threads[k], NULL, reader_main, &readers[k]) == 0)
				nthreads = k + 1;
			else
				break;
		for (size_t k = nthreads; k < nworkers; k++)
			reader_main(&readers[k]); /* no thread for it: read it here */
		for (size_t k = 0; k < nthreads; k++)
			pthread_join(threads[k], NULL);
		for (size_t k = 0; k < nworkers; k++)
			while (waitpid(pids[k], NULL, 0) < 0 && errno == EINTR)
				;
	}
	/* one process, or what a worker did not send */
	for (size_t i = 0; i < n; i++) {
		if (received[i])
			continue;
		out[i].status = draw(i, payload, &out[i].dot, &out[i].svg);
		if (tick)
			tick(tick_payload);
	}
	free(received);
}

void ot_diagrams_free(ot_diagram *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++) {
		ot_buf_free(&d[i].dot);
		ot_buf_free(&d[i].svg);
	}
	free(d);
}
