/* log_test: the JSON Lines log: file mode, record fields, string escaping,
 * body truncation on UTF-8 boundaries, events, ordering, and open errors. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "log.h"
#include "redact.h"
#include "tap.h"
#include "util.h"

static char dir[] = "/tmp/log_test.XXXXXX";
static char path[256];

/* A fresh log file name in the test directory. */
static const char *fresh(const char *name)
{
	snprintf(path, sizeof path, "%s/%s", dir, name);
	unlink(path);
	return path;
}

static int mode_of(const char *p)
{
	struct stat st;

	return stat(p, &st) < 0 ? -1 : (int)(st.st_mode & 07777);
}

static long size_of(const char *p)
{
	struct stat st;

	return stat(p, &st) < 0 ? -1 : (long)st.st_size;
}

/* The whole file, NUL-terminated (NUL bytes inside stay), or NULL. */
static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 65536 + 1 > cap)
			buf = xrealloc(buf, cap = 2 * (n + 65536 + 1));
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* The records of the log file at p, each line parsed (a line that does not
 * parse is a JSON null), as an array; every line must end in '\n'. */
static json_t *records(const char *p)
{
	size_t len;
	char *text = slurp(p, &len), *s, *nl;
	json_t *all = json_array();

	for (s = text; s && s < text + len; s = nl + 1) {
		json_t *j;
		if (!(nl = memchr(s, '\n', (size_t)(text + len - s)))) {
			json_array_append_new(all, json_string("(unterminated line)"));
			break;
		}
		j = json_loadb(s, (size_t)(nl - s), JSON_ALLOW_NUL, NULL);
		json_array_append_new(all, j ? j : json_null());
	}
	free(text);
	return all;
}

/* Opens, logs the given records, closes; returns the parsed lines. */
static json_t *log_these(const char *name, size_t body_max, const struct log_rec *recs, size_t n)
{
	char err[256] = "";
	struct log *lg = log_open(fresh(name), body_max, err, sizeof err);

	if (!lg) {
		ok(0, "log_open %s: %s", name, err);
		return json_array();
	}
	for (size_t i = 0; i < n; i++)
		log_message(lg, &recs[i]);
	log_close(lg);
	return records(path);
}

static long long jint(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(missing)";
}

/* Does o[key] hold exactly the n bytes s? */
static int jbytes(const json_t *o, const char *key, const char *s, size_t n)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) && json_string_length(v) == n && !memcmp(json_string_value(v), s, n);
}

static void test_open_mode(void)
{
	mode_t old = umask(0);    /* so only log_open decides the mode */
	char err[256] = "";
	struct log *lg = log_open(fresh("new.log"), 0, err, sizeof err);
	FILE *f;
	char *text;

	ok(lg != NULL, "log_open creates a new file: %s", err);
	is_int(mode_of(path), 0600, "new log file is 0600 even with umask 0");
	log_close(lg);

	f = fopen(fresh("old.log"), "w");
	fputs("{\"old\":true}\n", f);
	fclose(f);
	chmod(path, 0644);
	is_int(mode_of(path), 0644, "existing file starts 0644");
	lg = log_open(path, 0, err, sizeof err);
	ok(lg != NULL, "log_open opens an existing file: %s", err);
	is_int(mode_of(path), 0644, "an existing file keeps its mode: only a file log_open made is its to set");
	log_event(lg, 1, "open", json_object());
	log_close(lg);
	text = slurp(path, NULL);
	ok(text && !strncmp(text, "{\"old\":true}\n{", 14), "existing content kept, records appended");
	free(text);
	umask(old);
	log_close(NULL);
}

