# Signs each request of stdin (JSON lines) with Perl's Net::OAuth, as its
# documentation shows: a "protected resource" request ("consumer" without
# a token) with the URL as sent and the form body's parameters, decoded to
# characters as the library asks, in extra_params (the body reported is
# that hash's, as a client would send it); and writes the base
# string it signs ($request->signature_base_string) and its Authorization
# header as JSON lines.
use strict;
use warnings;
use JSON::PP;
use Encode qw(decode_utf8);
use URI;
use URI::Escape qw(uri_escape_utf8);
use Net::OAuth;

$Net::OAuth::SKIP_UTF8_DOUBLE_ENCODE_CHECK = 1;
$| = 1;
my $json = JSON::PP->new->canonical;
while (my $line = <STDIN>) {
    my $r = $json->decode($line);
    my %out = (id => $r->{id}, version => "$Net::OAuth::VERSION");
    eval {
        my %extra;
        if ($r->{content_type} =~ m{^application/x-www-form-urlencoded}i) {
            my @kv = URI->new('http://x/?' . $r->{body})->query_form;
            while (my ($k, $v) = splice(@kv, 0, 2)) {
                $extra{decode_utf8($k)} = decode_utf8($v);
            }
        }
        my ($url) = split /#/, $r->{url}, 2;
        my %args = (
            consumer_key     => $r->{consumer_key},
            consumer_secret  => $r->{consumer_secret},
            request_url      => $url,
            request_method   => $r->{method},
            signature_method => 'HMAC-SHA1',
            timestamp        => $r->{timestamp},
            nonce            => $r->{nonce},
            extra_params     => \%extra,
        );
        my $type = 'consumer';
        if ($r->{token} ne '') {
            $type = 'protected resource';
            $args{token} = $r->{token};
            $args{token_secret} = $r->{token_secret};
        }
        my $req = Net::OAuth->request($type)->new(%args);
        $req->sign;
        $out{got} = $req->signature_base_string;
        $out{authorization} = $req->to_authorization_header;
        if (%extra) {
            # The body a client sends from the same hash: repeated names gone.
            $out{body} = join '&', map { uri_escape_utf8($_) . '=' . uri_escape_utf8($extra{$_}) } sort keys %extra;
        }
        1;
    } or do {
        my $e = $@ || 'unknown error';
        $e =~ s/\s+$//;
        $out{error} = $e;
    };
    print $json->encode(\%out), "\n";
}
