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
		/* Targets as clients write them: only token= arguments go, every
		 * other byte stays, separators ('&' or ';', as lws reads them) too. */
		static const struct { const char *in, *out; } strip[] = {
			{ "/json?token=x", "/json" }, { "/j?a=1&token=x&b=2", "/j?a=1&b=2" },
			{ "/j?token=x&b=2", "/j?b=2" }, { "/j?a=1&token=x", "/j?a=1" },
			{ "/j?tokens=1&token=", "/j?tokens=1" }, { "/j?a=1", "/j?a=1" },
			{ "/j?&a=1", "/j?&a=1" }, { "/j?a=1&", "/j?a=1&" }, { "/j?a=1&&token=x&b", "/j?a=1&&b" },
			{ "/j?token=x&token=y", "/j" }, { "/j", "/j" }, { "/j?", "/j?" },
			{ "/json/new?data:text/html;charset=utf-8,a+b%20c", "/json/new?data:text/html;charset=utf-8,a+b%20c" },
			{ "/json/new?https://x.invalid/?q=1&r=2", "/json/new?https://x.invalid/?q=1&r=2" },
			{ "/json/new?a%2Fb%3Fc%26d", "/json/new?a%2Fb%3Fc%26d" },
			{ "/j?a=1;token=x&b=2", "/j?a=1&b=2" }, { "/j?a=1&token=x;b=2", "/j?a=1;b=2" },
			{ "/j?%74ok%65n=x&b", "/j?b" }, { "/j?token%3Dx&b", "/j?token%3Dx&b" },
			{ "/a%3Ftoken=x", "/a%3Ftoken=x" }, { "/j?TOKEN=x", "/j?TOKEN=x" },
		};
		for (size_t i = 0; i < sizeof strip / sizeof strip[0]; i++) {
			char out[128];
			size_t n = access_strip_token(strip[i].in, strlen(strip[i].in), out);
			is_str(out, strip[i].out, "'%s' passed on as '%s'", strip[i].in, strip[i].out);
			is_int((long long)n, (long long)strlen(strip[i].out), "... its length");
		}
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