static void test_open_errors(void)
{
	char err[512], p[300];
	struct log *lg;
	FILE *f;

	strcpy(err, "(unset)");
	lg = log_open(dir, 0, err, sizeof err);
	ok(lg == NULL, "log_open on a directory fails");
	ok(strstr(err, dir) != NULL, "directory: reason names the path: %.200s", err);
	log_close(lg);

	snprintf(p, sizeof p, "%s/no/such/dir/x.log", dir);
	strcpy(err, "(unset)");
	lg = log_open(p, 0, err, sizeof err);
	ok(lg == NULL, "log_open in a missing directory fails");
	ok(strstr(err, p) != NULL, "missing directory: reason names the path: %.200s", err);
	ok(strstr(err, strerror(ENOENT)) != NULL, "missing directory: reason says why");
	log_close(lg);

	f = fopen(fresh("plain"), "w");
	fclose(f);
	snprintf(p, sizeof p, "%s/plain/x.log", dir);
	strcpy(err, "(unset)");
	lg = log_open(p, 0, err, sizeof err);
	ok(lg == NULL, "log_open under a regular file fails");
	ok(strstr(err, p) != NULL, "under a file: reason names the path: %.200s", err);
	log_close(lg);

	/* Permissions stop everyone but root: as root, a child that has become
	 * nobody (uid 65534) tries, and says by its exit status how it went. */
	snprintf(p, sizeof p, "%s/ro", dir);
	mkdir(p, 0555);
	chmod(p, 0555);
	chmod(dir, 0711);   /* others may pass through to ro, not write in it */
	snprintf(p, sizeof p, "%s/ro/x.log", dir);
	if (geteuid() != 0) {
		strcpy(err, "(unset)");
		lg = log_open(p, 0, err, sizeof err);
		ok(lg == NULL, "log_open in a read-only directory fails");
		ok(strstr(err, p) != NULL, "read-only directory: reason names the path: %.200s", err);
		ok(strstr(err, strerror(EACCES)) != NULL, "read-only directory: reason says why");
		log_close(lg);
	} else {
		pid_t pid;
		int st = 0;
		/* Nothing buffered for the child to write again: under valgrind,
		 * even _exit flushes stdio (its libc clean-up). */
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(3);
			strcpy(err, "(unset)");
			lg = log_open(p, 0, err, sizeof err);
			_exit(lg ? 1 : !strstr(err, p) || !strstr(err, strerror(EACCES)) ? 2 : 0);
		}
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
			ok(1, "# SKIP root cannot become nobody here");
		} else {
			ok(WIFEXITED(st) && WEXITSTATUS(st) != 1,
			   "log_open in a read-only directory fails (as nobody, from root)");
			ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			   "read-only directory: reason names the path and says why (status %d)", st);
		}
	}
	chmod(dir, 0700);
	snprintf(p, sizeof p, "%s/ro", dir);
	rmdir(p);
}

/* A path that is not a regular file is refused, promptly, and nothing it
 * names is written or chmod-ed: a symlink (to a file, or dangling), a FIFO
 * with no reader (an open without O_NONBLOCK waits for one forever; the
 * alarm ends the test instead) and one with a reader. */
