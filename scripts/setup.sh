#!/usr/bin/env bash
# Installs ermak's dependencies (Debian packages) and builds it into ./build.
# Usage: scripts/setup.sh            install + configure + build
#        ERMAK_SKIP_APT=1 scripts/setup.sh   build only (packages already there)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libomp-dev gemmi-dev tao-pegtl-dev libtomlplusplus-dev libcli11-dev
          libspdlog-dev libfmt-dev librandom123-dev libgtest-dev freesasa
          python3 python3-numpy python3-matplotlib python3-mdanalysis)

if [[ "${ERMAK_SKIP_APT:-0}" != 1 ]]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
echo "setup: built $(pwd)/build/ermak"
