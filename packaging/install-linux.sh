#!/usr/bin/env bash
# Install parler-desktop for the current user, without root: a private venv (or a PyInstaller
# bundle), a launcher in ~/.local/bin, the menu entry (also the handler of parler:// invite links),
# the icons and the AppStream metainfo. Running it again upgrades in place; --uninstall removes what
# it installed (your identity and data are kept).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: install-linux.sh [--wheel FILE] [--python PYTHON]
       install-linux.sh --bundle DIR
       install-linux.sh --uninstall

Installs parler-desktop for the current user:
  venv      $XDG_DATA_HOME/parler-desktop/venv   (default ~/.local/share/parler-desktop/venv)
  bundle    $XDG_DATA_HOME/parler-desktop/bundle (with --bundle, instead of the venv)
  launcher  ~/.local/bin/parler-desktop
  menu      $XDG_DATA_HOME/applications/parler-desktop.desktop (handles parler:// links)
  icons     $XDG_DATA_HOME/icons/hicolor/{scalable,16x16,...,512x512}/apps/parler-desktop.{svg,png}
  metainfo  $XDG_DATA_HOME/metainfo/io.github.tamdogood.ParlerDesktop.metainfo.xml

  --wheel FILE     install this built wheel (default: build one from the project directory)
  --python PYTHON  Python 3.11+ to create the venv with (default: python3)
  --bundle DIR     install this PyInstaller bundle (the folder holding parler-desktop); no Python needed
  --uninstall      remove all of the above; identity and data are kept
EOF
}

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project_dir="$(dirname "$script_dir")"
data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
venv="$data_home/parler-desktop/venv"
bundle="$data_home/parler-desktop/bundle"
launcher="$HOME/.local/bin/parler-desktop"
desktop_file="$data_home/applications/parler-desktop.desktop"
icon_theme="$data_home/icons/hicolor"
svg_icon="$icon_theme/scalable/apps/parler-desktop.svg"
icon_sizes="16 22 24 32 48 64 128 256 512"  # parler_desktop.assets.ICON_SIZES
metainfo_file="$data_home/metainfo/io.github.tamdogood.ParlerDesktop.metainfo.xml"
build_dir=""  # a temporary wheel build, removed on exit
trap 'if [[ -n "$build_dir" ]]; then rm -rf -- "$build_dir"; fi' EXIT

die() {
  printf 'install-linux.sh: %s\n' "$*" >&2
  exit 1
}

# The launcher is ours only if it is a symlink into our venv or bundle; anything else is left alone.
launcher_is_ours() {
  [[ -L "$launcher" ]] || return 1
  local target
  target="$(readlink "$launcher")"
  [[ "$target" == "$venv/bin/parler-desktop" || "$target" == "$bundle/parler-desktop" ]]
}

# An Exec= value running $1: quoted per the Desktop Entry spec (quoting, then string escapes).
desktop_exec() {
  local arg="$1"
  arg="${arg//\\/\\\\}"
  arg="${arg//\"/\\\"}"
  arg="${arg//\`/\\\`}"
  arg="${arg//\$/\\\$}"
  arg="${arg//%/%%}"
  arg="${arg//\\/\\\\}"
  printf '"%s"' "$arg"
}

refresh_desktop_caches() {
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$(dirname "$desktop_file")" || true
  fi
  if command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -f -t "$icon_theme" >/dev/null 2>&1 || true
  fi
}

uninstall_app() {
  if launcher_is_ours; then
    rm -f -- "$launcher"
  elif [[ -e "$launcher" || -L "$launcher" ]]; then
    printf 'leaving %s alone: it is not a link into %s\n' "$launcher" "$venv" >&2
  fi
  rm -f -- "$desktop_file" "$svg_icon" "$metainfo_file"
  local size
  for size in $icon_sizes; do rm -f -- "$icon_theme/${size}x${size}/apps/parler-desktop.png"; done
  if [[ -d "$venv" ]]; then
    [[ -f "$venv/pyvenv.cfg" ]] || die "$venv is not a Python venv; not removing it"
    rm -rf -- "$venv"
  fi
  remove_bundle
  refresh_desktop_caches
  printf 'parler-desktop uninstalled. Your identity and data are kept in %s and %s.\n' \
    "${XDG_CONFIG_HOME:-$HOME/.config}/parler-desktop" "$data_home/parler-desktop"
}