static void test_open_not_file(void)
{
	char err[512], target[300], link[300], fifo[300];
	struct log *lg;
	FILE *f;
	char *text;
	int rd;

	snprintf(target, sizeof target, "%s/target", dir);
	snprintf(link, sizeof link, "%s/link.log", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo.log", dir);
	f = fopen(target, "w");
	fputs("mine\n", f);
	fclose(f);
	chmod(target, 0644);
	unlink(link);
	if (symlink(target, link) < 0)
		ok(0, "symlink: %s", strerror(errno));
	strcpy(err, "(unset)");
	lg = log_open(link, 0, err, sizeof err);
	ok(lg == NULL, "log_open on a symlink to a file fails");
	ok(strstr(err, link) && strstr(err, "symbolic link"), "symlink: the reason says so: %.200s", err);
	if (lg)
		log_event(lg, 1, "open", json_object());
	log_close(lg);
	text = slurp(target, NULL);
	ok(text && !strcmp(text, "mine\n"), "the symlink's target is not written");
	free(text);
	is_int(mode_of(target), 0644, "and keeps its mode");

	unlink(target);
	strcpy(err, "(unset)");
	lg = log_open(link, 0, err, sizeof err);
	ok(lg == NULL, "log_open on a dangling symlink fails");
	ok(access(target, F_OK) < 0, "and creates nothing where it points");
	log_close(lg);
	unlink(link);

	unlink(fifo);
	if (mkfifo(fifo, 0600) < 0)
		ok(0, "mkfifo: %s", strerror(errno));
	fflush(stdout);   /* what the alarm's kill would lose */
	alarm(10);
	strcpy(err, "(unset)");
	lg = log_open(fifo, 0, err, sizeof err);
	ok(lg == NULL, "log_open on a FIFO nobody reads fails at once");
	ok(strstr(err, fifo) && strstr(err, "FIFO"), "FIFO: the reason says so: %.200s", err);
	log_close(lg);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	strcpy(err, "(unset)");
	lg = log_open(fifo, 0, err, sizeof err);
	ok(lg == NULL, "log_open on a FIFO with a reader fails too");
	ok(strstr(err, fifo) && strstr(err, "a FIFO"), "FIFO with a reader: the reason says so: %.200s", err);
	log_close(lg);
	alarm(0);
	if (rd >= 0)
		close(rd);
	unlink(fifo);
}

static void test_fields(void)
{
	static const char method[] = "Network.enableXYZ", session[] = "S1-and-more";
	struct log_rec recs[3] = {
		{ .conn = 7, .to = UP, .kind = "response", .has_id = 1, .id = 42,
		  .method = method, .method_len = 14, .session = session, .session_len = 2,
		  .bytes = 123, .has_rtt = 1, .rtt_us = 2500, .has_error = 1, .error = -32601,
		  .body = "{\"id\":42}", .body_len = 9 },
		{ .conn = 8, .to = DOWN, .kind = "event", .method = "Page.loadEventFired",
		  .method_len = 19, .bytes = 77 },
		{ .conn = 9, .to = DOWN, .kind = "response", .has_id = 1, .id = 0,
		  .has_rtt = 1, .rtt_us = 0, .bytes = 0 },
	};
	uint64_t before = util_now_us(), after;
	json_t *all = log_these("fields.log", 0, recs, 3), *r;
	after = util_now_us();

	is_int(json_array_size(all), 3, "three records, three lines");
	r = json_array_get(all, 0);
	ok(json_is_object(r), "full record parses as a JSON object");
	ok(json_is_integer(json_object_get(r, "t")) && (uint64_t)jint(r, "t") >= before &&
	   (uint64_t)jint(r, "t") <= after, "t is the wall clock in microseconds");
	is_int(jint(r, "conn"), 7, "conn");
	is_str(jstr(r, "dir"), "up", "dir");
	is_str(jstr(r, "kind"), "response", "kind");
	is_int(jint(r, "id"), 42, "id");
	is_str(jstr(r, "method"), "Network.enable", "method is method_len bytes, not to the NUL");
	is_str(jstr(r, "session"), "S1", "session is session_len bytes");
	is_int(jint(r, "bytes"), 123, "bytes");
	is_int(jint(r, "rtt_us"), 2500, "rtt_us");
	is_int(jint(r, "error"), -32601, "error");
	ok(json_object_get(r, "body") == NULL, "no body when body_max is 0");
	is_int(jint(r, "gen"), 0, "gen is 0 before log_set_gen");
	is_int(json_object_size(r), 11, "full record: exactly the 10 documented fields and gen");

	r = json_array_get(all, 1);
	is_int(json_object_size(r), 7, "event record: t, gen, conn, dir, kind, method, bytes");
	ok(!json_object_get(r, "id") && !json_object_get(r, "session") &&
	   !json_object_get(r, "rtt_us") && !json_object_get(r, "error") &&
	   !json_object_get(r, "action") && !json_object_get(r, "by"),
	   "absent id, session, rtt_us, error, action, by are left out");
	is_str(jstr(r, "method"), "Page.loadEventFired", "event record: method");

	r = json_array_get(all, 2);
	ok(json_is_integer(json_object_get(r, "id")) && jint(r, "id") == 0, "id 0 is logged");
	ok(json_is_integer(json_object_get(r, "rtt_us")) && jint(r, "rtt_us") == 0, "rtt 0 is logged");
	ok(!json_object_get(r, "method"), "no method: left out");
	is_int(jint(r, "bytes"), 0, "bytes 0 is logged");
	json_decref(all);
}

/* Numbers are written digit by digit where they go: every length, both
 * signs, the extremes. */
static void test_numbers(void)
{
	enum { N = 2 * 19 + 2 };
	struct log_rec recs[N];
	int64_t id[N];
	uint64_t bytes[N], p = 1;
	json_t *all;
	char *text;
	int same = 0;

	for (int k = 0; k < 19; k++, p *= 10) {   /* 10^k - 1 and -10^k; bytes 10^k */
		id[2 * k] = (int64_t)(p - 1);
		id[2 * k + 1] = -(int64_t)p;
		bytes[2 * k] = p - 1;
		bytes[2 * k + 1] = p;
	}
	id[N - 2] = INT64_MIN;
	bytes[N - 2] = (uint64_t)INT64_MAX;
	id[N - 1] = INT64_MAX;
	bytes[N - 1] = UINT64_MAX;   /* jansson reads no such number: the text is checked */
	for (int i = 0; i < N; i++)
		recs[i] = (struct log_rec){ .conn = (uint64_t)i, .to = UP, .kind = "command",
					    .has_id = 1, .id = id[i], .bytes = bytes[i] };
	all = log_these("numbers.log", 0, recs, N);
	for (int i = 0; i < N - 1; i++) {
		json_t *r = json_array_get(all, (size_t)i);
		same += json_is_integer(json_object_get(r, "id")) && jint(r, "id") == id[i] &&
			jint(r, "conn") == i &&
			(uint64_t)jint(r, "bytes") == bytes[i];
	}
	is_int(same, N - 1, "ids 0, 9, 99 ... -1, -10 ... INT64_MIN, bytes 0, 9, 10 ... INT64_MAX read back");
	text = slurp(path, NULL);
	ok(text && strstr(text, "\"id\":9223372036854775807,\"bytes\":18446744073709551615}"),
	   "id INT64_MAX and bytes UINT64_MAX in full");
	free(text);
	json_decref(all);
}

static void test_escapes(void)
{
	static const char nasty[] = "q\"b\\s/n\nt\tc\x01\x1f" "del\x7f" "nul\0e\xc3\xa9" "x\xf0\x9f\x98\x80";
	static const char sid[] = "\"}{\"\\";
	size_t n = sizeof nasty - 1;
	struct log_rec rec = { .conn = 1, .to = DOWN, .kind = "invalid", .method = nasty,
			       .method_len = n, .session = sid, .session_len = sizeof sid - 1,
			       .bytes = n, .body = nasty, .body_len = n };
	json_t *all = log_these("escapes.log", 1024, &rec, 1), *r = json_array_get(all, 0);
	char *text = slurp(path, NULL);

	is_int(json_array_size(all), 1, "one line despite the newline in the strings");
	ok(json_is_object(r), "line with quotes, backslashes and control bytes parses");
	ok(jbytes(r, "method", nasty, n), "method round-trips byte for byte (with its NUL)");
	ok(jbytes(r, "session", sid, sizeof sid - 1), "session of quotes and braces round-trips");
	ok(jbytes(r, "body", nasty, n), "body round-trips byte for byte");
	ok(!json_object_get(r, "truncated"), "body under body_max: not truncated");
	ok(text && !strchr(text, '\t') && !strchr(text, '\x01'), "no raw control bytes in the file");
	free(text);
	json_decref(all);
}

/* Bytes off the wire are not always UTF-8 (binary frames, invalid messages,
 * raw bytes inside a string): the line must still be JSON. */
static void test_not_utf8(void)
{
	static const char bin[] = "\x00\x01\xff\xfe\x80 ok \xc3(\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\xe0\x80\xaf";
	struct log_rec recs[2] = {
		{ .conn = 1, .to = UP, .kind = "binary", .bytes = sizeof bin - 1,
		  .body = bin, .body_len = sizeof bin - 1 },
		{ .conn = 1, .to = UP, .kind = "command", .method = "Page.\xffx", .method_len = 7,
		  .session = "\xc3\xa9", .session_len = 1, .bytes = 9 },
	};
#define R "\xef\xbf\xbd"
	/* Overlong, surrogate and past-U+10FFFF forms are bad too, byte by byte. */
	static const char want[] = "\x00\x01" R R R " ok " R "(" R R R R R R R R R R R R;
#undef R
	json_t *all = log_these("binary.log", 1024, recs, 2);
	json_t *r0 = json_array_get(all, 0), *r1 = json_array_get(all, 1);

	is_int(json_array_size(all), 2, "not UTF-8: two lines");
	ok(json_is_object(r0), "binary body: the line still parses");
	ok(jbytes(r0, "body", want, sizeof want - 1),
	   "binary body: valid bytes kept, each byte of a bad sequence is U+FFFD");
	ok(json_is_object(r1), "raw 0xff in a method, a session cut after 0xc3: the line still parses");
	is_str(jstr(r1, "method"), "Page.\xef\xbf\xbdx", "a bad byte becomes U+FFFD");
	is_str(jstr(r1, "session"), "\xef\xbf\xbd", "a sequence cut by session_len becomes U+FFFD");
	is_int(jint(r1, "bytes"), 9, "not UTF-8: the rest of the record intact");
	json_decref(all);
}

/* Strings are copied 16 bytes at a time until a byte needs care: put each
 * kind of such byte at every place of a 50-byte run, across the blocks. */
static void test_escape_positions(void)
{
	static const struct { const char *bytes, *json; } special[] = {
		{ "\"", "\"" }, { "\\", "\\" }, { "\x01", "\x01" }, { "\x7f", "\x7f" },
		{ "\xc3\xa9", "\xc3\xa9" }, { "\xff", "\xef\xbf\xbd" },
	};
	/* Short ones take the zero-padded look, long ones 16 bytes at a time and
	 * then a short rest. */
	static const size_t lens[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 50 };
	char want[64];
	int bad = 0, n = 0;

	for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
	for (size_t k = 0; k < sizeof special / sizeof special[0]; k++) {
		size_t len = lens[li], sl = strlen(special[k].bytes), jl = strlen(special[k].json);
		for (size_t at = 0; at + sl <= len; at++) {
			/* exactly len bytes, so ASan sees a read past the end */
			char *in = xmalloc(len);
			struct log_rec rec = { .conn = 1, .to = UP, .kind = "command",
					       .method = in, .method_len = len, .bytes = 1 };
			json_t *all, *r;
			memset(in, 'a' + (int)(at % 26), len);
			memcpy(in + at, special[k].bytes, sl);
			memcpy(want, in, at);
			memcpy(want + at, special[k].json, jl);
			memcpy(want + at + jl, in + at + sl, len - at - sl);
			all = log_these("positions.log", 0, &rec, 1);
			r = json_array_get(all, 0);
			if (!jbytes(r, "method", want, len - sl + jl)) {
				printf("# special %zu at %zu of %zu: method does not round-trip\n", k, at, len);
				bad++;
			}
			n++;
			json_decref(all);
			free(in);
		}
	}
	ok(!bad, "a byte needing care at any place of a string of any length comes out right (%d cases)", n);
}

static void test_bodies(void)
{
	/* body_max 16; the cut lands before, inside or after multi-byte characters. */
	static const struct { const char *body, *want; int truncated; } cases[] = {
		{ "short", "short", 0 },
		{ "exactly-16-bytes", "exactly-16-bytes", 0 },
		{ "seventeen-bytes!!", "seventeen-bytes!", 1 },
		{ "fifteen-bytes..\xc3\xa9", "fifteen-bytes..", 1 },            /* é at 15..16 */
		{ "fourteen-bytes\xf0\x9f\x98\x80zz", "fourteen-bytes", 1 },    /* 😀 at 14..17 */
		{ "thirteen-byte\xe2\x82\xac.", "thirteen-byte\xe2\x82\xac", 1 }, /* € ends at 16 */
		{ "fourteen-bytes\xe2\x82\xac", "fourteen-bytes", 1 },         /* € at 14..16 */
		{ "sixteen-bytes..!\xe2\x82\xac", "sixteen-bytes..!", 1 },     /* € starts at 16 */
		{ "\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"", "\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"", 1 },
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 1 },
		/* Binary: stray continuation bytes back the cut up 3 bytes at most. */
		{ "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80",
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1 },
	};
	size_t n = sizeof cases / sizeof cases[0];
	struct log_rec recs[sizeof cases / sizeof cases[0]];
	json_t *all;

	memset(recs, 0, sizeof recs);
	for (size_t i = 0; i < n; i++) {
		recs[i] = (struct log_rec){ .conn = i, .to = UP, .kind = "invalid",
					    .body = cases[i].body, .body_len = strlen(cases[i].body) };
		recs[i].bytes = recs[i].body_len;
	}
	all = log_these("bodies.log", 16, recs, n);
	is_int(json_array_size(all), n, "one line per body");
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(all, i);
		ok(jbytes(r, "body", cases[i].want, strlen(cases[i].want)),
		   "body %zu logged as %zu bytes", i, strlen(cases[i].want));
		is_int(json_is_true(json_object_get(r, "truncated")), cases[i].truncated,
		       "body %zu truncated flag", i);
		if (!cases[i].truncated)
			ok(!json_object_get(r, "truncated"), "body %zu: no truncated key", i);
		else
			is_int(jint(r, "body_bytes"), (long long)strlen(cases[i].body),
			       "body %zu: its whole size", i);
	}
	json_decref(all);
}

