#!/usr/bin/env perl
# Prints a guide of Documentation/ as DocC wants it. The guides are plain Markdown that works on
# a repository page, and link each other as relative files; DocC needs `doc:` links instead:
#   [Title](Guide.md)          -> [Title](doc:Guide)            (the title is kept)
#   [Title](Guide.md#anchor)   -> [Title](doc:Guide#Heading)    (a heading, as DocC names it)
#   [Title](#anchor)           -> [Title](doc:ThisGuide#Heading)
#   ![alt](Images/x.svg)       -> ![alt](x.svg)                 (a resource of the catalog)
# An anchor is the repository page's (GitHub's): the heading lowercased, its punctuation dropped,
# spaces made hyphens. DocC's is the heading itself, spaces made hyphens, without backticks and
# quotes. An anchor that names no heading is left as it is: DocC then warns, and CI fails.
# Only the `](target)` half of a link is rewritten, so a link text may span lines. Usage: guide-for-docc.pl Documentation/Guide.md
use strict;
use warnings;
use File::Basename;

my $path = shift or die "usage: $0 GUIDE.md\n";
my $directory = dirname($path);
my ($self) = basename($path) =~ /^(.*)\.md$/;

# The headings of a guide, outside code blocks: the repository page's anchor -> DocC's name.
my %headings;
sub headings_of {
    my ($name) = @_;
    return $headings{$name} if $headings{$name};
    my %found;
    open(my $file, '<', "$directory/$name.md") or return $headings{$name} = {};
    my $in_code = 0;
    while (my $line = <$file>) {
        $in_code = !$in_code if $line =~ /^\s*```/;
        next if $in_code or $line !~ /^#+\s+(.*?)\s*$/;
        my $heading = $1;
        my $anchor = lc $heading;
        $anchor =~ s/[^a-z0-9 _-]//g;
        $anchor =~ s/ /-/g;
        (my $docc = $heading) =~ s/[`'"]//g;
        $docc =~ s/\s+/-/g;
        $found{$anchor} = $docc;
    }
    return $headings{$name} = \%found;
}

sub docc_link {
    my ($name, $anchor) = @_;
    return "doc:$name" unless defined $anchor;
    my $heading = headings_of($name)->{$anchor};
    return "doc:$name#" . ($heading // $anchor);
}

open(my $in, '<', $path) or die "$path: $!\n";
my $text = do { local $/; <$in> };
$text =~ s{\]\(([A-Za-z][A-Za-z0-9]*)\.md(?:#([A-Za-z0-9_-]+))?\)}{
    -e "$directory/$1.md" ? "](" . docc_link($1, $2) . ")" : "]($1.md" . (defined $2 ? "#$2" : "") . ")"
}ge;
$text =~ s{\]\(#([A-Za-z0-9_-]+)\)}{"](" . docc_link($self, $1) . ")"}ge;
$text =~ s{\]\(Images/}{](}g;
print $text;
