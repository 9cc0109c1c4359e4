# shellcheck shell=bash
# The project's virtual environment, shared by ./run (the app) and .ci/run (the tests).
#
# Source this file from the repository root, then call
#
#     lab_venv_ensure requirements.txt || exit 1
#
# It leaves the environment's interpreter in LAB_VENV_PYTHON. The environment lives in $LAB_VENV
# (default .venv, git-ignored). It is
#   - created with `PYTHON -m venv` when missing, where PYTHON is $PYTHON if set, else python3, else
#     python (Python 3.11 or newer; no activated environment and no root needed);
#   - reused when present: installing is skipped when every requirements file it reads (the one given
#     and those it includes with -r / -c) has the hash stored in $LAB_VENV/lab-requirements.sha256;
#   - rebuilt from scratch when one of those files changed since it was installed (so a package
#     dropped from a requirements file is gone too), when its interpreter no longer runs, or when
#     the chosen interpreter is another Python version;
#   - extended when a requirements file it has not seen yet is asked for (./run installs
#     requirements.txt, .ci/run then adds requirements-test.txt on top).
# A missing prerequisite is one line on stderr naming what to install; the function then returns 1.

LAB_MIN_PYTHON_MINOR=11 # Python 3.11 or newer (pyproject.toml: requires-python = ">=3.11")

_lab_say() { printf '%s\n' "$*" >&2; }