/* A body far larger than the buffer, every byte needing an escape. */
static void test_big_body(void)
{
	size_t n = 3 << 20;
	char *body = xmalloc(n);
	struct log_rec rec = { .conn = 1, .to = DOWN, .kind = "invalid", .has_id = 1, .id = 1,
			       .bytes = n, .body = body, .body_len = n };
	json_t *all, *v;

	for (size_t i = 0; i < n; i++)
		body[i] = i % 2 ? '"' : '\n';
	all = log_these("big.log", n, &rec, 1);
	v = json_object_get(json_array_get(all, 0), "body");
	is_int(json_array_size(all), 1, "3 MiB escaped body: one line");
	ok(json_is_string(v) && json_string_length(v) == n && !memcmp(json_string_value(v), body, n),
	   "3 MiB escaped body round-trips");
	json_decref(all);
	free(body);
}

/* A body far longer than the log keeps is redacted by its head: the record
 * has the secret out, the head's bytes, and the body's whole size. */
static void test_long_secret_body(void)
{
	static const char pre[] = "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":"
				  "{\"headers\":{\"Cookie\":\"S44\"},\"postData\":\"";
	size_t len = 4 << 20;
	char *body = malloc(len);
	struct log_rec rec = { .conn = 1, .to = UP, .kind = "event", .body = body, .body_len = len, .bytes = len };
	json_t *all, *r;

	memset(body, 'x', len);
	memcpy(body, pre, sizeof pre - 1);
	memcpy(body + len - 4, "\"}}}", 4);
	all = log_these("json-long.log", 200, &rec, 1);
	r = json_array_get(all, 0);
	ok(json_is_true(json_object_get(r, "redacted")) && json_is_true(json_object_get(r, "truncated")) &&
	   !strstr(jstr(r, "body"), "S44") && !strncmp(jstr(r, "body"), "{\"method\":", 10),
	   "a 4 MiB body with a cookie: redacted by its head, cut");
	is_int(jint(r, "body_bytes"), (long long)len, "... with its whole size");
	json_decref(all);
	free(body);
}

