"""Shared by the Python drivers added with corpa-*.py: the JSON-lines loop."""
import json
import subprocess
import sys
import traceback


def run(version, sign):
    """Calls sign(request) for each request of stdin and writes what it
    returns, with the request's id and the library's version, as a line."""
    for line in sys.stdin:
        r = json.loads(line)
        out = {"id": r["id"], "version": version}
        try:
            out.update(sign(r))
        except Exception as e:  # the library refused the request
            out["error"] = "%s: %s" % (type(e).__name__, e)
            if "-v" in sys.argv:
                traceback.print_exc()
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


def debian_version(package, version):
    """Returns version with the Debian package's own, as "6.2 (Debian
    6.2.0-3+deb12u4)", or version alone off Debian."""
    try:
        deb = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return version
    return "%s (Debian %s)" % (version, deb)
