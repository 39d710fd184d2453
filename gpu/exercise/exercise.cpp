// exercise.cpp: see exercise.h. Every read goes through Obj, which names the field path in its errors and
// refuses fields it does not know (a typo such as "sise" is an error, not a silently ignored field).
#include "gpu/exercise/exercise.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "gpu/exercise/cpu_reference.h"

namespace bs::exercise {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw FieldError(path + ": " + why);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// One JSON object at `path`, read field by field; check_all() refuses the fields nobody asked for.
class Obj {
 public:
  Obj(const json& j, std::string path) : m_j(j), m_path(std::move(path)) {
    if (!j.is_object()) fail(m_path, "must be an object");
  }
  std::string at(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }
  bool has(const std::string& key) {
    m_seen.insert(key);
    return m_j.contains(key);
  }
  const json& get(const std::string& key) {
    if (!has(key)) fail(at(key), "missing (required)");
    return m_j.at(key);
  }
  std::string str(const std::string& key, std::optional<std::string> def = std::nullopt) {
    if (!has(key)) {
      if (def) return *def;
      fail(at(key), "missing (required)");
    }
    const json& v = m_j.at(key);
    if (!v.is_string()) fail(at(key), "must be a string");
    return v.get<std::string>();
  }
  double num(const std::string& key, std::optional<double> def = std::nullopt) {
    if (!has(key)) {
      if (def) return *def;
      fail(at(key), "missing (required)");
    }
    const json& v = m_j.at(key);
    if (!v.is_number()) fail(at(key), "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(at(key), "must be finite");
    return d;
  }
  int64_t integer(const std::string& key, int64_t lo, int64_t hi, std::optional<int64_t> def = std::nullopt) {
    if (!has(key)) {
      if (def) return *def;
      fail(at(key), "missing (required)");
    }
    return as_integer(m_j.at(key), at(key), lo, hi);
  }
  bool boolean(const std::string& key, bool def) {
    if (!has(key)) return def;
    if (!m_j.at(key).is_boolean()) fail(at(key), "must be true or false");
    return m_j.at(key).get<bool>();
  }
  void check_all() const {
    for (const auto& [k, v] : m_j.items())
      if (!m_seen.count(k)) {
        std::string known;
        for (const std::string& s : m_seen) known += (known.empty() ? "" : ", ") + s;
        fail(at(k), "unknown field (known here: " + known + ")");
      }
  }
  static int64_t as_integer(const json& v, const std::string& path, int64_t lo, int64_t hi) {
    if (!v.is_number_integer()) fail(path, "must be an integer");
    const int64_t i = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX} ? INT64_MAX : v.get<int64_t>();
    if (i < lo || i > hi) fail(path, std::to_string(i) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return i;
  }

 private:
  const json& m_j;
  std::string m_path;
  std::set<std::string> m_seen;
};

const json& array_at(Obj& o, const std::string& key, size_t min_size, size_t max_size) {
  const json& a = o.get(key);
  if (!a.is_array()) fail(o.at(key), "must be an array");
  if (a.size() < min_size || a.size() > max_size)
    fail(o.at(key), "must hold " + std::to_string(min_size) + " to " + std::to_string(max_size) + " entries");
  return a;
}

ElemType parse_type(const std::string& s, const std::string& path, bool scalar) {
  if (s == "float") return ElemType::Float;
  if (s == "int") return ElemType::Int;
  if (s == "int64") return ElemType::Int64;
  if (s == "double") return ElemType::Double;
  if (s == "uint" && !scalar) return ElemType::Uint;
  if (s == "uint64" && !scalar) return ElemType::Uint64;
  fail(path, "'" + s + "' is not a type here (give " +
                 std::string(scalar ? "float, double, int or int64" : "float, double, int, uint, int64 or uint64") + ")");
}

std::string expr_field(Obj& o, const std::string& key, const Bindings& known, std::optional<std::string> def) {
  const std::string e = o.str(key, def);
  if (auto err = check_int_expr(e, known)) fail(o.at(key), "'" + e + "': " + *err);
  return e;
}

Fill parse_fill(const json& j, const std::string& path, ElemType type, bool input) {
  Obj o(j, path);
  Fill f;
  const std::string kind = o.str("kind");
  if (kind == "uniform") {
    f.kind = Fill::Kind::Uniform;
    f.lo = o.num("lo");
    f.hi = o.num("hi");
    if (!(f.lo < f.hi)) fail(o.at("hi"), "must be greater than lo (an input range of one value teaches nothing)");
    if (!is_floating(type) && (f.lo != std::floor(f.lo) || f.hi != std::floor(f.hi)))
      fail(o.at("lo"), "an integer buffer's range takes whole numbers");
    if ((type == ElemType::Uint || type == ElemType::Uint64) && f.lo < 0)
      fail(o.at("lo"), "an unsigned buffer holds no negative numbers");
    if (!is_floating(type) && (std::fabs(f.lo) > 0x1p53 || std::fabs(f.hi) > 0x1p53))
      fail(o.at("hi"), "an integer range is at most 2^53 in magnitude");
  } else if (kind == "index") {
    f.kind = Fill::Kind::Index;
    f.scale = o.num("scale", 1);
    f.offset = o.num("offset", 0);
    f.modulo = o.integer("modulo", 0, int64_t{1} << 31, 0);
    if (f.scale == 0) fail(o.at("scale"), "must not be 0 (every element would be the offset)");
  } else if (kind == "constant") {
    f.kind = Fill::Kind::Constant;
    f.value = o.num("value");
    if (input && f.value == 0) fail(o.at("value"), "an input of zeros hides bugs: give another value or a uniform fill");
  } else {
    fail(o.at("kind"), "'" + kind + "' is not a fill (give uniform, index or constant)");
  }
  o.check_all();
  return f;
}

Arg parse_arg(const json& j, const std::string& path, const Bindings& params) {
  Obj o(j, path);
  Arg a;
  a.name = o.str("name");
  if (!is_identifier(a.name)) fail(o.at("name"), "'" + a.name + "' is not a C identifier");
  const std::string kind = o.str("kind");
  if (kind == "buffer") {
    a.buffer = true;
    a.type = parse_type(o.str("type"), o.at("type"), false);
    const std::string dir = o.str("dir");
    if (dir == "in") a.dir = Dir::In;
    else if (dir == "out") a.dir = Dir::Out;
    else if (dir == "inout") a.dir = Dir::InOut;
    else fail(o.at("dir"), "'" + dir + "' is not a direction (give in, out or inout)");
    a.size = expr_field(o, "size", params, std::nullopt);
    if (o.has("cols")) a.cols = expr_field(o, "cols", params, std::nullopt);
    if (a.dir != Dir::Out) a.fill = parse_fill(o.get("fill"), o.at("fill"), a.type, a.dir == Dir::In);
    else if (o.has("fill")) fail(o.at("fill"), "an output is poisoned before the run (NaN or 0xCDCDCDCD), not filled");
    a.every_element_written = o.boolean("every_element_written", a.dir == Dir::Out);
  } else if (kind == "scalar") {
    a.buffer = false;
    a.type = parse_type(o.str("type"), o.at("type"), true);
    const json& v = o.get("value");
    if (v.is_number() && is_floating(a.type)) {
      a.float_value = v.get<double>();
    } else if (v.is_string()) {
      a.value = expr_field(o, "value", params, std::nullopt);
    } else {
      fail(o.at("value"), is_floating(a.type) ? "must be a number or an integer expression"
                                                    : "must be an integer expression (a string, e.g. \"n\")");
    }
  } else {
    fail(o.at("kind"), "'" + kind + "' is not an argument kind (give buffer or scalar)");
  }
  o.check_all();
  return a;
}

std::string test_name(const Bindings& b, const std::vector<std::string>& order) {
  std::string s;
  for (const std::string& p : order) s += (s.empty() ? "" : ", ") + p + "=" + std::to_string(b.at(p));
  return s;
}

void parse_tests(Obj& o, Exercise& e) {
  Obj t(o.get("tests"), "tests");
  for (const char* which : {"visible", "hidden"}) {
    const json& a = array_at(t, which, 1, 64);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string path = t.at(which) + "[" + std::to_string(i) + "]";
      Obj c(a[i], path);
      TestCase test;
      test.hidden = std::string(which) == "hidden";
      for (const std::string& p : e.params) test.params[p] = c.integer(p, 1, int64_t{1} << 30);
      c.check_all();
      test.name = test_name(test.params, e.params);
      e.tests.push_back(std::move(test));
    }
  }
  t.check_all();
}

void parse_launch(Obj& o, Exercise& e, const Bindings& params) {
  Obj l(o.get("launch"), "launch");
  const json& b = array_at(l, "block", 1, 3);
  for (size_t i = 0; i < b.size(); ++i)
    e.block[i] = static_cast<uint32_t>(Obj::as_integer(b[i], l.at("block") + "[" + std::to_string(i) + "]", 1, 1024));
  if (uint64_t{e.block[0]} * e.block[1] * e.block[2] > 1024) fail(l.at("block"), "more than 1024 threads per block");
  Bindings with_block = params;
  for (const char* n : {"block_x", "block_y", "block_z"}) with_block[n] = 1;
  const json& g = array_at(l, "grid", 1, 3);
  for (size_t i = 0; i < g.size(); ++i) {
    const std::string path = l.at("grid") + "[" + std::to_string(i) + "]";
    if (!g[i].is_string()) fail(path, "must be an expression (a string, e.g. \"ceil_div(n, block_x)\")");
    e.grid[i] = g[i].get<std::string>();
    if (auto err = check_int_expr(e.grid[i], with_block)) fail(path, "'" + e.grid[i] + "': " + *err);
  }
  e.dynamic_shared = expr_field(l, "dynamic_shared", with_block, "0");
  e.student_block = l.boolean("student_block", false);
  l.check_all();
}

void parse_par(Obj& o, Exercise& e, const Bindings& params) {
  if (!o.has("par")) return;
  Obj p(o.get("par"), "par");
  Bindings with_block = params;
  for (const char* n : {"block_x", "block_y", "block_z"}) with_block[n] = 1;
  if (p.has("global_reads")) e.par.global_reads = expr_field(p, "global_reads", with_block, std::nullopt);
  if (p.has("global_writes")) e.par.global_writes = expr_field(p, "global_writes", with_block, std::nullopt);
  if (p.has("shared_bytes")) e.par.shared_bytes = expr_field(p, "shared_bytes", with_block, std::nullopt);
  p.check_all();
}

Exercise parse(const json& root) {
  Obj o(root, "");
  Exercise e;
  const int64_t format = o.integer("format", 1, 1000);
  if (format != k_format_version)
    fail("format", std::to_string(format) + " is not a format this blockscope reads (it reads " +
                       std::to_string(k_format_version) + ")");
  e.title = o.str("title");
  e.order = static_cast<int>(o.integer("order", 0, 100000, 0));
  e.topic = o.str("topic", "");
  e.kernel = o.str("kernel");
  if (!is_identifier(e.kernel)) fail("kernel", "'" + e.kernel + "' is not a C identifier");
  Bindings params;
  const json& ps = array_at(o, "params", 1, 8);
  for (size_t i = 0; i < ps.size(); ++i) {
    const std::string path = "params[" + std::to_string(i) + "]";
    if (!ps[i].is_string() || !is_identifier(ps[i].get<std::string>())) fail(path, "must be a name (a C identifier)");
    const std::string p = ps[i].get<std::string>();
    if (p.rfind("block_", 0) == 0) fail(path, "'" + p + "': block_x, block_y and block_z are the launch's");
    if (params.count(p)) fail(path, "'" + p + "' is listed twice");
    params[p] = 1;
    e.params.push_back(p);
  }
  const json& args = array_at(o, "args", 1, 16);
  std::set<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    Arg a = parse_arg(args[i], "args[" + std::to_string(i) + "]", params);
    if (!names.insert(a.name).second) fail("args[" + std::to_string(i) + "].name", "'" + a.name + "' is used twice");
    e.args.push_back(std::move(a));
  }
  if (std::none_of(e.args.begin(), e.args.end(), [](const Arg& a) { return a.buffer && a.dir != Dir::In; }))
    fail("args", "no output buffer (dir out or inout): nothing could be checked");
  parse_launch(o, e, params);
  if (o.has("tolerance")) {
    Obj t(o.get("tolerance"), "tolerance");
    e.tolerance.abs = t.num("abs", 0);
    e.tolerance.rel = t.num("rel", 0);
    if (e.tolerance.abs < 0 || e.tolerance.rel < 0 || e.tolerance.rel >= 1)
      fail("tolerance", "abs must be >= 0 and rel in [0, 1)");
    t.check_all();
  }
  parse_tests(o, e);
  e.seed = static_cast<uint64_t>(o.integer("seed", 0, INT64_MAX, 1));
  if (o.has("limits")) {
    Obj l(o.get("limits"), "limits");
    e.budget = static_cast<uint64_t>(l.integer("budget", 1000, int64_t{1} << 32, int64_t{1} << 22));
    e.timeout_s = l.num("timeout_s", 20);
    if (e.timeout_s <= 0 || e.timeout_s > 3600) fail(l.at("timeout_s"), "must be in (0, 3600] seconds");
    e.memory_mb = static_cast<uint64_t>(l.integer("memory_mb", 64, 65536, 2048));
    l.check_all();
  }
  if (o.has("hints")) {
    const json& h = array_at(o, "hints", 0, 16);
    for (size_t i = 0; i < h.size(); ++i) {
      if (!h[i].is_string() || h[i].get<std::string>().empty())
        fail("hints[" + std::to_string(i) + "]", "must be a non-empty string");
      e.hints.push_back(h[i].get<std::string>());
    }
  }
  parse_par(o, e, params);
  if (o.has("reference")) {
    Obj r(o.get("reference"), "reference");
    e.cpu_reference = r.str("cpu");
    const CpuReference* ref = find_cpu_reference(e.cpu_reference);
    if (!ref) fail(r.at("cpu"), "'" + e.cpu_reference + "' is not a CPU reference (known: " + cpu_reference_names() + ")");
    if (e.shape() != ref->shape)
      fail(r.at("cpu"), "'" + e.cpu_reference + "' takes (" + std::string(ref->shape) + "), the args give (" + e.shape() + ")");
    r.check_all();
  }
  o.check_all();
  return e;
}

