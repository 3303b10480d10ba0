#!/usr/bin/perl
# Call cycles among source files, from the symbols their objects define and use.
#
# usage: cycles.pl [--strip PREFIX]... OBJ...
# Each OBJ is one .c file compiled alone; its node in the graph is its path
# with a --strip prefix removed and .o turned into .c. "A uses a symbol B
# defines" (nm: U in A; T, D, B, R, ... in B) is an edge A -> B. Prints each
# strongly connected component of more than one file (Tarjan) as
#   cycle: A B C
#     A -> B: sym1 sym2
# with the symbols on every edge inside it; exit 1 if there is any, 0 if none,
# 2 if nm fails or a symbol other than main (each program's own) is defined
# twice: the graph would be a guess.
use strict;
use warnings;

my @strip;
while (@ARGV && $ARGV[0] =~ /^--strip(?:=(.*))?$/) {
    shift @ARGV;
    push @strip, defined $1 ? $1 : shift @ARGV;
}
die "usage: cycles.pl [--strip PREFIX]... OBJ...\n" unless @ARGV;

my (%def, %use, %node, %name);
my $bad = 0;
for my $o (@ARGV) {
    my $n = $o;
    for my $p (@strip) { last if $n =~ s/^\Q$p\E//; }
    $n =~ s/\.o$/.c/;
    $name{$o} = $n;
    $node{$n} = 1;
}
# One nm for all (-A: each line starts with "OBJ: "); objects named in order.
open(my $nm, '-|', 'nm', '-P', '-A', @ARGV) or die "cycles.pl: nm: $!\n";
while (<$nm>) {
    my ($o, $rest) = /^(.*?): (.*)$/ or next;
    my ($sym, $type) = split ' ', $rest;
    my $n = $name{$o};
    next unless defined $n && defined $type;
    if ($type eq 'U') {
        push @{$use{$n}}, $sym;
    } elsif ($type =~ /^[TDBRGSVWC]$/) {
        if (exists $def{$sym} && $def{$sym} ne $n && $type !~ /^[WV]$/ && $sym ne 'main') {
            print STDERR "cycles.pl: $sym defined in both $def{$sym} and $n\n";
            $bad = 1;
        }
        $def{$sym} = $n;
    }
}
close $nm or do { print STDERR "cycles.pl: nm failed\n"; $bad = 1; };
exit 2 if $bad;

my %edge;  # $edge{A}{B}{sym} = 1
for my $a (keys %use) {
    for my $s (@{$use{$a}}) {
        my $b = $def{$s};
        $edge{$a}{$b}{$s} = 1 if defined $b && $b ne $a;
    }
}

# Tarjan's strongly connected components, in sorted order for a stable report.
my ($index, %idx, %low, @stack, %on, @scc) = (0);
sub visit {
    my ($v) = @_;
    $idx{$v} = $low{$v} = $index++;
    push @stack, $v;
    $on{$v} = 1;
    for my $w (sort keys %{$edge{$v} || {}}) {
        if (!exists $idx{$w}) {
            visit($w);
            $low{$v} = $low{$w} if $low{$w} < $low{$v};
        } elsif ($on{$w}) {
            $low{$v} = $idx{$w} if $idx{$w} < $low{$v};
        }
    }
    return unless $low{$v} == $idx{$v};
    my @c;
    my $w;
    do { $w = pop @stack; $on{$w} = 0; push @c, $w } while ($w ne $v);
    push @scc, [sort @c] if @c > 1;
}
for my $v (sort keys %node) { visit($v) unless exists $idx{$v}; }

for my $c (sort { $a->[0] cmp $b->[0] } @scc) {
    print "cycle: @$c\n";
    my %in = map { $_ => 1 } @$c;
    for my $a (@$c) {
        for my $b (sort keys %{$edge{$a} || {}}) {
            next unless $in{$b};
            print "  $a -> $b: ", join(' ', sort keys %{$edge{$a}{$b}}), "\n";
        }
    }
}
exit(@scc ? 1 : 0);
