# Signs each request of stdin (JSON lines) with tcllib's oauth package
# (Debian tcllib, with tcl-tls, which it requires), as its manual shows:
# oauth::config with the credentials, then oauth::header of the URL, and of
# the form body when there is one (the package signs that as a POST, and
# anything else as a GET of the URL: it knows no other method). It needs an
# access token: requests without one are refused. It chooses its nonce and
# timestamp.
#
# The base string is the one its -debug mode prints ("BaseString: ...",
# the string it hands to sha1::hmac), read by a puts defined in the
# package's namespace, which its code calls before the global one.
package require json
package require json::write
package require oauth

set debug {}
proc ::oauth::puts {args} {
    append ::debug [lindex $args end] \n
}

fconfigure stdin -encoding utf-8
fconfigure stdout -encoding utf-8
while {[gets stdin line] >= 0} {
    set r [json::json2dict $line]
    set out [list id [dict get $r id] version [json::write string "oauth [package present oauth]"]]
    set debug {}
    set url [lindex [split [dict get $r url] #] 0]
    set form [string match -nocase application/x-www-form-urlencoded* [dict get $r content_type]]
    if {[catch {
        oauth::config -consumerkey [dict get $r consumer_key] -consumersecret [dict get $r consumer_secret] \
            -accesstoken [dict get $r token] -accesstokensecret [dict get $r token_secret] -debug 1
        if {$form && [dict get $r body] ne {}} {
            set h [oauth::header $url [dict get $r body]]
        } else {
            set h [oauth::header $url]
        }
        if {![regexp -line {^BaseString: (.*)$} $debug -> base]} {
            error "no base string in its debug output: $debug"
        }
        lappend out got [json::write string $base] authorization [json::write string [lindex $h 1]]
    } err]} {
        lappend out error [json::write string $err]
    }
    json::write indented 0
    puts [json::write object {*}$out]
}
