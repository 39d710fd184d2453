// ptx_parse.cpp: see ptx.h. A small lexer (tokens with their PTX line) and a recursive-descent reader of
// module directives, variables and function bodies; operands are resolved when a function ends (labels) and
// when the module ends (calls, memory layout).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "sim/ptx.h"

namespace bs::sim {

const char* space_name(Space s) {
  switch (s) {
    case Space::Generic: return "generic";
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
    case Space::Param: return "param";
    case Space::Const: return "const";
  }
  return "?";
}

int type_bytes(Type t) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    default: return 0;
  }
}
bool type_float(Type t) { return t == Type::F16 || t == Type::F32 || t == Type::F64; }
bool type_signed(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

const Function* Module::find(std::string_view name) const {
  const int i = find_index(name);
  return i < 0 ? nullptr : &functions[static_cast<size_t>(i)];
}
int Module::find_index(std::string_view name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == name) return static_cast<int>(i);
  return -1;
}
std::string Module::where(uint32_t pc) const {
  if (pc >= code.size()) return "?";
  const Instr& in = code[pc];
  if (in.line > 0) {
    const std::string f =
        in.file > 0 && static_cast<size_t>(in.file) < files.size() ? files[static_cast<size_t>(in.file)] : "";
    return (f.empty() ? std::string("line ") : f + ":") + std::to_string(in.line);
  }
  return "PTX line " + std::to_string(in.ptx_line);
}

