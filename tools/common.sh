# Shell functions shared by tools/test, tools/bench and tools/demo (sourced, not run):
# messages, steps, finding a Python of a given version and the pinned virtualenvs.
# The sourcing script sets `tool` (its name in messages, e.g. tools/test) first.

# numpy's BLAS runs Reach's small matrices fastest on one thread; with several, a busy
# machine makes them wait on each other (the demo's drag events, 3 ms alone, took up to
# 460 ms beside two other busy processes, and missed the time budget).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

die() {
    printf '\n%s: FAILED: %s\n' "$tool" "$*" >&2
    exit 1
}

# A step's heading, with the time since the script began (a CI run's time limit is
# spent where these show).
header() {
    printf '\n==> %s  [%d:%02d]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60))
}

# Run one step; on failure, name it and exit with its status.
step() {
    local name="$1"
    shift
    header "$name"
    local status=0
    "$@" || status=$?
    if ((status != 0)); then
        printf '\n%s: FAILED: %s (exit %d)\n' "$tool" "$name" "$status" >&2
        exit "$status"
    fi
}

# is_python PYTHON VERSION: PYTHON runs and is CPython VERSION (say 3.13) with the
# standard ABI (not a free-threaded build, which cannot load the wheels pinned here).
# A candidate is run, not only looked up: a pyenv shim is on PATH even where the
# version it names is not selected, and then fails when run.
is_python() {
    "$1" -c '
import sys, sysconfig
sys.exit(
    sys.implementation.name != "cpython"
    or "%d.%d" % sys.version_info[:2] != sys.argv[1]
    or bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
)' "$2" >/dev/null 2>&1
}

# find_python VERSION [PURPOSE]: print the path of a working Python VERSION, or die
# naming PURPOSE and every candidate tried and what it said. Candidates, in order:
# pythonVERSION and python3 on PATH; pyenv's installed versions (newest first; `pyenv
# root`, else $PYENV_ROOT or ~/.pyenv), which need no shim or selected version;
# /usr/local/bin and /usr/bin.
find_python() {
    local version="$1" purpose="${2:+ (for $2)}"
    local candidates=("python$version" python3)
    local pyenv_root=""
    if command -v pyenv >/dev/null 2>&1; then
        pyenv_root="$(pyenv root 2>/dev/null)" || pyenv_root=""
    fi
    [[ -n "$pyenv_root" ]] || pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
    # pyenv's VERSION and its patch releases, newest first (VERSION itself stays a
    # candidate when none is installed, so that the message names where it looked).
    mapfile -t -O "${#candidates[@]}" candidates < <(shopt -s nullglob
        printf '%s\n' "$pyenv_root/versions/$version"{,.*}/bin/"python$version" | sort -rV)
    candidates+=("/usr/local/bin/python$version" "/usr/bin/python$version")

    local candidate said tried=""
    for candidate in "${candidates[@]}"; do
        if is_python "$candidate" "$version"; then
            "$candidate" -c 'import sys; print(sys.executable)'
            return 0
        fi
        said="not found"
        if command -v "$candidate" >/dev/null 2>&1; then
            said="$("$candidate" --version 2>&1 | head -n 1)" || true
        fi
        tried+=$'\n'"    $candidate: $said"
    done
    die "Python $version is required$purpose, but none of these runs as CPython $version:$tried"
}

# ensure_venv DIR REQUIREMENTS VERSION: a Python VERSION venv at DIR with REQUIREMENTS
# installed (re-created when DIR's Python is not VERSION, re-installed whenever the
# requirements file changes: a stamp in DIR holds the file's hash).
ensure_venv() {
    local venv="$1" requirements="$2" version="$3"
    local stamp="$venv/.requirements.sha256"
    [[ -f "$requirements" ]] || die "$requirements does not exist"
    if ! is_python "$venv/bin/python" "$version"; then
        local python
        python="$(find_python "$version" "$(basename "$venv")")" || exit 1
        header "create $(basename "$venv") (Python $version: $python)"
        rm -rf "$venv"
        "$python" -m venv "$venv" || die "could not create $venv with $python"
    fi
    local want
    want="$("$venv/bin/python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' \
        "$requirements")"
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
        header "install $requirements into $(basename "$venv")"
        rm -f "$stamp"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" \
            || die "pip install -r $requirements"
        echo "$want" >"$stamp"
    fi
}

# Each Blender version Reach supports, with the Python its bpy wheel is built for
# (requirements/blender-<version>.txt pins it; the venv is .venv-blender-<version>).
blenders=(4.2:3.11 4.5:3.11 5.0:3.11 5.2:3.13)

# blender_python VERSION: print the Python version Blender VERSION's bpy needs, or die.
blender_python() {
    local entry
    for entry in "${blenders[@]}"; do
        if [[ "${entry%%:*}" == "$1" ]]; then
            printf '%s\n' "${entry#*:}"
            return 0
        fi
    done
    die "there is no Blender '$1' here; the versions are ${blenders[*]%%:*}"
}

# build_kernel: the compiled kernel for every platform Blender runs on, into
# solver/kernel/lib/ (tools/build_kernel.py; the compiler lives in .venv-kernel). The
# solver falls back to numpy without it, but the extension ships it and the tests test it.
build_kernel() {
    local venv="$root/.venv-kernel"
    ensure_venv "$venv" requirements/kernel.txt 3.11
    step "build the compiled kernel" "$venv/bin/python" tools/build_kernel.py
}

# other_blas_cores PYTHON: two of OpenBLAS's kernels (OPENBLAS_CORETYPE values) that this
# CPU runs, other than the one PYTHON's numpy picks for it, a line each. Other CPUs round
# BLAS's sums in another order; these runs take that arithmetic here. Linux x86-64 only
# (the instruction sets come from /proc/cpuinfo); elsewhere it prints nothing.
other_blas_cores() {
    local python="$1" native flags core
    [[ "$(uname -s)/$(uname -m)" == Linux/x86_64 && -r /proc/cpuinfo ]] || return 0
    native="$(OPENBLAS_VERBOSE=2 "$python" -c 'import numpy' 2>&1 | sed -n 's/^Core: //p' | head -n 1)"
    flags=" $(grep -m 1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    local found=0
    # Prescott: SSE3 (pni); Zen and Haswell: AVX2 with FMA; Sandybridge: AVX.
    for core in Prescott Zen Haswell Sandybridge; do
        case "$core" in
            Prescott) [[ "$flags" == *" pni "* ]] || continue ;;
            Zen | Haswell) [[ "$flags" == *" avx2 "* && "$flags" == *" fma "* ]] || continue ;;
            Sandybridge) [[ "$flags" == *" avx "* ]] || continue ;;
        esac
        [[ "${core,,}" == "${native,,}" ]] && continue
        printf '%s\n' "$core"
        found=$((found + 1))
        ((found < 2)) || break
    done
}
