#!/usr/bin/env python3
"""A stand-in for the WHO ICD-API v2 (https://icd.who.int/docs/icd-api/APIDoc-Version2/)
for MedVault's tests: the token endpoint, MMS search, codeinfo and entity answers,
shaped as the WHO documents them, with switches for every failure the client must
survive. Python standard library only.

Usage: icd_api_server.py [--expires-in SECONDS]
Listens on 127.0.0.1 on a free port and prints "PORT <n>" on standard output, then
serves until killed (the tests stop it).

Endpoints (as the WHO's):
  POST /connect/token                         client credentials -> {"access_token", "expires_in", ...}
  GET  /icd/release/11/<release>/mms/search?q=...       {"destinationEntities": [...]} with <em class='found'>
  GET  /icd/release/11/<release>/mms/codeinfo/<code>    {"code", "stemId"}
  GET  /icd/release/11/<release>/mms/<id>               the entity: "@id", "code", "title", "source", ...
Control (tests only):
  POST /_control?scenario=NAME[&expires_in=N][&retry_after=V][&delay=S]
  POST /_control/revoke                       every token issued so far is refused (401) from now on
  GET  /_control/stats                        {"token_requests", "api_requests", "redirected_authorizations", ...}

Scenarios: normal; unauthorized (401 to every API call); token_refused (the token
endpoint answers 400 invalid_client); rate_limited (429 + Retry-After); server_error
(500); slow (answers after `delay` seconds); truncated (half a JSON body); malformed
(not JSON); huge (a valid 9 MiB answer); hostile (titles with ESC and a bidi override); redirect (302 to this
server's /_control/stolen, which counts the Authorization headers it receives).

Credentials accepted: client_id "medvault-test-client", client_secret "medvault-test-secret".
The titles below are test fixtures for the client's parsing, not a catalogue.
"""
import json
import os
import signal
import sys
import threading
import time
import unicodedata
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# Seconds a token stays accepted past its advertised expires_in (OAuth servers allow for
# clock skew): the client's own expiry is what the tests check, and a loaded test
# machine must not turn a 1-second token into a spurious 401. Revocation is immediate.
TOKEN_LEEWAY = 30

CLIENT_ID = "medvault-test-client"
CLIENT_SECRET = "medvault-test-secret"

# code -> (linearization id, titles by language)
ENTITIES = {
    "6A70": ("578635574", {"en": "Single episode depressive disorder",
                           "es": "Trastorno depresivo de episodio único"}),
    "6A71": ("1194756772", {"en": "Recurrent depressive disorder",
                            "es": "Trastorno depresivo recurrente"}),
    "6A72": ("1222433583", {"en": "Dysthymic disorder", "es": "Trastorno distímico"}),
    "6B00": ("1712535455", {"en": "Generalised anxiety disorder",
                            "es": "Trastorno de ansiedad generalizada"}),
}
# Synonyms the search also matches (the WHO's search matches synonyms and index terms).
SYNONYMS = {"578635574": "depresión depression", "1194756772": "depresión depression",
            "1222433583": "depresión depression", "76398729": "depresión depression"}
# A block: search hits without a code, which the client skips.
BLOCK = ("76398729", {"en": "Depressive disorders", "es": "Trastornos depresivos"})


class State:
    def __init__(self, expires_in):
        self.lock = threading.Lock()
        self.scenario = "normal"
        self.expires_in = expires_in
        self.retry_after = "7"
        self.delay = 3.0
        self.tokens = {}  # token -> expiry (monotonic)
        self.token_requests = 0
        self.api_requests = 0
        self.unauthorized_answers = 0
        self.redirected_authorizations = 0
        self.missing_headers = 0


