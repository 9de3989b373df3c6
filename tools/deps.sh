# streamtensor: the Debian packages the project needs, in one place, and an idempotent installer.
# Sourced by tools/demo, tools/test, tools/sanitize and tools/fuzz. Installs only what is missing
# (quick when all is there). graphviz: `dot` renders every design's dataflow.svg and
# sim/stall_report.svg.

ST_APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git tcl
  verilator yosys gtkwave zlib1g-dev
  coinor-libcbc-dev libyaml-cpp-dev libgmp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev python3 graphviz
)

# The opt-in sanitizer and fuzz runs (tools/sanitize, tools/fuzz) also need clang with its
# runtimes (libFuzzer, ASan, UBSan) and llvm-symbolizer; the default build and tests do not.
ST_SANITIZE_APT_PACKAGES=(clang-14 libclang-rt-14-dev llvm-14)

st_install_deps() {
  st_install_packages "${ST_APT_PACKAGES[@]}"
}

# Installs the Debian packages given that are missing. Fails naming them when it cannot.
st_install_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "streamtensor: installing missing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "streamtensor: error: missing Debian packages: ${missing[*]} (not root and no sudo:" \
        "install them with apt-get)" >&2
      return 1
    fi
    sudo="sudo"
  fi
  if ! { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}"; }; then
    echo "streamtensor: error: could not install the Debian packages: ${missing[*]}" >&2
    return 1
  fi
}

# Configure (once) and build the tree in $ST_BUILD_DIR with all cores.
st_build() {
  ST_BUILD_DIR=${ST_BUILD_DIR:-build}
  local generator=()
  if [ ! -f "$ST_BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
  cmake -S . -B "$ST_BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "$ST_BUILD_DIR" --parallel "$(nproc)" "$@"
}

# Configure (once) and build the sanitizer build in $ST_SANITIZE_BUILD_DIR (default
# build-sanitize): clang, ASan + UBSan, libFuzzer instrumentation, only the unit tests and the
# fuzz harnesses (CMake options ST_SANITIZE, ST_FUZZ). Arguments go to cmake --build.
st_sanitize_build() {
  st_install_packages "${ST_SANITIZE_APT_PACKAGES[@]}" || return 1
  ST_SANITIZE_BUILD_DIR=${ST_SANITIZE_BUILD_DIR:-build-sanitize}
  local generator=()
  if [ ! -f "$ST_SANITIZE_BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
  cmake -S . -B "$ST_SANITIZE_BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DST_SANITIZE=ON -DST_FUZZ=ON >/dev/null
  cmake --build "$ST_SANITIZE_BUILD_DIR" --parallel "$(nproc)" "$@"
}
