"""embed-vectors' build backend (PEP 517), named by pyproject.toml's [build-system].

Why not setuptools: on Debian 12 (pip 23.0.1, setuptools 66.1.1) its backend builds in
this folder, leaving build/ and embed_vectors.egg-info in the source tree, and an offline
install (--no-build-isolation) in a fresh virtual environment fails with "invalid command
'bdist_wheel'" because venvs come without the `wheel` package. A pure-Python wheel is a
zip of the package's files and three metadata files, which the standard library writes:
so pip installs this folder offline, with or without build isolation, with nothing to
fetch (tomllib is standard from Python 3.11; before, [build-system] requires tomli), and
every file is written in the directory pip names, none here.

Hooks: build_wheel, build_editable (PEP 660: a .pth naming this folder), build_sdist, and
the metadata hooks. The hooks run with this folder as the working directory (PEP 517).
"""
import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11: pyproject.toml's build requirements bring tomli
    import tomli as tomllib

TAG = "py3-none-any"
# The [project] keys written below; any other is refused rather than silently dropped.
KNOWN_KEYS = {"name", "version", "description", "readme", "requires-python", "license", "dependencies",
              "optional-dependencies"}
# What an sdist holds besides the packages: enough to build the wheel again.
SDIST_FILES = ["pyproject.toml", "README.md", "embed_build.py"]
# Fixed timestamps: the same sources give the same archive bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
TAR_TIME = 315532800  # 1980-01-01


def _project():
    """pyproject.toml's [project] table and the packages ([tool.embed_build] packages)."""
    with open("pyproject.toml", "rb") as f:
        data = tomllib.load(f)
    project = data["project"]
    unknown = sorted(set(project) - KNOWN_KEYS)
    if unknown:
        raise ValueError(f"pyproject.toml: [project] {', '.join(unknown)}: embed_build.py does not write these")
    packages = data["tool"]["embed_build"]["packages"]
    for package in packages:
        _check_version(package, project["version"])
    return project, packages


def _check_version(package, version):
    # `embed.__version__` says the version too: a release that changed one only fails here.
    with open(os.path.join(package, "__init__.py"), encoding="utf-8") as f:
        found = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if found and found.group(1) != version:
        raise ValueError(f"{package}/__init__.py says __version__ {found.group(1)}, pyproject.toml {version}")


def _dist_name(project):
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _dist_info(project):
    return f"{_dist_name(project)}-{project['version']}.dist-info"


def _metadata(project):
    """Core metadata 2.1 (METADATA in a wheel, PKG-INFO in an sdist)."""
    fields = [("Metadata-Version", "2.1"), ("Name", project["name"]), ("Version", project["version"]),
              ("Summary", project.get("description")), ("License", project.get("license", {}).get("text")),
              ("Requires-Python", project.get("requires-python"))]
    fields += [("Requires-Dist", d) for d in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        fields.append(("Provides-Extra", extra))
        for r in requirements:
            name, _, marker = r.partition(";")
            condition = f'({marker.strip()}) and extra == "{extra}"' if marker.strip() else f'extra == "{extra}"'
            fields.append(("Requires-Dist", f"{name.strip()}; {condition}"))
    text = "".join(f"{k}: {v}\n" for k, v in fields if v is not None)
    if "readme" in project:
        with open(project["readme"], encoding="utf-8") as f:
            text += "Description-Content-Type: text/markdown\n\n" + f.read()
    return text


def _dist_info_files(project):
    wheel = f"Wheel-Version: 1.0\nGenerator: embed_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    info = _dist_info(project)
    return [(f"{info}/METADATA", _metadata(project).encode()), (f"{info}/WHEEL", wheel.encode())]


def _package_files(packages):
    """(path, bytes) of every file of the packages, byte code left out, in a fixed order."""
    out = []
    for package in packages:
        for folder, subfolders, names in os.walk(package):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(names):
                if not name.endswith((".pyc", ".pyo")):
                    path = os.path.join(folder, name)
                    with open(path, "rb") as f:
                        out.append((path.replace(os.sep, "/"), f.read()))
    return out


def _write_wheel(directory, project, files):
    """A wheel of `files` ((name, bytes)) and the metadata, RECORD last; returns its file name."""
    files = files + _dist_info_files(project)
    record_name = f"{_dist_info(project)}/RECORD"
    record = "".join(f"{name},sha256={_digest(data)},{len(data)}\n" for name, data in files) + f"{record_name},,\n"
    files.append((record_name, record.encode()))
    wheel_name = f"{_dist_name(project)}-{project['version']}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, wheel_name), "w") as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return wheel_name


def _digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


# --- PEP 517 and PEP 660 hooks ---

def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_editable = get_requires_for_build_sdist = get_requires_for_build_wheel


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project, _ = _project()
    for name, data in _dist_info_files(project):
        os.makedirs(os.path.join(metadata_directory, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(metadata_directory, name), "wb") as f:
            f.write(data)
    return _dist_info(project)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project, packages = _project()
    return _write_wheel(wheel_directory, project, _package_files(packages))


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose one file is a .pth naming this folder: the packages are imported from here."""
    project, _ = _project()
    pth = (f"__editable__.{_dist_name(project)}.pth", (os.path.abspath(os.getcwd()) + "\n").encode())
    return _write_wheel(wheel_directory, project, [pth])


def build_sdist(sdist_directory, config_settings=None):
    project, packages = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    files = [(name, _read(name)) for name in SDIST_FILES] + _package_files(packages)
    files.append(("PKG-INFO", _metadata(project).encode()))
    with gzip.GzipFile(os.path.join(sdist_directory, f"{base}.tar.gz"), "wb", mtime=TAR_TIME) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size, info.mtime, info.mode = len(data), TAR_TIME, 0o644
            tar.addfile(info, io.BytesIO(data))
    return f"{base}.tar.gz"


def _read(name):
    with open(name, "rb") as f:
        return f.read()
