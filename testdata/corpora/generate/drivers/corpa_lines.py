"""Shared by the Python drivers added with corpa-*.py: the JSON-lines loop."""
import json
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
