#!/usr/bin/env python3
"""Open a `primgraph report` page in headless Chromium and report what a user would meet.

Driven by `tests/report_browser.rs`. Standard library only: Chromium's DevTools protocol over
`--remote-debugging-pipe` (fd 3 in, fd 4 out, NUL-separated JSON), so no driver, no websocket
and no network. Prints one JSON document on stdout:

  {"exceptions": [...], "console_errors": [...], "dialogs": [...], "requests": [...],
   "svg_nodes": [...], "clicked": ID, "panel": TEXT, "measure_fill_ok": BOOL,
   "screenshot": PATH}

Usage: report_browser.py CHROMIUM PAGE.html SCREENSHOT.png USER_DATA_DIR
"""

import base64
import json
import os
import select
import subprocess
import sys
import time

TIMEOUT = 60.0


class Browser:
    def __init__(self, chromium, user_data_dir):
        to_chrome_r, self.to_chrome_w = os.pipe()
        self.from_chrome_r, from_chrome_w = os.pipe()

        def wire():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + user_data_dir,
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from Chromium")
            ready, _, _ = select.select([self.from_chrome_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_chrome_r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            written = os.write(self.to_chrome_w, data)
            data = data[written:]
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, deadline):
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._read_message(deadline)
            if e.get("method") == method:
                return e
            self.events.append(e)

    def drain(self, seconds):
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except TimeoutError:
            pass

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main():
    chromium, page, screenshot, user_data_dir = sys.argv[1:5]
    url = "file://" + os.path.abspath(page)
    b = Browser(chromium, user_data_dir)
    try:
        targets = b.send("Target.getTargets")["targetInfos"]
        page_target = next(t for t in targets if t["type"] == "page")
        session = b.send(
            "Target.attachToTarget", {"targetId": page_target["targetId"], "flatten": True}
        )["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            b.send(domain + ".enable", session=session)
        b.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        b.send("Page.navigate", {"url": url}, session=session)
        b.wait_for("Page.loadEventFired", time.monotonic() + TIMEOUT)

        def evaluate(expression):
            r = b.send(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True, "awaitPromise": True},
                session=session,
            )
            if "exceptionDetails" in r:
                raise RuntimeError(f"evaluate failed: {r['exceptionDetails']}")
            return r["result"].get("value")

        svg_nodes = evaluate(
            "Array.from(document.querySelectorAll('#pg-graph g.node[data-index]'))"
            ".map(g => g.getAttribute('data-node'))"
        )
        # A real click at the centre of the busiest node (most steps), scrolled into view.
        target = evaluate(
            "(() => { const d = JSON.parse(document.getElementById('pg-data').textContent);"
            " let best = 0; d.nodes.forEach((n, i) => { if (n.steps > d.nodes[best].steps) best = i; });"
            " const g = document.querySelector(`#pg-graph g.node[data-index=\"${best}\"]`);"
            " g.scrollIntoView({block: 'center', inline: 'center'});"
            " const r = g.getBoundingClientRect();"
            " return {id: d.nodes[best].id, steps: d.nodes[best].steps,"
            " x: r.left + r.width / 2, y: r.top + r.height / 2}; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            b.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": target["x"], "y": target["y"], "button": "left", "clickCount": 1},
                session=session,
            )
        panel = evaluate("document.getElementById('pg-details').innerText")
        # Switching the measure repaints every node with its colour under that measure.
        measure_fill_ok = evaluate(
            "(() => { const s = document.getElementById('pg-measure'); s.value = 'failure';"
            " s.dispatchEvent(new Event('change'));"
            " const gs = Array.from(document.querySelectorAll('#pg-graph g.node[data-index]'));"
            " const ok = gs.every(g => g.querySelector('.shape').getAttribute('fill') === g.getAttribute('data-c-failure'));"
            " const legend = !document.querySelector('.legend[data-measure=\"failure\"]').hidden;"
            " s.value = 'visits'; s.dispatchEvent(new Event('change')); return ok && legend; })()"
        )
        evaluate("window.scrollTo(0, 0)")
        b.drain(0.5)
        shot = b.send("Page.captureScreenshot", {"format": "png"}, session=session)
        os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        b.drain(0.2)
        exceptions, console_errors, dialogs, requests = [], [], [], []
        for e in b.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                exceptions.append(params["exceptionDetails"].get("text", ""))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                console_errors.append(json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                console_errors.append(params["entry"].get("text", ""))
            elif method == "Page.javascriptDialogOpening":
                dialogs.append(params.get("message", ""))
            elif method == "Network.requestWillBeSent":
                requests.append(params["request"]["url"])
        print(
            json.dumps(
                {
                    "exceptions": exceptions,
                    "console_errors": console_errors,
                    "dialogs": dialogs,
                    "requests": requests,
                    "svg_nodes": svg_nodes,
                    "clicked": target["id"],
                    "clicked_steps": target["steps"],
                    "panel": panel,
                    "measure_fill_ok": measure_fill_ok,
                    "screenshot": screenshot,
                }
            )
        )
    finally:
        b.close()


if __name__ == "__main__":
    main()