/* A whole JSON message is logged as the JSON it is, on one line; a cut one
 * as a string with its whole size; redacted only where a secret went. */
static void test_json_bodies(void)
{
	static const char pretty[] = "{\n  \"id\": 1,\r\n  \"method\": \"Page.navigate\",\n"
				     "  \"params\": {\"url\": \"a\\nb\xc3\xa9\xff\"}\n}\n";
	static const char cookie_free[] = "{\"method\":\"Network.getCookies\",\"id\":2}";
	static const char secret[] = "{\"id\":3,\"result\":{\"headers\":{\"Cookie\":\"a=b\"}}}";
	struct log_rec recs[4] = {
		{ .conn = 1, .to = UP, .kind = "command", .body = pretty, .body_len = sizeof pretty - 1 },
		{ .conn = 1, .to = UP, .kind = "command", .body = cookie_free, .body_len = sizeof cookie_free - 1 },
		{ .conn = 1, .to = DOWN, .kind = "response", .body = secret, .body_len = sizeof secret - 1 },
		{ .conn = 1, .to = UP, .kind = "command", .body = pretty, .body_len = sizeof pretty - 1 },
	};
	json_t *all, *b;

	for (int i = 0; i < 4; i++)
		recs[i].bytes = recs[i].body_len;
	all = log_these("json-bodies.log", 200, recs, 3);
	is_int(json_array_size(all), 3, "JSON bodies: one line each, line breaks and all");
	b = json_object_get(json_array_get(all, 0), "body");
	ok(json_is_object(b), "a whole body is the JSON object itself");
	is_str(jstr(json_object_get(b, "params"), "url"), "a\nb\xc3\xa9\xef\xbf\xbd",
	       "its strings intact, a bad UTF-8 byte U+FFFD");
	ok(!json_object_get(json_array_get(all, 0), "truncated") &&
	   !json_object_get(json_array_get(all, 0), "redacted"), "whole, not redacted: neither key");
	ok(json_is_object(json_object_get(json_array_get(all, 1), "body")) &&
	   !json_object_get(json_array_get(all, 1), "redacted"),
	   "a message that names cookies but holds none: not redacted");
	b = json_array_get(all, 2);
	ok(json_is_true(json_object_get(b, "redacted")), "a secret replaced: redacted");
	is_str(jstr(json_object_get(json_object_get(json_object_get(b, "body"), "result"), "headers"), "Cookie"),
	       REDACTED, "the redacted body is JSON too");
	json_decref(all);
	all = log_these("json-cut.log", 20, recs + 3, 1);
	b = json_array_get(all, 0);
	ok(json_is_string(json_object_get(b, "body")), "a cut body is a string");
	ok(json_is_true(json_object_get(b, "truncated")), "... truncated");
	is_int(jint(b, "body_bytes"), (long long)sizeof pretty - 1, "... with its whole size");
	json_decref(all);
	test_long_secret_body();
}

