#include "io/npz.h"

#include <zip.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <system_error>

#include "support/error.h"
#include "support/file_util.h"

namespace fs = std::filesystem;

namespace mlipc::io {

namespace {

constexpr std::string_view kNpyMagic = "\x93NUMPY";
constexpr size_t kArrayAlign = 64;          // numpy.lib.format.ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS

bool host_is_big_endian() {
  const uint16_t one = 1;
  return *reinterpret_cast<const uint8_t*>(&one) == 0;
}

void swap_elements(std::vector<uint8_t>& bytes, size_t elem) {
  if (elem > 1)
    for (size_t i = 0; i + elem <= bytes.size(); i += elem) std::reverse(bytes.begin() + i, bytes.begin() + i + elem);
}

// ------------------------------------------------------------------ dtypes

struct NpyType {
  char kind;  // 'f', 'i', 'u', 'b'
  size_t size;
  DType dtype;
};
constexpr NpyType kNpyTypes[] = {
    {'f', 2, DType::Float16}, {'f', 4, DType::Float32}, {'f', 8, DType::Float64}, {'i', 1, DType::Int8},
    {'i', 2, DType::Int16},   {'i', 4, DType::Int32},   {'i', 8, DType::Int64},   {'u', 1, DType::UInt8},
    {'u', 2, DType::UInt16},  {'u', 4, DType::UInt32},  {'u', 8, DType::UInt64},  {'b', 1, DType::Bool},
};

// numpy's dtype.str: '|' for one-byte types, '<' otherwise.
std::string descr_of(DType t) {
  for (const NpyType& n : kNpyTypes)
    if (n.dtype == t) return std::string(1, n.size == 1 ? '|' : '<') + n.kind + std::to_string(n.size);
  fail("{} tensors cannot be saved as .npy (numpy has no such dtype)", dtype_name(t));
}

DType dtype_of_descr(const std::string& descr, const std::string& what) {
  auto unsupported = [&](std::string_view why) -> DType {
    fail("{}: unsupported dtype '{}' ({})", what, descr, why);
  };
  if (descr.size() < 2) unsupported("supported: <f2 <f4 <f8 <i1..<i8 <u1..<u8 |b1");
  char order = descr[0];
  std::string_view rest(descr);
  if (order == '<' || order == '>' || order == '|' || order == '=') rest.remove_prefix(1);
  else order = '|';
  if (rest == "O") unsupported("object arrays are not supported");
  size_t size = 0;
  auto [end, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), size);
  bool parsed = rest.size() >= 2 && ec == std::errc() && end == rest.data() + rest.size();
  for (const NpyType& n : kNpyTypes) {
    if (!parsed || rest[0] != n.kind || size != n.size) continue;
    bool little = order == '<' || (order == '=' && !host_is_big_endian());
    if (n.size > 1 && !little)
      unsupported(order == '>' ? "big-endian data is not supported; save with arr.astype(arr.dtype.newbyteorder('<'))"
                               : "byte order must be '<'");
    return n.dtype;
  }
  return unsupported("supported: <f2 <f4 <f8 <i1..<i8 <u1..<u8 |b1");
}

// ------------------------------------------------------------------ header parsing

// The header is a Python dict literal written by repr(): parse just enough of
// it (strings, True/False, tuples of ints) rather than evaluate it.
class HeaderParser {
 public:
  HeaderParser(std::string_view s, const std::string& what) : s_(s), what_(what) {}

