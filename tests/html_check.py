#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check an HTML report of xfsdefrag against its JSON figures.

  html_check.py report HTML REPORT_JSON [BMAP_OUT] [--plan PLAN_JSON]
                [--log AG,AGBNO,BLOCKS]
  html_check.py plan HTML PLAN_JSON REPORT_JSON [--log AG,AGBNO,BLOCKS]

Well-formed (every element closed in order), self-contained (no scripts,
no external references, a CSP that forbids fetches), the story first
(the sections in the order verdict, story, maps, histograms, then the
raw figures), every keyed figure equal to the JSON's (the report's, and
under "plan." the plan's: PLAN_JSON, of the plan report --html judged),
the verdict's yes or no, one block map per AG (two with a plan) covering
the AG cell for cell, legends that add up to the AG's data blocks, every
cell under exactly one tooltip naming what holds it, of the cell's class,
histograms equal to the JSON's (after a plan: their totals and the
plan's median distance and longest free extent), the fragmented files in
the JSON's order with their names escaped and (BMAP_OUT: the output of
`xfsdefrag bmap -v -n 256 -i IMAGE INO...`) their bmap tables, and the
cells wholly inside their unshared extents (now) named by their path;
--log: the log where xfs_db says it is, named on its AG's maps, its cells'
tooltips saying so.  Prints one line per failure and exits 1 if any.
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
        self.keys = {}           # data-key -> text (the last one)
        self.allkeys = []        # every (data-key, text), in order
        self.top = []            # ids of the top-level sections, in order
        self.verdict = None      # the verdict section's attributes
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
            if not any(t == "section" for t, _ in self.stack):
                self.top.append(a.get("id"))
            if a.get("id") == "verdict":
                self.verdict = a
        if tag == "li" and self._in("ul", "notes"):
            self.notes += 1
        if tag == "figure" and a.get("class") == "agmap":
            self._fig = {"ag": int(a["data-ag"]), "when": a["data-when"],
                         "paths": {}, "legend": {}}
            self.maps.append(self._fig)
        if tag == "svg" and a.get("class") == "agmap" and self._fig:
            self._fig["cells"] = int(a["data-cells"])
            self._fig["bpc"] = int(a["data-bpc"])
        if tag == "path" and self._fig and "data-class" in a:
            self._fig["paths"][a["data-class"]] = a["d"]
        if tag == "path" and self._fig and a.get("class") == "tip":
            lo, hi = a["data-cells"].split("-")
            self._fig.setdefault("tips", []).append(
                {"cells": (int(lo), int(hi)), "d": a["d"]})
        if tag == "path" and self._fig and a.get("class") == "log":
            self._fig["log_outline"] = a["d"]
        if tag == "span" and self._fig and "data-log" in a:
            lo, hi = a["data-log"].split("-")
            self._fig["log"] = (int(lo), int(hi))
        if tag == "title" and self._fig and self.stack and \
                self.stack[-1] == ("path", "tip"):
            self._collect(("tip", None))
        if tag == "td" and "data-blocks" in a and self._fig:
            self._collect(("legend", a["data-blocks"]))
        if "data-key" in a and "data-value" in a:
            self._key(a["data-key"], a["data-value"])
        elif tag == "td" and "data-key" in a:
            self._collect(("key", a["data-key"]))
        if tag == "svg" and "hist" in (a.get("class") or "").split():
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

    def _key(self, k, text):
        self.keys[k] = text
        self.allkeys.append((k, text))

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
        if self._text and tag in ("td", "h3", "pre", "title"):
            kind, target = self._text
            text = "".join(self._buf)
            if kind == "key":
                self._key(target, text)
            elif kind == "tip":
                self._fig["tips"][-1]["title"] = text
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
    m["blocks"] = ag_blocks(geo, m["ag"])
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
    check_tips(m, cover, tag)
    return cover


# what a tooltip may name for each class of cell
TIP_OF_CLASS = {
    "free": ("free space", "free list (AGFL) blocks"),
    "inodes": ("inode chunk: ",),
    "metadata": ("AG headers", "the log", "the AG's btrees, rebuilt",
                 " btree (", "(extent tree block)"),
    "data": ("(file data)", "(directory blocks)", "(symlink target)",
             "(extended attributes)"),
    "fragmented data": ("(file data)", "(directory blocks)",
                        "(symlink target)", "(extended attributes)"),
    "other": ("in use, by nothing the scan knows",
              "past the new end: the shrink cuts it off"),
}


