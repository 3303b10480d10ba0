/* site: the page-load workload: a generated page of many small resources
 * (style sheets, scripts, images) and their bodies, for uploadsink to serve. */
#include "site.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

#define JS_BYTES 2048
#define CSS_BYTES 1024
#define GIF_COMMENT_BLOCKS 4     /* of 240 bytes: an image of about 1 KiB */

static char js[JS_BYTES], css[CSS_BYTES];
static unsigned char gif[64 + GIF_COMMENT_BLOCKS * 241];
static size_t gif_len;

/* Pads buf (len bytes) from `used` with a comment body and its end. */
static void pad(char *buf, size_t used, size_t len, const char *end)
{
	size_t tail = strlen(end);

	memset(buf + used, 'x', len - used - tail);
	memcpy(buf + len - tail, end, tail);
}

/* The bodies, built once: a script that counts itself, a rule, and a valid
 * 1x1 GIF padded with comment blocks. */
static void build(void)
{
	static const unsigned char head[] = {
		'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff,
	};
	static const unsigned char image[] = {
		0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b,
	};
	int n;

	if (gif_len)
		return;
	n = snprintf(js, sizeof js, "window.siteScripts = (window.siteScripts || 0) + 1;\n/* ");
	pad(js, (size_t)n, sizeof js, " */\n");
	n = snprintf(css, sizeof css, ".site-item { margin: 0 }\n/* ");
	pad(css, (size_t)n, sizeof css, " */\n");
	memcpy(gif, head, sizeof head);
	gif_len = sizeof head;
	gif[gif_len++] = 0x21;   /* a comment extension */
	gif[gif_len++] = 0xfe;
	for (int b = 0; b < GIF_COMMENT_BLOCKS; b++) {
		gif[gif_len++] = 240;
		memset(gif + gif_len, 'x', 240);
		gif_len += 240;
	}
	gif[gif_len++] = 0;
	memcpy(gif + gif_len, image, sizeof image);
	gif_len += sizeof image;
}

/* Resource j's kind: a fifth style sheets, two fifths each scripts and images. */
static const char *kind_of(int j)
{
	return j % 5 == 0 ? "css" : j % 5 < 3 ? "js" : "img";
}

char *site_page(const char *trial, long index, int n, size_t *len)
{
	size_t cap = 512 + (size_t)n * 160, o = 0;
	char *p = xmalloc(cap);

	/* The resource timing buffer holds 250 entries by default: the page
	 * counts its loads from it. */
	o += (size_t)snprintf(p + o, cap - o, "<!doctype html><html><head><meta charset=\"utf-8\">"
			      "<title>cdpbench site</title><script>performance."
			      "setResourceTimingBufferSize(%d)</script>\n", n + 50);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			o += (size_t)snprintf(p + o, cap - o, "</head><body>\n");
		for (int j = 0; j < n; j++) {
			const char *k = kind_of(j);
			if ((pass == 0) != !strcmp(k, "css"))
				continue;
			o += (size_t)snprintf(p + o, cap - o,
				!strcmp(k, "css") ? "<link rel=\"stylesheet\" href=\"/site/r?trial=%s&amp;i=%ld&amp;j=%d&amp;k=%s\">\n" :
				!strcmp(k, "js") ? "<script src=\"/site/r?trial=%s&amp;i=%ld&amp;j=%d&amp;k=%s\"></script>\n" :
				"<img alt=\"\" src=\"/site/r?trial=%s&amp;i=%ld&amp;j=%d&amp;k=%s\">\n", trial, index, j, k);
		}
	}
	o += (size_t)snprintf(p + o, cap - o, "</body></html>\n");
	*len = o;
	return p;
}

int site_resource(const char *kind, const void **body, size_t *len, const char **type)
{
	build();
	if (!strcmp(kind, "js")) {
		*body = js;
		*len = sizeof js;
		*type = "text/javascript";
	} else if (!strcmp(kind, "css")) {
		*body = css;
		*len = sizeof css;
		*type = "text/css";
	} else if (!strcmp(kind, "img")) {
		*body = gif;
		*len = gif_len;
		*type = "image/gif";
	} else {
		return -1;
	}
	return 0;
}
