// Command proxy writes a module proxy directory, as GOPROXY=file://DIR
// reads it, for modules of this repository at one commit: for each module
// the list file and the version's .info, .mod and .zip, laid out and named
// as a module proxy serves them. The zip is made with golang.org/x/mod/zip
// from the commit (git archive), as the Go command makes it from a tag, so
// it holds what a user would download, and no file of the work tree that is
// not committed.
//
//	go run . -repo ROOT -rev HEAD -version v0.9.0 -out DIR . redisstore
//
// Each argument is a module's directory in the repository; the version is
// the same for all of them (the tags are v0.9.0 and redisstore/v0.9.0). It
// prints, per module, the go.sum lines that its zip and go.mod hash to.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the repository's work tree")
	rev := flag.String("rev", "HEAD", "the commit to publish")
	version := flag.String("version", "", "the version to publish, such as v0.9.0")
	out := flag.String("out", "", "the proxy directory to write (GOPROXY=file://DIR)")
	flag.Parse()
	if *version == "" || *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: proxy -repo ROOT -rev REV -version vX.Y.Z -out DIR moduledir...")
		os.Exit(2)
	}
	if err := run(*repo, *rev, *version, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
}

// info is the .info file: what a proxy serves for a version.
type info struct {
	Version string
	Time    time.Time
	Origin  *origin `json:",omitempty"`
}

type origin struct {
	VCS    string
	Subdir string `json:",omitempty"`
	Hash   string
	Ref    string `json:",omitempty"`
}

func run(repo, rev, version, out string, dirs []string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version || semver.Build(version) != "" {
		return fmt.Errorf("version %q is not a canonical semantic version", version)
	}
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	hash, err := git(repo, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return err
	}
	hash = strings.TrimSpace(hash)
	when, err := git(repo, "show", "-s", "--format=%ct", hash)
	if err != nil {
		return err
	}
	var unix int64
	if _, err := fmt.Sscan(when, &unix); err != nil {
		return fmt.Errorf("commit time %q: %v", when, err)
	}
	t := time.Unix(unix, 0).UTC()

	for _, dir := range dirs {
		subdir := path.Clean(filepath.ToSlash(dir))
		if subdir == "." {
			subdir = ""
		}
		if err := publish(repo, hash, subdir, version, t, out); err != nil {
			return fmt.Errorf("module in %q: %w", dir, err)
		}
	}
	return nil
}

func publish(repo, hash, subdir, version string, t time.Time, out string) error {
	gomod := "go.mod"
	tag := version
	if subdir != "" {
		gomod = subdir + "/go.mod"
		tag = subdir + "/" + version
	}
	modData, err := git(repo, "show", hash+":"+gomod)
	if err != nil {
		return err
	}
	mf, err := modfile.ParseLax(gomod, []byte(modData), nil)
	if err != nil {
		return err
	}
	if mf.Module == nil {
		return fmt.Errorf("%s has no module line", gomod)
	}
	modPath := mf.Module.Mod.Path
	if err := module.CheckPath(modPath); err != nil {
		return err
	}
	if _, major, _ := module.SplitPathVersion(modPath); major != "" && major != "/"+semver.Major(version) {
		return fmt.Errorf("module %s cannot have version %s", modPath, version)
	}
	m := module.Version{Path: modPath, Version: version}

	escPath, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	escVers, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(vdir, escVers)

	// The zip, from the commit, checked as the Go command checks a download.
	zipFile := base + ".zip"
	f, err := os.Create(zipFile)
	if err != nil {
		return err
	}
	if err := createZip(f, m, repo, hash, subdir); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	checked, err := zip.CheckZip(m, zipFile)
	if err != nil {
		return err
	}
	if err := checked.Err(); err != nil {
		return err
	}
	st, err := os.Stat(zipFile)
	if err != nil {
		return err
	}

	if err := os.WriteFile(base+".mod", []byte(modData), 0o644); err != nil {
		return err
	}
	inf, err := json.Marshal(info{
		Version: version,
		Time:    t,
		Origin:  &origin{VCS: "git", Subdir: subdir, Hash: hash, Ref: "refs/tags/" + tag},
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".info", inf, 0o644); err != nil {
		return err
	}

	// The list file: every version this directory holds, one a line.
	listFile := filepath.Join(vdir, "list")
	var versions []string
	if old, err := os.ReadFile(listFile); err == nil {
		versions = strings.Fields(string(old))
	}
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	semver.Sort(versions)
	if err := os.WriteFile(listFile, []byte(strings.Join(versions, "\n")+"\n"), 0o644); err != nil {
		return err
	}

	zipHash, err := dirhash.HashZip(zipFile, dirhash.Hash1)
	if err != nil {
		return err
	}
	modHash, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(modData)), nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s (tag %s, commit %.12s): %d files, %d bytes zipped, %d omitted\n",
		modPath, version, tag, hash, len(checked.Valid), st.Size(), len(checked.Omitted))
	fmt.Printf("\t%s %s %s\n\t%s %s/go.mod %s\n", modPath, version, zipHash, modPath, version, modHash)
	return nil
}

// createZip writes the module zip of m from the commit hash. CreateFromVCS
// wants a repository whose .git is a directory; in a linked work tree (git
// worktree), where .git is a file, the commit is exported with git archive
// (which honours export-ignore, as CreateFromVCS does) and zipped from there.
func createZip(w io.Writer, m module.Version, repo, hash, subdir string) error {
	err := zip.CreateFromVCS(w, m, repo, hash, subdir)
	if _, ok := errors.AsType[*zip.UnrecognizedVCSError](err); !ok {
		return err
	}
	tmp, err := os.MkdirTemp("", "countersign-archive-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	archive := exec.Command("git", "-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=tar", hash)
	archive.Dir = repo
	extract := exec.Command("tar", "-x", "-C", tmp)
	if extract.Stdin, err = archive.StdoutPipe(); err != nil {
		return err
	}
	var stderr bytes.Buffer
	archive.Stderr, extract.Stderr = &stderr, &stderr
	if err := extract.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		extract.Wait()
		return fmt.Errorf("git archive: %v: %s", err, stderr.String())
	}
	if err := extract.Wait(); err != nil {
		return fmt.Errorf("tar -x: %v: %s", err, stderr.String())
	}
	return zip.CreateFromDir(w, m, filepath.Join(tmp, filepath.FromSlash(subdir)))
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