def tip_holder(title):
    """The holder a tooltip names, without its "AG n, blocks a-b: "."""
    return re.sub(r"; and \d+ others? in the cell$", "",
                  title.split(": ", 1)[1])


def check_tips(m, cover, tag):
    """Every cell under one tooltip, which names a holder of its class."""
    tips = m.get("tips", [])
    under = [None] * len(cover)
    for t in tips:
        lo, hi = t["cells"]
        want = "AG %d, blocks %d-%d: " % (
            m["ag"], lo * m["bpc"], min((hi + 1) * m["bpc"],
                                        m["blocks"]) - 1)
        title = t.get("title", "")
        if not title.startswith(want):
            fail("%s: tooltip of cells %d-%d is %r, expected it to start "
                 "%r" % (tag, lo, hi, title[:60], want))
            return
        # the boxes of the path cover exactly its cells
        got = []
        for x, y, w in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", t["d"]):
            got.extend(range(int(y) * 128 + int(x),
                             int(y) * 128 + int(x) + int(w)))
        if got != list(range(lo, hi + 1)):
            fail("%s: tooltip path of cells %d-%d covers %s" %
                 (tag, lo, hi, got[:4]))
            return
        for c in range(lo, hi + 1):
            if c >= len(cover) or under[c] is not None:
                fail("%s: cell %d under two tooltips or outside" % (tag, c))
                return
            under[c] = title
            holder = tip_holder(title)
            if not any(k in holder for k in TIP_OF_CLASS[cover[c]]):
                fail("%s: cell %d is %s, its tooltip says %r" %
                     (tag, c, cover[c], holder))
                return
    if None in under:
        fail("%s: cell %d has no tooltip" % (tag, under.index(None)))
    m["under"] = under


STORY = ["verdict", "story", "maps", "histograms"]
RAW = ["summary", "plan", "fragmented", "readback", "ags"]


def check_common(doc, rep, want_sections, nmaps_per_ag, verdict=None):
    geo = rep["geometry"]
    if doc.stack:
        fail("unclosed elements: %s" % [t for t, _ in doc.stack])
    if not doc.csp or "default-src 'none'" not in doc.csp:
        fail("no Content-Security-Policy forbidding fetches")
    for s in want_sections:
        if s not in doc.sections:
            fail("section %s missing" % s)
    # the story first, the raw figures last
    top = [t for t in doc.top if t != "inodes"]
    if top != STORY + ["raw"]:
        fail("top-level sections %s, expected %s (and inodes before raw "
             "with a plan)" % (doc.top, STORY + ["raw"]))
    if nmaps_per_ag == 2 and doc.top[-2:] != ["inodes", "raw"]:
        fail("no legend of the inode chunks before the raw figures: %s" %
             doc.top)
    for s in RAW:
        if s in doc.sections and "raw" in doc.sections and \
                doc.sections.index(s) < doc.sections.index("raw"):
            fail("raw section %s comes before the raw figures" % s)
    if verdict is not None:
        worth = (doc.verdict or {}).get("data-worth")
        if worth != ("true" if verdict["worth_running"] else "false"):
            fail("verdict box says worth running %r, JSON %r" %
                 (worth, verdict["worth_running"]))
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
    for k, text in doc.allkeys:
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


def parse_doc(html):
    raw = open(html, "rb").read()
    bad = [b for b in raw if b < 0x20 and b not in (0x0a,)]
    if bad:
        fail("raw control bytes in the HTML: %s" % sorted(set(bad)))
    doc = Doc()
    doc.feed(raw.decode("utf-8"))
    doc.close()
    return doc


