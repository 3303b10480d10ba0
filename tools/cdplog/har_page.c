/* har_page: the pages of `cdplog har`: one per navigation of a session's
 * main frame (its document's request or Page.frameNavigated), its timings
 * from the page's lifecycle, written to its session's file when the next
 * one starts or the session ends, if an entry names it. */
#include "har.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void har_page_close(struct har *h, struct har_sess *s)
{
	struct har_page *p = s->page;
	struct har_out *out;
	char when[40];

	if (!p)
		return;
	s->page = NULL;
	if (p->refs && (out = har_out_for(h, s))) {
		json_t *j;
		har_entry_iso(p->wall, when, sizeof when);
		j = json_pack("{s:s,s:s,s:O,s:{s:f,s:f}}", "startedDateTime", when, "id", p->id, "title", p->title,
			      "pageTimings", "onContentLoad", p->on_content, "onLoad", p->on_load);
		har_out_page(out, j);
		json_decref(j);
	}
	free(p->loader);
	json_decref(p->title);
	free(p);
}

void har_page_open(struct har *h, struct har_sess *s, const char *loader, double wall, double mono,
		   const char *url)
{
	struct har_page *p = xcalloc(1, sizeof *p);

	har_page_close(h, s);
	snprintf(p->id, sizeof p->id, "page_%" PRIu64, ++h->pages_seq);
	p->loader = loader ? xstrdup(loader) : NULL;
	p->wall = wall;
	p->mono = mono;
	p->title = util_json_str(url);
	p->on_content = p->on_load = -1;
	s->page = p;
}

void har_page_timing(struct har_sess *s, const char *loader, const char *name, double ts)
{
	struct har_page *p = s->page;
	double v;

	if (!p || !p->mono || !ts || (loader && p->loader && strcmp(loader, p->loader)))
		return;
	v = round((ts - p->mono) * 1e6) / 1000;
	if (!(v >= 0 && v < 1e15))
		return;
	if (!strcmp(name, "DOMContentLoaded") && p->on_content < 0)
		p->on_content = v;
	else if (!strcmp(name, "load") && p->on_load < 0)
		p->on_load = v;
}

void har_page_navigated(struct har *h, struct har_sess *s, uint64_t t, json_t *p)
{
	json_t *frame = json_object_get(p, "frame");
	const char *loader = har_str(frame, "loaderId"), *url = har_str(frame, "url");
	double wall = (double)t / 1e6;

	if (!json_is_object(frame) || json_object_get(frame, "parentId") || !har_str(frame, "id"))
		return;
	if (!s->main_frame)
		s->main_frame = xstrdup(har_str(frame, "id"));
	if (s->page && s->page->loader && loader && !strcmp(loader, s->page->loader)) {
		json_decref(s->page->title);
		s->page->title = util_json_str(url);   /* where its redirects ended */
		return;
	}
	har_page_open(h, s, loader, wall, s->mono_off ? wall - s->mono_off : 0, url);
}
