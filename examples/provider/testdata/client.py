"""A real OAuth 1.0a client, requests-oauthlib, driving examples/provider
for restart_test.go. Each step is a subcommand; the state passes between
them in JSON files:

  setup BASE STATE USERS      for each user: two full three-legged flows and
                              an approval left unexchanged; one /api/me call
                              with each token
  traffic BASE STATE OUT      four threads of /api/me calls, temporary
                              credential requests and flows until the
                              provider stops answering (60 s at most); each
                              request answered 200, each token issued and each
                              approval is a line of OUT, written at once
  check BASE STATE OUT        replays every request of OUT answered 200,
                              calls /api/me with every token and exchanges
                              every approval; prints the figures as JSON

STATE holds the consumer key and secret, the users (USERS is a JSON list of
[name, password]) and what setup made. Every request accepted is kept as it
was sent (method, URL, headers, body), so that check replays it byte for byte.
"""

import json
import re
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

import requests
from requests_oauthlib import OAuth1, OAuth1Session

CALLBACK = "http://127.0.0.1:9/callback"  # never visited: the Location is read


def captured(resp):
    """The request resp answers, as sent."""
    req = resp.request
    body = req.body
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    # requests-oauthlib sets the Authorization header as bytes
    headers = {k: v.decode("utf-8") if isinstance(v, bytes) else v for k, v in req.headers.items()}
    return {"method": req.method, "url": req.url, "headers": headers, "body": body}


def approve(base, st, user, password):
    """Temporary credentials, approved by user on the consent page."""
    s = OAuth1Session(st["key"], client_secret=st["secret"], callback_uri=CALLBACK)
    temp = s.fetch_request_token(base + "/oauth/request_token", timeout=10)
    token = temp["oauth_token"]
    page = requests.get(base + "/oauth/authorize", params={"oauth_token": token},
                        auth=(user, password), timeout=10)
    page.raise_for_status()
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    r = requests.post(base + "/oauth/authorize", auth=(user, password), timeout=10,
                      data={"oauth_token": token, "csrf": csrf, "approve": "1"},
                      allow_redirects=False)
    if r.status_code != 303:
        raise RuntimeError("consent form answered %d: %s" % (r.status_code, r.text))
    q = parse_qs(urlsplit(r.headers["Location"]).query)
    if q["oauth_token"] != [token]:
        raise RuntimeError("the callback names another token")
    return {"user": user, "token": token, "secret": temp["oauth_token_secret"],
            "verifier": q["oauth_verifier"][0]}


def exchange(base, st, p):
    """Token credentials for the approved temporary credentials p."""
    s = OAuth1Session(st["key"], client_secret=st["secret"], resource_owner_key=p["token"],
                      resource_owner_secret=p["secret"], verifier=p["verifier"])
    tok = s.fetch_access_token(base + "/oauth/access_token", timeout=10)
    return {"user": p["user"], "token": tok["oauth_token"], "secret": tok["oauth_token_secret"]}


def me(base, st, t):
    auth = OAuth1(st["key"], st["secret"], t["token"], t["secret"])
    return requests.get(base + "/api/me", auth=auth, timeout=10)


def setup(base, state_file, users_json):
    st = json.load(open(state_file))
    st["users"] = json.loads(users_json)
    st["tokens"], st["pending"], st["accepted"] = [], [], []
    for user, password in st["users"]:
        for _ in range(2):
            t = exchange(base, st, approve(base, st, user, password))
            r = me(base, st, t)
            if r.status_code != 200 or r.json() != {"name": user}:
                raise RuntimeError("/api/me for %s answered %d: %s" % (user, r.status_code, r.text))
            st["tokens"].append(t)
            st["accepted"].append(captured(r))
        st["pending"].append(approve(base, st, user, password))
    json.dump(st, open(state_file, "w"))