def check_log(doc, log):
    """The log where xfs_db says (AG, first block, blocks), on its maps."""
    ag, start, n = log
    for m in doc.maps:
        if m["ag"] != ag:
            if "log" in m:
                fail("AG %d %s map names a log, xfs_db puts it in AG %d" %
                     (m["ag"], m["when"], ag))
            continue
        if m.get("log") != (start, start + n - 1):
            fail("AG %d %s map: log %s, xfs_db: blocks %d-%d" %
                 (ag, m["when"], m.get("log"), start, start + n - 1))
        if "log_outline" not in m:
            fail("AG %d %s map: the log is not outlined" % (ag, m["when"]))
        under = m.get("under") or []
        inside = range(-(-start // m["bpc"]), (start + n) // m["bpc"])
        named = sum(1 for c in inside if c < len(under) and
                    tip_holder(under[c]) == "the log")
        if not len(inside) or named != len(inside):
            fail("AG %d %s map: %d of the %d cells inside the log say so" %
                 (ag, m["when"], named, len(inside)))


def check_cells_named(doc, rep, bmap_out, bs):
    """Cells wholly inside a listed file's unshared extents (bmap -v: AG,
    AG-OFFSET in 512-byte units, FLAGS 100000 shared) name its path."""
    if not bmap_out:
        return
    paths = {w["ino"]: (w["path"] if w["path"] is not None else
                        "(inode %d)" % w["ino"]) for w in
             rep["fragmentation"]["worst"]}
    maps = {m["ag"]: m for m in doc.maps if m["when"] == "now"}
    cur, checked = None, 0
    for line in open(bmap_out, encoding="utf-8"):
        mm = re.match(r"^(\d+):", line)
        if mm:
            cur = int(mm.group(1))
            continue
        mm = re.match(r"^\s*\d+: \[\d+\.\.\d+\]:\s+\d+\.\.\d+\s+(\d+)\s+"
                      r"\((\d+)\.\.(\d+)\)\s+\d+(?:\s+(\d+))?\s*$", line)
        if not mm or cur not in paths:
            continue
        ag, lo, hi = int(mm.group(1)), int(mm.group(2)), int(mm.group(3))
        if mm.group(4) and int(mm.group(4), 8) & 0o100000:
            continue
        m = maps.get(ag)
        if not m or not m.get("under"):
            continue
        b0, b1 = lo * 512 // bs, (hi + 1) * 512 // bs
        for c in range(-(-b0 // m["bpc"]), b1 // m["bpc"]):
            checked += 1
            holder = tip_holder(m["under"][c])
            if not holder.startswith(escaped(paths[cur]) + " ("):
                fail("AG %d cell %d lies in %s's extent %d-%d, its tooltip "
                     "says %r" % (ag, c, paths[cur], b0, b1 - 1, holder))
                return
    if checked == 0:
        fail("no cell lies wholly inside a listed file's extent")


def check_plan_keys(doc, plan):
    n = 0
    for k, text in doc.allkeys:
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


def bucket_of(hist, v):
    """Index of the histogram bar whose label range holds v."""
    for i, (label, _) in enumerate(hist):
        lo, _, hi = label.partition("-")
        lo = int(lo.rstrip("+"))
        hi = int(hi) if hi else (lo if not label.endswith("+") else 1 << 62)
        if lo <= v <= hi:
            return i
    return None


def check_after(doc, rep, plan, covers):
    """The after maps and histograms against the plan."""
    whole = rep.get("ag") is None
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
    if whole and tot["now"] != tot["after"]:
        fail("data blocks now %d, after %d: the plan map loses data" %
             (tot["now"], tot["after"]))
    # renumbering: the inode blocks change by the chunks allocated and
    # freed (whole chunks of 64 inodes)
    g = rep["geometry"]
    cb = 64 * g["inodesize"] // g["blocksize"] or 1
    want = (plan.get("inode_chunks_allocated", 0) -
            plan.get("inode_chunks_freed", 0)) * cb
    if whole and renumbered and ino["after"] - ino["now"] != want:
        fail("inode blocks now %d, after %d: the plan allocates %d and "
             "frees %d chunks of %d blocks" %
             (ino["now"], ino["after"], plan["inode_chunks_allocated"],
              plan["inode_chunks_freed"], cb))
    # histograms after the run
    ext = doc.hists.get("extents-after")
    dist = doc.hists.get("distance-after")
    freesp = doc.hists.get("freesp-after")
    if ext is None or dist is None or freesp is None:
        fail("histograms after the run missing: %s" % sorted(doc.hists))
        return
    fr = rep["fragmentation"]
    if sum(v for _, v in ext) != fr["files_with_data"]:
        fail("extents-after holds %d files, %d have data" %
             (sum(v for _, v in ext), fr["files_with_data"]))
    if not whole:
        return
    if sum(v for _, v in ext[1:]) != plan["after"]["files_multi_extent"]:
        fail("extents-after: %d files in more than one extent, plan %d" %
             (sum(v for _, v in ext[1:]),
              plan["after"]["files_multi_extent"]))
    n = sum(v for _, v in dist)
    if n != rep["inode_data_distance"]["files"]:
        fail("distance-after holds %d files, now %d" %
             (n, rep["inode_data_distance"]["files"]))
    med = plan["after"]["distance_median"]
    vals = [v for _, v in dist]
    b = med.bit_length()
    if not (sum(vals[:b]) <= n / 2 + 1 and sum(vals[:b + 1]) >= n / 2 - 1):
        fail("plan's median distance after %d is not in distance-after's "
             "middle bucket" % med)
    longest = max(g["longest_free_after"] for g in plan["ags"])
    top = max((i for i, (_, v) in enumerate(freesp) if v), default=None)
    if top is None or top != bucket_of(freesp, longest):
        fail("freesp-after's largest bucket %s does not hold the plan's "
             "longest free extent %d" % (top, longest))


def report_main(html, rep_json, bmap_out=None, plan_json=None, log=None):
    doc = parse_doc(html)
    rep = json.load(open(rep_json))
    plan = json.load(open(plan_json)) if plan_json else None
    nmaps = 2 if plan else 1
    covers = check_common(doc, rep, ["summary", "maps", "histograms",
                                     "fragmented", "readback", "ags"], nmaps,
                          rep.get("verdict"))
    if not plan and any(m["when"] == "after" for m in doc.maps):
        fail("maps after a run, but no plan JSON to check them against")
    for k in ("hdd_ms", "ssd_requests", "jumps", "far_jumps"):
        if "readback." + k not in doc.keys:
            fail("read-back figure %s missing from the HTML" % k)
    if rep.get("verdict") and "verdict.hdd_ms_now" not in doc.keys:
        fail("the verdict's figures are not in the verdict box")
    check_files(doc, rep, bmap_out)
    check_cells_named(doc, rep, bmap_out, rep["geometry"]["blocksize"])
    if plan:
        check_plan_keys(doc, plan)
        check_after(doc, rep, plan, covers)
    if log:
        check_log(doc, log)


def longest_run(cover, cls):
    best = cur = 0
    for c in cover:
        cur = cur + 1 if c == cls else 0
        best = max(best, cur)
    return best


def plan_main(html, plan_json, rep_json, log=None):
    doc = parse_doc(html)
    plan = json.load(open(plan_json))
    rep = json.load(open(rep_json))
    covers = check_common(doc, rep, ["summary", "plan", "maps", "histograms",
                                     "fragmented", "readback", "ags"], 2,
                          plan["verdict"])
    for k in ("hdd_ms", "ssd_requests", "jumps", "far_jumps"):
        for when in ("now", "after"):
            if "plan.%s.readback.%s" % (when, k) not in doc.keys:
                fail("plan read-back figure %s %s missing" % (when, k))
    if "plan.verdict.hdd_ms_now" not in doc.keys:
        fail("the verdict's figures are not in the verdict box")
    check_plan_keys(doc, plan)
    if doc.notes != len(plan["not_contiguous"]):
        fail("%d notes, plan JSON %d" % (doc.notes,
                                         len(plan["not_contiguous"])))
    check_after(doc, rep, plan, covers)
    if log:
        check_log(doc, log)


def main():
    args = sys.argv[1:]
    opts = {}
    while len(args) >= 2 and args[-2] in ("--plan", "--log"):
        opts[args[-2]] = args[-1]
        args = args[:-2]
    for i in range(len(args) - 1):
        if args[i] in ("--plan", "--log"):
            opts[args[i]] = args[i + 1]
            args = args[:i] + args[i + 2:]
            break
    log = tuple(int(x) for x in opts["--log"].split(",")) \
        if "--log" in opts else None
    if len(args) >= 3 and args[0] == "report":
        report_main(*args[1:4], plan_json=opts.get("--plan"), log=log)
    elif len(args) == 4 and args[0] == "plan":
        plan_main(*args[1:4], log=log)
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