static void test_events(void)
{
	char err[256] = "";
	struct log *lg = log_open(fresh("events.log"), 0, err, sizeof err);
	json_t *all, *r;

	if (!lg) {
		ok(0, "log_open events.log: %s", err);
		return;
	}
	log_event(lg, 3, "open", json_pack("{s:s, s:s, s:i}", "path", "/devtools/page/" "ABC",
					   "origin", "http://localhost:9323", "fd", 12));
	log_event(lg, 4, "close", json_object());
	log_event(lg, 5, "too_large", json_pack("{s:s, s:I}", "side", "down", "bytes",
						(json_int_t)300000000));
	log_close(lg);
	all = records(path);
	is_int(json_array_size(all), 3, "three events, three lines");
	r = json_array_get(all, 0);
	is_int(json_object_size(r), 7, "open event: t, gen, conn, kind and its 3 fields");
	ok(json_is_integer(json_object_get(r, "t")), "event has t");
	is_int(jint(r, "conn"), 3, "event conn");
	is_str(jstr(r, "kind"), "open", "event kind");
	is_str(jstr(r, "path"), "/devtools/page/ABC", "event field path merged");
	is_str(jstr(r, "origin"), "http://localhost:9323", "event field origin merged");
	is_int(jint(r, "fd"), 12, "event integer field merged");
	r = json_array_get(all, 1);
	is_int(json_object_size(r), 4, "event with no fields: t, gen, conn, kind");
	is_str(jstr(r, "kind"), "close", "second event kind");
	r = json_array_get(all, 2);
	is_int(jint(r, "bytes"), 300000000, "third event: large integer field");
	json_decref(all);
}