namespace {

struct Token {
  enum Kind { Ident, Number, String, Punct, End } kind = End;
  std::string text;
  int line = 0;
};

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  auto ident_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      i += 2;
      continue;
    }
    Token t;
    t.line = line;
    if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"' && s[j] != '\n') ++j;
      t.kind = Token::String;
      t.text = std::string(s.substr(i + 1, j - i - 1));
      i = j + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      t.kind = Token::Number;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (ident_char(c)) {
      size_t j = i;
      while (j < s.size()) {
        if (ident_char(s[j])) { ++j; continue; }
        if (s[j] == ':' && j + 1 < s.size() && s[j + 1] == ':') { j += 2; continue; }  // ld.global.L1::no_allocate
        break;
      }
      t.kind = Token::Ident;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else {
      t.kind = Token::Punct;
      t.text = std::string(1, c);
      ++i;
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.line = line;
  out.push_back(end);
  return out;
}

const std::unordered_map<std::string, Type>& type_table() {
  static const std::unordered_map<std::string, Type> t = {
      {"pred", Type::Pred}, {"b8", Type::B8},   {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64},
      {"u8", Type::U8},     {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},
      {"s16", Type::S16},   {"s32", Type::S32}, {"s64", Type::S64}, {"f16", Type::F16}, {"f32", Type::F32},
      {"f64", Type::F64}};
  return t;
}

const std::unordered_map<std::string, Special>& special_table() {
  static const std::unordered_map<std::string, Special> t = {
      {"%tid.x", Special::TidX},         {"%tid.y", Special::TidY},
      {"%tid.z", Special::TidZ},         {"%ntid.x", Special::NtidX},
      {"%ntid.y", Special::NtidY},       {"%ntid.z", Special::NtidZ},
      {"%ctaid.x", Special::CtaidX},     {"%ctaid.y", Special::CtaidY},
      {"%ctaid.z", Special::CtaidZ},     {"%nctaid.x", Special::NctaidX},
      {"%nctaid.y", Special::NctaidY},   {"%nctaid.z", Special::NctaidZ},
      {"%laneid", Special::LaneId},      {"%warpid", Special::WarpId},
      {"%nwarpid", Special::NWarpId},    {"%smid", Special::SmId},
      {"%nsmid", Special::NSmId},        {"%gridid", Special::GridId},
      {"%clock", Special::Clock},        {"%clock64", Special::Clock64},
      {"%globaltimer", Special::GlobalTimer}, {"%lanemask_eq", Special::LanemaskEq},
      {"%lanemask_lt", Special::LanemaskLt},  {"%lanemask_le", Special::LanemaskLe},
      {"%lanemask_gt", Special::LanemaskGt},  {"%lanemask_ge", Special::LanemaskGe},
      {"%dynamic_smem_size", Special::DynamicSmemSize}, {"%total_smem_size", Special::TotalSmemSize}};
  return t;
}

const std::unordered_map<std::string, Op>& op_table() {
  static const std::unordered_map<std::string, Op> t = {
      {"mov", Op::Mov},         {"add", Op::Add},       {"sub", Op::Sub},         {"mul", Op::Mul},
      {"mad", Op::Mad},         {"mul24", Op::Mul24},   {"mad24", Op::Mad24},     {"sad", Op::Sad},
      {"div", Op::Div},         {"rem", Op::Rem},       {"abs", Op::Abs},         {"neg", Op::Neg},
      {"min", Op::Min},         {"max", Op::Max},       {"and", Op::And},         {"or", Op::Or},
      {"xor", Op::Xor},         {"not", Op::Not},       {"cnot", Op::Cnot},       {"lop3", Op::Lop3},
      {"shl", Op::Shl},         {"shr", Op::Shr},       {"shf", Op::Shf},         {"popc", Op::Popc},
      {"clz", Op::Clz},         {"brev", Op::Brev},     {"bfe", Op::Bfe},         {"bfi", Op::Bfi},
      {"prmt", Op::Prmt},       {"bfind", Op::Bfind},   {"addc", Op::AddC},       {"subc", Op::SubC},
      {"madc", Op::MadC},       {"fma", Op::Fma},       {"sqrt", Op::Sqrt},       {"rsqrt", Op::Rsqrt},
      {"rcp", Op::Rcp},         {"ex2", Op::Ex2},       {"lg2", Op::Lg2},         {"sin", Op::Sin},
      {"cos", Op::Cos},         {"tanh", Op::Tanh},     {"copysign", Op::Copysign}, {"testp", Op::Testp},
      {"setp", Op::Setp},       {"selp", Op::Selp},     {"set", Op::Set},         {"slct", Op::Slct},
      {"cvt", Op::Cvt},         {"cvta", Op::Cvta},     {"ld", Op::Ld},           {"ldu", Op::Ld},
      {"st", Op::St},           {"atom", Op::Atom},     {"red", Op::Red},         {"bar", Op::Bar},
      {"barrier", Op::Bar},     {"membar", Op::Membar}, {"fence", Op::Membar},    {"shfl", Op::Shfl},
      {"vote", Op::Vote},       {"activemask", Op::Activemask}, {"bra", Op::Bra}, {"ret", Op::Ret},
      {"exit", Op::Exit},       {"call", Op::Call},     {"trap", Op::Trap},       {"nanosleep", Op::Nop},
      {"prefetch", Op::Nop},    {"prefetchu", Op::Nop}, {"pmevent", Op::Nop}};
  return t;
}

// Modifiers that change nothing in a sequentially consistent, cache-less simulator.
bool ignorable_mod(const std::string& m) {
  static const std::set<std::string> s = {"sync", "aligned", "relaxed", "acquire", "release", "acq_rel", "sc",
                                          "weak", "gpu", "sys", "cta", "gl", "noftz", "ca", "cg", "cs", "lu",
                                          "cv", "wb", "wt", "b", "L2::64B", "L2::128B", "L2::256B", "uni_"};
  return s.count(m) > 0 || m.rfind("L1::", 0) == 0 || m.rfind("L2::", 0) == 0 || m == "mmio";
}

struct RegRange {
  int base;
  int count;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : m_src(text), m_tok(lex(text)) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      m_lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    m.files.emplace_back();
  }

  Module run() {
    while (peek().kind != Token::End) top_level();
    finish_module();
    return std::move(m);
  }

 private:
  std::string_view m_src;
  std::vector<Token> m_tok;
  std::vector<std::string_view> m_lines;
  size_t m_pos = 0;
  Module m;
  // The function being read.
  int m_fn = -1;
  std::unordered_map<std::string, int> m_regs;
  std::map<std::string, RegRange> m_reg_ranges;
  std::unordered_map<std::string, int> m_fn_syms;  // latest declaration wins (call scopes reuse names)
  std::unordered_map<std::string, uint32_t> m_labels;
  std::vector<std::pair<uint32_t, std::string>> m_branch_fixups;  // instruction -> label
  std::vector<std::pair<uint32_t, std::string>> m_call_fixups;    // instruction -> function name
  std::unordered_map<std::string, int> m_module_syms;
  int m_loc_file = 0, m_loc_line = 0;

  const Token& peek(size_t k = 0) const { return m_tok[std::min(m_pos + k, m_tok.size() - 1)]; }
  const Token& next() {
    const Token& t = m_tok[m_pos];
    if (m_pos + 1 < m_tok.size()) ++m_pos;
    return t;
  }
  [[noreturn]] void fail(const std::string& what, int line = -1) const {
    throw PtxError("PTX line " + std::to_string(line < 0 ? peek().line : line) + ": " + what);
  }
  bool accept(const char* punct) {
    if (peek().kind == Token::Punct && peek().text == punct) {
      next();
      return true;
    }
    return false;
  }
  void expect(const char* punct) {
    if (!accept(punct)) fail(std::string("expected '") + punct + "', found '" + peek().text + "'");
  }
  void skip_statement() {  // to the next ';' at this nesting level
    int depth = 0;
    while (peek().kind != Token::End) {
      const Token& t = next();
      if (t.kind != Token::Punct) continue;
      if (t.text == "{" || t.text == "(" || t.text == "[") ++depth;
      if (t.text == "}" || t.text == ")" || t.text == "]") --depth;
      if (t.text == ";" && depth <= 0) return;
    }
  }
  void skip_line(int line) {
    while (peek().kind != Token::End && peek().line == line) next();
  }
  uint64_t number(const Token& t) const {
    const std::string& s = t.text;
    uint64_t v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    std::from_chars_result r{};
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      r = std::from_chars(b + 2, e, v, 16);
      if (r.ptr != e && (*r.ptr == 'U' || *r.ptr == 'u') && r.ptr + 1 == e) r.ptr = e;
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      r = std::from_chars(b + 2, e, v, 16);
    } else if (s.find('.') != std::string::npos || s.find('e') != std::string::npos) {
      fail("decimal float literal '" + s + "' (PTX from NVRTC writes 0f/0d hex)", t.line);
    } else {
      r = std::from_chars(b, e, v, 10);
      if (r.ptr != e && (*r.ptr == 'U' || *r.ptr == 'u') && r.ptr + 1 == e) r.ptr = e;
    }
    if (r.ec != std::errc() || r.ptr != e) fail("bad number '" + s + "'", t.line);
    return v;
  }

  // --- module level ----------------------------------------------------------------------------------------
  void top_level() {
    const Token t = next();
    if (t.kind == Token::Punct && t.text == ";") return;
    if (t.kind != Token::Ident) fail("unexpected '" + t.text + "'", t.line);
    const std::string& d = t.text;
    if (d == ".version") {
      const std::string v = next().text;
      const size_t dot = v.find('.');
      m.version_major = std::atoi(v.substr(0, dot).c_str());
      m.version_minor = dot == std::string::npos ? 0 : std::atoi(v.substr(dot + 1).c_str());
      return;
    }
    if (d == ".target") {
      const std::string v = next().text;
      if (v.rfind("sm_", 0) == 0) m.target_sm = std::atoi(v.c_str() + 3);
      while (accept(",")) next();
      return;
    }
    if (d == ".address_size") {
      if (number(next()) != 64) fail("only .address_size 64 is supported", t.line);
      return;
    }
    if (d == ".file") {
      const int n = static_cast<int>(number(next()));
      const std::string name = next().text;
      if (n < 0 || n > 100000) fail("bad .file number", t.line);
      if (m.files.size() <= static_cast<size_t>(n)) m.files.resize(static_cast<size_t>(n) + 1);
      m.files[static_cast<size_t>(n)] = name;
      while (accept(",")) next();
      return;
    }
    if (d == ".section") {  // debug sections: skipped
      next();
      if (accept("{")) skip_braces();
      return;
    }
    if (d == ".visible" || d == ".extern" || d == ".weak" || d == ".common") {
      m_pending_extern = m_pending_extern || d == ".extern";
      return;
    }
    if (d == ".entry" || d == ".func") {
      function(d == ".entry", t.line);
      m_pending_extern = false;
      return;
    }
    if (d == ".global" || d == ".const" || d == ".shared" || d == ".local") {
      variable(d, -1, t.line);
      m_pending_extern = false;
      return;
    }
    if (d == ".pragma" || d == ".alias" || d == ".loc") {
      skip_statement();
      return;
    }
    fail("unknown directive '" + d + "'", t.line);
  }
  bool m_pending_extern = false;

  void skip_braces() {
    int depth = 1;
    while (depth > 0 && peek().kind != Token::End) {
      const Token& t = next();
      if (t.kind == Token::Punct && t.text == "{") ++depth;
      if (t.kind == Token::Punct && t.text == "}") --depth;
    }
  }

  // `.global .align 4 .b8 name[24] = {...};` (the space already read). fn: the declaring function or -1.
  int variable(const std::string& space_dir, int fn, int line) {
    Symbol s;
    s.space = space_dir == ".global"  ? Space::Global
              : space_dir == ".const" ? Space::Const
              : space_dir == ".shared" ? Space::Shared
              : space_dir == ".local"  ? Space::Local
                                       : Space::Param;
    s.function = fn;
    s.dynamic = m_pending_extern && s.space == Space::Shared;
    Type ty = Type::None;
    int vec = 1;
    while (peek().kind == Token::Ident && peek().text[0] == '.') {
      const std::string d = next().text;
      if (d == ".align") {
        // Layouts round offsets up to it (a division): 0 or a non-power of two would fault or misplace.
        const uint64_t a = number(next());
        if (a == 0 || (a & (a - 1)) != 0 || a > (uint64_t{1} << 20))
          fail(".align " + std::to_string(a) + ": must be a power of two, at most 2^20");
        s.align = static_cast<uint32_t>(a);
      } else if (d == ".v2" || d == ".v4") {
        vec = d[2] - '0';
      } else if (type_table().count(d.substr(1))) {
        ty = type_table().at(d.substr(1));
      } else if (d == ".ptr" || d == ".global" || d == ".shared" || d == ".const" || d == ".local") {
        // .param .u64 .ptr .global .align 4 name: attributes of a pointer parameter
      } else {
        fail("unknown variable attribute '" + d + "'", line);
      }
    }
    if (peek().kind != Token::Ident) fail("expected a variable name", line);
    s.name = next().text;
    uint64_t count = 1;
    bool unsized = false;
    while (accept("[")) {
      if (accept("]")) {
        unsized = true;
        continue;
      }
      const uint64_t dim = number(next());
      if (dim > (uint64_t{1} << 32) || count * dim > (uint64_t{1} << 32))
        fail("variable '" + s.name + "' is too large to simulate", line);
      count *= dim;
      expect("]");
    }
    const int eb = std::max(1, type_bytes(ty)) * vec;
    if (s.align < static_cast<uint32_t>(eb) && s.align == 1) s.align = static_cast<uint32_t>(eb);
    s.bytes = unsized ? 0 : count * static_cast<uint64_t>(eb);
    if (s.bytes > (uint64_t{1} << 30)) fail("variable '" + s.name + "' has more than 1 GiB: too large to simulate", line);
    if (unsized && s.space == Space::Shared) s.dynamic = true;
    if (accept("=")) {  // initialiser: a number or {n, n, ...} in the element type
      s.init.assign(s.bytes, 0);
      auto put = [&](uint64_t idx, uint64_t v) {
        if ((idx + 1) * static_cast<uint64_t>(eb) <= s.init.size())
          std::memcpy(s.init.data() + idx * static_cast<uint64_t>(eb), &v, static_cast<size_t>(std::min(eb, 8)));
      };
      uint64_t idx = 0;
      if (accept("{")) {
        while (!accept("}")) {
          if (accept(",")) continue;
          if (accept("{") ) continue;  // nested braces of multi-dimensional initialisers
          if (peek().kind == Token::Punct && peek().text == "}") { next(); continue; }
          bool neg = accept("-");
          if (peek().kind != Token::Number) fail("unsupported initialiser '" + peek().text + "'", line);
          uint64_t v = number(next());
          if (neg) v = static_cast<uint64_t>(-static_cast<int64_t>(v));
          put(idx++, v);
        }
      } else {
        bool neg = accept("-");
        uint64_t v = number(next());
        if (neg) v = static_cast<uint64_t>(-static_cast<int64_t>(v));
        put(0, v);
      }
    }
    if (s.space == Space::Global || s.space == Space::Const) s.init.resize(s.bytes, 0);
    m.symbols.push_back(std::move(s));
    const int idx = static_cast<int>(m.symbols.size()) - 1;
    if (fn < 0) m_module_syms[m.symbols.back().name] = idx;
    return idx;
  }

  // A parameter list `( .param .u64 a, .param .b32 b )`.
  std::vector<int32_t> param_list(int fn, bool ret) {
    std::vector<int32_t> out;
    expect("(");
    while (!accept(")")) {
      if (accept(",")) continue;
      const Token t = next();
      if (t.text != ".param" && t.text != ".reg") fail("expected .param in a parameter list, found '" + t.text + "'", t.line);
      const int s = variable(".param", fn, t.line);
      m.symbols[static_cast<size_t>(s)].param_index = ret ? -2 : static_cast<int>(out.size());
      out.push_back(s);
      m_fn_syms[m.symbols[static_cast<size_t>(s)].name] = s;
    }
    return out;
  }

  void function(bool entry, int line) {
    Function f;
    f.entry = entry;
    f.ptx_line = line;
    m.functions.emplace_back();
    m_fn = static_cast<int>(m.functions.size()) - 1;
    m_regs.clear();
    m_reg_ranges.clear();
    m_fn_syms.clear();
    m_labels.clear();
    m_branch_fixups.clear();
    if (!entry && peek().kind == Token::Punct && peek().text == "(") f.rets = param_list(m_fn, true);
    if (peek().kind != Token::Ident) fail("expected a function name", line);
    f.name = next().text;
    if (peek().kind == Token::Punct && peek().text == "(") f.params = param_list(m_fn, false);
    // performance directives before the body
    while (peek().kind == Token::Ident && peek().text[0] == '.') {
      const std::string d = next().text;
      if (d == ".maxntid" || d == ".reqntid") {
        uint64_t prod = 1;
        prod *= number(next());
        while (accept(",")) prod *= number(next());
        f.max_threads = static_cast<uint32_t>(prod);
      } else if (d == ".minnctapersm" || d == ".maxnreg" || d == ".maxnctapersm") {
        number(next());
      } else if (d == ".noreturn") {
      } else if (d == ".pragma") {
        skip_statement();
      } else {
        fail("unknown function directive '" + d + "'");
      }
    }
    f.first = static_cast<uint32_t>(m.code.size());
    if (accept(";")) {  // a declaration
      f.end = f.first;
      m.functions[static_cast<size_t>(m_fn)] = std::move(f);
      return;
    }
    expect("{");
    f.has_body = true;
    m.functions[static_cast<size_t>(m_fn)] = f;
    m_loc_file = 0;
    m_loc_line = 0;
    body();
    Function& fr = m.functions[static_cast<size_t>(m_fn)];
    fr.end = static_cast<uint32_t>(m.code.size());
    for (const auto& [pc, label] : m_branch_fixups) {
      auto it = m_labels.find(label);
      if (it == m_labels.end()) fail("branch to unknown label '" + label + "'", m.code[pc].ptx_line);
      m.code[pc].target = static_cast<int32_t>(it->second);
    }
    // an implicit return at the end of a body that falls off
    if (m.code.size() == fr.first || (m.code.back().op != Op::Ret && m.code.back().op != Op::Exit &&
                                      m.code.back().op != Op::Bra)) {
      Instr r;
      r.op = Op::Ret;
      r.ptx_line = peek().line;
      r.file = m_loc_file;
      r.line = m_loc_line;
      m.code.push_back(r);
      m.text.push_back("ret;  // end of " + fr.name);
      fr.end = static_cast<uint32_t>(m.code.size());
    }
  }

  int reg_index(const std::string& name) const {
    auto it = m_regs.find(name);
    if (it != m_regs.end()) return it->second;
    size_t d = name.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(name[d - 1]))) --d;
    if (d == name.size() || d == 0) return -1;
    auto r = m_reg_ranges.find(name.substr(0, d));
    if (r == m_reg_ranges.end()) return -1;
    const int n = std::atoi(name.c_str() + d);
    if (n < 0 || n >= r->second.count) return -1;
    return r->second.base + n;
  }
  int add_regs(const std::string& name, int count, Type t) {
    const int base = static_cast<int>(m.num_regs);
    if (count > (1 << 20) || m.num_regs + static_cast<uint32_t>(count) > (1u << 22)) fail("too many registers");
    m.num_regs += static_cast<uint32_t>(count);
    for (int i = 0; i < count; ++i) {
      m.reg_names.push_back(count == 1 ? name : name + std::to_string(i));
      m.reg_types.push_back(t);
    }
    return base;
  }

  void body() {
    int depth = 1;
    while (depth > 0) {
      const Token& t = peek();
      if (t.kind == Token::End) fail("unexpected end of the PTX inside a function");
      if (t.kind == Token::Punct && t.text == "{") { next(); ++depth; continue; }
      if (t.kind == Token::Punct && t.text == "}") { next(); --depth; continue; }
      if (t.kind == Token::Punct && t.text == ";") { next(); continue; }
      if (t.kind == Token::Ident && t.text == ".reg") { reg_decl(); continue; }
      if (t.kind == Token::Ident &&
          (t.text == ".local" || t.text == ".shared" || t.text == ".param" || t.text == ".const" || t.text == ".global")) {
        const int line = t.line;
        const std::string d = next().text;
        const int s = variable(d, m_fn, line);
        m_fn_syms[m.symbols[static_cast<size_t>(s)].name] = s;
        expect(";");
        continue;
      }
      if (t.kind == Token::Ident && t.text == ".loc") { loc(); continue; }
      if (t.kind == Token::Ident && (t.text == ".pragma")) { skip_statement(); continue; }
      if (t.kind == Token::Ident && t.text[0] != '.' && peek(1).kind == Token::Punct && peek(1).text == ":") {
        m_labels[t.text] = static_cast<uint32_t>(m.code.size());
        next();
        next();
        continue;
      }
      instruction();
    }
  }

  void reg_decl() {
    const int line = next().line;
    Type ty = Type::None;
    int vec = 1;
    while (peek().kind == Token::Ident && peek().text[0] == '.') {
      const std::string d = next().text;
      if (d == ".v2" || d == ".v4") vec = d[2] - '0';
      else if (type_table().count(d.substr(1))) ty = type_table().at(d.substr(1));
      else fail("unknown register type '" + d + "'", line);
    }
    if (vec != 1) fail("vector registers are not supported", line);
    while (true) {
      if (peek().kind != Token::Ident) fail("expected a register name", line);
      const std::string name = next().text;
      if (accept("<")) {
        const int n = static_cast<int>(number(next()));
        expect(">");
        m_reg_ranges[name] = RegRange{add_regs(name, n, ty), n};
      } else {
        m_regs[name] = add_regs(name, 1, ty);
      }
      if (!accept(",")) break;
    }
    expect(";");
  }

  void loc() {
    const int line = next().line;
    const int file = static_cast<int>(number(next()));
    const int src = static_cast<int>(number(next()));
    int f = file, l = src;
    if (peek().line == line && peek().kind == Token::Number) next();  // column
    // `, function_name X, inlined_at F L C`: the user's line is where it was inlined
    while (peek().line == line && peek().kind != Token::End) {
      const Token& t = next();
      if (t.kind == Token::Ident && t.text == "inlined_at") {
        f = static_cast<int>(number(next()));
        l = static_cast<int>(number(next()));
      }
    }
    if (l == 0) return;  // compiler-made code: keep the previous line
    m_loc_file = f;
    m_loc_line = l;
  }

  int lookup_symbol(const std::string& name) const {
    auto it = m_fn_syms.find(name);
    if (it != m_fn_syms.end()) return it->second;
    auto mt = m_module_syms.find(name);
    if (mt != m_module_syms.end()) return mt->second;
    return -1;
  }

  // One operand at the cursor. label_ok: a plain identifier may be a label or a function.
  Operand operand(std::string* label_out) {
    Operand o;
    const int line = peek().line;
    if (accept("{")) {
      o.kind = Operand::Vec;
      while (!accept("}")) {
        if (accept(",")) continue;
        const std::string n = next().text;
        if (o.count >= 4) fail("vector operand with more than 4 elements", line);
        if (n == "_") {
          o.vreg[o.count++] = -1;
          continue;
        }
        const int r = reg_index(n);
        if (r < 0) fail("unknown register '" + n + "'", line);
        o.vreg[o.count++] = r;
      }
      return o;
    }
    if (accept("[")) {
      o.kind = Operand::Mem;
      if (peek().kind == Token::Number) {
        o.imm = static_cast<int64_t>(number(next()));
      } else {
        const std::string n = next().text;
        const int r = reg_index(n);
        if (r >= 0) {
          o.reg = r;
        } else {
          o.sym = lookup_symbol(n);
          if (o.sym < 0) fail("unknown address '" + n + "'", line);
        }
        if (accept("+")) {
          const bool neg = accept("-");
          const int64_t v = static_cast<int64_t>(number(next()));
          o.imm = neg ? -v : v;
        } else if (accept("-")) {
          o.imm = -static_cast<int64_t>(number(next()));
        }
      }
      expect("]");
      return o;
    }
    if (accept("!")) {
      const std::string n = next().text;
      o.kind = Operand::Reg;
      o.reg = reg_index(n);
      if (o.reg < 0) fail("unknown predicate '" + n + "'", line);
      o.count = 1;  // negated
      return o;
    }
    bool neg = accept("-");
    if (peek().kind == Token::Number) {
      const Token t = next();
      uint64_t v = number(t);
      const bool f32lit = t.text.size() > 2 && (t.text[1] == 'f' || t.text[1] == 'F');
      const bool f64lit = t.text.size() > 2 && (t.text[1] == 'd' || t.text[1] == 'D');
      if (neg) {
        if (f32lit) v ^= 0x80000000u;
        else if (f64lit) v ^= 0x8000000000000000ull;
        else v = static_cast<uint64_t>(-static_cast<int64_t>(v));
      }
      o.kind = Operand::Imm;
      o.imm = static_cast<int64_t>(v);
      o.count = f32lit ? 1 : f64lit ? 2 : 0;  // literal kind (used to convert f32 literals in f64 ops)
      return o;
    }
    if (neg) fail("'-' before a non-number", line);
    if (peek().kind != Token::Ident) fail("expected an operand, found '" + peek().text + "'", line);
    const std::string n = next().text;
    const int r = reg_index(n);
    if (r >= 0) {
      o.kind = Operand::Reg;
      o.reg = r;
      return o;
    }
    auto sp = special_table().find(n);
    if (sp != special_table().end()) {
      o.kind = Operand::Spec;
      o.special = sp->second;
      return o;
    }
    if (n == "WARP_SZ") {
      o.kind = Operand::Imm;
      o.imm = 32;
      return o;
    }
    const int s = lookup_symbol(n);
    if (s >= 0) {
      o.kind = Operand::SymAddr;
      o.sym = s;
      if (accept("+")) o.imm = static_cast<int64_t>(number(next()));
      return o;
    }
    if (n[0] == '%') fail("unknown register '" + n + "'", line);
    o.kind = Operand::Label;
    if (label_out) *label_out = n;
    return o;
  }

  void instruction() {
    Instr in;
    const int line = peek().line;
    in.ptx_line = line;
    in.file = m_loc_file;
    in.line = m_loc_line;
    if (accept("@")) {
      in.guard_neg = accept("!");
      const std::string p = next().text;
      in.guard = reg_index(p);
      if (in.guard < 0) fail("unknown predicate '" + p + "'", line);
    }
    if (peek().kind != Token::Ident) fail("expected an instruction, found '" + peek().text + "'", line);
    const std::string opcode = next().text;
    std::string text(m_lines[static_cast<size_t>(line - 1)]);
    {
      const size_t a = text.find_first_not_of(" \t");
      text = a == std::string::npos ? std::string() : text.substr(a);
    }
    decode_opcode(opcode, &in);
    std::string label;
    if (in.op == Op::Call) {
      call_operands(&in, line);
    } else {
      std::vector<Operand> ops;
      std::vector<int> second_dst;
      while (!(peek().kind == Token::Punct && peek().text == ";")) {
        if (peek().kind == Token::End) fail("missing ';'", line);
        if (accept(",")) continue;
        ops.push_back(operand(&label));
        if (accept("|")) {  // setp/shfl: a second destination predicate
          Operand q = operand(nullptr);
          if (q.kind != Operand::Reg) fail("expected a predicate after '|'", line);
          in.dst[1] = q;
          in.ndst = 2;
        }
      }
      assign_operands(&in, ops, line);
    }
    expect(";");
    if (in.op == Op::Bra) {
      if (label.empty()) fail("bra needs a label", line);
      m_branch_fixups.emplace_back(static_cast<uint32_t>(m.code.size()), label);
    }
    m.code.push_back(std::move(in));
    m.text.push_back(std::move(text));
  }

  void call_operands(Instr* in, int line) {
    // call{.uni} (ret, ...), fname, (arg, ...);
    auto sym_list = [&](std::vector<int32_t>* out) {
      expect("(");
      while (!accept(")")) {
        if (accept(",")) continue;
        const std::string n = next().text;
        const int s = lookup_symbol(n);
        if (s < 0) fail("call: unknown parameter '" + n + "'", line);
        out->push_back(s);
      }
    };
    if (peek().kind == Token::Punct && peek().text == "(") sym_list(&in->call_rets);
    accept(",");
    if (peek().kind != Token::Ident) fail("call: expected a function name", line);
    const std::string fname = next().text;
    if (fname[0] == '%') {
      in->op = Op::Unsupported;  // an indirect call through a register
      skip_to_semicolon();
      return;
    }
    m_call_fixups.emplace_back(static_cast<uint32_t>(m.code.size()), fname);
    if (accept(",")) {
      if (peek().kind == Token::Punct && peek().text == "(") sym_list(&in->call_args);
      if (accept(",")) {  // a prototype: only indirect calls have one
        in->op = Op::Unsupported;
        skip_to_semicolon();
      }
    }
  }
  void skip_to_semicolon() {
    while (!(peek().kind == Token::Punct && peek().text == ";") && peek().kind != Token::End) next();
  }

  void decode_opcode(const std::string& opcode, Instr* in) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= opcode.size()) {
      size_t dot = opcode.find('.', start);
      if (dot == std::string::npos) dot = opcode.size();
      parts.push_back(opcode.substr(start, dot - start));
      start = dot + 1;
    }
    auto op = op_table().find(parts[0]);
    if (op == op_table().end()) {
      in->op = Op::Unsupported;
      return;
    }
    in->op = op->second;
    int types_seen = 0;
    bool unknown = false;
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string& p = parts[i];
      auto ty = type_table().find(p);
      if (ty != type_table().end()) {
        (types_seen++ == 0 ? in->type : in->type2) = ty->second;
        continue;
      }
      if (p == "rn") in->mods |= M_RN;
      else if (p == "rz") in->mods |= M_RZ;
      else if (p == "rm") in->mods |= M_RM;
      else if (p == "rp") in->mods |= M_RP;
      else if (p == "rni") in->mods |= M_RN | M_INT_ROUND;
      else if (p == "rzi") in->mods |= M_RZ | M_INT_ROUND;
      else if (p == "rmi") in->mods |= M_RM | M_INT_ROUND;
      else if (p == "rpi") in->mods |= M_RP | M_INT_ROUND;
      else if (p == "ftz") in->mods |= M_FTZ;
      else if (p == "sat") in->mods |= M_SAT;
      else if (p == "approx") in->mods |= M_APPROX;
      else if (p == "full") in->mods |= M_FULL;
      else if (p == "lo") in->mods |= M_LO;
      else if (p == "hi") in->mods |= M_HI;
      else if (p == "wide") in->mods |= M_WIDE;
      else if (p == "cc") in->mods |= M_CC;
      else if (p == "uni") in->mods |= M_UNI;
      else if (p == "to") in->mods |= M_TO;
      else if (p == "volatile") in->mods |= M_VOLATILE;
      else if (p == "shiftamt") in->mods |= M_SHIFTAMT;
      else if (p == "relaxed" || p == "acquire" || p == "release" || p == "acq_rel" || p == "sc") in->mods |= M_STRONG;
      else if (p == "nc") in->mods |= M_NC;
      else if (p == "relu") in->mods |= M_RELU;
      else if (p == "global") in->space = Space::Global;
      else if (p == "shared" || p == "shared::cta") in->space = Space::Shared;
      else if (p == "local") in->space = Space::Local;
      else if (p == "param") in->space = Space::Param;
      else if (p == "const") in->space = Space::Const;
      else if (p == "v2") in->vec = 2;
      else if (p == "v4") in->vec = 4;
      else if (!decode_sub(p, in) && !ignorable_mod(p)) unknown = true;
    }
    if (in->op == Op::Bar && parts.size() >= 2 && parts[1] == "warp") in->op = Op::BarWarp;
    if (in->op == Op::Add && (in->mods & M_CC)) in->op = Op::AddCC;
    if (in->op == Op::Sub && (in->mods & M_CC)) in->op = Op::SubCC;
    if (in->op == Op::Mad && (in->mods & M_CC)) in->op = Op::MadCC;
    if (in->type == Type::F16 || in->type2 == Type::F16) {
      if (!(in->op == Op::Cvt || in->op == Op::Ld || in->op == Op::St || in->op == Op::Mov)) unknown = true;
    }
    if (unknown) in->op = Op::Unsupported;
  }

  bool decode_sub(const std::string& p, Instr* in) {
    static const std::unordered_map<std::string, Cmp> cmps = {
        {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},
        {"ge", Cmp::Ge},   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},
        {"equ", Cmp::Equ}, {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
        {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
    switch (in->op) {
      case Op::Setp:
      case Op::Set: {
        auto c = cmps.find(p);
        if (c != cmps.end()) {
          in->cmp = c->second;
          return true;
        }
        if (p == "and") { in->boolop = BoolOp::And; return true; }
        if (p == "or") { in->boolop = BoolOp::Or; return true; }
        if (p == "xor") { in->boolop = BoolOp::Xor; return true; }
        return false;
      }
      case Op::Atom:
      case Op::Red: {
        static const std::unordered_map<std::string, Sub> a = {
            {"add", Sub::AtomAdd}, {"min", Sub::AtomMin},   {"max", Sub::AtomMax}, {"inc", Sub::AtomInc},
            {"dec", Sub::AtomDec}, {"exch", Sub::AtomExch}, {"cas", Sub::AtomCas}, {"and", Sub::AtomAnd},
            {"or", Sub::AtomOr},   {"xor", Sub::AtomXor}};
        auto s = a.find(p);
        if (s == a.end()) return false;
        in->sub = s->second;
        return true;
      }
      case Op::Shfl: {
        static const std::unordered_map<std::string, Sub> a = {
            {"up", Sub::ShflUp}, {"down", Sub::ShflDown}, {"bfly", Sub::ShflBfly}, {"idx", Sub::ShflIdx}};
        auto s = a.find(p);
        if (s == a.end()) return false;
        in->sub = s->second;
        return true;
      }
      case Op::Vote: {
        static const std::unordered_map<std::string, Sub> a = {
            {"all", Sub::VoteAll}, {"any", Sub::VoteAny}, {"uni", Sub::VoteUni}, {"ballot", Sub::VoteBallot}};
        auto s = a.find(p);
        if (s == a.end()) return false;
        in->sub = s->second;
        return true;
      }
      case Op::Shf:
        if (p == "l") { in->sub = Sub::ShfL; return true; }
        if (p == "r") { in->sub = Sub::ShfR; return true; }
        if (p == "wrap") { in->cmp = Cmp::Eq; return true; }    // cmp reused: Eq = wrap
        if (p == "clamp") { in->cmp = Cmp::Ne; return true; }   // Ne = clamp
        return false;
      case Op::Bar:
        // bar.arrive and bar.red are not run (they would need other semantics): unsupported, by name
        return p == "sync" || p == "aligned" || p == "cta" || p == "warp";
      case Op::Testp:
        if (p == "finite" || p == "infinite" || p == "number" || p == "notanumber" || p == "normal" ||
            p == "subnormal") {
          static const std::unordered_map<std::string, Cmp> t = {{"finite", Cmp::Eq}, {"infinite", Cmp::Ne},
                                                                 {"number", Cmp::Num}, {"notanumber", Cmp::Nan},
                                                                 {"normal", Cmp::Lt}, {"subnormal", Cmp::Gt}};
          in->cmp = t.at(p);
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  void assign_operands(Instr* in, std::vector<Operand>& ops, int line) {
    const Op op = in->op;
    size_t nd = 1;
    switch (op) {
      case Op::St: case Op::Red: case Op::Bra: case Op::Bar: case Op::BarWarp: case Op::Membar:
      case Op::Ret: case Op::Exit: case Op::Trap: case Op::Nop: case Op::Unsupported:
        nd = 0;
        break;
      default:
        break;
    }
    if (op == Op::Bar && !ops.empty()) nd = 0;
    if (ops.size() < nd) fail("missing operands", line);
    if (op == Op::Unsupported) return;
    if (ops.size() - nd > 4) fail("too many operands", line);
    // The simulator writes a destination straight into the register file: anything but a register (or a
    // vector of them) there, say an immediate or an unknown name, is refused here, not run. A name that is no
    // register, special register or variable is a label, which only a branch takes.
    for (const Operand& o : ops) {
      if (o.kind == Operand::Label && op != Op::Bra)
        fail("an operand is not a register, a special register or a variable (a label? only bra takes one)", line);
      if (o.kind == Operand::Vec && o.count == 0) fail("empty vector operand '{}'", line);
    }
    if (nd == 1) {
      if (ops[0].kind != Operand::Reg && ops[0].kind != Operand::Vec)
        fail("the destination (the first operand) must be a register", line);
      in->dst[0] = ops[0];
      if (in->ndst == 0) in->ndst = 1;
    }
    in->nsrc = static_cast<uint8_t>(ops.size() - nd);
    for (size_t i = nd; i < ops.size(); ++i) in->src[i - nd] = ops[i];
  }

  // --- module end: calls, layouts, operand resolution -------------------------------------------------------
  void finish_module() {
    for (const auto& [pc, name] : m_call_fixups) {
      const int f = m.find_index(name);
      if (f < 0) fail("call to unknown function '" + name + "'", m.code[pc].ptx_line);
      m.code[pc].target = f;
    }
    // Shared: module-level static variables first, then each kernel's own from there; dynamic (extern) ones
    // after the largest kernel's static part.
    auto own_entry = [&](const Symbol& s) {
      return s.function >= 0 && m.functions[static_cast<size_t>(s.function)].entry;
    };
    uint64_t common = 0;
    uint32_t dyn_align = 16;
    for (Symbol& s : m.symbols) {
      if (s.space != Space::Shared) continue;
      if (s.dynamic) {
        dyn_align = std::max(dyn_align, s.align);
        continue;
      }
      if (own_entry(s)) continue;
      common = (common + s.align - 1) / s.align * s.align;
      s.offset = common;
      common += s.bytes;
    }
    uint64_t largest = common;
    for (size_t fi = 0; fi < m.functions.size(); ++fi) {
      Function& f = m.functions[fi];
      if (!f.entry) continue;
      uint64_t at = common;
      for (Symbol& s : m.symbols) {
        if (s.space != Space::Shared || s.dynamic || s.function != static_cast<int>(fi)) continue;
        at = (at + s.align - 1) / s.align * s.align;
        s.offset = at;
        at += s.bytes;
      }
      f.shared_bytes = at;
      largest = std::max(largest, at);
    }
    m.dynamic_shared_align = dyn_align;
    m.dynamic_shared_offset = (largest + dyn_align - 1) / dyn_align * dyn_align;
    for (Symbol& s : m.symbols)
      if (s.space == Space::Shared && s.dynamic) s.offset = m.dynamic_shared_offset;
    // The per-thread frame: .local variables and the .param variables of .func bodies and call sites.
    // Kernel parameters get their own layout (the launch's parameter block).
    uint64_t frame = 0, data = 0;
    for (Symbol& s : m.symbols) {
      const bool kernel_param = s.space == Space::Param && s.function >= 0 && s.param_index >= 0 &&
                                m.functions[static_cast<size_t>(s.function)].entry;
      if (kernel_param) continue;
      if (s.space == Space::Local || s.space == Space::Param) {
        const uint64_t a = std::max<uint64_t>(1, s.align);
        frame = (frame + a - 1) / a * a;
        s.offset = frame;
        frame += std::max<uint64_t>(s.bytes, 1);
      } else if (s.space == Space::Global || s.space == Space::Const) {
        const uint64_t a = std::max<uint64_t>(1, s.align);
        data = (data + a - 1) / a * a;
        s.offset = data;
        data += s.bytes;
      }
    }
    m.local_bytes = (frame + 15) / 16 * 16;
    m.data_bytes = data;
    for (Function& f : m.functions) {
      if (!f.entry) continue;
      uint64_t off = 0;
      for (int32_t p : f.params) {
        Symbol& s = m.symbols[static_cast<size_t>(p)];
        const uint64_t a = std::max<uint64_t>(std::max<uint64_t>(1, s.align), std::min<uint64_t>(s.bytes, 8));
        off = (off + a - 1) / a * a;
        s.offset = off;
        off += s.bytes;
      }
    }
    for (Instr& in : m.code) resolve(in);
  }

  bool is_kernel_param(int sym) const {
    const Symbol& s = m.symbols[static_cast<size_t>(sym)];
    return s.space == Space::Param && s.function >= 0 && s.param_index >= 0 &&
           m.functions[static_cast<size_t>(s.function)].entry;
  }

  // Variables whose address is known now become immediates: shared offsets, frame offsets, kernel-parameter
  // offsets. Global/const variables keep their symbol (their address comes with the launch).
  void resolve_operand(Operand& o, Space* space) {
    if ((o.kind != Operand::SymAddr && o.kind != Operand::Mem) || o.sym < 0) return;
    const Symbol& s = m.symbols[static_cast<size_t>(o.sym)];
    if (s.space == Space::Global || s.space == Space::Const) return;
    o.imm += static_cast<int64_t>(s.offset);
    if (o.kind == Operand::SymAddr) o.kind = Operand::Imm;
    const bool kp = is_kernel_param(o.sym);
    o.sym = -1;
    if (space && o.kind == Operand::Mem) {
      if (s.space == Space::Param) *space = kp ? Space::Param : Space::Local;
      else *space = s.space;
    }
  }
  void resolve(Instr& in) {
    for (int i = 0; i < in.ndst; ++i) resolve_operand(in.dst[i], &in.space);
    for (int i = 0; i < in.nsrc; ++i) resolve_operand(in.src[i], &in.space);
    // .param accesses through a register (a parameter's address taken): kernel parameters only
    if ((in.op == Op::Ld || in.op == Op::St) && in.space == Space::Const) in.space = Space::Global;
  }
};

}  // namespace

Module parse_ptx(std::string_view ptx) {
  if (ptx.find('\0') != std::string_view::npos) throw PtxError("PTX text contains a NUL byte");
  Parser p(ptx);
  Module m = p.run();
  contract_mul_add(m);
  fuse_adjacent_stores(m);
  return m;
}

}  // namespace bs::sim
