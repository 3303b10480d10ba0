/* sink: the upload sink's routes (bench page, uploads, downloads, results) and
 * what it remembers of each trial. */
#ifndef UPLOADSINK_SINK_H
#define UPLOADSINK_SINK_H

#include <stddef.h>

#include "http1.h"

struct sink;

/* page is the bench page's HTML (copied); quiet: no line per transfer on stdout. */
struct sink *sink_new(const char *page, size_t page_len, int quiet);
void sink_free(struct sink *s);
/* The handler to pass to http1_listen. */
struct http1_handler sink_handler(struct sink *s);

#endif
