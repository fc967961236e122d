"""Verify OAuth-1-signed exchange requests with oauthlib's ResourceEndpoint,
for signed_test.go: an implementation of RFC 5849 that countersign did not
write checks the signature of the consumer and the token.

Reads one JSON object on stdin and writes one JSON list on stdout:

  in:  {"client_key", "client_secret", "token", "token_secret",
        "rsa_public_pem", "requests": [{"http_method", "uri", "headers", "body"}]}
  out: [{"valid", "signature", "error"}]
"""

import json
import sys

from oauthlib.oauth1 import RequestValidator, ResourceEndpoint
from oauthlib.oauth1.rfc5849 import (SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256,
                                     SIGNATURE_PLAINTEXT, SIGNATURE_RSA_SHA1,
                                     SIGNATURE_RSA_SHA256)


class Validator(RequestValidator):
    """Knows one client and one token; every check that is not about who
    signed (nonce replay, timestamp age, https) passes."""

    enforce_ssl = False
    timestamp_lifetime = 10 ** 12
    allowed_signature_methods = (SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256,
                                 SIGNATURE_RSA_SHA1, SIGNATURE_RSA_SHA256,
                                 SIGNATURE_PLAINTEXT)

    def __init__(self, job):
        super().__init__()
        self.job = job

    def check_client_key(self, client_key):
        return True

    def check_access_token(self, token):
        return True

    def check_nonce(self, nonce):
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
        return client_key == self.job["client_key"]

    def validate_access_token(self, client_key, token, request):
        return client_key == self.job["client_key"] and token == self.job["token"]

    def validate_realms(self, client_key, token, request, uri=None, realms=None):
        return True

    def get_client_secret(self, client_key, request):
        return self.job["client_secret"]

    def get_access_token_secret(self, client_key, token, request):
        return self.job["token_secret"]

    def get_rsa_key(self, client_key, request):
        return self.job.get("rsa_public_pem") or ""


def main():
    job = json.load(sys.stdin)
    endpoint = ResourceEndpoint(Validator(job))
    out = []
    for r in job["requests"]:
        try:
            valid, request = endpoint.validate_protected_resource_request(
                r["uri"], http_method=r["http_method"], body=r.get("body") or None,
                headers=r["headers"])
        except Exception as e:  # oauthlib raises more than OAuth1Error on bad input
            out.append({"valid": False, "error": "%s: %s" % (type(e).__name__, e)})
            continue
        res = {"valid": bool(valid)}
        if request is not None and "signature" in request.validator_log:
            res["signature"] = bool(request.validator_log["signature"])
        out.append(res)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
