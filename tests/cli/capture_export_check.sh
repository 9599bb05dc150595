#!/usr/bin/env bash
# capture export writes the sample's cube (12 triangles at w = 2) as an OBJ in NDC turned about
# x: 36 vertices, 12 faces, every coordinate +-0.25 (z: -(0.5 +- 0.25)).
#   capture_export_check.sh TESSERA CAPTURE OUT.obj
set -eu
tessera="$1"; capture="$2"; obj="$3"
rm -f "$obj"
out=$("$tessera" capture export "$capture" --frame 10 --draw 0 --obj "$obj")
case "$out" in *"wrote $obj: frame 10, draw 0, 12 triangles"*) ;; *) echo "FAIL: output: $out"; exit 1;; esac
[ "$(grep -c '^v ' "$obj")" -eq 36 ] || { echo "FAIL: expected 36 vertices"; exit 1; }
[ "$(grep -c '^f ' "$obj")" -eq 12 ] || { echo "FAIL: expected 12 faces"; exit 1; }
# The first face's first corner: clip (-0.5, -0.5, 1.5, 2) -> NDC (-0.25, -0.25, 0.75) -> (-0.25, 0.25, -0.75).
first=$(grep -m1 '^v ' "$obj")
[ "$first" = "v -0.25 0.25 -0.75" ] || { echo "FAIL: first vertex: $first"; exit 1; }
bad=$(awk '/^v / { for (i = 2; i <= 4; ++i) { a = $i < 0 ? -$i : $i; if (i < 4 && a != 0.25) print; if (i == 4 && a != 0.25 && a != 0.75) print } }' "$obj")
[ -z "$bad" ] || { echo "FAIL: unexpected coordinates: $bad"; exit 1; }
grep -q '^f 34 35 36$' "$obj" || { echo "FAIL: last face"; exit 1; }
echo "ok: 12 triangles in NDC"
