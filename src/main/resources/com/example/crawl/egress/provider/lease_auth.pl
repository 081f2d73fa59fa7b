#!/usr/bin/perl
# Squid's Basic authentication helper, as egress-proxies-operator writes it for every proxy it
# runs. It accepts two kinds of credentials:
#
#   - the proxy's own, which only the operator's health probe uses: a "user:crypt hash" line of
#     the password file;
#   - a lease's: username "lease.<minted ms>.<expires ms>.<lease digest>", password the first 32
#     hex characters of HMAC-SHA256(lease key, username). Accepted until the expiry; where the
#     proxy can reach the operator (an operator URL is given), also only while the operator's
#     lease list names the lease, or the lease is newer than that list.
#
# Arguments: <password file> <lease key file> [<operator URL> <namespace/name>]
# Squid's helper protocol: one "username password" line in (URL-escaped), one OK or ERR out.
use strict;
use warnings;
use Digest::SHA qw(hmac_sha256_hex);
use Time::HiRes qw(time);

my ($password_file, $key_file, $operator, $proxy) = @ARGV;
die "usage: $0 <password file> <lease key file> [<operator URL> <namespace/name>]\n"
    unless defined $key_file && defined($operator) == defined($proxy);
my $REFRESH = 2;    # seconds a lease list is used before it is asked for again
my $TIMEOUT = 1;    # seconds asking for it may take

my %hashes;
open(my $passwords, '<', $password_file) or die "cannot read $password_file: $!\n";
while (my $line = <$passwords>) {
    chomp $line;
    my ($user, $hash) = split /:/, $line, 2;
    $hashes{$user} = $hash if defined $hash && $hash ne '';
}
close $passwords;
open(my $keys, '<', $key_file) or die "cannot read $key_file: $!\n";
my $key_hex = <$keys>;
close $keys;
chomp $key_hex if defined $key_hex;
die "$key_file does not hold a lease key\n" unless defined $key_hex && $key_hex =~ /^[0-9a-f]{64}$/;
my $key = pack('H*', $key_hex);

my ($http, $list_url, $list_token);
if (defined $operator) {
    require HTTP::Tiny;
    $http = HTTP::Tiny->new(timeout => $TIMEOUT, agent => 'egress-lease-auth/1');
    $operator =~ s{/+$}{};
    $list_url = "$operator/v1/proxies/$proxy/leases";
    $list_token = hmac_sha256_hex("list $proxy", $key);
}
my ($as_of, %active);    # the newest list taken: its instant (operator's clock, ms) and its leases
my $asked = 0;           # when the list was last asked for (this host's clock, s)

$| = 1;
while (my $line = <STDIN>) {
    chomp $line;
    my ($user, $password) = map { unescape($_) } split / /, $line, 2;
    print(defined $password && accepted($user, $password) ? "OK\n" : "ERR\n");
}

sub unescape {
    my ($text) = @_;
    $text =~ s/%([0-9A-Fa-f]{2})/chr(hex($1))/ge;
    return $text;
}

# Compares in a time that does not depend on where two strings differ.
sub same {
    my ($left, $right) = @_;
    return 0 unless length($left) == length($right);
    my $diff = 0;
    $diff |= ord(substr($left, $_, 1)) ^ ord(substr($right, $_, 1)) for 0 .. length($left) - 1;
    return $diff == 0;
}

sub accepted {
    my ($user, $password) = @_;
    if ($user =~ /^lease\.(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/) {
        my ($minted, $expires, $digest) = ($1, $2, $3);
        return 0 unless same(substr(hmac_sha256_hex($user, $key), 0, 32), $password);
        return 0 unless time() * 1000 < $expires;
        return 1 unless defined $list_url;
        refresh() if time() - $asked >= $REFRESH;
        return 1 unless defined $as_of && $minted < $as_of;
        return exists $active{$digest} ? 1 : 0;
    }
    my $hash = $hashes{$user};
    return 0 unless defined $hash;
    my $computed = crypt($password, $hash);
    return defined $computed && same($computed, $hash) ? 1 : 0;
}

# Takes the operator's newest lease list; keeps the one it has when the operator cannot be asked,
# or answers with anything but a list of this proxy, MAC'd with its key, no older than that one.
sub refresh {
    $asked = time();
    my $answer = $http->get($list_url, { headers => { Authorization => "Lease-List $list_token" } });
    return unless $answer->{status} == 200;
    return unless $answer->{content} =~ /\A(.*\n)mac ([0-9a-f]{64})\n\z/s;
    my ($signed, $mac) = ($1, $2);
    return unless same(hmac_sha256_hex($signed, $key), $mac);
    my @lines = split /\n/, $signed;
    return unless @lines >= 3 && $lines[0] eq 'egress-lease-list v1' && $lines[1] eq "proxy $proxy"
        && $lines[2] =~ /^as-of (\d{1,15})$/;
    my $instant = $1;
    return if defined $as_of && $instant < $as_of;
    my %leases;
    for my $entry (@lines[3 .. $#lines]) {
        return unless $entry =~ /^lease ([A-Za-z0-9_-]{1,64})$/;
        $leases{$1} = 1;
    }
    ($as_of, %active) = ($instant, %leases);
}
