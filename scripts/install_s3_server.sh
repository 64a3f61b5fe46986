#!/usr/bin/env bash
# Installs the S3-compatible server the storage tests run floe against: s3s-fs, an S3 API over
# a local directory (Apache-2.0, from crates.io, built by cargo; MinIO is avoided for its
# AGPL licence). Pinned, built once into build/tools/s3s-fs; a second run returns at once.
# Prints the binary's path.
#
# s3s-fs 0.14.1 is the newest that builds with this machine's rustc 1.95 (0.17 needs 1.96).
# What the tests rely on, and measured with it: path-style requests signed with SigV4,
# PUT/GET/ranged GET/HEAD/DELETE, multipart uploads, ListObjectsV2 with a delimiter, and
# DeleteObjects. What it does not do: If-None-Match on PUT is not atomic under concurrency,
# and HEAD of a key that is a "directory" on its disk answers 500 (floe never makes
# directory objects).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="0.14.1"
prefix="$root/build/tools/s3s-fs-$version"
binary="$prefix/bin/s3s-fs"
if [ ! -x "$binary" ]; then
  if ! command -v cargo >/dev/null; then
    echo "install_s3_server: cargo (Rust) is needed to build s3s-fs $version" >&2
    exit 1
  fi
  echo "install_s3_server: building s3s-fs $version (crates.io, cargo install --locked)" >&2
  cargo install --quiet --locked --root "$prefix.partial" --version "$version" \
    --features binary s3s-fs >&2
  rm -rf "$prefix"
  mv "$prefix.partial" "$prefix"
fi
echo "$binary"
