/* bidilog: the WebDriver BiDi that a CDP message the core routes carries
 * (bidi.h), logged as a record of its own ("kind":"bidi") after the
 * message's, counted in the stats' BiDi table, its round trips matched per
 * connection (cc->bidi, which core_conn_free frees). The message itself is
 * left as it is. */
#ifndef CDPPROXY_BIDILOG_H
#define CDPPROXY_BIDILOG_H

#include "core.h"

/* The message buf (scan_message's r), logged as rec, is about to go on
 * to its side: a Runtime.evaluate command or a Runtime.bindingCalled
 * event that carries BiDi is read (anything else costs a compare of its
 * method), logged and counted. */
void bidilog_message(struct core_conn *cc, const char *buf, const struct scan_result *r,
		     const struct log_rec *rec);

#endif
