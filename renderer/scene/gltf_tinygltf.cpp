// tinygltf's implementation (Debian libtinygltf-dev ships the header-only library): compiled
// here once, with the options Tessera needs. Images are not decoded by tinygltf (no stb_image,
// no writer): the loader hands it a callback that keeps the encoded bytes, and decodes the
// images it uses itself, in parallel, with its own size checks (gltf_loader.cpp). File access
// goes through the loader's callbacks too (size caps of tessera/input_file.h), so no default
// file system code is compiled (TINYGLTF_NO_FS).
// The writer (unused) names std::ofstream even without the default file system code.
#include <fstream>

#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_FS
#include <tiny_gltf.h>
