package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
//
// (../README.md lists them all, with the packages they need).
var debianDrivers = map[string]driver{
	// PHP.
	"horde-oauth": debian("php-horde-oauth", external("php", "drivers/horde-oauth.php")),
	// Java.
	"signpost":     debian("liboauth-signpost-java", java("drivers/signpost.java", "signpost-core", "signpost-commonshttp4", "httpclient", "httpcore", "commons-codec", "commons-logging", "gson")),
	"google-oauth": debian("libgoogle-oauth-client-java", java("drivers/google-oauth.java", "google-oauth-client", "google-http-client", "guava", "gson", "opencensus-api", "opencensus-contrib-http-util", "grpc-context", "jsr305")),
	// C# on Mono.
	"gdata-oauth": debian("libgdata2.1-cil", csharp("drivers/gdata-oauth.cs", "Google.GData.Client-2.2/Google.GData.Client.dll", "Newtonsoft.Json-5.0/Newtonsoft.Json.dll")),
	// Haskell.
	"authenticate-oauth": debian("libghc-authenticate-oauth-dev", external("runghc", "drivers/authenticate-oauth.hs")),
	// C++, built at generate time.
	"qt5-networkauth": debian("libqt5networkauth5-dev", cxx("drivers/qoauth1.cpp", []string{"Qt5NetworkAuth", "Qt5Network", "Qt5Core"})),
	"qt6-networkauth": debian("qt6-networkauth-dev", cxx("drivers/qoauth1.cpp", []string{"Qt6NetworkAuth", "Qt6Network", "Qt6Core"})),
	// libqoauth's qoauth.pc names Qt 4's modules: its flags are given.
	"qoauth": debian("libqoauth-dev", cxx("drivers/qoauth.cpp", []string{"qca2-qt5", "Qt5Network", "Qt5Core"}, "-I/usr/include/QtOAuth", "-lqoauth")),
	// Tcl, R, Emacs Lisp.
	"tcllib-oauth":    debian("tcllib", external("tclsh", "drivers/tcllib-oauth.tcl")),
	"twittering-mode": debian("twittering-mode", external("emacs", "--batch", "-Q", "-L", "/usr/share/emacs/site-lisp/twittering-mode", "-l", "twittering-mode", "-l", "drivers/twittering-mode.el")),
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
// pkg as installed, followed by the one the driver reported, if any (that
// of a library within a larger package).
func debian(pkg string, d driver) driver {
	return func(rs []request) ([]result, error) {
		out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
		if err != nil {
			return nil, fmt.Errorf("dpkg-query %s: %v (is it installed?)", pkg, err)
		}
		res, err := d(rs)
		for i := range res {
			v := pkg + " " + strings.TrimSpace(string(out))
			if res[i].Version != "" { // the library's own, within the package
				v += " (" + res[i].Version + ")"
			}
			res[i].Version = v
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

// cxx builds the C++ program src with g++ against the pkg-config modules
// pkgs (and the flags extra), in a temporary directory, and runs it. It is
// built -rdynamic, so that a function it defines can stand in for a shared
// library's.
func cxx(src string, pkgs []string, extra ...string) driver {
	return func(rs []request) ([]result, error) {
		dir, err := os.MkdirTemp("", "generate-cxx")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		flags, err := exec.Command("pkg-config", append([]string{"--cflags", "--libs"}, pkgs...)...).Output()
		if err != nil {
			return nil, fmt.Errorf("pkg-config %s: %v", strings.Join(pkgs, " "), err)
		}
		bin := filepath.Join(dir, "driver")
		args := append([]string{"-std=c++17", "-O1", "-fPIC", "-rdynamic", "-o", bin, src}, strings.Fields(string(flags))...)
		args = append(append(args, extra...), "-ldl")
		cmd := exec.Command("g++", args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("g++ %s: %v", src, err)
		}
		return external(bin)(rs)
	}
}

// csharp builds the C# program src with Mono's mcs against the assemblies
// dlls (paths under /usr/lib/cli), in a temporary directory, and runs it
// with mono.
func csharp(src string, dlls ...string) driver {
	return func(rs []request) ([]result, error) {
		dir, err := os.MkdirTemp("", "generate-cs")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		exe := filepath.Join(dir, "driver.exe")
		args := []string{"-out:" + exe}
		var path []string
		for _, d := range dlls {
			args = append(args, "-r:/usr/lib/cli/"+d)
			path = append(path, filepath.Dir("/usr/lib/cli/"+d))
		}
		cmd := exec.Command("mcs", append(args, src)...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("mcs %s: %v", src, err)
		}
		os.Setenv("MONO_PATH", strings.Join(path, ":"))
		defer os.Unsetenv("MONO_PATH")
		return external("mono", exe)(rs)
	}
}