  void parse(std::string* descr, bool* fortran, Shape* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    for (;;) {
      ws();
      if (peek() == '}') break;
      std::string key = string_literal();
      ws();
      expect(':');
      ws();
      if (key == "descr") {
        if (peek() == '[') fail("{}: unsupported dtype (structured arrays are not supported)", what_);
        *descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        *fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        *shape = tuple();
        have_shape = true;
      } else {
        bad("unexpected key '" + key + "'");
      }
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      ws();
      if (peek() != '}') bad("expected ',' or '}'");
    }
    if (!have_descr || !have_fortran || !have_shape) bad("it needs the keys 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void bad(const std::string& why) const { fail("{}: bad .npy header: {}", what_, why); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    ws();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal() {
    char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    size_t end = s_.find(q, i_ + 1);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string v(s_.substr(i_ + 1, end - i_ - 1));
    if (v.find('\\') != std::string::npos) bad("escapes in strings are not supported");
    i_ = end + 1;
    return v;
  }
  bool boolean() {
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    bad("'fortran_order' must be True or False");
  }
  Shape tuple() {
    expect('(');
    Shape shape;
    for (;;) {
      ws();
      if (peek() == ')') break;
      int64_t d = 0;
      auto [end, ec] = std::from_chars(s_.data() + i_, s_.data() + s_.size(), d);
      if (ec != std::errc() || d < 0) bad("'shape' must be a tuple of non-negative integers");
      i_ = static_cast<size_t>(end - s_.data());
      if (peek() == 'L') ++i_;  // Python 2 longs
      shape.push_back(d);
      ws();
      if (peek() == ',') ++i_;
      else if (peek() != ')') bad("expected ',' or ')' in 'shape'");
    }
    ++i_;
    return shape;
  }

  std::string_view s_;
  const std::string& what_;
  size_t i_ = 0;
};

// ------------------------------------------------------------------ libzip handles

struct ZipDiscard {
  void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileClose {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
struct ZipSourceFree {
  void operator()(zip_source_t* s) const { zip_source_free(s); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipDiscard>;
using ZipFilePtr = std::unique_ptr<zip_file_t, ZipFileClose>;
using ZipSourcePtr = std::unique_ptr<zip_source_t, ZipSourceFree>;

std::string zip_code_message(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string msg = zip_error_strerror(&e);
  zip_error_fini(&e);
  return msg;
}

// Fixed member time: $SOURCE_DATE_EPOCH or 2024-01-01, as MS-DOS date/time
// computed in UTC (zip_file_set_mtime would use the local time zone).
std::pair<uint16_t, uint16_t> dos_time() {
  std::time_t t = 1704067200;
  if (const char* env = std::getenv("SOURCE_DATE_EPOCH"); env && *env) {
    std::string_view s(env);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 0)
      fail("SOURCE_DATE_EPOCH='{}' is not a whole number of seconds since 1970-01-01", s);
    t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  int year = std::clamp(tm.tm_year + 1900, 1980, 2107);  // the range a DOS date can hold
  auto time = static_cast<uint16_t>((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
  auto date = static_cast<uint16_t>(((year - 1980) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
  return {time, date};
}

}  // namespace

// ------------------------------------------------------------------ .npy

TensorData read_npy(std::string_view bytes, const std::string& what) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kNpyMagic) fail("{}: not a .npy array (bad magic)", what);
  const auto major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) fail("{}: unsupported .npy format version {}.{}", what, major, minor);
  size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) fail("{}: truncated .npy header", what);
  size_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
  size_t data_start = 8 + len_bytes + header_len;
  if (bytes.size() < data_start) fail("{}: truncated .npy header ({} bytes announced)", what, header_len);

  std::string descr;
  bool fortran = false;
  Shape shape;
  HeaderParser(bytes.substr(8 + len_bytes, header_len), what).parse(&descr, &fortran, &shape);
  DType dtype = dtype_of_descr(descr, what);
  size_t elem = dtype_size(dtype);
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > std::numeric_limits<uint64_t>::max() / 8 / static_cast<uint64_t>(d))
      fail("{}: shape {} is too large", what, shape_str(shape));
    count *= static_cast<uint64_t>(d);
  }
  // A Fortran-order array with at most one non-unit axis has the same bytes as C order.
  size_t non_unit = static_cast<size_t>(std::count_if(shape.begin(), shape.end(), [](int64_t d) { return d != 1; }));
  if (fortran && non_unit > 1)
    fail("{}: Fortran-order (fortran_order: True) arrays are not supported; save np.ascontiguousarray(a)", what);
  uint64_t need = count * elem;
  uint64_t have = bytes.size() - data_start;
  if (have < need)
    fail("{}: data is shorter than the shape needs ({} bytes for {} {}, found {})", what, need, descr,
         shape_str(shape), have);
  std::vector<uint8_t> raw(bytes.begin() + static_cast<std::ptrdiff_t>(data_start),
                           bytes.begin() + static_cast<std::ptrdiff_t>(data_start + need));
  if (host_is_big_endian()) swap_elements(raw, elem);
  return TensorData(dtype, std::move(shape), std::move(raw));
}

std::string write_npy(const TensorData& t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
  shape += t.shape().size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr_of(t.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // numpy leaves room to grow the first axis in place.
  if (t.rank() > 0) header.append(kGrowthAxisMaxDigits - std::to_string(t.shape()[0]).size(), ' ');

  std::string out;
  for (int major : {1, 2}) {
    size_t len_bytes = major == 1 ? 2 : 4;
    size_t hlen = header.size() + 1;  // + '\n'
    size_t padlen = kArrayAlign - ((8 + len_bytes + hlen) % kArrayAlign);
    size_t total = hlen + padlen;
    if (major == 1 && total > 0xffff) continue;
    out.assign(kNpyMagic);
    out.push_back(static_cast<char>(major));
    out.push_back(0);
    for (size_t i = 0; i < len_bytes; ++i) out.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
    out += header;
    out.append(padlen, ' ');
    out.push_back('\n');
    break;
  }
  if (host_is_big_endian()) {
    std::vector<uint8_t> raw(t.raw(), t.raw() + t.nbytes());
    swap_elements(raw, dtype_size(t.dtype()));
    out.append(raw.begin(), raw.end());
  } else {
    out.append(reinterpret_cast<const char*>(t.raw()), t.nbytes());
  }
  return out;
}

// ------------------------------------------------------------------ .npz

NamedTensors read_npz(const fs::path& path) {
  const std::string where = path.string();
  std::error_code ec;
  if (!fs::exists(path, ec)) fail("{}: no such file", where);
  if (fs::is_directory(path, ec)) fail("{}: is a directory, not an .npz file", where);
  if (fs::file_size(path, ec) == 0 && !ec) fail("{}: not a zip/npz file (empty file)", where);

  int err = 0;
  ZipPtr za(zip_open(where.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err));
  if (!za) {
    if (err == ZIP_ER_NOZIP) {
      // A zip starts with a local header; without the central directory at the end it was cut short.
      if (read_file(path).rfind("PK\x03\x04", 0) == 0)
        fail("{}: truncated or corrupt zip/npz file (no central directory)", where);
      fail("{}: not a zip/npz file", where);
    }
    if (err == ZIP_ER_OPEN || err == ZIP_ER_READ) fail("{}: cannot open: {}", where, zip_code_message(err));
    fail("{}: corrupt zip/npz file ({})", where, zip_code_message(err));
  }

  NamedTensors out;
  std::set<std::string> seen;
  const zip_int64_t n = zip_get_num_entries(za.get(), 0);
  std::vector<char> buf(1 << 16);
  for (zip_int64_t i = 0; i < n; ++i) {
    const auto idx = static_cast<zip_uint64_t>(i);
    const char* raw_name = zip_get_name(za.get(), idx, ZIP_FL_ENC_GUESS);
    if (!raw_name) fail("{}: corrupt zip/npz file ({})", where, zip_strerror(za.get()));
    std::string name = raw_name;
    if (!name.empty() && name.back() == '/') continue;  // a folder entry
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0)
      fail("{}: member '{}' is not a .npy array", where, name);
    std::string key = name.substr(0, name.size() - 4);
    if (!seen.insert(key).second) fail("{}: array '{}' appears twice", where, key);

    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za.get(), idx, 0, &st) != 0)
      fail("{}: array '{}': {}", where, key, zip_strerror(za.get()));
    ZipFilePtr f(zip_fopen_index(za.get(), idx, 0));
    if (!f) fail("{}: array '{}': cannot read: {}", where, key, zip_strerror(za.get()));
    std::string data;
    if (st.valid & ZIP_STAT_SIZE) data.reserve(static_cast<size_t>(std::min<zip_uint64_t>(st.size, 1u << 26)));
    for (;;) {
      zip_int64_t got = zip_fread(f.get(), buf.data(), buf.size());
      if (got < 0) fail("{}: array '{}': corrupt data ({})", where, key, zip_file_strerror(f.get()));
      if (got == 0) break;
      data.append(buf.data(), static_cast<size_t>(got));
    }
    if (int rc = zip_fclose(f.release()); rc != 0)
      fail("{}: array '{}': corrupt data ({})", where, key, zip_code_message(rc));
    if ((st.valid & ZIP_STAT_SIZE) && data.size() != st.size)
      fail("{}: array '{}': corrupt data ({} bytes, expected {})", where, key, data.size(), st.size);
    out.emplace_back(key, read_npy(data, fmt::format("{}: array '{}'", where, key)));
  }
  return out;
}

void write_npz(const fs::path& path, const NamedTensors& tensors, bool compressed) {
  const std::string where = path.string();
  // Members are read by libzip at zip_close, so their bytes must outlive the archive.
  std::vector<std::string> members;
  std::set<std::string> keys;
  for (const auto& [key, t] : tensors) {
    if (!keys.insert(key).second) fail("{}: array '{}' appears twice", where, key);
    try {
      members.push_back(write_npy(t));
    } catch (const Error& e) {
      fail("{}: array '{}': {}", where, key, e.what());
    }
  }
  if (members.empty()) {
    // libzip writes nothing for an archive without members; numpy writes the
    // 22-byte end-of-central-directory record alone.
    write_file_atomic(path, std::string("PK\x05\x06", 4) + std::string(18, '\0'));
    return;
  }
  const auto [dos_t, dos_d] = dos_time();

  zip_error_t zerr;
  zip_error_init(&zerr);
  ZipSourcePtr src(zip_source_buffer_create(nullptr, 0, 0, &zerr));
  if (!src) fail("{}: cannot create the archive: {}", where, zip_error_strerror(&zerr));
  zip_source_keep(src.get());  // one reference for the archive, one (src) to read the result
  ZipPtr za(zip_open_from_source(src.get(), ZIP_TRUNCATE, &zerr));
  if (!za) {
    zip_source_free(src.get());  // the archive did not take its reference
    fail("{}: cannot create the archive: {}", where, zip_error_strerror(&zerr));
  }
  for (size_t i = 0; i < members.size(); ++i) {
    const std::string name = tensors[i].first + ".npy";
    zip_source_t* s = zip_source_buffer(za.get(), members[i].data(), members[i].size(), 0);
    if (!s) fail("{}: {}", where, zip_strerror(za.get()));
    zip_int64_t idx = zip_file_add(za.get(), name.c_str(), s, ZIP_FL_ENC_GUESS);
    if (idx < 0) {
      zip_source_free(s);
      fail("{}: cannot add '{}': {}", where, name, zip_strerror(za.get()));
    }
    const auto u = static_cast<zip_uint64_t>(idx);
    if (zip_set_file_compression(za.get(), u, compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_dostime(za.get(), u, dos_t, dos_d, 0) != 0)
      fail("{}: cannot add '{}': {}", where, name, zip_strerror(za.get()));
  }
  if (zip_close(za.get()) != 0) fail("{}: cannot write the archive: {}", where, zip_strerror(za.get()));
  za.release();  // zip_close freed it

  // Copy the finished archive out of the buffer source.
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_source_stat(src.get(), &st) != 0 || !(st.valid & ZIP_STAT_SIZE) || zip_source_open(src.get()) != 0)
    fail("{}: cannot read back the archive: {}", where, zip_error_strerror(zip_source_error(src.get())));
  std::string bytes(static_cast<size_t>(st.size), '\0');
  zip_int64_t got = zip_source_read(src.get(), bytes.data(), bytes.size());
  zip_source_close(src.get());
  if (got < 0 || static_cast<zip_uint64_t>(got) != st.size)
    fail("{}: cannot read back the archive: {}", where, zip_error_strerror(zip_source_error(src.get())));
  write_file_atomic(path, bytes);
}

}  // namespace mlipc::io
