#!/usr/bin/env python3
"""Open an optrace HTML bundle in headless Chromium, from file://, as a reader.

    browser.py BUNDLE_DIR [--search TEXT]...

Visits every .html file of BUNDLE_DIR and prints one JSON report on stdout:

  pages     the pages visited
  console   console errors, uncaught exceptions and failed loads, per page
  broken    links, diagram node links, scripts, stylesheets and images that
            name no file of the bundle (or a fragment the target page lacks)
  external  every link that is not a file:// URL (the caller checks them)
  search    for each TEXT: the results the search box shows after typing
            TEXT on index.html (their text and whether they resolve)

Links are read from the page after its scripts ran: the sidebar's lists
and the search results are made by optrace.js. Chromium is driven through
the DevTools protocol over a WebSocket, with the standard library only.
Exit status 0 when the report was written, 2 when the browser could not
be driven (the message on stderr).
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-port=0"]
TIMEOUT = 30.0


class WebSocket:
    """A WebSocket client: text frames out (masked), frames in."""

    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n"
                           % (u.path, u.hostname, u.port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("the browser closed the WebSocket handshake")
            head += chunk
        head, self.pending = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("WebSocket handshake refused: %r" % head[:80])

    def _read(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("the browser closed the WebSocket")
            self.pending += chunk
        data, self.pending = self.pending[:n], self.pending[n:]
        return data

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        head = bytes([0x81])
        if len(data) < 126:
            head += bytes([0x80 | len(data)])
        elif len(data) < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise OSError("the browser closed the WebSocket")
            if opcode == 0x9:  # ping
                self.sock.sendall(bytes([0x8A, 0x80 | len(data)]) + b"\0\0\0\0" + data)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += data
                if b0 & 0x80:
                    return message.decode()


class Browser:
    """Chromium in a fresh profile, one page target, the DevTools protocol."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="optrace-chromium-")
        self.proc = subprocess.Popen([CHROMIUM] + FLAGS + ["--user-data-dir=" + self.profile,
                                                          "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + TIMEOUT
        while True:
            try:
                with open(port_file) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[1]:
                    break
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                raise OSError("Chromium did not start (%s)" % CHROMIUM)
            time.sleep(0.05)
        self.ws = WebSocket("ws://127.0.0.1:%s%s" % (lines[0], lines[1]))
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable", session=True)

    def call(self, method, params=None, session=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise OSError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            for i, ev in enumerate(self.events):
                if ev["method"] == method:
                    del self.events[i]
                    return ev
            self.events.append(json.loads(self.ws.recv()))
        raise OSError("no %s within %.0f s" % (method, TIMEOUT))

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise OSError("evaluating failed: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")

    def open(self, url):
        self.events = [ev for ev in self.events if ev["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")

    def problems(self):
        """Console errors, exceptions and failed loads since the last call."""
        found = []
        for ev in self.events:
            p = ev.get("params", {})
            if ev["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                found.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif ev["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                found.append("exception: %s %s" % (d.get("text", ""),
                                                  d.get("exception", {}).get("description", "")))
            elif ev["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                e = p["entry"]
                found.append("%s: %s %s" % (e.get("source", "log"), e.get("text", ""),
                                            e.get("url", "")))
        self.events = [ev for ev in self.events if ev["method"] == "Page.loadEventFired"]
        return found

    def close(self):
        try:
            self.call("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# Every URL a reader can follow or the page loads, resolved by the browser:
# links (HTML and SVG <a>, whose href is an SVGAnimatedString), scripts,
# stylesheets, images; and every id of the page.
COLLECT = r"""
(function () {
  var urls = [];
  function add(kind, raw) {
    if (raw === null || raw === undefined) return;
    urls.push({kind: kind, raw: raw, url: new URL(raw, document.baseURI).href});
  }
  document.querySelectorAll("a").forEach(function (a) {
    if (a instanceof SVGElement)
      add("diagram node", a.getAttribute("href") || a.getAttribute("xlink:href"));
    else
      add("link", a.getAttribute("href"));
  });
  document.querySelectorAll("script[src]").forEach(function (s) { add("script", s.getAttribute("src")); });
  document.querySelectorAll("link[href]").forEach(function (l) { add("stylesheet", l.getAttribute("href")); });
  document.querySelectorAll("img[src]").forEach(function (i) { add("image", i.getAttribute("src")); });
  return {urls: urls,
          ids: Array.prototype.map.call(document.querySelectorAll("[id]"), function (e) { return e.id; }),
          svg: document.querySelectorAll("svg a").length,
          sidebar: document.querySelectorAll(".sidebar ul.ops a").length};
})()
"""

SEARCH = r"""
(function () {
  return Array.prototype.map.call(document.querySelectorAll("#results a"), function (a) {
    return {text: a.textContent, url: a.href};
  });
})()
"""


def file_of(url):
    u = urllib.parse.urlparse(url)
    return urllib.parse.unquote(u.path), urllib.parse.unquote(u.fragment)


def main(argv):
    args, searches = [], []
    i = 1
    while i < len(argv):
        if argv[i] == "--search" and i + 1 < len(argv):
            searches.append(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    bundle = os.path.realpath(args[0])
    pages = sorted(os.path.relpath(os.path.join(d, f), bundle)
                   for d, _, files in os.walk(bundle) for f in files if f.endswith(".html"))
    report = {"pages": pages, "console": [], "broken": [], "external": [], "search": {},
              "diagram_links": 0, "sidebar_links": 0}
    ids, fragments = {}, []
    try:
        browser = Browser()
    except OSError as e:
        print("browser.py: %s" % e, file=sys.stderr)
        return 2
    try:
        for page in pages:
            url = "file://" + urllib.parse.quote(os.path.join(bundle, page))
            browser.open(url)
            seen = browser.evaluate(COLLECT)
            ids[os.path.join(bundle, page)] = set(seen["ids"])
            report["diagram_links"] += seen["svg"]
            report["sidebar_links"] = max(report["sidebar_links"], seen["sidebar"])
            for u in seen["urls"]:
                if not u["url"].startswith("file:"):
                    report["external"].append({"page": page, "kind": u["kind"], "url": u["url"]})
                    continue
                path, frag = file_of(u["url"])
                if not os.path.isfile(path) or not path.startswith(bundle + os.sep):
                    report["broken"].append({"page": page, "kind": u["kind"], "url": u["raw"]})
                elif frag:
                    fragments.append((page, u, path, frag))
            for p in browser.problems():
                report["console"].append({"page": page, "problem": p})
        # the search box, typed into on the index (and ?q= in the address)
        for text in searches:
            browser.open("file://" + urllib.parse.quote(os.path.join(bundle, "index.html")))
            browser.evaluate("document.getElementById('search').focus()")
            browser.call("Input.insertText", {"text": text}, session=True)
            typed = browser.evaluate(SEARCH)
            browser.open("file://" + urllib.parse.quote(os.path.join(bundle, "index.html"))
                         + "?q=" + urllib.parse.quote(text))
            by_address = browser.evaluate(SEARCH)
            for r in typed + by_address:
                path, _ = file_of(r["url"])
                r["resolves"] = r["url"].startswith("file:") and os.path.isfile(path)
            report["search"][text] = {"typed": typed, "address": by_address}
            for p in browser.problems():
                report["console"].append({"page": "index.html (search)", "problem": p})
    except OSError as e:
        print("browser.py: %s" % e, file=sys.stderr)
        browser.close()
        return 2
    browser.close()
    for page, u, path, frag in fragments:
        if path in ids and frag not in ids[path]:
            report["broken"].append({"page": page, "kind": u["kind"] + " (no such id)",
                                     "url": u["raw"]})
    json.dump(report, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
