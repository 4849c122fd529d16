#!/usr/bin/env bash
# Install parler-desktop for the current user, without root: a private venv, a launcher in
# ~/.local/bin, the menu entry and the icon. Running it again upgrades in place; --uninstall removes
# what it installed (your identity and data are kept).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: install-linux.sh [--wheel FILE] [--python PYTHON]
       install-linux.sh --uninstall

Installs parler-desktop for the current user:
  venv      $XDG_DATA_HOME/parler-desktop/venv   (default ~/.local/share/parler-desktop/venv)
  launcher  ~/.local/bin/parler-desktop
  menu      $XDG_DATA_HOME/applications/parler-desktop.desktop
  icon      $XDG_DATA_HOME/icons/hicolor/{scalable,256x256}/apps/parler-desktop.{svg,png}

  --wheel FILE     install this built wheel (default: build one from the project directory)
  --python PYTHON  Python 3.11+ to create the venv with (default: python3)
  --uninstall      remove all of the above; identity and data are kept
EOF
}

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project_dir="$(dirname "$script_dir")"
data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
venv="$data_home/parler-desktop/venv"
launcher="$HOME/.local/bin/parler-desktop"
desktop_file="$data_home/applications/parler-desktop.desktop"
icon_theme="$data_home/icons/hicolor"
svg_icon="$icon_theme/scalable/apps/parler-desktop.svg"
png_icon="$icon_theme/256x256/apps/parler-desktop.png"
build_dir=""  # a temporary wheel build, removed on exit
trap 'if [[ -n "$build_dir" ]]; then rm -rf -- "$build_dir"; fi' EXIT

die() {
  printf 'install-linux.sh: %s\n' "$*" >&2
  exit 1
}

# The launcher is ours only if it is a symlink into our venv; anything else is left alone.
launcher_is_ours() {
  [[ -L "$launcher" && "$(readlink "$launcher")" == "$venv/bin/parler-desktop" ]]
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
  rm -f -- "$desktop_file" "$svg_icon" "$png_icon"
  if [[ -d "$venv" ]]; then
    [[ -f "$venv/pyvenv.cfg" ]] || die "$venv is not a Python venv; not removing it"
    rm -rf -- "$venv"
  fi
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
  resources="$("$venv/bin/python" -c \
    'import pathlib, parler_desktop; print(pathlib.Path(parler_desktop.__file__).parent / "resources")')"
  [[ -f "$resources/parler-desktop.svg" ]] || die "the installed package has no icon in $resources"

  mkdir -p -- "$(dirname "$launcher")"
  ln -sfn -- "$venv/bin/parler-desktop" "$launcher"

  mkdir -p -- "$(dirname "$desktop_file")"
  local exec_value line
  exec_value="$(desktop_exec "$launcher")"
  while IFS= read -r line; do
    if [[ "$line" == Exec=* ]]; then
      printf 'Exec=%s\n' "$exec_value"
    else
      printf '%s\n' "$line"
    fi
  done <"$script_dir/parler-desktop.desktop" >"$desktop_file.tmp"
  chmod 644 -- "$desktop_file.tmp"
  mv -f -- "$desktop_file.tmp" "$desktop_file"

  install -D -m 644 -- "$resources/parler-desktop.svg" "$svg_icon"
  if [[ -f "$resources/parler-desktop-256.png" ]]; then
    install -D -m 644 -- "$resources/parler-desktop-256.png" "$png_icon"
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
  local mode="install" python="python3" wheel=""
  while (($#)); do
    case "$1" in
      --uninstall) mode="uninstall" ;;
      --wheel)
        (($# >= 2)) || die "--wheel needs a file"
        wheel="$(realpath -- "$2")"
        [[ -f "$wheel" ]] || die "no such wheel: $2"
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
  else
    install_app "$python" "$wheel"
  fi
}

main "$@"
