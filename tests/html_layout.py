#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where a browser puts the HTML report's verdict box and first map.

  html_layout.py harness PAGE OUT   a copy of PAGE that measures itself
  html_layout.py check DOM          the measures in DOM (chromium
                                    --dump-dom of the copy): the verdict
                                    box wholly on the first screen and
                                    above the first map?

The copy drops the page's Content-Security-Policy, which forbids scripts
(the page itself has none), and adds one at the end that writes the
positions of #verdict and the first svg.agmap, and the window's height,
into a <pre id="layout"> as JSON.  Layout does not depend on the CSP.
check prints the positions and exits 1 when the box is not wholly above
the first screen's end or not above the first map.
"""
import json
import re
import sys

SCRIPT = """<script>
(function () {
  function box(e) {
    if (!e) return null;
    var b = e.getBoundingClientRect();
    return [b.top + scrollY, b.bottom + scrollY];
  }
  var p = document.createElement("pre");
  p.id = "layout";
  p.textContent = JSON.stringify({ vh: innerHeight,
    verdict: box(document.getElementById("verdict")),
    map: box(document.querySelector("svg.agmap")) });
  document.body.appendChild(p);
})();
</script>
"""


def harness(page, out):
    s = open(page, encoding="utf-8").read()
    s = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n?', "",
               s)
    if "</body>" not in s:
        print("no </body> in %s" % page)
        return 1
    open(out, "w", encoding="utf-8").write(s.replace("</body>",
                                                     SCRIPT + "</body>"))
    return 0


def check(dom):
    m = re.search(r'<pre id="layout">([^<]*)</pre>',
                  open(dom, encoding="utf-8", errors="replace").read())
    if not m:
        print("no positions from the rendered page")
        return 1
    d = json.loads(m.group(1))
    v, mp, vh = d["verdict"], d["map"], d["vh"]
    if not v or not mp:
        print("missing from the rendered page: %s" % d)
        return 1
    print("verdict box %.0f-%.0f px, first map from %.0f px, first screen "
          "%d px" % (v[0], v[1], mp[0], vh))
    if v[1] > vh:
        print("FAIL: the verdict box ends below the first screen")
        return 1
    if v[1] > mp[0]:
        print("FAIL: the verdict box is not above the first map")
        return 1
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "harness":
        return harness(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
