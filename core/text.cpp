// text.cpp: see text.h.
#include "core/text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace bs {

namespace {

bool set_error(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

// write(2) until all of `data` is written: a short write is continued, EINTR retried, anything else reported.
bool write_all(int fd, std::string_view data, int* err) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, std::min(left, size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      return false;
    }
    if (n == 0) {
      *err = EIO;
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// The folder `path` is in ("." for a bare file name).
std::string folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

std::atomic<unsigned> g_temp_counter{0};

}  // namespace

bool check_write_target(const std::string& path, std::string* error) {
  if (path.empty()) return set_error(error, "no output path given");
  const std::string what = "cannot write " + path + ": ";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return set_error(error, what + "it is a folder, not a file");
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      return set_error(error, what +
                                  "it exists and is not a regular file (a device, pipe or socket); "
                                  "choose a file name");
  } else if (errno != ENOENT && errno != ENOTDIR) {  // ENOTDIR: named below, as the folder that is not one
    return set_error(error, what + std::strerror(errno));
  }
  const std::string dir = folder_of(path);
  if (::stat(dir.c_str(), &st) != 0)
    return set_error(error, what + (errno == ENOENT ? "the folder " + dir + " does not exist"
                                                    : dir + ": " + std::strerror(errno)));
  if (!S_ISDIR(st.st_mode)) return set_error(error, what + dir + " is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return set_error(error, what + "the folder " + dir + " is not writable (" + std::strerror(errno) + ")");
  return true;
}

bool write_file_atomic(const std::string& path, std::string_view data, std::string* error) {
  if (!check_write_target(path, error)) return false;
  const std::string what = "cannot write " + path + ": ";
  const std::string tmp =
      path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_temp_counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return set_error(error, what + std::strerror(errno));
  // A replaced file keeps its permission bits (the new one would otherwise get the umask's).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)::fchmod(fd, st.st_mode & 07777);
  int err = 0;
  bool ok = write_all(fd, data, &err);
  // fsync before rename: after a crash the new name must never point at unwritten blocks. Filesystems that
  // cannot sync (EINVAL) have nothing to lose by it.
  if (ok && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    err = errno;
    ok = false;
  }
  if (::close(fd) != 0 && ok) {
    err = errno;
    ok = false;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ok = false;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return set_error(error, what + std::strerror(err) +
                                (err == ENOSPC || err == EDQUOT ? " (disk full?)" : "") + "; any earlier " +
                                std::filesystem::path(path).filename().string() + " is unchanged");
  }
  // The rename itself is durable once the folder is synced (best effort: some filesystems refuse).
  const int dfd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

bool write_text_file(const std::string& path, const std::string& text, std::string* error) {
  return write_file_atomic(path, text, error);
}

bool read_file_limited(const std::string& path, std::size_t max_bytes, std::string* out, std::string* error) {
  out->clear();
  if (path.empty()) return set_error(error, "no file name given");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int e = errno;
    return set_error(error, path + ": " +
                                (e == ENOENT ? std::string("no such file (cannot open it)")
                                             : "cannot open it (" + std::string(std::strerror(e)) + ")"));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return set_error(error, path + ": cannot read it (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) return set_error(error, path + ": is a folder, not a file");
  if (!S_ISREG(st.st_mode))
    return set_error(error, path + ": is not a regular file (a device, pipe or socket), refusing to read it");
  const auto limit_text = [&] {
    return max_bytes >= (size_t{1} << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                          : std::to_string(max_bytes) + " bytes";
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return set_error(error, path + ": is larger than " + limit_text() + " (" + std::to_string(st.st_size) +
                                " bytes), too large for a blockscope file");
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // Read at most max_bytes + 1: files whose size lies (/proc, growing files) stop there too.
  std::string data;
  data.resize(std::min<size_t>(static_cast<size_t>(st.st_size), max_bytes) + 1);
  size_t have = 0;
  for (;;) {
    if (have == data.size()) {
      if (data.size() > max_bytes) break;
      data.resize(std::min(max_bytes + 1, data.size() * 2));
    }
    const ssize_t n = ::read(fd, data.data() + have, data.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      return set_error(error, path + ": cannot read it (" + std::strerror(errno) + ")");
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  if (have > max_bytes)
    return set_error(error, path + ": is larger than " + limit_text() + ", too large for a blockscope file");
  data.resize(have);
  *out = std::move(data);
  return true;
}

int json_nesting_depth(std::string_view text, int stop_above) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > stop_above) return deepest;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even as references: drop them.
        if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') break;
        out += static_cast<char>(ch);
    }
  }
  return out;
}

std::string fmt_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string compact_count(double v, std::string_view gap) {
  if (v >= 1e9) return fmt_fixed(v / 1e9, 2) + std::string(gap) + "G";
  if (v >= 1e6) return fmt_fixed(v / 1e6, 2) + std::string(gap) + "M";
  if (v >= 1e3) return fmt_fixed(v / 1e3, 1) + std::string(gap) + "k";
  return fmt_fixed(v, 0);
}

std::string count_of(int64_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace bs

// --- printable(): values echoed in messages (see text.h) -------------------------------------------------
namespace bs {

namespace {
// Length of the valid UTF-8 sequence starting at s[i] (2..4), or 0 when there is none (overlong, surrogate,
// beyond U+10FFFF, truncated) or when it encodes a C1 control (U+0080..U+009F).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t len = 0;
  unsigned cp = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  if (cp >= 0x80 && cp <= 0x9f) return 0;
  return len;
}
}  // namespace

std::string printable(std::string_view s, size_t max_bytes) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve((s.size() < max_bytes ? s.size() : max_bytes) + 3);
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::string piece;
    if (c >= 0x20 && c < 0x7f) {
      piece.assign(1, static_cast<char>(c));
      i += 1;
    } else if (const size_t len = c >= 0x80 ? utf8_sequence(s, i) : 0; len > 0) {
      piece.assign(s.substr(i, len));
      i += len;
    } else {
      piece = {'\\', 'x', hex[c >> 4], hex[c & 0xf]};
      i += 1;
    }
    if (out.size() + piece.size() > max_bytes) {
      out += "...";
      break;
    }
    out += piece;
  }
  return out;
}

std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

int suffix_shift(char c) {
  switch (c) {
    case 'k':
    case 'K':
      return 10;
    case 'm':
    case 'M':
      return 20;
    case 'g':
    case 'G':
      return 30;
    default:
      return 0;
  }
}

std::optional<double> numeric_value(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  if (text.size() > 2 && text[0] == '2' && text[1] == '^') {
    const auto e = parse_double(text.substr(2));
    if (!e || *e < 0 || *e > 62 || *e != std::floor(*e)) return std::nullopt;
    return std::ldexp(1.0, static_cast<int>(*e));
  }
  const int shift = suffix_shift(text.back());
  if (shift) text.remove_suffix(1);
  const auto v = parse_double(text);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return std::ldexp(*v, shift);
}

std::string shortest_number(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace bs
