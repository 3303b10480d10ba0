#!/usr/bin/python3
"""bidi-bench: one Selenium session (Debian's python3-selenium, ChromeDriver
launching --binary): classic WebDriver, or BiDi with --bidi (only the
capability webSocketUrl: True, as Selenium users turn it on); opens --url,
builds the body once (prepare.js), then times --uploads fetch() uploads of
it (upload.js), each in the page and as the client waited for it. Prints one
JSON line: {"session_ms", "uploads": [{"bytes", "ms", "client_ms"}]}."""
import argparse
import json
import os
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))


def script(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--binary", required=True, help="the browser ChromeDriver launches")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--url", required=True, help="a page of the sink's")
    ap.add_argument("--bidi", action="store_true", help="webSocketUrl: True")
    ap.add_argument("--bytes", type=int, default=4 << 20)
    ap.add_argument("--uploads", type=int, default=4)
    ap.add_argument("--trial", default="selenium", help="the sink's trial id prefix")
    ap.add_argument("--flags", default="[]", help="Chromium's flags, a JSON array")
    a = ap.parse_args()
    prepare, upload = script("prepare.js"), script("upload.js")
    o = webdriver.ChromeOptions()
    o.binary_location = a.binary
    for f in json.loads(a.flags):
        o.add_argument(f)
    if a.bidi:
        o.set_capability("webSocketUrl", True)
    t0 = time.monotonic()
    d = webdriver.Chrome(service=Service(a.chromedriver), options=o)
    out = {"session_ms": (time.monotonic() - t0) * 1000, "uploads": []}
    try:
        d.get(a.url)
        d.execute_script(prepare, a.bytes)
        for i in range(a.uploads):
            t = time.monotonic()
            r = d.execute_script(upload, "%s.%d" % (a.trial, i))
            r["client_ms"] = (time.monotonic() - t) * 1000
            out["uploads"].append(r)
    finally:
        d.quit()
    print(json.dumps(out))


main()
