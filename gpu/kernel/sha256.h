// sha256.h: SHA-256 (FIPS 180-4), for the kernel cache's keys and its entries' checksums.
#pragma once

#include <string>
#include <string_view>

namespace bs::kernel {

// The 64 lowercase hex digits of SHA-256(data).
std::string sha256_hex(std::string_view data);

}  // namespace bs::kernel