std::optional<std::string> read_small(const fs::path& p, std::string* out) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return "missing (the exercise needs this file)";
  if (!fs::is_regular_file(p, ec)) return "not a regular file (a FIFO, a device or a folder is not read)";
  if (fs::file_size(p, ec) > (1u << 20)) return "larger than 1 MiB";
  std::ifstream in(p, std::ios::binary);
  if (!in) return "cannot be read";
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return std::nullopt;
}

}  // namespace

const char* c_type(ElemType t) {
  switch (t) {
    case ElemType::Float: return "float";
    case ElemType::Int: return "int";
    case ElemType::Uint: return "unsigned int";
    case ElemType::Int64: return "long long";
    case ElemType::Uint64: return "unsigned long long";
    case ElemType::Double: return "double";
  }
  return "float";
}

uint32_t elem_bytes(ElemType t) {
  return t == ElemType::Int64 || t == ElemType::Uint64 || t == ElemType::Double ? 8 : 4;
}

bool is_floating(ElemType t) {
  return t == ElemType::Float || t == ElemType::Double;
}

std::string Exercise::pointer_type() const {
  std::string s = "void (*)(";
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    if (i) s += ", ";
    s += a.buffer ? std::string(a.dir == Dir::In ? "const " : "") + c_type(a.type) + "*" : c_type(a.type);
  }
  return s + ")";
}

