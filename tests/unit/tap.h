/* tap: the smallest TAP producer for the C unit tests (plan at the end). */
#ifndef CDPPROXY_TAP_H
#define CDPPROXY_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static int tap_ok(int cond, const char *name)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, name);
	return cond;
}

#define ok(cond, ...) do { char tap_name_[4096]; \
	snprintf(tap_name_, sizeof tap_name_, __VA_ARGS__); \
	tap_ok(!!(cond), tap_name_); } while (0)

#define is_int(got, want, ...) do { long long g_ = (got), w_ = (want); \
	char tap_name_[4096]; snprintf(tap_name_, sizeof tap_name_, __VA_ARGS__); \
	if (!tap_ok(g_ == w_, tap_name_)) \
		printf("#   got %lld, want %lld\n", g_, w_); } while (0)

#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	char tap_name_[4096]; snprintf(tap_name_, sizeof tap_name_, __VA_ARGS__); \
	if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, tap_name_)) \
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
