#!/usr/bin/env bash
# Installs every Debian 12 package Tessera needs to build, test and benchmark.
# Idempotent: when everything is already installed it does nothing (no apt-get update).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  # renderer core
  libglm-dev libstb-dev libtinyobjloader-dev nlohmann-json3-dev libcli11-dev libtbb-dev
  libmeshoptimizer-dev libhwy-dev
  # viewer
  libglfw3-dev libimgui-dev libgl-dev
  # Vulkan: headers, loader, shader compiler, software driver (lavapipe), tools
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-tools vulkan-validationlayers
  # tests, benchmarks, oracles
  libgtest-dev libgmock-dev libbenchmark-dev libembree-dev libmpfr-dev
  # `tessera bench layer`: MangoHud, a peer overlay layer (implicit, enabled by MANGOHUD=1)
  mangohud
  # viewer tests: a virtual X server and Mesa's software OpenGL (llvmpipe) behind GLX
  xvfb xauth libgl1-mesa-dri libglx-mesa0
  # the layer's frame capture: SPIR-V patching and validation, zstd-compressed .tcap files
  spirv-tools spirv-headers libzstd-dev zstd
  # glTF 2.0 scenes
  libtinygltf-dev
  # `tessera sweep`: the Slurm executor and its one-node test cluster; plots
  slurm-wlm munge gnuplot-nox
  # fuzzing (libFuzzer) and sanitizer builds
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
