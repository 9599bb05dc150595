#!/usr/bin/env python3
"""Writes a large glTF for measuring load speed (docs/scene-format.md, "Loading speed"):
a height-field grid of about 1M triangles split into 50 primitives, each with its own material
and its own 512x512 noise PNG (50 images in the .glb's buffer), deterministic.
    python3 tools/make_gltf_stress.py OUT.glb [triangles] [textures]
Then: tessera render OUT.glb -o /tmp/x.png --width 320 --height 180   (prints the load report)
"""
import array
import json
import math
import random
import struct
import sys
import zlib


def png(width, height, data):
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
    stride = width * 4
    rows = b"".join(b"\0" + data[y * stride:(y + 1) * stride] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


def main():
    out = sys.argv[1]
    triangles = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    textures = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    cells = int(math.sqrt(triangles / 2))
    band = max(1, cells // textures)
    doc = {"asset": {"version": "2.0"}, "bufferViews": [], "accessors": [], "meshes": [], "nodes": [],
           "materials": [], "textures": [], "images": []}
    blob = bytearray()

    def view(data):
        while len(blob) % 4:
            blob.append(0)
        doc["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)})
        blob.extend(data)
        return len(doc["bufferViews"]) - 1

    rng = random.Random(1)
    primitives = []
    for t in range(textures):
        z0 = t * band
        z1 = cells if t == textures - 1 else min(cells, z0 + band)
        if z0 >= z1:
            break
        pos, uv, idx = array.array("f"), array.array("f"), array.array("I")
        for z in range(z0, z1 + 1):
            for x in range(cells + 1):
                pos.extend((x / cells - 0.5, 0.05 * math.sin(x * 0.05) * math.cos(z * 0.05), z / cells - 0.5))
                uv.extend((x / 16.0, z / 16.0))
        w = cells + 1
        for z in range(z1 - z0):
            for x in range(cells):
                a = z * w + x
                idx.extend((a, a + w, a + 1, a + 1, a + w, a + w + 1))
        p = view(pos.tobytes())
        doc["accessors"].append({"bufferView": p, "componentType": 5126, "count": len(pos) // 3, "type": "VEC3",
                                 "min": [-0.5, -0.05, z0 / cells - 0.5], "max": [0.5, 0.05, z1 / cells - 0.5]})
        doc["accessors"].append({"bufferView": view(uv.tobytes()), "componentType": 5126, "count": len(uv) // 2,
                                 "type": "VEC2"})
        doc["accessors"].append({"bufferView": view(idx.tobytes()), "componentType": 5125, "count": len(idx),
                                 "type": "SCALAR"})
        image = png(512, 512, rng.randbytes(512 * 512 * 4))
        doc["images"].append({"bufferView": view(image), "mimeType": "image/png"})
        doc["textures"].append({"source": t})
        doc["materials"].append({"pbrMetallicRoughness": {"baseColorTexture": {"index": t}}})
        a = len(doc["accessors"])
        primitives.append({"attributes": {"POSITION": a - 3, "TEXCOORD_0": a - 2}, "indices": a - 1, "material": t})
    doc["meshes"].append({"primitives": primitives})
    doc["nodes"].append({"mesh": 0, "scale": [10, 10, 10]})
    doc["scenes"] = [{"nodes": [0]}]
    doc["buffers"] = [{"byteLength": len(blob)}]
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    blob.extend(b"\0" * (-len(blob) % 4))
    with open(out, "wb") as f:
        f.write(b"glTF" + struct.pack("<II", 2, 12 + 8 + len(text) + 8 + len(blob)) + struct.pack("<I", len(text)) +
                b"JSON" + text + struct.pack("<I", len(blob)) + b"BIN\0" + bytes(blob))
    print("wrote", out, "with", len(primitives), "primitives")


if __name__ == "__main__":
    main()
