#!/usr/bin/env python3
"""report_dom.py: facts about a report page as a browser rendered it (the
DOM from chromium-headless-shell --dump-dom), or about a PNG screenshot.

  report_dom.py dom FILE     prints one line per fact: "plots N", "paths N"
                             (SVG paths with data), "rows ID N" for the
                             tables gpus, processes, groups, events, "tag
                             NAME N" for img, script, iframe, object, "attr
                             on N" (attributes starting with on), "text"
                             lines of the #processes cells, "title" lines of
                             their title attributes
  report_dom.py png FILE     prints "size W H", "colours N" (distinct RGB
                             values) and "inked PERCENT" (pixels not white)

Standard library only: html.parser, zlib."""
import sys
import zlib
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.plots = self.paths = self.on_attrs = 0
        self.tags = {"img": 0, "script": 0, "iframe": 0, "object": 0, "embed": 0, "link": 0}
        self.rows = {}
        self.table = None
        self.in_tbody = False
        self.cell = None
        self.cells = []
        self.titles = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.on_attrs += sum(1 for k, _ in attrs if k.lower().startswith("on"))
        if tag in self.tags:
            self.tags[tag] += 1
        if tag == "svg" and "plot" in (a.get("class") or "").split():
            self.plots += 1
        if tag == "path" and (a.get("d") or "").strip():
            self.paths += 1
        if tag == "table":
            self.table = a.get("id")
        if tag == "tbody":
            self.in_tbody = True
        if tag == "tr" and self.in_tbody and self.table:
            self.rows[self.table] = self.rows.get(self.table, 0) + 1
        if tag == "td" and self.table == "processes":
            self.cell = []
            if "title" in a:
                self.titles.append(a["title"])

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_tbody = False
        if tag == "table":
            self.table = None
        if tag == "td" and self.cell is not None:
            self.cells.append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def dom(path):
    d = Dom()
    with open(path, encoding="utf-8") as f:
        d.feed(f.read())
    d.close()
    print(f"plots {d.plots}")
    print(f"paths {d.paths}")
    for t in ("gpus", "processes", "groups", "events", "idle", "idle-groups"):
        print(f"rows {t} {d.rows.get(t, 0)}")
    for t, n in sorted(d.tags.items()):
        print(f"tag {t} {n}")
    print(f"attr on {d.on_attrs}")
    for c in d.cells:
        print("text " + c.replace("\n", " "))
    for t in d.titles:
        print("title " + t.replace("\n", " "))


def png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            depth, ctype = body[8], body[9]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), f"unsupported PNG: depth {depth} colour type {ctype}"
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours, inked = set(), 0
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            rgb = bytes(line[x:x + 3])
            colours.add(rgb)
            if rgb != b"\xff\xff\xff":
                inked += 1
        prev = line
    print(f"size {w} {h}")
    print(f"colours {len(colours)}")
    print(f"inked {100.0 * inked / (w * h):.2f}")


if __name__ == "__main__":
    {"dom": dom, "png": png}[sys.argv[1]](sys.argv[2])