/* What the policy did: its generation, the action, messages the proxy wrote. */
static void test_policy_fields(void)
{
	char err[256] = "";
	struct log *lg = log_open(fresh("policy.log"), 0, err, sizeof err);
	json_t *all, *r;

	if (!lg) {
		ok(0, "log_open policy.log: %s", err);
		return;
	}
	log_set_gen(lg, 3);
	log_message(lg, &(struct log_rec){ .conn = 1, .to = UP, .kind = "command",
					   .method = "Network.enable", .method_len = 14,
					   .action = "rewrite", .bytes = 60 });
	log_message(lg, &(struct log_rec){ .conn = 1, .to = DOWN, .kind = "response",
					   .by_proxy = 1, .bytes = 20 });
	log_event(lg, 0, "policy", json_object());
	log_close(lg);
	all = records(path);
	is_int(json_array_size(all), 3, "policy records: three lines");
	r = json_array_get(all, 0);
	is_int(jint(r, "gen"), 3, "log_set_gen: records carry the generation");
	is_str(jstr(r, "action"), "rewrite", "action logged");
	ok(!json_object_get(r, "by"), "not by the proxy: no by");
	r = json_array_get(all, 1);
	is_str(jstr(r, "by"), "proxy", "by_proxy: \"by\":\"proxy\"");
	ok(!json_object_get(r, "action"), "no action: left out");
	is_int(jint(json_array_get(all, 2), "gen"), 3, "events carry the generation too");
	json_decref(all);
}

/* More than a buffer holds, with no log_flush: written as the buffer
 * fills, all there, in order. */
static void test_many(void)
{
	enum { N = 20000 };
	char err[256] = "", method[32];
	struct log *lg = log_open(fresh("many.log"), 0, err, sizeof err);
	json_t *all;
	size_t i, in_order = 0;

	if (!lg) {
		ok(0, "log_open many.log: %s", err);
		return;
	}
	for (i = 0; i < N; i++) {
		struct log_rec rec = { .conn = 1, .to = i % 2 ? DOWN : UP,
				       .kind = i % 2 ? "response" : "command", .has_id = 1,
				       .id = (int64_t)i, .method = method, .bytes = i };
		rec.method_len = (size_t)snprintf(method, sizeof method, "Runtime.evaluate%zu", i);
		log_message(lg, &rec);
		if (i % 1000 == 999)
			log_event(lg, 1, "mark", json_pack("{s:I}", "at", (json_int_t)i));
	}
	ok(size_of(path) > 0, "large output reaches the file with no log_flush");
	log_message(lg, &(struct log_rec){ .conn = 2, .to = UP, .kind = "other", .bytes = 1 });
	log_close(lg);
	all = records(path);
	is_int(json_array_size(all), N + N / 1000 + 1, "every record and event is a line");
	for (i = 0; i < json_array_size(all); i++) {
		json_t *r = json_array_get(all, i);
		size_t k = i - i / 1001;   /* messages before line i */
		if (i % 1001 == 1000)
			in_order += !strcmp(jstr(r, "kind"), "mark") && jint(r, "at") == (long long)(k - 1);
		else if (i < (size_t)N + N / 1000)
			in_order += jint(r, "id") == (long long)k && jint(r, "bytes") == (long long)k;
		else
			in_order += jint(r, "conn") == 2;
	}
	is_int(in_order, N + N / 1000 + 1, "all lines in the order written");
	json_decref(all);
}

/* One record stays buffered until log_flush, which has written it when it
 * returns: the proxy calls it before it forwards what the records say. */
static void test_flush(void)
{
	char err[256] = "";
	struct log *lg = log_open(fresh("flush.log"), 0, err, sizeof err);
	json_t *all;

	if (!lg) {
		ok(0, "log_open flush.log: %s", err);
		return;
	}
	log_message(lg, &(struct log_rec){ .conn = 2, .to = UP, .kind = "other", .bytes = 1 });
	is_int(size_of(path), 0, "one record is buffered, not written");
	log_flush(lg);
	ok(size_of(path) > 0, "log_flush has written it when it returns");
	log_flush(lg);   /* nothing buffered: nothing written */
	log_close(lg);
	all = records(path);
	ok(json_array_size(all) == 1 && jint(json_array_get(all, 0), "conn") == 2,
	   "the file holds that one record, once");
	json_decref(all);
}

/* Logs n records of about 200 bytes each through lg and closes it; returns
 * log_close's count of lost records. */
