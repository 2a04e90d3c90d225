#!/usr/bin/env python3
"""Reference figures for tests/it/font_kind.rs, read without assetc.

FreeType (freetype-py, which bundles its own FreeType) gives unhinted advances, the legacy
`kern` table's kerning and rendered text; fontTools reads GPOS pair kerning on its own.

  font_reference.py check
      exits 0 when freetype-py and fontTools import.
  font_reference.py metrics FONT TEXT PAIR...
      JSON: {"units_per_em", "advances": {char: em}, "kern": {pair: em}, "gpos": {pair: em or null}}
      advances: FreeType's linearHoriAdvance (unhinted, FT_LOAD_NO_HINTING) at 64 px per em;
      kern: FT_Get_Kerning (the legacy table) unscaled; gpos: the summed first
      valueRecord xAdvance of the `kern` feature's pair lookups (null: no GPOS entry).
  font_reference.py make-kerned OUT.ttf
      writes a small TrueType font (A V T o as boxes, 1000 units per em) kerned both ways:
      GPOS `kern` feature  A V -80 (format 1), T o -70 (format 2 classes @L=[T], @R=[o]);
      legacy `kern` table  A V -100, T o -50, V A -30, T A -40.
  font_reference.py render FONT TEXT PX WIDTH HEIGHT PEN_X BASELINE OUT.pgm
      FreeType's antialiased, unhinted rendering of TEXT at PX pixels per em, the pen
      starting at (PEN_X, BASELINE) (baseline y down from the top) and moved by the
      unhinted advance plus the pair's kerning (GPOS where it has the pair, else `kern`);
      each glyph rendered at its exact sub-pixel pen position (FT_Set_Transform). Glyphs
      are combined by the maximum of their coverage.
"""

import json
import math
import sys


def gpos_kerning(tt, left, right):
    """The GPOS kerning of two characters in font units, or None when no `kern` lookup
    has a subtable for the pair. Lookups of every `kern` feature are summed in lookup
    order; within a lookup, the first subtable that applies decides."""
    if "GPOS" not in tt:
        return None
    gpos = tt["GPOS"].table
    cmap = tt.getBestCmap()
    a = cmap.get(ord(left), ".notdef")
    b = cmap.get(ord(right), ".notdef")
    lookups = sorted(
        {
            i
            for fr in gpos.FeatureList.FeatureRecord
            if fr.FeatureTag == "kern"
            for i in fr.Feature.LookupListIndex
        }
    )
    total, found = 0, False
    for li in lookups:
        lookup = gpos.LookupList.Lookup[li]
        for st in lookup.SubTable:
            kind = lookup.LookupType
            if kind == 9:
                kind, st = st.ExtensionLookupType, st.ExtSubTable
            if kind != 2 or a not in st.Coverage.glyphs:
                continue
            if st.Format == 1:
                pair_set = st.PairSet[st.Coverage.glyphs.index(a)]
                rec = next(
                    (r for r in pair_set.PairValueRecord if r.SecondGlyph == b), None
                )
                if rec is None:
                    continue
            else:
                c1 = st.ClassDef1.classDefs.get(a, 0) if st.ClassDef1 else 0
                c2 = st.ClassDef2.classDefs.get(b, 0) if st.ClassDef2 else 0
                if c1 >= len(st.Class1Record) or c2 >= len(st.Class1Record[c1].Class2Record):
                    continue
                rec = st.Class1Record[c1].Class2Record[c2]
            value1 = getattr(rec, "Value1", None)
            total += getattr(value1, "XAdvance", 0) or 0
            found = True
            break
    return total if found else None


def open_font(path):
    import freetype
    from fontTools.ttLib import TTFont

    return freetype.Face(path), TTFont(path)


