"""Signs each request of stdin (JSON lines) with Python's Tornado (Debian
python3-tornado), tornado.auth.OAuthMixin, as its TwitterMixin.
twitter_request does: _oauth_request_parameters(url, access_token,
all_args, method) with the URL without its query and the query's and a
form body's arguments, decoded, in one dict (the last of a repeated name);
then the query and the body sent are urlencode()d from those dicts. Writes
the base string it hashed (recorded by a stand-in for the hmac module it
calls) and an Authorization header of the protocol parameters it returns
(TwitterMixin sends them in the query). It needs an access token."""
import hashlib
import hmac
import os
import sys
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ beside the drivers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tornado
import tornado.auth

from corpa_lines import debian_version, run

hashed = []


class _Hmac:
    @staticmethod
    def new(key, msg, digestmod):
        hashed.append(msg.decode("utf-8"))
        return hmac.new(key, msg, digestmod)


tornado.auth.hmac = _Hmac


class Mixin(tornado.auth.OAuthMixin):
    _OAUTH_VERSION = "1.0a"

    def __init__(self, key, secret):
        self.token = dict(key=key, secret=secret)

    def _oauth_consumer_token(self):
        return self.token


def is_form(ct):
    return ct.split(";")[0].strip().lower() == "application/x-www-form-urlencoded"


def sign(r):
    hashed.clear()
    if not r["token"]:
        raise ValueError("no access token")
    url, _, query = r["url"].split("#")[0].partition("?")
    args = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    post_args = None
    if r["body"] and is_form(r["content_type"]):
        post_args = dict(urllib.parse.parse_qsl(r["body"], keep_blank_values=True))
    all_args = {}
    all_args.update(args)
    all_args.update(post_args or {})
    oauth = Mixin(r["consumer_key"], r["consumer_secret"])._oauth_request_parameters(
        url, dict(key=r["token"], secret=r["token_secret"]), all_args, method=r["method"])
    if len(hashed) != 1:
        raise RuntimeError("%d messages hashed" % len(hashed))
    h = "OAuth " + ", ".join('%s="%s"' % (k, urllib.parse.quote(v, safe="")) for k, v in oauth.items())
    sent = url + ("?" + urllib.parse.urlencode(args) if args else "")
    body = urllib.parse.urlencode(post_args) if post_args is not None else r["body"]
    return {"got": hashed[0], "authorization": h, "url": sent, "body": body}


run(debian_version("python3-tornado", tornado.version), sign)
