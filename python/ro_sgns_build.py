"""ro_sgns_build - the build backend of `pip install ./python` (PEP 517).

Standard library only, so that pip's isolated build needs nothing from the
network and no setuptools (pyproject.toml: requires = []). build_wheel
compiles the ro-sgns program from ../examples/ro_sgns_cli.c and ../ro_sgns.h
(or from the copies an sdist carries in csrc/) with the command of
`make ro-sgns`:

    $CC -std=c99 -Wall -Wextra $CFLAGS -fopenmp -march=native ro_sgns_cli.c -o ro-sgns -lm

(CC default gcc, as make's, else cc; CFLAGS default -O3; RO_SGNS_NATIVE=0 leaves -march=native
out), so the installed module trains with the same bits as ./ro-sgns built
on the same machine by the same compiler. The wheel holds the package, the
program in ro_sgns/bin/ and a copy of the header; it is tagged for this
platform (py3-none-linux_x86_64 and so on) and meant for this machine.
"""
import base64
import hashlib
import io
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "ro_sgns"


def _sources():
    """(the header, the program's source): an sdist's csrc/, else the repository's."""
    for root in (os.path.join(HERE, "csrc"), os.path.join(HERE, os.pardir)):
        header = os.path.join(root, "ro_sgns.h")
        cli = os.path.join(root, "examples", "ro_sgns_cli.c")
        if os.path.isfile(header) and os.path.isfile(cli):
            return os.path.normpath(header), os.path.normpath(cli)
    raise RuntimeError("ro_sgns_build: ro_sgns.h and examples/ro_sgns_cli.c not found in %s/csrc "
                       "or %s/.. (build from the repository's python/ folder)" % (HERE, HERE))


def _version():
    header, _ = _sources()
    with open(header, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#define RO_SGNS_VERSION_STRING"):
                return line.split('"')[1]
    raise RuntimeError("ro_sgns_build: no RO_SGNS_VERSION_STRING in " + header)


def compile_command(cli, out):
    cc = shlex.split(os.environ.get("CC") or ("gcc" if shutil.which("gcc") else "cc"))
    cflags = shlex.split(os.environ.get("CFLAGS", "-O3"))
    native = [] if os.environ.get("RO_SGNS_NATIVE", "1") == "0" else ["-march=native"]
    return cc + ["-std=c99", "-Wall", "-Wextra"] + cflags + ["-fopenmp"] + native + [cli, "-o", out, "-lm"]


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: RO-SGNS word embeddings (ro_sgns.h) from Python, with gensim's names\n"
            "License: MIT\nRequires-Python: >=3.7\n" % (NAME, version))


def _tag():
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _package_files():
    pkg = os.path.join(HERE, NAME)
    return sorted(os.path.join(pkg, f) for f in os.listdir(pkg) if f.endswith(".py"))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    header, cli = _sources()
    dist_info = "%s-%s.dist-info" % (NAME, version)
    wheel_name = "%s-%s-%s.whl" % (NAME, version, _tag())
    with tempfile.TemporaryDirectory(prefix="ro_sgns_build_") as tmp:
        program = os.path.join(tmp, "ro-sgns")
        root = os.path.dirname(os.path.dirname(cli))  # from there, as make: examples/ro_sgns_cli.c
        cmd = compile_command(os.path.join("examples", "ro_sgns_cli.c"), program)
        print("ro_sgns_build: (in %s) %s" % (root, " ".join(shlex.quote(a) for a in cmd)), file=sys.stderr)
        subprocess.run(cmd, check=True, cwd=root)
        entries = [(NAME + "/" + os.path.basename(p), p, 0o644) for p in _package_files()]
        entries += [(NAME + "/ro_sgns.h", header, 0o644), (NAME + "/bin/ro-sgns", program, 0o755)]
        record = []
        path = os.path.join(wheel_directory, wheel_name)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as whl:
            def add(arcname, data, mode=0o644):
                info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                whl.writestr(info, data)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                record.append("%s,sha256=%s,%d" % (arcname, digest.decode(), len(data)))
            for arcname, src, mode in entries:
                with open(src, "rb") as f:
                    add(arcname, f.read(), mode)
            add(dist_info + "/METADATA", _metadata(version).encode())
            add(dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: ro_sgns_build\n"
                                       "Root-Is-Purelib: false\nTag: %s\n" % _tag()).encode())
            add(dist_info + "/top_level.txt", (NAME + "\n").encode())
            record.append(dist_info + "/RECORD,,")
            whl.writestr(zipfile.ZipInfo(dist_info + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                         "\n".join(record) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The package with copies of the header and the program's source in csrc/."""
    version = _version()
    header, cli = _sources()
    base = "%s-%s" % (NAME, version)
    files = [(os.path.join(HERE, "pyproject.toml"), "pyproject.toml"),
             (os.path.join(HERE, "ro_sgns_build.py"), "ro_sgns_build.py"),
             (header, "csrc/ro_sgns.h"), (cli, "csrc/examples/ro_sgns_cli.c")]
    files += [(p, NAME + "/" + os.path.basename(p)) for p in _package_files()]
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for src, arcname in files:
            tar.add(src, arcname=base + "/" + arcname)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata(version).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