def fold(text):
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def words(text):
    current, out = "", []
    for c in fold(text):
        if c.isalnum():
            current += c
        elif current:
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def highlighted(title, query_words):
    """The title with each word that a query word prefixes in <em class='found'>."""
    out, current = "", ""
    for c in title + " ":
        if c.isalnum():
            current += c
            continue
        if current:
            hit = any(fold(current).startswith(q) for q in query_words)
            out += "<em class='found'>" + current + "</em>" if hit else current
            current = ""
        out += c
    return out[:-1]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # quiet: nothing, and never a secret, is logged

    @property
    def state(self):
        return self.server.state

    def send_json(self, status, body, headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode("utf-8") if length else ""

    # -- POST: token and control

    def do_POST(self):
        url = urlsplit(self.path)
        body = self.read_body()
        state = self.state
        if url.path == "/_control":
            query = parse_qs(url.query)
            with state.lock:
                state.scenario = query.get("scenario", [state.scenario])[0]
                if "expires_in" in query:
                    state.expires_in = int(query["expires_in"][0])
                if "retry_after" in query:
                    state.retry_after = query["retry_after"][0]
                if "delay" in query:
                    state.delay = float(query["delay"][0])
            return self.send_json(200, {"ok": True})
        if url.path == "/_control/revoke":
            with state.lock:
                state.tokens.clear()
            return self.send_json(200, {"ok": True})
        if url.path == "/connect/token":
            form = parse_qs(body)
            with state.lock:
                state.token_requests += 1
                scenario = state.scenario
                expires_in = state.expires_in
            time.sleep(0.2)  # a slow token endpoint makes concurrent callers overlap
            if scenario == "token_refused":
                return self.send_json(400, {"error": "invalid_client"})
            if (form.get("grant_type") != ["client_credentials"] or form.get("scope") != ["icdapi_access"]
                    or form.get("client_id") != [CLIENT_ID] or form.get("client_secret") != [CLIENT_SECRET]):
                return self.send_json(400, {"error": "invalid_client"})
            token = "tok-" + uuid.uuid4().hex
            with state.lock:
                state.tokens[token] = time.monotonic() + expires_in + TOKEN_LEEWAY
            return self.send_json(200, {"access_token": token, "expires_in": expires_in,
                                        "token_type": "Bearer", "scope": "icdapi_access"})
        return self.send_json(404, {"error": "no such endpoint"})

    # -- GET: the API

    def do_GET(self):
        url = urlsplit(self.path)
        state = self.state
        if url.path == "/_control/stats":
            with state.lock:
                return self.send_json(200, {
                    "token_requests": state.token_requests, "api_requests": state.api_requests,
                    "unauthorized_answers": state.unauthorized_answers,
                    "redirected_authorizations": state.redirected_authorizations,
                    "missing_headers": state.missing_headers})
        if url.path == "/_control/stolen":
            with state.lock:
                if self.headers.get("Authorization"):
                    state.redirected_authorizations += 1
            return self.send_json(200, {"destinationEntities": []})
        with state.lock:
            state.api_requests += 1
            scenario = state.scenario
            delay = state.delay
            retry_after = state.retry_after
        if self.headers.get("API-Version") != "v2" or not self.headers.get("Accept-Language"):
            with state.lock:
                state.missing_headers += 1
            return self.send_json(400, {"error": "API-Version v2 and Accept-Language are required"})
        if not self.authorized():
            with state.lock:
                state.unauthorized_answers += 1
            return self.send_json(401, {"error": "unauthorized"})
        if scenario == "rate_limited":
            return self.send_json(429, {"error": "too many requests"}, {"Retry-After": retry_after})
        if scenario == "server_error":
            return self.send_json(500, {"error": "internal"})
        if scenario == "slow":
            time.sleep(delay)
        if scenario == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:%d/_control/stolen" % self.server.server_port)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status, body = self.answer(url, self.headers.get("Accept-Language").split(",")[0].strip(), scenario)
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if scenario == "truncated" and status == 200:
            data = data[: len(data) // 2]
        elif scenario == "malformed" and status == 200:
            data = b"{\"destinationEntities\": [ this is not JSON"
        elif scenario == "huge" and status == 200:
            data = b"{\"destinationEntities\": [" + b" " * (9 << 20) + b"]}"  # valid JSON, 9 MiB
        return self.send_json(status, data)

    def authorized(self):
        if self.server.open_access:
            return True
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Bearer "):
            return False
        with self.state.lock:
            if self.state.scenario == "unauthorized":
                return False
            expiry = self.state.tokens.get(header[len("Bearer "):])
        return expiry is not None and time.monotonic() < expiry

    def answer(self, url, language, scenario):
        parts = url.path.strip("/").split("/")
        if len(parts) < 6 or parts[:3] != ["icd", "release", "11"] or parts[4] != "mms":
            return 404, {"error": "not found"}
        release = parts[3]
        base = "http://id.who.int/icd/release/11/%s/mms/" % release
        rest = parts[5:]

        def title(titles):
            text = titles.get(language, titles["en"])
            if scenario == "hostile":
                text = text + "\u001b[31m\u202e"
            return text

        if rest == ["search"]:
            query_words = words(parse_qs(url.query).get("q", [""])[0])
            hits = []
            for lin_id, titles in [BLOCK] + [(v[0], v[1]) for v in ENTITIES.values()]:
                code = next((c for c, v in ENTITIES.items() if v[0] == lin_id), "")
                title_words = (words(titles.get(language, titles["en"])) + words(code)
                               + words(SYNONYMS.get(lin_id, "")))
                if query_words and all(any(w.startswith(q) for w in title_words) for q in query_words):
                    hits.append({"id": base + lin_id, "title": highlighted(title(titles), query_words),
                                 "stemId": base + lin_id, "isLeaf": bool(code), "postcoordinationAvailability": 1,
                                 "hasCodingNote": False, "hasMaternalChapterLink": False, "matchingPVs": [],
                                 "propertiesTruncated": False, "isResidualOther": False,
                                 "isResidualUnspecified": False, "chapter": "06", "theCode": code,
                                 "score": 1.0, "titleIsASearchResult": True, "titleIsTopScore": True,
                                 "entityType": 0, "important": True, "descendants": []})
            return 200, {"error": False, "errorMessage": None, "resultChopped": False,
                         "wordSuggestionsChopped": False, "guessType": 0,
                         "uniqueSearchId": str(uuid.uuid4()), "words": None, "destinationEntities": hits}
        if len(rest) == 2 and rest[0] == "codeinfo":
            entry = ENTITIES.get(rest[1])
            if entry is None:
                return 404, {"error": "code not found"}
            return 200, {"code": rest[1], "stemId": base + entry[0]}
        if len(rest) == 1:
            for code, (lin_id, titles) in ENTITIES.items():
                if lin_id == rest[0]:
                    lang = language if language in titles else "en"
                    return 200, {"@context": "http://id.who.int/icd/contexts/contextForLinearizationEntity.json",
                                 "@id": base + lin_id, "parent": [base + BLOCK[0]], "code": code,
                                 "source": "http://id.who.int/icd/entity/" + lin_id, "classKind": "category",
                                 "title": {"@language": lang, "@value": title(titles)},
                                 "browserUrl": "https://icd.who.int/browse/%s/mms/en#%s" % (release, lin_id)}
        return 404, {"error": "not found"}


def main():
    expires_in = 3600
    open_access = False
    args = sys.argv[1:]
    if "--expires-in" in args:
        expires_in = int(args[args.index("--expires-in") + 1])
    if "--open" in args:
        open_access = True  # a local ICD-API container: no token needed
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(expires_in)
    server.open_access = open_access
    # The test process may run with SIGTERM ignored, which a child inherits: restore it.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # Standard input is a pipe the test holds: when the test process ends, even killed,
    # the pipe closes and the server goes with it. Never an orphan.
    def watch_parent():
        sys.stdin.buffer.read()
        os._exit(0)
    threading.Thread(target=watch_parent, daemon=True).start()
    print("PORT %d" % server.server_port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
