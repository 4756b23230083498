# Installs missing Debian/Ubuntu packages; sourced by tools/quickstart.sh and tools/test.sh.
# SPDX-License-Identifier: BSL-1.0
#
# loom_install_packages <package...>
#   Checks each package with dpkg-query (nothing else runs when all are installed, so a second
#   run costs a few milliseconds) and installs the missing ones with apt-get: directly as root,
#   through sudo otherwise. Returns 1, after saying what is missing and how to install it, when it
#   cannot (no root and no sudo, or apt-get failed); returns 0 without checking on a system
#   without dpkg, after a note.

loom_install_packages() {
  if ! command -v dpkg-query > /dev/null 2>&1 || ! command -v apt-get > /dev/null 2>&1; then
    echo "note: no dpkg/apt-get here; make sure these (Debian names) are installed: $*" >&2
    return 0
  fi
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q ' installed$' || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0

  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo > /dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "error: missing Debian packages: ${missing[*]}" >&2
      echo "       rerun as root, or install them with:" >&2
      echo "       apt-get install --no-install-recommends ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "==> installing ${missing[*]}"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update \
    || ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends "${missing[@]}"; then
    echo "error: apt-get could not install: ${missing[*]}" >&2
    return 1
  fi
}
