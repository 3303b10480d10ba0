/* site: the page-load workload: a generated page of many small resources
 * (style sheets, scripts, images) and their bodies, for uploadsink to serve. */
#ifndef UPLOADSINK_SITE_H
#define UPLOADSINK_SITE_H

#include <stddef.h>

#define SITE_DEFAULT_RESOURCES 200
#define SITE_MAX_RESOURCES 2000

/* The page of trial's load number index: n resources, a fifth style sheets in
 * its head, scripts and images in its body, each at
 * /site/r?trial=T&i=I&j=J&k=KIND so that no load finds another's in a cache.
 * trial must be URL- and HTML-safe ([A-Za-z0-9._-]). Allocated; its length in
 * *len. */
char *site_page(const char *trial, long index, int n, size_t *len);

/* The body of a resource of kind "js" (2 KiB), "css" (1 KiB) or "img" (a GIF
 * of about 1 KiB), and its content type: 0, or -1 for another kind. */
int site_resource(const char *kind, const void **body, size_t *len, const char **type);

#endif
