// Locations as text: schemes, local paths, trailing slashes, containment. Pure string
// functions (no storage is touched); FileIO and everything that compares locations use
// them.
#pragma once

#include <string>
#include <string_view>

namespace floe {

/// The local path of a plain path or a file: URI (file:/a, file:///a,
/// file://localhost/a); any other location unchanged.
std::string LocalPath(std::string_view location);

/// The scheme of a location ("file" for a plain path, "s3", "gs", ...), lower-cased. The
/// gate and the writer both use this one function.
std::string LocationScheme(std::string_view location);

/// `location` without trailing slashes, except a bare "scheme://" (iceberg-java's
/// LocationUtil.stripTrailingSlash).
std::string StripTrailingSlash(std::string location);

/// A location in one spelling for comparisons: local paths and file: URIs become
/// normalised absolute paths; other schemes are returned unchanged.
std::string CanonicalLocation(std::string_view location);

/// True when `location` is `directory` itself or lies below it (compared after
/// normalising file:// URIs to paths and removing "." and ".." segments). Used so that
/// cleanup never deletes outside a table's own location.
bool IsLocationUnder(std::string_view location, std::string_view directory);

}  // namespace floe
