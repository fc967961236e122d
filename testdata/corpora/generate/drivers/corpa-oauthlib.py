"""Signs each request of stdin (JSON lines) with Python's oauthlib (Debian
python3-oauthlib) as requests-oauthlib does for every request:
Client.sign(url, method, body, headers) with the body and Content-Type as
sent, and writes the base string it hashed (recorded by a wrapper of its
HMAC-SHA1 signature method) and the Authorization header it returns."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the drivers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oauthlib
from oauthlib.oauth1 import SIGNATURE_HMAC_SHA1, Client

from corpa_lines import debian_version, run

hashed = []
sign_hmac = Client.SIGNATURE_METHODS[SIGNATURE_HMAC_SHA1]


def recorder(base_string, client):
    hashed.append(base_string)
    return sign_hmac(base_string, client)


Client.SIGNATURE_METHODS[SIGNATURE_HMAC_SHA1] = recorder


def sign(r):
    hashed.clear()
    c = Client(r["consumer_key"], client_secret=r["consumer_secret"],
               resource_owner_key=r["token"] or None,
               resource_owner_secret=r["token_secret"] or None,
               nonce=r["nonce"], timestamp=r["timestamp"])
    headers = {"Content-Type": r["content_type"]} if r["content_type"] else {}
    uri, headers, body = c.sign(r["url"].split("#")[0], r["method"], r["body"] or None, headers)
    if len(hashed) != 1:
        raise RuntimeError("%d messages hashed" % len(hashed))
    return {"got": hashed[0], "authorization": headers["Authorization"], "url": uri, "body": body or ""}


run(debian_version("python3-oauthlib", oauthlib.__version__), sign)
