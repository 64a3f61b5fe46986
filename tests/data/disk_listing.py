"""What is on disk: the listing (with hashes) failure tests take before and after."""

import hashlib
import pathlib


def files_under(directory: pathlib.Path) -> dict:
    """Every regular file below `directory`, with the hash of its bytes."""
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(pathlib.Path(directory).rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
