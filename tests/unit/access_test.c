/* access_test: Host, Origin and token checks. */
#include <string.h>

#include "access.h"
#include "tap.h"

int main(void)
{
	struct access_list none = { .n = 0 }, hosts = { .n = 0 }, origins = { .n = 0 };

	access_add(&hosts, "proxy.lan");
	access_add(&origins, "http://ok.test");
	ok(access_host_ok("127.0.0.1:9223", &none), "IPv4 with port");
	ok(access_host_ok("127.0.0.1", &none), "IPv4 without port");
	ok(access_host_ok("[::1]:9223", &none), "IPv6 literal");
	ok(access_host_ok("localhost:9223", &none), "localhost");
	ok(access_host_ok("LOCALHOST", &none), "localhost in capitals");
	ok(access_host_ok("", &none), "no Host at all (HTTP/1.0)");
	ok(!access_host_ok("evil.example:9223", &none), "a name is refused (DNS rebinding)");
	ok(!access_host_ok("localhost.evil.example", &none), "a name starting with localhost is refused");
	ok(!access_host_ok("127.0.0.1.evil.example", &none), "a name starting with an IP is refused");
	ok(!access_host_ok("[::1", &none), "a broken IPv6 literal is refused");
	ok(!access_host_ok("[evil]:1", &none), "brackets around a name are refused");
	ok(access_host_ok("proxy.lan:9223", &hosts), "an allowed name");
	ok(access_host_ok("PROXY.LAN", &hosts), "an allowed name in capitals");
	ok(!access_host_ok("other.lan", &hosts), "another name is still refused");

	ok(access_origin_ok(NULL, "127.0.0.1:9223", &none), "no Origin: an automation client");
	ok(access_origin_ok("", "127.0.0.1:9223", &none), "empty Origin");
	ok(!access_origin_ok("http://evil.example", "127.0.0.1:9223", &none), "a web page's Origin is refused");
	ok(access_origin_ok("http://ok.test", "127.0.0.1:9223", &origins), "an allowed Origin");
	ok(access_origin_ok("http://127.0.0.1:9223", "127.0.0.1:9223", &none), "the proxy's own origin (its dashboard)");
	ok(!access_origin_ok("http://127.0.0.1:9224", "127.0.0.1:9223", &none), "another port's page is not");
	ok(!access_origin_ok("https://127.0.0.1:9223", "127.0.0.1:9223", &none), "nor https");
	ok(!access_origin_ok("http://ok.test.evil", "127.0.0.1:9223", &origins), "a longer Origin is not the allowed one");
	access_add(&origins, "*");
	ok(access_origin_ok("http://any.test", "127.0.0.1:9223", &origins), "* allows any Origin");

	ok(access_is_loopback("127.0.0.1") && access_is_loopback("127.1.2.3"), "127/8 is loopback");
	ok(access_is_loopback("::1") && access_is_loopback("localhost"), "::1 and localhost are loopback");
	ok(!access_is_loopback("0.0.0.0") && !access_is_loopback("10.0.0.1"), "0.0.0.0 and 10/8 are not");

	{
		static const struct { const char *in, *out; } strip[] = {
			{ "token=x", "" }, { "a=1&token=x&b=2", "a=1&b=2" }, { "token=x&b=2", "b=2" },
			{ "a=1&token=x", "a=1" }, { "tokens=1&token=", "tokens=1" }, { "a=1", "a=1" },
			{ "&a=1", "&a=1" }, { "a=1&", "a=1&" }, { "a=1&&token=x&b", "a=1&&b" },
			{ "token=x&token=y", "" }, { "", "" },
		};
		for (size_t i = 0; i < sizeof strip / sizeof strip[0]; i++) {
			char q[64];
			snprintf(q, sizeof q, "%s", strip[i].in);
			access_strip_token(q);
			is_str(q, strip[i].out, "token= stripped from '%s'", strip[i].in);
		}
	}
	{
		static const struct { const char *in; int query; const char *out; } enc[] = {
			{ "/json/version", 0, "/json/version" },
			{ "/a?b#c", 0, "/a%3Fb%23c" },
			{ "http://x/?q=1", 1, "http://x/?q=1" },
			{ "a&b;c+d e%", 1, "a%26b%3Bc%2Bd%20e%25" },
			{ "\xc3\xa9\xff<>\"", 1, "%C3%A9%FF%3C%3E%22" },
		};
		char out[64];
		for (size_t i = 0; i < sizeof enc / sizeof enc[0]; i++) {
			access_encode(enc[i].in, strlen(enc[i].in), enc[i].query, out, sizeof out);
			is_str(out, enc[i].out, "encoded as %s", enc[i].out);
		}
		is_int((long long)access_encode("abc", 3, 0, out, 3), -1, "no room: (size_t)-1");
		is_int((long long)access_encode("\x01", 1, 0, out, 3), -1, "no room for %%XX: (size_t)-1");
		is_int((long long)access_encode("\0", 1, 0, out, 4), 3, "a NUL byte is %%00");
	}
	ok(access_is_loopback("0:0:0:0:0:0:0:1"), "::1 written out is loopback");
	ok(!access_is_loopback("::") && !access_is_loopback("::2"), ":: and ::2 are not loopback");
	is_int(access_token_arg("s3cret", "token=s3cret", 12), 1, "token_arg: the token");
	is_int(access_token_arg("s3cret", "token=a&b", 9), -1, "token_arg: another token");
	is_int(access_token_arg("a&b", "token=a&b", 9), 1, "token_arg: a decoded '&' is part of it");
	is_int(access_token_arg("s3cret", "token=s3cret", 11), -1, "token_arg: only n bytes count");
	is_int(access_token_arg("s3cret", "tokens=1", 8), 0, "token_arg: tokens= is no token");
	ok(access_token_ok("s3cret", "Bearer s3cret", NULL), "bearer token");
	ok(access_token_ok("s3cret", "bearer s3cret", NULL), "bearer in lower case");
	ok(!access_token_ok("s3cret", "Bearer s3cre", NULL), "a prefix of the token is refused");
	ok(!access_token_ok("s3cret", "Bearer s3cretx", NULL), "a longer token is refused");
	ok(!access_token_ok("s3cret", "Basic s3cret", NULL), "another scheme is refused");
	ok(!access_token_ok("s3cret", NULL, NULL), "no token is refused");
	ok(access_token_ok("s3cret", NULL, "token=s3cret"), "token in the query");
	ok(access_token_ok("s3cret", NULL, "a=1&token=s3cret&b=2"), "token among other arguments");
	ok(!access_token_ok("s3cret", NULL, "xtoken=s3cret"), "xtoken= is not token=");
	ok(!access_token_ok("s3cret", NULL, "token=s3cre&x=t"), "a short token in the query is refused");
	return tap_done();
}