def metrics(path, text, pairs):
    import freetype

    face, tt = open_font(path)
    upem = face.units_per_EM
    face.set_pixel_sizes(0, 64)
    advances = {}
    for ch in text:
        face.load_char(ch, freetype.FT_LOAD_NO_HINTING | freetype.FT_LOAD_NO_BITMAP)
        advances[ch] = face.glyph.linearHoriAdvance / 65536.0 / 64.0
    kern, gpos = {}, {}
    for pair in pairs:
        k = face.get_kerning(pair[0], pair[1], freetype.FT_KERNING_UNSCALED)
        kern[pair] = k.x / upem
        g = gpos_kerning(tt, pair[0], pair[1])
        gpos[pair] = None if g is None else g / upem
    print(json.dumps({"units_per_em": upem, "advances": advances, "kern": kern, "gpos": gpos}))


def render(path, text, px, width, height, pen_x, baseline, out):
    import freetype

    face, tt = open_font(path)
    upem = face.units_per_EM
    face.set_pixel_sizes(0, px)
    image = bytearray(width * height)
    pen = float(pen_x)
    previous = None
    for ch in text:
        if previous is not None:
            g = gpos_kerning(tt, previous, ch)
            if g is None:
                g = face.get_kerning(previous, ch, freetype.FT_KERNING_UNSCALED).x
            pen += g * px / upem
        whole = math.floor(pen)
        delta = freetype.FT_Vector(int(round((pen - whole) * 64)), 0)
        face.set_transform(freetype.FT_Matrix(0x10000, 0, 0, 0x10000), delta)
        face.load_char(ch, freetype.FT_LOAD_NO_HINTING | freetype.FT_LOAD_RENDER)
        slot = face.glyph
        bitmap = slot.bitmap
        buf = bitmap.buffer
        for r in range(bitmap.rows):
            y = baseline - slot.bitmap_top + r
            if not 0 <= y < height:
                continue
            for c in range(bitmap.width):
                x = whole + slot.bitmap_left + c
                if 0 <= x < width:
                    v = buf[r * bitmap.pitch + c]
                    i = y * width + x
                    if v > image[i]:
                        image[i] = v
        pen += slot.linearHoriAdvance / 65536.0
        previous = ch
    with open(out, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (width, height))
        f.write(bytes(image))


def make_kerned(out):
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable
    from fontTools.ttLib.tables._k_e_r_n import KernTable_format_0

    names = [".notdef", "space", "A", "V", "T", "o"]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({0x20: "space", 0x41: "A", 0x56: "V", 0x54: "T", 0x6F: "o"})
    glyphs = {}
    for name in names:
        pen = TTGlyphPen(None)
        if name != "space":
            top = 500 if name == "o" else 700
            pen.moveTo((50, 0))
            pen.lineTo((50, top))
            pen.lineTo((550, top))
            pen.lineTo((550, 0))
            pen.closePath()
        glyphs[name] = pen.glyph()
    fb.setupGlyf(glyphs)
    fb.setupHorizontalMetrics({n: (600, 0 if n == "space" else 50) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Kerned", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200)
    fb.setupPost()
    fb.addOpenTypeFeatures(
        "@L = [T]; @R = [o];\n"
        "feature kern { pos A V -80; pos @L @R -70; } kern;\n"
    )
    kern = newTable("kern")
    kern.version = 0
    table = KernTable_format_0()
    table.version = 0
    table.coverage = 1
    table.format = 0
    table.kernTable = {("A", "V"): -100, ("T", "o"): -50, ("V", "A"): -30, ("T", "A"): -40}
    kern.kernTables = [table]
    fb.font["kern"] = kern
    fb.save(out)


def main(argv):
    if argv[1] == "check":
        import freetype  # noqa: F401
        import fontTools  # noqa: F401
    elif argv[1] == "metrics":
        metrics(argv[2], argv[3], argv[4:])
    elif argv[1] == "make-kerned":
        make_kerned(argv[2])
    elif argv[1] == "render":
        path, text = argv[2], argv[3]
        px, width, height, pen_x, baseline = (int(v) for v in argv[4:9])
        render(path, text, px, width, height, pen_x, baseline, argv[9])
    else:
        sys.exit("unknown command " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
