# The libFuzzer targets, one line each (docs/fuzzing.md): tessera_fuzz_target(<name> <seed globs>)
# builds tests/fuzz/fuzz_<name>.cpp and seeds its corpus from the shipped inputs matching the globs
# (relative to the source root, ";"-separated) plus tests/fuzz/corpus/<name>/ (committed seeds
# and every finding's regression input). Included by tests/fuzz/CMakeLists.txt (ctest) and by
# tests/fuzz/clang/CMakeLists.txt (the clang build), which define tessera_fuzz_target.
# The benchmark scenes (assets/bench) are large on purpose: seeds that take seconds each.
tessera_fuzz_target(scene_json "assets/*.json;assets/conformance/*.json;tests/data/bad/json_*.json;tests/cli/data/*.json")
tessera_fuzz_target(config "tests/cli/data/*.config.json")
tessera_fuzz_target(obj "assets/meshes/*.obj;tests/data/bad/obj_*.obj;tests/cli/data/*.obj")
tessera_fuzz_target(color_decode "")
tessera_fuzz_target(color_roundtrip "")
tessera_fuzz_target(tessellator "")
tessera_fuzz_target(tcap "")
tessera_fuzz_target(gltf "")
