// image_util.h: reads screenshots the app wrote, for tests that check a view shows real content.
#pragma once

#include <stb_image.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

namespace bs::test {

// A fresh path for a screenshot: under BLOCKSCOPE_TEST_OUT when set (the GPU machine), else the build's
// test-out.
inline std::string output_path(const std::string& name) {
  const char* env = std::getenv("BLOCKSCOPE_TEST_OUT");
  const std::string dir = env && *env ? env : BS_TEST_OUT;
  std::filesystem::create_directories(dir);
  const std::string p = dir + "/" + name;
  std::filesystem::remove(p);
  return p;
}

struct ImageStats {
  int width = 0, height = 0;
  size_t distinct_colours = 0;  // in the region asked for
};

// Distinct RGB colours inside the region [x0, x1) x [y0, y1) given as fractions of the image (default: all).
inline ImageStats image_stats(const std::string& png, double x0 = 0, double y0 = 0, double x1 = 1,
                              double y1 = 1) {
  ImageStats s;
  int n = 0;
  unsigned char* px = stbi_load(png.c_str(), &s.width, &s.height, &n, 3);
  if (!px) return s;
  std::set<uint32_t> colours;
  for (int y = static_cast<int>(s.height * y0); y < static_cast<int>(s.height * y1); ++y)
    for (int x = static_cast<int>(s.width * x0); x < static_cast<int>(s.width * x1); ++x) {
      const unsigned char* p = px + 3 * (static_cast<size_t>(y) * s.width + x);
      colours.insert(p[0] | (p[1] << 8) | (p[2] << 16));
    }
  stbi_image_free(px);
  s.distinct_colours = colours.size();
  return s;
}

}  // namespace bs::test
