"""An HTTP proxy on loopback in front of the S3 server that fails chosen requests.

Requests are forwarded byte for byte (headers unchanged, so SigV4 signatures, which cover the
Host header the client sent, still verify). A rule picks requests by method and a substring of
the path, and either answers in the server's place (a 500 or 503 S3 error), forwards the
request and then drops the connection before the client sees the response (the request took
effect but its answer was lost), or holds the request for a while before forwarding it (a
stalled server).

s3s-fs checks a conditional PUT (If-None-Match: *) and writes the object in two steps, so
two racing conditional PUTs to one key can both succeed there. AWS S3 makes the check and the
write one step; `atomic_conditional_puts` stands in for that by letting one conditional PUT
per key reach the server at a time.

s3s-fs 0.14 has no ListMultipartUploads either: the proxy answers it in the server's place,
as AWS S3 would, from the uploads it saw the server create (POST ?uploads) and not yet
complete or abort. Aborting one (DELETE ?uploadId=) still goes to the server."""

import collections
import http.client
import http.server
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from xml.sax.saxutils import escape


@dataclass
class Rule:
    method: str
    path_contains: tuple  # every one of these substrings is in the path
    action: str  # "500", "503", "lose-response" or "stall:<seconds>"
    times: int = 1_000_000  # how many matching requests it applies to
    fired: int = 0


class FaultProxy:
    def __init__(self, upstream_port: int, atomic_conditional_puts: bool = False):
        self.upstream_port = upstream_port
        self.rules = []
        self.requests = []  # (method, path, status or action) of every request seen
        self.uploads = {}  # upload id -> (bucket, key) of the unfinished multipart uploads
        self.bytes_sent = 0  # response body bytes passed to clients
        self.lock = threading.Lock()
        self.atomic_conditional_puts = atomic_conditional_puts
        self.key_locks = collections.defaultdict(threading.Lock)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                body = self._read_body()
                rule = proxy._match(self.command, self.path)
                if rule is None and proxy._lists_uploads(self.command, self.path):
                    proxy._record(self.command, self.path, "200")
                    payload = proxy._uploads_listing(self.path).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if rule is not None and rule.action in ("500", "503"):
                    proxy._record(self.command, self.path, rule.action)
                    code = "InternalError" if rule.action == "500" else "SlowDown"
                    payload = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                               f"<Message>injected by the test proxy</Message></Error>").encode()
                    self.send_response(int(rule.action))
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if rule is not None and rule.action.startswith("stall:"):
                    proxy._record(self.command, self.path, "stalled")
                    time.sleep(float(rule.action.split(":", 1)[1]))
                headers = {key: value for key, value in self.headers.items()
                           if key.lower() not in ("transfer-encoding", "content-length")}
                if body is not None:
                    headers["Content-Length"] = str(len(body))
                conditional = self.command == "PUT" and "If-None-Match" in self.headers
                key_lock = (proxy._key_lock(self.path) if conditional and proxy.atomic_conditional_puts
                            else None)
                if key_lock is not None:
                    key_lock.acquire()
                try:
                    upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    data = response.read()
                    upstream.close()
                finally:
                    if key_lock is not None:
                        key_lock.release()
                if rule is not None and rule.action == "lose-response":
                    proxy._record(self.command, self.path, "lost")
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                proxy._record(self.command, self.path, str(response.status))
                proxy._track_upload(self.command, self.path, response.status, data)
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                        self.send_header(key, value)
                # A HEAD's length is the object's, not its (empty) body's.
                length = response.getheader("Content-Length") if self.command == "HEAD" else None
                self.send_header("Content-Length", length or str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                    with proxy.lock:
                        proxy.bytes_sent += len(data)

            def _read_body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b""):
                                pass
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                length = self.headers.get("Content-Length")
                return self.rfile.read(int(length)) if length is not None else None

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_one

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def fail(self, method: str, path_contains, action: str, times: int = 1_000_000):
        """Applies `action` to the next `times` requests of `method` whose path holds
        `path_contains` (a string, or a tuple of strings that must all be there)."""
        if isinstance(path_contains, str):
            path_contains = (path_contains,)
        with self.lock:
            self.rules.append(Rule(method, tuple(path_contains), action, times))

    def clear(self):
        with self.lock:
            self.rules.clear()
            self.requests.clear()
            self.bytes_sent = 0

    def _key_lock(self, path):
        with self.lock:
            return self.key_locks[path.split("?", 1)[0]]

    def seen(self, method: str, path_contains) -> list:
        """The requests of `method` whose path holds `path_contains` (a string, or a tuple
        of strings that must all be there)."""
        if isinstance(path_contains, str):
            path_contains = (path_contains,)
        with self.lock:
            return [r for r in self.requests
                    if r[0] == method and all(part in r[1] for part in path_contains)]

    def _match(self, method, path):
        with self.lock:
            for rule in self.rules:
                if (rule.method == method and all(part in path for part in rule.path_contains)
                        and rule.fired < rule.times):
                    rule.fired += 1
                    return rule
        return None

    @staticmethod
    def _lists_uploads(method, path):
        parts = urllib.parse.urlsplit(path)
        query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
        return method == "GET" and "uploads" in query and parts.path.strip("/").count("/") == 0

    def _uploads_listing(self, path):
        parts = urllib.parse.urlsplit(path)
        bucket = urllib.parse.unquote(parts.path.strip("/"))
        prefix = urllib.parse.parse_qs(parts.query, keep_blank_values=True).get("prefix", [""])[0]
        with self.lock:
            uploads = [(key, upload_id) for upload_id, (upload_bucket, key) in self.uploads.items()
                       if upload_bucket == bucket and key.startswith(prefix)]
        listed = "".join(f"<Upload><Key>{escape(key)}</Key><UploadId>{escape(upload_id)}</UploadId>"
                         f"</Upload>" for key, upload_id in sorted(uploads))
        return ('<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult>'
                f"<Bucket>{escape(bucket)}</Bucket><IsTruncated>false</IsTruncated>{listed}"
                "</ListMultipartUploadsResult>")

    def _track_upload(self, method, path, status, answer):
        parts = urllib.parse.urlsplit(path)
        query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
        if method == "POST" and "uploads" in query and status == 200:
            bucket, _, key = urllib.parse.unquote(parts.path.lstrip("/")).partition("/")
            root = ElementTree.fromstring(answer)
            upload_id = next(element.text for element in root.iter() if element.tag.endswith("UploadId"))
            with self.lock:
                self.uploads[upload_id] = (bucket, key)
        elif method in ("POST", "DELETE") and "uploadId" in query and 200 <= status < 300:
            with self.lock:
                self.uploads.pop(query["uploadId"][0], None)

    def _record(self, method, path, outcome):
        with self.lock:
            self.requests.append((method, path, outcome))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