install_app() {
  local python="$1" wheel="$2"
  "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
    || die "$python is not Python 3.11 or newer (choose one with --python)"
  if [[ -e "$launcher" || -L "$launcher" ]] && ! launcher_is_ours; then
    die "$launcher exists and is not ours; move it away first"
  fi

  # A venv whose Python no longer runs (e.g. after a system upgrade) is rebuilt from scratch.
  if ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
    mkdir -p -- "$(dirname "$venv")"
    "$python" -m venv --clear "$venv"
  fi

  if [[ -z "$wheel" ]]; then
    [[ -f "$project_dir/pyproject.toml" ]] || die "no project in $project_dir; pass --wheel FILE"
    build_dir="$(mktemp -d)"
    "$venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$build_dir" "$project_dir"
    wheel="$(find "$build_dir" -name 'parler_desktop-*.whl' -print -quit)"
    [[ -n "$wheel" ]] || die "building the wheel from $project_dir produced no wheel"
  fi
  # First the dependencies, then the app itself again even at an unchanged version number.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps "$wheel"

  local resources
  # -I: not the checkout's package (the current folder) but the one just installed
  resources="$("$venv/bin/python" -I -c 'from parler_desktop.assets import resources_dir; print(resources_dir())')"
  remove_bundle
  integrate "$venv/bin/parler-desktop" "$resources"
}

# A bundle is ours if it holds the frozen app; a folder that does not is never removed.
remove_bundle() {
  if [[ -d "$bundle" ]]; then
    [[ -x "$bundle/parler-desktop" ]] || die "$bundle does not hold a parler-desktop bundle; not removing it"
    rm -rf -- "$bundle"
  fi
}

install_bundle() {
  local source="$1"
  [[ -x "$source/parler-desktop" && -d "$source/_internal/parler_desktop/resources" ]] \
    || die "$source is not a parler-desktop bundle (no parler-desktop and _internal/parler_desktop/resources)"
  if [[ -e "$launcher" || -L "$launcher" ]] && ! launcher_is_ours; then
    die "$launcher exists and is not ours; move it away first"
  fi
  remove_bundle
  mkdir -p -- "$(dirname "$bundle")"
  cp -a -- "$source" "$bundle.tmp"
  mv -- "$bundle.tmp" "$bundle"
  if [[ -f "$venv/pyvenv.cfg" ]]; then rm -rf -- "$venv"; fi
  integrate "$bundle/parler-desktop" "$bundle/_internal/parler_desktop/resources"
}

# The launcher, menu entry (Exec= the launcher's full path, %u for parler:// links), icons and
# metainfo, taken from the installed app's resources folder ($2).
integrate() {
  local command="$1" resources="$2"
  [[ -f "$resources/parler-desktop.desktop" ]] || die "the installed app has no desktop entry in $resources"
  mkdir -p -- "$(dirname "$launcher")"
  ln -sfn -- "$command" "$launcher"

  mkdir -p -- "$(dirname "$desktop_file")"
  local exec_value line size
  exec_value="$(desktop_exec "$launcher") %u"
  while IFS= read -r line; do
    if [[ "$line" == Exec=* ]]; then
      printf 'Exec=%s\n' "$exec_value"
    else
      printf '%s\n' "$line"
    fi
  done <"$resources/parler-desktop.desktop" >"$desktop_file.tmp"
  chmod 644 -- "$desktop_file.tmp"
  mv -f -- "$desktop_file.tmp" "$desktop_file"

  install -D -m 644 -- "$resources/icons/parler-desktop.svg" "$svg_icon"
  for size in $icon_sizes; do
    install -D -m 644 -- "$resources/icons/hicolor/${size}x${size}/apps/parler-desktop.png" \
      "$icon_theme/${size}x${size}/apps/parler-desktop.png"
  done
  install -D -m 644 -- "$resources/$(basename "$metainfo_file")" "$metainfo_file"
  if command -v xdg-mime >/dev/null 2>&1; then
    xdg-mime default parler-desktop.desktop x-scheme-handler/parler || true
  fi
  refresh_desktop_caches

  printf 'parler-desktop installed: %s\n' "$launcher"
  case ":$PATH:" in
    *":$(dirname "$launcher"):"*) ;;
    *) printf 'note: %s is not on your PATH; the menu entry works regardless.\n' \
         "$(dirname "$launcher")" ;;
  esac
}

main() {
  local mode="install" python="python3" wheel="" bundle_source=""
  while (($#)); do
    case "$1" in
      --uninstall) mode="uninstall" ;;
      --wheel)
        (($# >= 2)) || die "--wheel needs a file"
        wheel="$(realpath -- "$2")"
        [[ -f "$wheel" ]] || die "no such wheel: $2"
        shift
        ;;
      --bundle)
        (($# >= 2)) || die "--bundle needs a folder"
        bundle_source="$(realpath -- "$2")"
        mode="bundle"
        shift
        ;;
      --python)
        (($# >= 2)) || die "--python needs a command"
        python="$2"
        shift
        ;;
      -h | --help)
        usage
        return 0
        ;;
      *) die "unknown option: $1 (see --help)" ;;
    esac
    shift
  done
  if [[ "$mode" == "uninstall" ]]; then
    uninstall_app
  elif [[ "$mode" == "bundle" ]]; then
    install_bundle "$bundle_source"
  else
    install_app "$python" "$wheel"
  fi
}

main "$@"
