package main

import (
	"fmt"
	"os/exec"
	"strings"
)

// The client libraries installed from Debian's packages, in languages other
// than Go, JavaScript and Python. Each runs as a driver in drivers/ (the
// comment at its top says how it signs and where it finds the base string)
// and is versioned by its package as dpkg has it. They are registered
// here, apart from main.go's table; their entries go to
// ../more-corpb.json.gz:
//
//	go run . -libs horde-oauth,signpost,... -o ../more-corpb.json.gz
var debianDrivers = map[string]driver{
	"horde-oauth":        debian("php-horde-oauth", external("php", "drivers/horde-oauth.php")),
	"authenticate-oauth": debian("libghc-authenticate-oauth-dev", external("runghc", "drivers/authenticate-oauth.hs")),
	"google-oauth":       debian("libgoogle-oauth-client-java", java("drivers/google-oauth.java", "google-oauth-client", "google-http-client", "guava", "gson", "opencensus-api", "opencensus-contrib-http-util", "grpc-context", "jsr305")),
	"signpost":           debian("liboauth-signpost-java", java("drivers/signpost.java", "signpost-core", "signpost-commonshttp4", "httpclient", "httpcore", "commons-codec", "commons-logging", "gson")),
}

func init() {
	for name, d := range debianDrivers {
		if drivers[name] != nil {
			panic("two drivers named " + name)
		}
		drivers[name] = d
	}
}

// debian returns d with every result's version that of the Debian package
// pkg as installed.
func debian(pkg string, d driver) driver {
	return func(rs []request) ([]result, error) {
		out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
		if err != nil {
			return nil, fmt.Errorf("dpkg-query %s: %v (is it installed?)", pkg, err)
		}
		res, err := d(rs)
		for i := range res {
			res[i].Version = pkg + " " + strings.TrimSpace(string(out))
		}
		return res, err
	}
}

// java runs the single-file Java program src with the jars of Debian's
// /usr/share/java named on its class path.
func java(src string, jars ...string) driver {
	cp := make([]string, len(jars))
	for i, j := range jars {
		cp[i] = "/usr/share/java/" + j + ".jar"
	}
	return external("java", "-cp", strings.Join(cp, ":"), src)
}
