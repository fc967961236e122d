"""Sign and verify OAuth 1.0 requests with oauthlib, for interop_test.go.

Reads one JSON object on stdin and writes one on stdout:

  in:  {"clients": [{"key", "secret", "rsa_public_pem"}],
        "tokens":  [{"client", "token", "secret"}],
        "sign":    [{"client_key", "client_secret", "token", "token_secret",
                     "rsa_private_pem", "method", "type" ("header", "query"
                     or "body"), "realm", "callback", "nonce", "timestamp",
                     "http_method", "uri", "content_type", "body"}],
        "verify":  [{"http_method", "uri", "headers", "body"}]}
  out: {"sign":   [{"uri", "headers", "body", "error"}],
        "verify": [{"valid", "realm", "error"}]}

A request that oauthlib refuses to sign or cannot parse comes back with
"error" set, never as an exception: the Go test decides what it means.
"""

import json
import sys

from oauthlib.oauth1 import Client, RequestValidator, SignatureOnlyEndpoint
from oauthlib.oauth1.rfc5849 import (SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256,
                                     SIGNATURE_HMAC_SHA512, SIGNATURE_PLAINTEXT,
                                     SIGNATURE_RSA_SHA1, SIGNATURE_RSA_SHA256,
                                     SIGNATURE_RSA_SHA512, SIGNATURE_TYPE_AUTH_HEADER,
                                     SIGNATURE_TYPE_BODY, SIGNATURE_TYPE_QUERY)

TYPES = {"header": SIGNATURE_TYPE_AUTH_HEADER, "query": SIGNATURE_TYPE_QUERY,
         "body": SIGNATURE_TYPE_BODY}


class Validator(RequestValidator):
    """Strict about signatures only: every check that is not the signature
    (key and nonce formats, timestamp age, nonce replay, realms, https)
    passes, so that a refusal can only mean the signature did not match."""

    def __init__(self, clients, tokens):
        super().__init__()
        self.clients = {c["key"]: c for c in clients}
        self.tokens = {(t["client"], t["token"]): t["secret"] for t in tokens}

    # oauthlib's own limits, looser than RFC 5849 requires of a client,
    # are switched off: see "oauthlib's deviations" in interop_test.go.
    enforce_ssl = False
    timestamp_lifetime = 10 ** 12
    allowed_signature_methods = (SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256,
                                 SIGNATURE_HMAC_SHA512, SIGNATURE_RSA_SHA1,
                                 SIGNATURE_RSA_SHA256, SIGNATURE_RSA_SHA512,
                                 SIGNATURE_PLAINTEXT)

    def check_client_key(self, client_key):
        return True

    def check_nonce(self, nonce):
        return True

    def check_access_token(self, request_token):
        return True

    @property
    def dummy_client(self):
        return "dummy client"

    @property
    def dummy_access_token(self):
        return "dummy token"

    def validate_timestamp_and_nonce(self, client_key, timestamp, nonce, request,
                                     request_token=None, access_token=None):
        return True

    def validate_client_key(self, client_key, request):
        return client_key in self.clients

    def get_client_secret(self, client_key, request):
        return self.clients.get(client_key, {}).get("secret") or "dummy secret"

    def get_access_token_secret(self, client_key, token, request):
        return self.tokens.get((client_key, token), "dummy token secret")

    def get_rsa_key(self, client_key, request):
        return self.clients.get(client_key, {}).get("rsa_public_pem") or DUMMY_RSA_KEY


DUMMY_RSA_KEY = None  # set from the first client with a key


def sign(c):
    client = Client(c["client_key"],
                    client_secret=c.get("client_secret") or None,
                    resource_owner_key=c.get("token") or None,
                    resource_owner_secret=c.get("token_secret") or None,
                    signature_method=c["method"],
                    signature_type=TYPES[c["type"]],
                    rsa_key=c.get("rsa_private_pem") or None,
                    realm=c.get("realm") or None,
                    callback_uri=c.get("callback") or None,
                    nonce=c["nonce"],
                    timestamp=c["timestamp"])
    headers = {}
    if c.get("content_type"):
        headers["Content-Type"] = c["content_type"]
    body = c.get("body")
    if body == "":
        body = None
    try:
        uri, headers, body = client.sign(c["uri"], http_method=c["http_method"],
                                         body=body, headers=headers)
    except ValueError as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}
    return {"uri": uri, "headers": dict(headers), "body": body or ""}


def verify(endpoint, c):
    try:
        valid, request = endpoint.validate_request(c["uri"], c["http_method"],
                                                   c.get("body") or None, c["headers"])
    except Exception as e:  # oauthlib raises more than OAuth1Error on bad input
        return {"valid": False, "error": "%s: %s" % (type(e).__name__, e)}
    out = {"valid": bool(valid)}
    if request is not None:
        if request.realm is not None:
            out["realm"] = request.realm
        if "signature" in request.validator_log:
            out["signature"] = bool(request.validator_log["signature"])
    return out


def main():
    global DUMMY_RSA_KEY
    job = json.load(sys.stdin)
    for c in job.get("clients", []):
        if c.get("rsa_public_pem") and DUMMY_RSA_KEY is None:
            DUMMY_RSA_KEY = c["rsa_public_pem"]
    endpoint = SignatureOnlyEndpoint(Validator(job.get("clients", []), job.get("tokens", [])))
    out = {"sign": [sign(c) for c in job.get("sign", [])],
           "verify": [verify(endpoint, c) for c in job.get("verify", [])]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
