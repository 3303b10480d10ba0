/* audit_findings: the known-costly patterns in a rig's logs, each with what
 * it costs (the cdpbench scenario that measures it) and what removes it. */
#ifndef CDPBENCH_AUDIT_FINDINGS_H
#define CDPBENCH_AUDIT_FINDINGS_H

#include <jansson.h>

#include "audit.h"

/* Notes in seen what one message shows: the commands and events the
 * patterns are made of, with their params where they matter. */
void audit_findings_watch(json_t *seen, const struct logrec *rec);

/* [{"id","title","evidence","cost","scenario","remedy"}, ...] from what r
 * saw and rig's enables (audit_rig_json's, being built). */
json_t *audit_findings(const struct audit_rig *r, const json_t *rig);

/* Adds "measured" to each finding bench (a cdpbench report.json, read from
 * source) has cells for: the ratios to no debugger, with their CIs and
 * verdicts, of the scenarios that measure it (fetch-all: u8 and Blob
 * uploads; network-postdata: u8 uploads and downloads) and of the remedy
 * policies' scenarios; other findings: their own scenario with u8. */
void audit_findings_cite(json_t *findings, const json_t *bench, const char *source);

#endif
