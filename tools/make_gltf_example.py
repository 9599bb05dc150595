#!/usr/bin/env python3
"""Writes assets/gltf/courtyard.glb, the shipped glTF example (docs/scene-format.md).

A small courtyard built from scratch (no third-party assets), chosen to exercise what the
glTF loader and the alpha pipeline do: a tiled floor (opaque, repeat sampler, mip maps), a
plinth without normals (flat normals generated), a fern of double-sided leaf cards (alphaMode
MASK on a leaf-shaped alpha texture), a lattice screen (MASK, repeat, nearest without mip maps), leaves on clamp-to-edge, two
tinted glass panes (BLEND, double-sided), an emissive lamp globe under a hierarchy of nodes,
KHR_lights_punctual point and directional lights, and two named cameras.

Pure Python, deterministic: run it again to regenerate the file byte for byte.
    python3 tools/make_gltf_example.py [output.glb]
"""
import json
import math
import os
import struct
import sys
import zlib


def png(width, height, pixel):
    """RGBA8 PNG bytes; pixel(x, y) returns (r, g, b, a) in 0..255."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows.extend(bytes(pixel(x, y)))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def clamp8(v):
    return max(0, min(255, int(round(v))))


def hash01(x, y, seed):
    h = (x * 374761393 + y * 668265263 + seed * 2246822519) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    return ((h ^ (h >> 16)) & 0xFFFF) / 65535.0


def floor_texel(x, y):
    # 4x4 sandstone flagstones with mortar lines and per-stone tint.
    size = 64
    sx, sy = x // size, y // size
    fx, fy = x % size, y % size
    mortar = fx < 3 or fy < 3
    tint = 0.85 + 0.3 * hash01(sx, sy, 7)
    grain = 0.9 + 0.2 * hash01(x, y, 3)
    if mortar:
        return (clamp8(95 * grain), clamp8(90 * grain), clamp8(82 * grain), 255)
    return (clamp8(196 * tint * grain), clamp8(170 * tint * grain), clamp8(128 * tint * grain), 255)


def leaf_texel(x, y):
    # A leaf along v: alpha from a pointed ellipse, leaflets along the midrib.
    w, h = 64, 128
    u = (x + 0.5) / w * 2.0 - 1.0  # -1..1 across
    v = (y + 0.5) / h              # 0 tip .. 1 stem
    half_width = 0.95 * math.sin(math.pi * min(1.0, v * 1.05)) ** 0.8
    serration = 0.18 * abs(math.sin(v * math.pi * 9.0))
    inside = abs(u) < half_width - serration
    rib = abs(u) < 0.05
    shade = 0.55 + 0.45 * v
    r, g, b = (60, 150, 50) if not rib else (150, 200, 90)
    return (clamp8(r * shade), clamp8(g * shade), clamp8(b * shade), 255 if inside else 0)


def lattice_texel(x, y):
    # A wooden trellis: diagonal slats, open diamonds between them.
    d1 = (x + y) % 32
    d2 = (x - y) % 32
    wood = d1 < 6 or d2 < 6
    grain = 0.85 + 0.15 * hash01(x // 2, y, 11)
    return (clamp8(130 * grain), clamp8(88 * grain), clamp8(52 * grain), 255 if wood else 0)


class Builder:
    def __init__(self):
        self.bin = bytearray()
        self.doc = {"asset": {"version": "2.0", "generator": "tools/make_gltf_example.py"},
                    "bufferViews": [], "accessors": [], "meshes": [], "nodes": [], "materials": [],
                    "textures": [], "images": [], "samplers": [], "cameras": []}

    def view(self, data):
        while len(self.bin) % 4:
            self.bin.append(0)
        self.doc["bufferViews"].append({"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)})
        self.bin.extend(data)
        return len(self.doc["bufferViews"]) - 1

    def floats(self, values, kind, components, bounds=False):
        view = self.view(struct.pack("<%df" % len(values), *values))
        acc = {"bufferView": view, "componentType": 5126, "count": len(values) // components, "type": kind}
        if bounds:
            acc["min"] = [min(values[i::components]) for i in range(components)]
            acc["max"] = [max(values[i::components]) for i in range(components)]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def indices(self, values):
        view = self.view(struct.pack("<%dH" % len(values), *values))
        self.doc["accessors"].append({"bufferView": view, "componentType": 5123, "count": len(values), "type": "SCALAR"})
        return len(self.doc["accessors"]) - 1

    def mesh(self, name, positions, normals, uvs, idx, material):
        attributes = {"POSITION": self.floats(positions, "VEC3", 3, bounds=True)}
        if normals:
            attributes["NORMAL"] = self.floats(normals, "VEC3", 3)
        if uvs:
            attributes["TEXCOORD_0"] = self.floats(uvs, "VEC2", 2)
        self.doc["meshes"].append({"name": name, "primitives": [
            {"attributes": attributes, "indices": self.indices(idx), "material": material}]})
        return len(self.doc["meshes"]) - 1

    def texture(self, data, sampler):
        view = self.view(data)
        self.doc["images"].append({"bufferView": view, "mimeType": "image/png"})
        self.doc["textures"].append({"source": len(self.doc["images"]) - 1, "sampler": sampler})
        return len(self.doc["textures"]) - 1

    def add(self, kind, item):
        self.doc[kind].append(item)
        return len(self.doc[kind]) - 1

    def glb(self):
        doc = dict(self.doc)
        doc["buffers"] = [{"byteLength": len(self.bin)}]
        text = json.dumps(doc, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 4)
        data = bytes(self.bin) + b"\0" * (-len(self.bin) % 4)
        return (b"glTF" + struct.pack("<II", 2, 12 + 8 + len(text) + 8 + len(data)) +
                struct.pack("<I", len(text)) + b"JSON" + text + struct.pack("<I", len(data)) + b"BIN\0" + data)


def quad(half_w, half_h, uv_scale=1.0):
    """A quad in XY facing +Z, uv (0, 0) at the top-left."""
    p = [-half_w, -half_h, 0, half_w, -half_h, 0, half_w, half_h, 0, -half_w, half_h, 0]
    n = [0, 0, 1] * 4
    uv = [0, uv_scale, uv_scale, uv_scale, uv_scale, 0, 0, 0]
    return p, n, uv, [0, 1, 2, 0, 2, 3]


def floor_plane(half, uv_scale):
    p = [-half, 0, half, half, 0, half, half, 0, -half, -half, 0, -half]
    return p, [0, 1, 0] * 4, [0, uv_scale, uv_scale, uv_scale, uv_scale, 0, 0, 0], [0, 1, 2, 0, 2, 3]


def box_without_normals(sx, sy, sz):
    """Eight shared corners and no normals: the loader makes flat normals."""
    p = []
    for i in range(8):
        p += [sx * (1 if i & 1 else -1), sy * (1 if i & 2 else -1), sz * (1 if i & 4 else -1)]
    faces = [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)]
    idx = []
    for a, b, c, d in faces:
        idx += [a, b, c, a, c, d]
    return p, None, None, idx


def sphere(radius, segments, rings):
    p, n, uv, idx = [], [], [], []
    for r in range(rings + 1):
        theta = math.pi * r / rings
        for s in range(segments + 1):
            phi = 2 * math.pi * s / segments
            d = (math.sin(theta) * math.cos(phi), math.cos(theta), -math.sin(theta) * math.sin(phi))
            p += [radius * c for c in d]
            n += list(d)
            uv += [s / segments, r / rings]
    for r in range(rings):
        for s in range(segments):
            a = r * (segments + 1) + s
            b = a + segments + 1
            if r != 0:
                idx += [a, b, a + 1]
            if r != rings - 1:
                idx += [a + 1, b, b + 1]
    return p, n, uv, idx


def quat_axis_angle(axis, degrees):
    h = math.radians(degrees) / 2
    length = math.sqrt(sum(c * c for c in axis))
    return [c / length * math.sin(h) for c in axis] + [math.cos(h)]


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz]


def build():
    b = Builder()
    repeat = b.add("samplers", {"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497})
    clamp = b.add("samplers", {"magFilter": 9729, "minFilter": 9987, "wrapS": 33071, "wrapT": 33071})
    nearest = b.add("samplers", {"magFilter": 9728, "minFilter": 9728, "wrapS": 10497, "wrapT": 10497})
    floor_tex = b.texture(png(256, 256, floor_texel), repeat)
    leaf_tex = b.texture(png(64, 128, leaf_texel), clamp)
    lattice_tex = b.texture(png(128, 128, lattice_texel), nearest)

    floor_mat = b.add("materials", {"name": "flagstones", "pbrMetallicRoughness": {"baseColorTexture": {"index": floor_tex}}})
    stone_mat = b.add("materials", {"name": "plinth", "pbrMetallicRoughness": {"baseColorFactor": [0.55, 0.52, 0.5, 1]}})
    leaf_mat = b.add("materials", {"name": "fern", "alphaMode": "MASK", "alphaCutoff": 0.5, "doubleSided": True,
                                   "pbrMetallicRoughness": {"baseColorTexture": {"index": leaf_tex}}})
    lattice_mat = b.add("materials", {"name": "trellis", "alphaMode": "MASK", "doubleSided": True,
                                      "pbrMetallicRoughness": {"baseColorTexture": {"index": lattice_tex}}})
    glass_mat = b.add("materials", {"name": "blue glass", "alphaMode": "BLEND", "doubleSided": True,
                                    "pbrMetallicRoughness": {"baseColorFactor": [0.45, 0.7, 1.0, 0.35]}})
    amber_mat = b.add("materials", {"name": "amber glass", "alphaMode": "BLEND", "doubleSided": True,
                                    "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.6, 0.2, 0.45]}})
    globe_mat = b.add("materials", {"name": "lamp globe", "emissiveFactor": [1.0, 0.85, 0.55],
                                    "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.2, 0.2, 1]}})
    post_mat = b.add("materials", {"name": "iron", "pbrMetallicRoughness": {"baseColorFactor": [0.08, 0.08, 0.09, 1]}})

    floor_mesh = b.mesh("floor", *floor_plane(6.0, 6.0), floor_mat)
    plinth_mesh = b.mesh("plinth", *box_without_normals(0.5, 0.2, 0.5), stone_mat)
    leaf_mesh = b.mesh("leaf", *quad(0.18, 0.45), leaf_mat)
    lattice_mesh = b.mesh("trellis", *quad(1.2, 1.0, 2.0), lattice_mat)
    glass_mesh = b.mesh("pane", *quad(0.6, 0.8), glass_mat)
    amber_mesh = b.mesh("amber pane", *quad(0.5, 0.7), amber_mat)
    globe_mesh = b.mesh("globe", *sphere(0.16, 24, 12), globe_mat)
    post_mesh = b.mesh("post", *box_without_normals(0.04, 0.8, 0.04), post_mat)

    roots = [b.add("nodes", {"name": "floor", "mesh": floor_mesh})]
    # The fern: a plinth with leaves arranged around it, each leaf a child node tilted outwards.
    leaves = []
    for i in range(14):
        yaw = i * 360.0 / 14 + (17 if i % 2 else 0)
        tilt = 25 + 14 * (i % 3)
        q = quat_mul(quat_axis_angle((0, 1, 0), yaw), quat_axis_angle((1, 0, 0), -tilt))
        # The leaf hangs from its stem end: move its centre up along the tilted leaf.
        leaves.append(b.add("nodes", {"name": "leaf %d" % i, "rotation": q,
                                      "children": [b.add("nodes", {"mesh": leaf_mesh, "translation": [0, 0.42, 0]})]}))
    fern = b.add("nodes", {"name": "fern", "translation": [0, 0.4, 0], "children": leaves, "scale": [1.3, 1.3, 1.3]})
    roots.append(b.add("nodes", {"name": "plinth", "mesh": plinth_mesh, "translation": [-0.6, 0.2, 0.2],
                                 "children": [fern]}))
    roots.append(b.add("nodes", {"name": "trellis", "mesh": lattice_mesh, "translation": [0.3, 1.0, -1.6]}))
    # Glass panes: the blue one in front of the trellis, the amber one beside the fern.
    roots.append(b.add("nodes", {"name": "blue pane", "mesh": glass_mesh, "translation": [1.1, 0.8, -0.4],
                                 "rotation": quat_axis_angle((0, 1, 0), -35)}))
    roots.append(b.add("nodes", {"name": "amber pane", "mesh": amber_mesh, "translation": [0.25, 0.7, 0.9],
                                 "rotation": quat_axis_angle((0, 1, 0), 20)}))
    # A lamp: post, globe and point light in a small hierarchy.
    b.doc["extensionsUsed"] = ["KHR_lights_punctual"]
    b.doc["extensions"] = {"KHR_lights_punctual": {"lights": [
        {"name": "lamp", "type": "point", "color": [1.0, 0.8, 0.55], "intensity": 2.5},
        {"name": "sun", "type": "directional", "color": [1.0, 0.97, 0.92], "intensity": 0.9}]}}
    light = b.add("nodes", {"name": "lamp light", "extensions": {"KHR_lights_punctual": {"light": 0}}})
    globe = b.add("nodes", {"name": "globe", "mesh": globe_mesh, "translation": [0, 0.95, 0], "children": [light]})
    roots.append(b.add("nodes", {"name": "lamp post", "mesh": post_mesh, "translation": [1.6, 0.8, 0.6],
                                 "children": [globe]}))
    sun_q = quat_mul(quat_axis_angle((0, 1, 0), 35), quat_axis_angle((1, 0, 0), -55))
    roots.append(b.add("nodes", {"name": "sun", "rotation": sun_q,
                                 "extensions": {"KHR_lights_punctual": {"light": 1}}}))
    # Cameras look down their -Z axis.
    b.add("cameras", {"name": "overview", "type": "perspective",
                      "perspective": {"yfov": 0.75, "znear": 0.05, "zfar": 60}})
    b.add("cameras", {"name": "closeup", "type": "perspective",
                      "perspective": {"yfov": 0.6, "znear": 0.05, "zfar": 60}})
    cam_q = quat_mul(quat_axis_angle((0, 1, 0), 12), quat_axis_angle((1, 0, 0), -22))
    roots.append(b.add("nodes", {"name": "overview", "camera": 0, "translation": [1.4, 2.6, 5.2], "rotation": cam_q}))
    close_q = quat_mul(quat_axis_angle((0, 1, 0), -25), quat_axis_angle((1, 0, 0), -18))
    roots.append(b.add("nodes", {"name": "closeup", "camera": 1, "translation": [-1.6, 1.6, 2.2], "rotation": close_q}))
    b.doc["scenes"] = [{"name": "courtyard", "nodes": roots}]
    b.doc["scene"] = 0
    return b.glb()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "assets", "gltf",
                                                            "courtyard.glb")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "wb") as f:
        f.write(build())
    print("wrote", out)


if __name__ == "__main__":
    main()
