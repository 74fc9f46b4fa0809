#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check an HTML report of xfsdefrag against its JSON figures.

  html_check.py report HTML REPORT_JSON [BMAP_OUT]
  html_check.py plan HTML PLAN_JSON REPORT_JSON

Well-formed (every element closed in order), self-contained (no scripts,
no external references, a CSP that forbids fetches), the sections there,
every keyed figure equal to the JSON's, one block map per AG (two for a
plan) covering the AG cell for cell, legends that add up to the AG's
data blocks, histograms equal to the JSON's, the fragmented files in the
JSON's order with their names escaped and (BMAP_OUT: the output of
`xfsdefrag bmap -v -n 256 -i IMAGE INO...`) their bmap tables.  Prints one
line per failure and exits 1 if any.
"""
import json
import re
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base",
        "wbr", "source", "track", "embed", "param"}
FORBIDDEN = {"script", "link", "iframe", "img", "object", "embed", "base",
             "frame", "audio", "video", "source", "form"}
MAP_ROWS = 256
fails = []


def fail(msg):
    fails.append(msg)


class Doc(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.keys = {}           # data-key -> text
        self.maps = []           # dicts: ag, when, cells, bpc, paths, legend
        self.hists = {}          # id -> [(label, value)]
        self.files = []          # dicts: ino, extents, h3, pre
        self.sections = []
        self.csp = None
        self.notes = 0
        self._text = None        # (kind, target) collecting text
        self._buf = []
        self._fig = None
        self._file = None
        self._hist = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in FORBIDDEN:
            fail("forbidden element <%s>" % tag)
        for k, v in attrs:
            if k in ("src", "srcset", "action", "formaction", "data") or \
               (k in ("href", "xlink:href") and not (v or "").startswith("#")):
                fail("external reference %s=%r in <%s>" % (k, v, tag))
            if k.startswith("on"):
                fail("event handler %s in <%s>" % (k, tag))
            if v and "url(" in v:
                fail("url() in attribute %s" % k)
        if tag == "meta" and a.get("http-equiv", "").lower() == \
                "content-security-policy":
            self.csp = a.get("content", "")
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "li" and self._in("ul", "notes"):
            self.notes += 1
        if tag == "figure" and a.get("class") == "agmap":
            self._fig = {"ag": int(a["data-ag"]), "when": a["data-when"],
                         "paths": {}, "legend": {}}
            self.maps.append(self._fig)
        if tag == "svg" and a.get("class") == "agmap" and self._fig:
            self._fig["cells"] = int(a["data-cells"])
            self._fig["bpc"] = int(a["data-bpc"])
        if tag == "path" and self._fig:
            self._fig["paths"][a["data-class"]] = a["d"]
        if tag == "td" and "data-blocks" in a and self._fig:
            self._collect(("legend", a["data-blocks"]))
        if tag == "td" and "data-key" in a:
            self._collect(("key", a["data-key"]))
        if tag == "svg" and a.get("class") == "hist":
            self._hist = self.hists.setdefault(a["data-hist"], [])
        if tag == "rect" and a.get("class") == "bar" and self._hist is not None:
            self._hist.append((a["data-label"], int(a["data-value"])))
        if tag == "div" and a.get("class") == "file":
            self._file = {"ino": int(a["data-ino"]),
                          "extents": int(a["data-extents"])}
            self.files.append(self._file)
        if tag == "h3" and self._file is not None:
            self._collect(("h3", None))
        if tag == "pre" and self._file is not None:
            self._collect(("pre", None))
        if tag not in VOID:
            self.stack.append((tag, a.get("class")))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def _in(self, tag, cls):
        return any(t == tag and c == cls for t, c in self.stack)

    def _collect(self, what):
        self._text = what
        self._buf = []

    def handle_data(self, data):
        if self._text:
            self._buf.append(data)
        if self.stack and self.stack[-1][0] == "style":
            if "url(" in data or "@import" in data:
                fail("external reference in <style>")

    def handle_endtag(self, tag):
        if not self.stack:
            fail("</%s> closes nothing" % tag)
            return
        top = self.stack.pop()[0]
        if top != tag:
            fail("</%s> closes <%s>" % (tag, top))
        if self._text and tag in ("td", "h3", "pre"):
            kind, target = self._text
            text = "".join(self._buf)
            if kind == "key":
                self.keys[target] = text
            elif kind == "legend":
                self._fig["legend"][target] = int(text)
            elif kind == "h3":
                self._file["h3"] = text
            elif kind == "pre":
                self._file["pre"] = text
            self._text = None
        if tag == "figure":
            self._fig = None
        if tag == "svg":
            self._hist = None
        if tag == "div" and self._file is not None and top == "div":
            pass


def lookup(obj, dotted):
    """report JSON value for a data-key; ags.N means the AG numbered N."""
    parts = dotted.split(".")
    cur = obj
    i = 0
    while i < len(parts):
        p = parts[i]
        if p == "ags" and isinstance(cur, dict):
            n = int(parts[i + 1])
            cur = [g for g in cur["ags"] if g["ag"] == n][0]
            i += 2
            continue
        cur = cur[p]
        i += 1
    return cur


def same(text, val):
    if isinstance(val, float):
        return text == "%.2f" % val
    return text == str(val)


def escaped(name):
    """What cmd_put_escaped / html_text make of a name (JSON-decoded)."""
    out = []
    for ch in name:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or o == 0x7f:
            out.append("\\x%02x" % o)
        elif 0x80 <= o < 0xa0:
            out.append("".join("\\x%02x" % b for b in ch.encode()))
        else:
            out.append(ch)
    return "".join(out)


def ag_blocks(geo, ag):
    last = geo["dblocks"] - (geo["agcount"] - 1) * geo["agblocks"]
    return last if ag == geo["agcount"] - 1 else geo["agblocks"]


def check_map(m, geo):
    want = -(-ag_blocks(geo, m["ag"]) // m["bpc"])
    tag = "AG %d %s map" % (m["ag"], m["when"])
    if m["cells"] != want:
        fail("%s: %d cells, expected %d" % (tag, m["cells"], want))
    cover = [None] * m["cells"]
    for cls, d in m["paths"].items():
        for x, y, w in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", d):
            x, y, w = int(x), int(y), int(w)
            if x + w > 128:
                fail("%s: a run past the row end" % tag)
            for c in range(y * 128 + x, y * 128 + x + w):
                if c >= m["cells"] or cover[c] is not None:
                    fail("%s: cell %d drawn twice or outside" % (tag, c))
                    return cover
                cover[c] = cls
    if None in cover:
        fail("%s: cell %d not drawn" % (tag, cover.index(None)))
    return cover


def check_common(doc, rep, want_sections, nmaps_per_ag):
    geo = rep["geometry"]
    if doc.stack:
        fail("unclosed elements: %s" % [t for t, _ in doc.stack])
    if not doc.csp or "default-src 'none'" not in doc.csp:
        fail("no Content-Security-Policy forbidding fetches")
    for s in want_sections:
        if s not in doc.sections:
            fail("section %s missing" % s)
    ags = [g["ag"] for g in rep["ags"]]
    for when in ["now", "after"][:nmaps_per_ag]:
        got = sorted(m["ag"] for m in doc.maps if m["when"] == when)
        if got != ags:
            fail("%s maps for AGs %s, expected one per AG %s" %
                 (when, got, ags))
    covers = {}
    for m in doc.maps:
        covers[(m["ag"], m["when"])] = check_map(m, geo)
        g = [x for x in rep["ags"] if x["ag"] == m["ag"]][0]
        leg = m["legend"]
        if m["when"] == "now":
            data = leg["data"] + leg["fragmented data"]
            if data != g["data_blocks"]:
                fail("AG %d map: data %d + fragmented %d != data_blocks %d" %
                     (m["ag"], leg["data"], leg["fragmented data"],
                      g["data_blocks"]))
            # free = bnobt free blocks + AGFL slots (at most a sector's)
            extra = leg["free"] - g["free_blocks"]
            if not 0 <= extra <= 1024:
                fail("AG %d map: free %d vs free_blocks %d" %
                     (m["ag"], leg["free"], g["free_blocks"]))
    # keyed figures
    n = 0
    for k, text in doc.keys.items():
        if k.startswith("plan."):
            continue
        n += 1
        try:
            v = lookup(rep, k)
        except (KeyError, IndexError, ValueError):
            fail("data-key %s is not in the report JSON" % k)
            continue
        if not same(text, v):
            fail("%s: HTML %r, JSON %r" % (k, text, v))
    if n < 30:
        fail("only %d keyed report figures" % n)
    # histograms
    fr = rep["fragmentation"]
    want = [(h["extents"], h["files"]) for h in fr["extents_histogram"]]
    if doc.hists.get("extents") != want:
        fail("extents histogram %s != JSON %s" % (doc.hists.get("extents"),
                                                  want))
    got = [(l, v) for l, v in doc.hists.get("freesp", []) if v]
    want = [("%d-%d" % (b["from"], b["to"]), b["extents"])
            for b in rep["free_space"]["histogram"]]
    if got != want:
        fail("free space histogram %s != JSON %s" % (got, want))
    dist = [v for _, v in doc.hists.get("distance", [])]
    dd = rep["inode_data_distance"]
    if sum(dist) != dd["files"]:
        fail("distance histogram holds %d files, JSON %d" %
             (sum(dist), dd["files"]))
    elif dist:
        med = dd["to_first_block"]["median"]
        b = med.bit_length()
        below, through = sum(dist[:b]), sum(dist[:b + 1])
        if not (below <= dd["files"] / 2 + 1 and
                through >= dd["files"] / 2 - 1):
            fail("median %d is not in the histogram's middle bucket" % med)
    return covers


def check_files(doc, rep, bmap_out):
    worst = rep["fragmentation"]["worst"]
    got = [(f["ino"], f["extents"]) for f in doc.files]
    want = [(w["ino"], w["extents"]) for w in worst]
    if got != want:
        fail("fragmented files %s != JSON %s" % (got[:5], want[:5]))
        return
    tables = {}
    if bmap_out:
        cur = None
        for line in open(bmap_out, encoding="utf-8"):
            mm = re.match(r"^(\d+):( no extents)?$", line.rstrip("\n"))
            if mm:
                cur = int(mm.group(1))
                tables[cur] = []
            elif cur is not None:
                tables[cur].append(line)
    for f, w in zip(doc.files, worst):
        name = w["path"] if w["path"] is not None else \
            "(inode %d)" % w["ino"]
        if f.get("h3") != escaped(name):
            fail("file %d: heading %r, expected %r" %
                 (w["ino"], f.get("h3"), escaped(name)))
        if bmap_out:
            if "".join(tables.get(w["ino"], [])) != f.get("pre"):
                fail("file %d: bmap table differs from bmap -v" % w["ino"])


def report_main(html, rep_json, bmap_out=None):
    raw = open(html, "rb").read()
    bad = [b for b in raw if b < 0x20 and b not in (0x0a,)]
    if bad:
        fail("raw control bytes in the HTML: %s" % sorted(set(bad)))
    doc = Doc()
    doc.feed(raw.decode("utf-8"))
    doc.close()
    rep = json.load(open(rep_json))
    check_common(doc, rep, ["summary", "maps", "histograms", "fragmented",
                            "readback", "ags"], 1)
    for k in ("hdd_ms", "ssd_requests", "jumps", "far_jumps"):
        if "readback." + k not in doc.keys:
            fail("read-back figure %s missing from the HTML" % k)
    check_files(doc, rep, bmap_out)


def longest_run(cover, cls):
    best = cur = 0
    for c in cover:
        cur = cur + 1 if c == cls else 0
        best = max(best, cur)
    return best


def plan_main(html, plan_json, rep_json):
    doc = Doc()
    doc.feed(open(html, encoding="utf-8").read())
    doc.close()
    plan = json.load(open(plan_json))
    rep = json.load(open(rep_json))
    covers = check_common(doc, rep, ["summary", "plan", "maps", "histograms",
                                     "fragmented", "readback", "ags"], 2)
    for k in ("hdd_ms", "ssd_requests", "jumps", "far_jumps"):
        for when in ("now", "after"):
            if "plan.%s.readback.%s" % (when, k) not in doc.keys:
                fail("plan read-back figure %s %s missing" % (when, k))
    n = 0
    for k, text in doc.keys.items():
        if not k.startswith("plan."):
            continue
        n += 1
        try:
            v = lookup(plan, k[5:])
        except (KeyError, IndexError, ValueError):
            fail("data-key %s is not in the plan JSON" % k)
            continue
        if not same(text, v):
            fail("%s: HTML %r, plan JSON %r" % (k, text, v))
    if n < 12:
        fail("only %d keyed plan figures" % n)
    if doc.notes != len(plan["not_contiguous"]):
        fail("%d notes, plan JSON %d" % (doc.notes,
                                         len(plan["not_contiguous"])))
    maps = {(m["ag"], m["when"]): m for m in doc.maps}
    tot = {"now": 0, "after": 0}
    ino = {"now": 0, "after": 0}
    renumbered = plan.get("inodes_renumbered", 0)
    for (ag, when), m in maps.items():
        tot[when] += m["legend"]["data"] + m["legend"]["fragmented data"]
        ino[when] += m["legend"]["inodes"]
        if when != "after":
            continue
        now = maps[(ag, "now")]
        if not renumbered and m["legend"]["inodes"] != now["legend"]["inodes"]:
            fail("AG %d: inode blocks change in the after map" % ag)
        pa = [g for g in plan["ags"] if g["ag"] == ag][0]
        run = longest_run(covers[(ag, "after")], "free") * m["bpc"]
        if run < pa["longest_free_after"] - 2 * m["bpc"]:
            fail("AG %d after map: longest free run %d blocks, plan %d" %
                 (ag, run, pa["longest_free_after"]))
    if tot["now"] != tot["after"]:
        fail("data blocks now %d, after %d: the plan map loses data" %
             (tot["now"], tot["after"]))
    # renumbering: the inode blocks change by the chunks allocated and
    # freed (whole chunks of 64 inodes)
    g = rep["geometry"]
    cb = 64 * g["inodesize"] // g["blocksize"] or 1
    want = (plan.get("inode_chunks_allocated", 0) -
            plan.get("inode_chunks_freed", 0)) * cb
    if renumbered and ino["after"] - ino["now"] != want:
        fail("inode blocks now %d, after %d: the plan allocates %d and "
             "frees %d chunks of %d blocks" %
             (ino["now"], ino["after"], plan["inode_chunks_allocated"],
              plan["inode_chunks_freed"], cb))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "report":
        report_main(*sys.argv[2:5])
    elif len(sys.argv) == 5 and sys.argv[1] == "plan":
        plan_main(*sys.argv[2:5])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for f in fails[:20]:
        print(f)
    if len(fails) > 20:
        print("... and %d more" % (len(fails) - 20))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
