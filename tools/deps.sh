# streamtensor: the Debian packages the project needs, in one place, and an idempotent installer.
# Sourced by tools/demo and tools/test. Installs only what is missing (quick when all is there).
# graphviz: `dot` renders every design's dataflow.svg and sim/stall_report.svg.

ST_APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git tcl
  verilator yosys gtkwave zlib1g-dev
  coinor-libcbc-dev libyaml-cpp-dev libgmp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev python3 graphviz
)

st_install_deps() {
  local missing=()
  local pkg
  for pkg in "${ST_APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "streamtensor: installing missing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
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