static uint64_t log_n(struct log *lg, int n)
{
	struct log_rec r = { .conn = 1, .to = UP, .kind = "command", .has_id = 1,
			     .method = "Runtime.evaluate", .method_len = 16, .bytes = 100,
			     .body = "{\"id\":1,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":"
				     "\"'a fairly long expression to make the record longer than usual'\"}}",
			     .body_len = 126 };

	for (int i = 0; i < n; i++) {
		r.id = i;
		log_message(lg, &r);
		if (i % 100 == 99)
			log_flush(lg);
	}
	return log_close(lg);
}

/* Sends stderr to the file err_path until stderr_back. */
static int stderr_to(const char *err_path)
{
	int saved = dup(2), fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	return saved;
}

static void stderr_back(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

/* A log that cannot be written (issue 14.9): every record is counted lost,
 * stderr says so once a second at most, and the device keeps its mode. */
static void test_lost(void)
{
	char err[256] = "", *text;
	int lines = 0, saved;
	struct stat before, after;
	struct log *lg;
	uint64_t lost;

	if (stat("/dev/full", &before) < 0) {
		ok(1, "# SKIP no /dev/full");
		return;
	}
	saved = stderr_to(fresh("stderr.txt"));
	lg = log_open("/dev/full", 1024, err, sizeof err);
	if (!lg) {
		stderr_back(saved);
		ok(0, "log_open /dev/full: %s", err);
		return;
	}
	log_event(lg, 0, "policy", json_object());
	log_flush(lg);
	ok(log_failed(lg), "log_failed once log_flush lost a record");
	is_int((long long)log_lost(lg), 1, "log_lost counts it");
	lost = log_n(lg, 5000);
	stderr_back(saved);
	is_int((long long)lost, 5001, "log_close returns every record lost (5000 messages, 1 event)");
	text = slurp(path, NULL);
	for (char *p = text; p && (p = strstr(p, "log write failed")); p++)
		lines++;
	ok(lines >= 1 && lines <= 3, "stderr: a line a second at most and one at the end, not one a write (%d)",
	   lines);
	ok(text && strstr(text, "5001 records lost in all"), "stderr: the total at the end");
	free(text);
	if (stat("/dev/full", &after) < 0)
		after.st_mode = 0;
	ok(after.st_mode == before.st_mode, "a device's mode is left alone (%o)",
	   (unsigned)(after.st_mode & 07777));
	is_int((long long)log_lost(NULL), 0, "log_lost(NULL) is 0");
}

/* A disk that fills up mid-write (RLIMIT_FSIZE: a short write, then EFBIG):
 * the cut record is taken off the file, so every line left parses, and lines
 * plus lost records are all the records. In a child: the limit stays there. */
static void test_cut(void)
{
	const char *p = fresh("cut.log");
	unsigned long long lost = 0;
	int fds[2], status = 0;
	pid_t pid;

	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		ok(0, "pipe and fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct rlimit rl = { 100000, 100000 };
		char err[256];
		struct log *lg = log_open(p, 1024, err, sizeof err);
		if (!lg)
			_exit(2);
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		lost = log_n(lg, 3000);
		_exit(write(fds[1], &lost, sizeof lost) == sizeof lost ? 0 : 4);
	}
	close(fds[1]);
	if (read(fds[0], &lost, sizeof lost) != sizeof lost)
		lost = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && lost > 0 && lost < 3000,
	   "past a file size limit: some records lost (%llu), status %d", lost, status);
	{
		json_t *all = records(p), *r;
		size_t i, good = 0;
		json_array_foreach(all, i, r)
			good += json_is_object(r);
		ok(json_array_size(all) > 0 && good == json_array_size(all),
		   "every line left in the file parses (%zu of %zu)", good, json_array_size(all));
		is_int((long long)(json_array_size(all) + lost), 3000, "lines in the file + lost = records logged");
		json_decref(all);
	}
}

static void cleanup(void)
{
	static const char *const names[] = {
		"new.log", "old.log", "plain", "fields.log", "escapes.log", "binary.log", "positions.log",
		"bodies.log", "big.log", "events.log", "policy.log", "many.log", "flush.log", "numbers.log",
		"stderr.txt", "cut.log", "json-bodies.log", "json-cut.log", "json-long.log",
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(fresh(names[i]));
	ok(rmdir(dir) == 0, "test directory cleaned up (no stray files)");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_open_mode();
	test_open_errors();
	test_open_not_file();
	test_fields();
	test_numbers();
	test_escapes();
	test_not_utf8();
	test_escape_positions();
	test_bodies();
	test_big_body();
	test_json_bodies();
	test_events();
	test_policy_fields();
	test_many();
	test_flush();
	test_lost();
	test_cut();
	cleanup();
	return tap_done();
}
