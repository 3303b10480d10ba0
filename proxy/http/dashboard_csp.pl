#!/usr/bin/perl
# dashboard_csp.pl: prints the C definition of dashboard_csp, the
# Content-Security-Policy the dashboard (proxy/http/dashboard.html, the file
# given) is served with: its one inline <script> and one <style> allowed by
# their SHA-256, nothing else inline, and no page may frame it.
use strict;
use warnings;
use Digest::SHA qw(sha256_base64);

local $/;
my $html = <>;
my %hash;
for my $tag ('script', 'style') {
	my @all = $html =~ m{<$tag>(.*?)</$tag>}gs;
	die "$ARGV: want one <$tag>, found " . @all . "\n" unless @all == 1;
	$hash{$tag} = sha256_base64($all[0]) . '=';
}
print "const char dashboard_csp[] = \"default-src 'self'; script-src 'sha256-$hash{script}'; "
    . "style-src 'sha256-$hash{style}'; img-src data:; base-uri 'none'; form-action 'none'; "
    . "frame-ancestors 'none'\";\n";
