"""The type stubs and the documentation: stubtest checks the package against its stubs,
the extension's stub is what nanobind's stubgen makes of the built module, mypy --strict
accepts the package, and every public name has a docstring."""

import inspect
import pathlib
import subprocess
import sys

import floe
import floe._floe

ROOT = pathlib.Path(__file__).parents[2]
PACKAGE = pathlib.Path(floe.__file__).parent


def run(*args, cwd=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_stubtest_finds_no_difference(tmp_path):
    result = run("-m", "mypy.stubtest", "floe", "--mypy-config-file", str(ROOT / "pyproject.toml"),
                 "--allowlist", str(ROOT / "tests/python/stubtest_allowlist.txt"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_extension_stub_is_what_stubgen_makes_of_the_module(tmp_path):
    out = tmp_path / "_floe.pyi"
    result = run("-m", "nanobind.stubgen", "-m", "floe._floe", "-o", str(out), "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    committed = (ROOT / "python/floe/_floe.pyi").read_text()
    assert out.read_text() == committed, (
        "python/floe/_floe.pyi is stale: regenerate it with "
        "`.venv/bin/python -m nanobind.stubgen -m floe._floe -o python/floe/_floe.pyi`"
    )
    assert (PACKAGE / "_floe.pyi").read_text() == committed
    assert (PACKAGE / "py.typed").exists()


def test_mypy_strict_accepts_the_package(tmp_path):
    result = run("-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "floe",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_public_name_has_a_docstring():
    missing = []
    for name in floe.__all__:
        value = getattr(floe, name)
        if not (value.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(value) and not issubclass(value, BaseException):
            for member, attribute in vars(value).items():
                if member.startswith("_") or member in ("from_bytes",):
                    continue
                if isinstance(attribute, (property, classmethod, staticmethod)) or callable(attribute):
                    target = attribute.fget if isinstance(attribute, property) else attribute
                    doc = getattr(target, "__doc__", None)
                    is_field = inspect.isclass(value) and member in getattr(
                        value, "__dataclass_fields__", {})
                    if not is_field and not (doc or "").strip():
                        missing.append(f"{name}.{member}")
    assert not missing, missing
    assert "Appends the rows of `data`" in floe.Table.append.__doc__