# The interpreter to build the environment with. Sets LAB_PY (the command), LAB_PY_VERSION (X.Y.Z),
# LAB_PY_PREFIX (its sys.prefix: a virtual environment's folder when it sits in one) and LAB_PY_BASE
# (the interpreter underneath such an environment, else itself).
_lab_pick_python() {
    local info
    if [ -n "${PYTHON:-}" ]; then
        LAB_PY=$PYTHON
        if ! command -v "$LAB_PY" >/dev/null 2>&1; then
            _lab_say "PYTHON=$PYTHON is not a command: point PYTHON at a Python 3.$LAB_MIN_PYTHON_MINOR or newer, or unset it to use python3"
            return 1
        fi
    elif command -v python3 >/dev/null 2>&1; then
        LAB_PY=python3
    elif command -v python >/dev/null 2>&1; then
        LAB_PY=python
    else
        _lab_say "Python 3.$LAB_MIN_PYTHON_MINOR or newer is needed and there is no python3 or python on PATH: on Debian/Ubuntu sudo apt-get install python3 python3-venv"
        return 1
    fi
    # Written so that any Python (even 2.7) can answer, to report its version instead of a traceback.
    if ! info=$("$LAB_PY" -c 'import sys; sys.stdout.write("%d.%d.%d\n%s\n%s\n" % (sys.version_info[0], sys.version_info[1], sys.version_info[2], sys.prefix, getattr(sys, "_base_executable", "") or sys.executable))' 2>/dev/null); then
        _lab_say "$LAB_PY does not run: point PYTHON at a Python 3.$LAB_MIN_PYTHON_MINOR or newer"
        return 1
    fi
    { read -r LAB_PY_VERSION; read -r LAB_PY_PREFIX; read -r LAB_PY_BASE; } <<<"$info"
    local major=${LAB_PY_VERSION%%.*} minor=${LAB_PY_VERSION#*.}
    minor=${minor%%.*}
    if [ "$major" -ne 3 ] || [ "$minor" -lt "$LAB_MIN_PYTHON_MINOR" ]; then
        _lab_say "Python 3.$LAB_MIN_PYTHON_MINOR or newer is needed, found $major.$minor ($(command -v "$LAB_PY")): install a newer Python and set PYTHON to it"
        return 1
    fi
}

_lab_no_venv_line() { # $1 = interpreter, $2 = its version X.Y.Z; LAB_PY_BASE = the interpreter underneath
    local xy=${2%.*}
    case $LAB_PY_BASE in
        /usr/bin/*) # Debian and Ubuntu ship ensurepip (which venv needs) in python3-venv / pythonX.Y-venv
            _lab_say "python3-venv is missing: sudo apt-get install python3-venv python$xy-venv (without it $1 cannot create the project's environment)" ;;
        *)
            _lab_say "Python's venv/ensurepip is missing in $1 (Python $2): install a Python $xy with venv support, or on Debian/Ubuntu use /usr/bin/python3 after sudo apt-get install python3-venv" ;;
    esac
}

# The requirements files FILE reads: itself, then (recursively) those named by -r / -c lines.
_lab_requirement_files() {
    local file=$1 dir line ref
    printf '%s\n' "$file"
    dir=$(dirname "$file")
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        case $line in
            -r\ * | -c\ * | --requirement\ * | --constraint\ *) ref=${line#* } ;;
            --requirement=* | --constraint=*) ref=${line#*=} ;;
            *) continue ;;
        esac
        ref=${ref#"${ref%%[![:space:]]*}"}
        ref=${ref%"${ref##*[![:space:]]}"}
        [ -z "$ref" ] && continue
        if [ "$dir" = . ]; then _lab_requirement_files "$ref"; else _lab_requirement_files "$dir/$ref"; fi
    done <"$file"
}

_lab_remove_venv() { # only ever deletes something that is a virtual environment
    local venv=$1
    if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ] && [ -n "$(ls -A "$venv" 2>/dev/null)" ]; then
        _lab_say "$venv exists but is not a virtual environment: move it away (or set LAB_VENV to another folder)"
        return 1
    fi
    rm -rf "$venv"
}

_lab_create_venv() { # $1 = venv, $2 = interpreter, $3 = its version
    local venv=$1 py=$2 version=$3 log
    if ! "$py" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        _lab_no_venv_line "$py" "$version"
        return 1
    fi
    _lab_say "Creating $venv with $py (Python $version)"
    log=$(mktemp)
    if ! "$py" -m venv "$venv" >"$log" 2>&1; then
        if grep -q ensurepip "$log"; then
            _lab_no_venv_line "$py" "$version"
        else
            _lab_say "$py -m venv $venv failed: $(grep -v '^[[:space:]]*$' "$log" | tail -n 1)"
        fi
        rm -f "$log"
        rm -rf "$venv"
        return 1
    fi
    rm -f "$log"
}

lab_venv_ensure() { # $1 = requirements file (relative to the current directory)
    local req=$1 venv=${LAB_VENV:-.venv} version py vpy venv_version stamp file hash reason=""
    local -a files=()
    local -A wanted=() have=()
    if [ ! -f "$req" ]; then
        _lab_say "$req not found: run this from the repository's top folder"
        return 1
    fi
    _lab_pick_python || return 1
    version=$LAB_PY_VERSION
    py=$LAB_PY
    # An interpreter inside the environment about to be rebuilt (an activated .venv) would be
    # deleted with it: build from the interpreter underneath instead.
    if [ -e "$venv" ] && [ "$(realpath -m "$LAB_PY_PREFIX")" = "$(realpath -m "$venv")" ]; then
        py=$LAB_PY_BASE
    fi
    vpy=$venv/bin/python
    stamp=$venv/lab-requirements.sha256
    mapfile -t files < <(_lab_requirement_files "$req")
    for file in "${files[@]}"; do
        if [ ! -f "$file" ]; then
            _lab_say "$file (named in $req) not found"
            return 1
        fi
        hash=$(sha256sum <"$file") || return 1
        wanted[$file]=${hash%% *}
    done
    if [ -f "$stamp" ]; then
        while read -r hash file; do [ -n "$file" ] && have[$file]=$hash; done <"$stamp"
    fi

    if [ -e "$venv" ]; then
        if ! venv_version=$("$vpy" -c 'import pip, sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then
            reason="its Python or pip does not run"
        elif [ "$venv_version" != "${version%.*}" ]; then
            reason="it has Python $venv_version, the chosen interpreter is ${version%.*}"
        else
            for file in "${files[@]}"; do
                if [ -n "${have[$file]:-}" ] && [ "${have[$file]}" != "${wanted[$file]}" ]; then
                    reason="$file changed since it was installed"
                    break
                fi
            done
        fi
        if [ -n "$reason" ]; then
            _lab_say "Rebuilding $venv: $reason"
            _lab_remove_venv "$venv" || return 1
            have=()
        fi
    fi
    if [ ! -e "$venv" ]; then
        _lab_create_venv "$venv" "$py" "$version" || return 1
    fi

    LAB_VENV_PYTHON=$vpy
    for file in "${files[@]}"; do
        if [ "${have[$file]:-}" != "${wanted[$file]}" ]; then
            _lab_say "Installing $req into $venv (the first time takes a minute or two)"
            # -qq: errors only (pip's warnings, e.g. about unreachable index locations, stay out).
            if ! "$vpy" -m pip install -qq --disable-pip-version-check --require-virtualenv -r "$req"; then
                _lab_say "pip could not install $req into $venv (its error is above)"
                return 1
            fi
            # The stamp keeps the files installed earlier (./run's requirements.txt under .ci/run's
            # requirements-test.txt) and records these.
            for file in "${files[@]}"; do have[$file]=${wanted[$file]}; done
            for file in "${!have[@]}"; do printf '%s  %s\n' "${have[$file]}" "$file"; done >"$stamp"
            return 0
        fi
    done
}
