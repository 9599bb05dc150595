#!/usr/bin/env python3
"""Writes assets/textures/tiles.png: stone floor tiles, the shipped PNG texture.

128x128 RGB, 4x4 tiles of 32 texels with 2-texel grout. Each tile gets its own hue and a soft
diagonal shading; no texel-level noise, so the texture stays meaningful when minified
(conformance scenes compare it against a Vulkan reference). Pure Python (zlib + struct), and
deterministic: re-running gives the same bytes.

usage: tools/make_tile_texture.py [output]   (default: assets/textures/tiles.png)
"""
import os
import struct
import sys
import zlib

SIZE = 128
TILES = 4
GROUT = 2  # texels on each side of a tile edge pair


def hash32(x):
    """lowbias32 integer hash, the same mix the C++ noise uses."""
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


def unit(h):
    return (h >> 8) / 16777216.0


def texel(x, y):
    tile = SIZE // TILES
    tx, ty = x // tile, y // tile
    lx, ly = x % tile, y % tile
    half = GROUT // 2
    if lx < half or ly < half or lx >= tile - half or ly >= tile - half:
        return (96, 92, 86)  # grout (sRGB)
    h = hash32(tx * 7 + ty * 131 + 99)
    base = (188 + 30 * unit(h), 170 + 28 * unit(hash32(h)), 140 + 22 * unit(hash32(h + 1)))
    # Soft shading across the tile: brighter towards the top-left, like worn stone.
    shade = 1.04 - 0.10 * ((lx + ly) / (2.0 * tile))
    return tuple(max(0, min(255, int(round(c * shade)))) for c in base)


def png_bytes(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 per row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) +
            chunk(b"IEND", b""))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "assets", "textures", "tiles.png")
    rows = []
    for y in range(SIZE):
        row = []
        for x in range(SIZE):
            row.extend(texel(x, y))
        rows.append(row)
    data = png_bytes(SIZE, SIZE, rows)
    with open(out, "wb") as f:
        f.write(data)
    print("wrote %s: %dx%d, %d bytes" % (out, SIZE, SIZE, len(data)))


if __name__ == "__main__":
    main()