std::string Exercise::shape() const {
  std::string s;
  for (const Arg& a : args) {
    if (!s.empty()) s += ", ";
    if (a.buffer) s += std::string(a.dir == Dir::In ? "const " : "") + c_type(a.type) + "*";
    else s += a.type == ElemType::Int || a.type == ElemType::Int64 ? "int" : c_type(a.type);
  }
  return s;
}

std::string Exercise::signature() const {
  std::string s = "extern \"C\" __global__ void " + kernel + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    if (i) s += ", ";
    s += a.buffer ? std::string(a.dir == Dir::In ? "const " : "") + c_type(a.type) + "* " + a.name
                  : std::string(c_type(a.type)) + " " + a.name;
  }
  return s + ")";
}

Bindings Exercise::bindings(const TestCase& t, const uint32_t b[3]) const {
  Bindings out = t.params;
  out["block_x"] = b[0];
  out["block_y"] = b[1];
  out["block_z"] = b[2];
  return out;
}

const Arg* Exercise::find_arg(std::string_view name) const {
  for (const Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

LoadResult parse_contract(const std::string& text, const std::string& where) {
  LoadResult r;
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    r.error = where + ": not valid JSON: " + e.what();
    return r;
  }
  try {
    r.exercise = parse(root);
  } catch (const FieldError& e) {
    r.error = where + ": " + e.what();
  } catch (const json::exception& e) {
    r.error = where + ": " + e.what();
  }
  return r;
}

LoadResult load_exercise(const std::string& dir) {
  const fs::path d(dir);
  const fs::path contract = d / k_contract_file;
  std::string text;
  if (auto err = read_small(contract, &text)) return {std::nullopt, contract.string() + ": " + *err};
  LoadResult r = parse_contract(text, contract.string());
  if (!r.exercise) return r;
  Exercise& e = *r.exercise;
  e.dir = d.string();
  e.id = d.filename().string();
  const std::pair<const char*, std::string*> files[] = {
      {"statement.md", &e.statement}, {"starter.cu", &e.starter}, {"reference.cu", &e.reference}};
  for (const auto& [name, text_out] : files)
    if (auto err = read_small(d / name, text_out)) return {std::nullopt, (d / name).string() + ": " + *err};
  return r;
}

const Exercise* Pack::find(std::string_view id) const {
  for (const Exercise& e : exercises)
    if (e.id == id) return &e;
  return nullptr;
}

Pack load_pack(const std::string& dir) {
  Pack p;
  p.dir = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    p.errors.push_back(dir + ": not a folder (a pack is a folder of exercise folders)");
    return p;
  }
  std::vector<fs::path> subs;
  for (const fs::directory_entry& de : fs::directory_iterator(dir, ec))
    if (de.is_directory(ec) && fs::exists(de.path() / k_contract_file, ec)) subs.push_back(de.path());
  std::sort(subs.begin(), subs.end());
  for (const fs::path& s : subs) {
    LoadResult r = load_exercise(s.string());
    if (r.exercise) p.exercises.push_back(std::move(*r.exercise));
    else p.errors.push_back(r.error);
  }
  std::stable_sort(p.exercises.begin(), p.exercises.end(),
                   [](const Exercise& a, const Exercise& b) { return a.order < b.order; });
  if (p.exercises.empty() && p.errors.empty()) p.errors.push_back(dir + ": no exercise folder (none holds exercise.json)");
  return p;
}

}  // namespace bs::exercise
