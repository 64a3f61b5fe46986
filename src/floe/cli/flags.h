// Flag parsing the floe command's subcommands share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "arrow/result.h"

namespace floe::cli {

/// `KEY=VALUE` arguments of `flag` (repeatable; later ones win) as a map. An argument
/// without '=', or with nothing before it, gives InvalidInput naming the flag but not the
/// argument, which may hold a credential.
arrow::Result<std::map<std::string, std::string>> ParseKeyValues(
    const std::vector<std::string>& pairs, const std::string& flag);

}  // namespace floe::cli
