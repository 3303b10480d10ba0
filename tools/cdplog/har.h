/* har: cdplog's HAR 1.2 writer: the requests and pages of a log's page
 * sessions (har.c), their HAR objects built from the CDP events
 * (har_entry.c), and the files they go to (har_out.c). */
#ifndef CDPLOG_HAR_H
#define CDPLOG_HAR_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* One hop of a request (a redirect starts the next), as the events gave it:
 * the objects are the redacted events' params (or parts of them). */
struct har_hop {
	json_t *request;            /* Network.Request (requestWillBeSent) */
	json_t *req_extra;          /* requestWillBeSentExtraInfo params */
	json_t *response;           /* Network.Response (responseReceived or redirectResponse) */
	json_t *resp_extra;         /* responseReceivedExtraInfo params */
	const char *type;           /* resource type (Document, Image...), in request's owner */
	json_t *type_owner;
	double wall, issue;         /* requestWillBeSent: wallTime, timestamp (s) */
	double resp_at, end_at;     /* responseReceived, loadingFinished/Failed timestamps; 0 unknown */
	int64_t data_len, encoded_len;
	int has_encoded;
};

/* Fills HAR 1.2 "entry" from hop h: request, response (content without its
 * text), timings, startedDateTime, time. redirect_url: the next hop's URL
 * for a redirect, else NULL; failed: loadingFailed's errorText, else NULL.
 * A new object. */
json_t *har_entry_build(const struct har_hop *h, const char *pageref, const char *redirect_url,
			const char *failed);
/* Sets the entry's response content text from a getResponseBody result
 * (body, base64Encoded) or a comment saying why it has none. */
void har_entry_set_body(json_t *entry, json_t *result);
void har_entry_set_comment(json_t *entry, const char *why);
/* "2026-12-04T16:58:27.521Z" for wall seconds since the epoch. */
void har_entry_iso(double wall, char *out, size_t outlen);
/* HAR timings of a hop (Chrome DevTools' export's rule) and in *total
 * their sum in ms. A new object. */
json_t *har_entry_timings(json_t *timing, double issue, double resp_at, double end_at, double *total);

/* Member k of object o: a string (NULL if not one), a number (dflt), a
 * byte count (0 unless a number from 0 to 1e15). */
const char *har_str(json_t *o, const char *k);
double har_num(json_t *o, const char *k, double dflt);
int64_t har_count(json_t *o, const char *k);

/* An output: one HAR file written as its entries come. */
struct har_out {
	char *path;                 /* NULL: stdout */
	FILE *f, *pages;            /* pages: a temporary file until the end */
	uint64_t entries, npages;
};

/* Opens path ("-" or NULL: stdout) and writes the HAR's head. NULL with a
 * reason in err. */
struct har_out *har_out_open(const char *path, const char *source, char *err, size_t errlen);
void har_out_entry(struct har_out *o, json_t *entry);
void har_out_page(struct har_out *o, json_t *page);
/* Writes the pages and the end (with comment, may be NULL), closes and frees
 * o. 0, or -1 with a reason when a write failed. */
int har_out_close(struct har_out *o, const char *comment, char *err, size_t errlen);

#endif