def traffic(base, state_file, out_file):
    st = json.load(open(state_file))
    out = open(out_file, "a")
    lock = threading.Lock()
    counts = {"sent": 0, "accepted": 0, "refused": 0, "unanswered": 0}
    deadline = time.monotonic() + 60

    def write(kind, value):
        with lock:
            out.write(json.dumps({"kind": kind, "value": value}) + "\n")
            out.flush()

    def worker(n):
        i = n
        while time.monotonic() < deadline:
            i += 1
            user, password = st["users"][i % len(st["users"])]
            try:
                with lock:
                    counts["sent"] += 1
                if i % 10 == 0:
                    # A flow: an approval, recorded once the consent form
                    # answered, then its exchange, recorded once issued.
                    p = approve(base, st, user, password)
                    write("pending", p)
                    if i % 20 == 0:
                        # An exchange cut short by the kill may or may not
                        # have happened: check leaves it out.
                        write("exchanging", p["token"])
                        write("token", exchange(base, st, p))
                    continue
                if i % 5 == 0:
                    auth = OAuth1(st["key"], st["secret"], callback_uri=CALLBACK)
                    r = requests.post(base + "/oauth/request_token", auth=auth, timeout=10)
                else:
                    r = me(base, st, st["tokens"][i % len(st["tokens"])])
                if r.status_code == 200:
                    write("accepted", captured(r))
                    with lock:
                        counts["accepted"] += 1
                else:
                    with lock:
                        counts["refused"] += 1
            except (requests.ConnectionError, requests.Timeout):
                with lock:
                    counts["unanswered"] += 1
                return  # the provider was killed
            except Exception as e:  # a flow cut short by the kill, or a failure check reports
                with lock:
                    counts["unanswered"] += 1
                print("traffic: %s: %s" % (type(e).__name__, e), file=sys.stderr)
                return

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(counts))


def check(base, state_file, out_file):
    st = json.load(open(state_file))
    accepted, tokens, pending = list(st["accepted"]), list(st["tokens"]), list(st["pending"])
    exchanged = set()
    for line in open(out_file):
        if not line.endswith("\n"):
            continue  # cut short by the kill
        e = json.loads(line)
        {"accepted": accepted, "token": tokens, "pending": pending}.get(e["kind"], []).append(e["value"])
        if e["kind"] == "exchanging":
            exchanged.add(e["value"])
    pending = [p for p in pending if p["token"] not in exchanged]
    fig = {"replayed": 0, "refused_nonce_used": 0, "tokens": 0, "tokens_ok": 0,
           "approvals": 0, "approvals_exchanged": 0, "failures": []}
    for req in accepted:
        fig["replayed"] += 1
        r = requests.request(req["method"], req["url"], headers=req["headers"], data=req["body"], timeout=10)
        if r.status_code == 401 and parse_qs(r.text).get("oauth_problem") == ["nonce_used"]:
            fig["refused_nonce_used"] += 1
        else:
            fig["failures"].append("replay of %s %s answered %d: %s" % (req["method"], req["url"], r.status_code, r.text))
    for t in tokens:
        fig["tokens"] += 1
        r = me(base, st, t)
        if r.status_code == 200 and r.json() == {"name": t["user"]}:
            fig["tokens_ok"] += 1
        else:
            fig["failures"].append("token of %s: /api/me answered %d: %s" % (t["user"], r.status_code, r.text))
    for p in pending:
        fig["approvals"] += 1
        try:
            t = exchange(base, st, p)
            r = me(base, st, t)
            if r.status_code == 200 and r.json() == {"name": p["user"]}:
                fig["approvals_exchanged"] += 1
            else:
                fig["failures"].append("approval of %s: /api/me answered %d: %s" % (p["user"], r.status_code, r.text))
        except Exception as e:
            fig["failures"].append("approval of %s: %s: %s" % (p["user"], type(e).__name__, e))
    print(json.dumps(fig))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"setup": setup, "traffic": traffic, "check": check}[cmd](*args)
