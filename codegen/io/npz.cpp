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
#include "support/limits.h"
#include "support/text.h"

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

namespace {

// What a .npy header says: where the data starts and how many bytes it has.
struct NpyHeader {
  size_t data_start = 0;
  DType dtype = DType::Undefined;
  std::string descr;
  Shape shape;
  uint64_t data_bytes = 0;
};

// The number of bytes of the preamble (magic, version, header length), and
// then of the whole header, as the first bytes say; 0 while too few are given.
size_t npy_preamble_bytes(std::string_view bytes, const std::string& what) {
  if (bytes.size() < 8) return 0;
  if (bytes.substr(0, 6) != kNpyMagic) fail("{}: not a .npy array (bad magic)", what);
  const auto major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) fail("{}: unsupported .npy format version {}.{}", what, major, minor);
  return 8 + (major == 1 ? 2 : 4);
}

size_t npy_header_end(std::string_view bytes, size_t preamble, const std::string& what) {
  uint64_t header_len = 0;
  for (size_t i = 8; i < preamble; ++i) header_len |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * (i - 8));
  if (header_len > limits::kMaxNpyHeaderBytes)
    fail("{}: .npy header of {} bytes is longer than mlipc reads ({} bytes)", what, header_len,
         limits::kMaxNpyHeaderBytes);
  return preamble + static_cast<size_t>(header_len);
}

// Parses the header in bytes[0, header end); checks the dtype, the order and
// that the declared array is within limits::kMaxTensorBytes.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& what) {
  const size_t preamble = npy_preamble_bytes(bytes, what);
  if (preamble == 0 || bytes.size() < preamble) fail("{}: truncated .npy header", what);
  NpyHeader h;
  h.data_start = npy_header_end(bytes, preamble, what);
  if (bytes.size() < h.data_start)
    fail("{}: truncated .npy header ({} bytes announced)", what, h.data_start - preamble);
  bool fortran = false;
  HeaderParser(bytes.substr(preamble, h.data_start - preamble), what).parse(&h.descr, &fortran, &h.shape);
  h.dtype = dtype_of_descr(h.descr, what);
  // A Fortran-order array with at most one non-unit axis has the same bytes as C order.
  size_t non_unit = static_cast<size_t>(std::count_if(h.shape.begin(), h.shape.end(), [](int64_t d) { return d != 1; }));
  if (fortran && non_unit > 1)
    fail("{}: Fortran-order (fortran_order: True) arrays are not supported; save np.ascontiguousarray(a)", what);
  try {
    check_tensor_size(h.dtype, h.shape);
  } catch (const Error& e) {
    fail("{}: {}", what, e.what());
  }
  h.data_bytes = tensor_bytes(h.dtype, h.shape);
  return h;
}

TensorData npy_tensor(NpyHeader h, std::string_view data) {
  std::vector<uint8_t> raw(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(h.data_bytes));
  if (host_is_big_endian()) swap_elements(raw, dtype_size(h.dtype));
  return TensorData(h.dtype, std::move(h.shape), std::move(raw));
}

}  // namespace

TensorData read_npy(std::string_view bytes, const std::string& what) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kNpyMagic) fail("{}: not a .npy array (bad magic)", what);
  NpyHeader h = parse_npy_header(bytes, what);
  uint64_t have = bytes.size() - h.data_start;
  if (have < h.data_bytes)
    fail("{}: data is shorter than the shape needs ({} bytes for {} {}, found {})", what, h.data_bytes, h.descr,
         shape_str(h.shape), have);
  const std::string_view data = bytes.substr(h.data_start);
  return npy_tensor(std::move(h), data);
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

namespace {

// Reads up to `n` more bytes of a zip member into `out`; fewer at its end.
void zip_read_more(zip_file_t* f, std::string& out, uint64_t n, const std::string& what) {
  char buf[1 << 16];
  while (n > 0) {
    zip_int64_t got = zip_fread(f, buf, static_cast<zip_uint64_t>(std::min<uint64_t>(n, sizeof buf)));
    if (got < 0) fail("{}: corrupt data ({})", what, zip_file_strerror(f));
    if (got == 0) return;
    out.append(buf, static_cast<size_t>(got));
    n -= static_cast<uint64_t>(got);
  }
}

// One member, read against its own header: the preamble, then the header,
// then exactly the bytes the header declares. A member whose directory
// entry, or whose inflated stream, holds more than that is refused before
// (or as soon as) the first extra byte: a deflate bomb behind a small
// declared shape costs the declared size, nothing more.
TensorData read_member(zip_t* za, zip_uint64_t idx, const std::string& what) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, idx, 0, &st) != 0) fail("{}: {}", what, zip_strerror(za));
  ZipFilePtr f(zip_fopen_index(za, idx, 0));
  if (!f) fail("{}: cannot read: {}", what, zip_strerror(za));
  std::string data;
  zip_read_more(f.get(), data, 8, what);
  const size_t preamble = npy_preamble_bytes(data, what);
  if (preamble == 0) fail("{}: not a .npy array (bad magic)", what);
  zip_read_more(f.get(), data, preamble - data.size(), what);
  if (data.size() < preamble) fail("{}: truncated .npy header", what);
  const size_t header_end = npy_header_end(data, preamble, what);
  zip_read_more(f.get(), data, header_end - data.size(), what);
  NpyHeader h = parse_npy_header(data, what);
  const uint64_t declared = h.data_start + h.data_bytes;
  if ((st.valid & ZIP_STAT_SIZE) && st.size > declared)
    fail("{}: the archive says it inflates to {} bytes, but its header declares {} {} ({} bytes); refused", what,
         st.size, h.descr, shape_str(h.shape), declared);
  zip_read_more(f.get(), data, h.data_bytes, what);
  if (data.size() < declared)
    fail("{}: data is shorter than the shape needs ({} bytes for {} {}, found {})", what, h.data_bytes, h.descr,
         shape_str(h.shape), data.size() - h.data_start);
  std::string extra;
  zip_read_more(f.get(), extra, 1, what);
  if (!extra.empty())
    fail("{}: inflates beyond the {} bytes its header declares ({} {}); refused", what, declared, h.descr,
         shape_str(h.shape));
  // Read to the end: zip_fclose now checks the CRC.
  if (int rc = zip_fclose(f.release()); rc != 0) fail("{}: corrupt data ({})", what, zip_code_message(rc));
  const std::string_view payload = std::string_view(data).substr(h.data_start);
  return npy_tensor(std::move(h), payload);
}

}  // namespace

NamedTensors read_npz(const fs::path& path) {
  // Read (bounded, regular files only) and opened from memory: libzip never
  // opens the path itself, so a FIFO or a device cannot block or feed it.
  return read_npz_bytes(read_file(path), path.string());
}

NamedTensors read_npz_bytes(const std::string& bytes, const std::string& where) {
  if (bytes.empty()) fail("{}: not a zip/npz file (empty file)", where);

  zip_error_t zerr;
  zip_error_init(&zerr);
  ZipSourcePtr src(zip_source_buffer_create(bytes.data(), bytes.size(), 0, &zerr));
  if (!src) fail("{}: cannot open: {}", where, zip_error_strerror(&zerr));
  ZipPtr za(zip_open_from_source(src.get(), ZIP_RDONLY | ZIP_CHECKCONS, &zerr));
  if (!za) {
    const int err = zip_error_code_zip(&zerr);
    zip_error_fini(&zerr);
    if (err == ZIP_ER_NOZIP) {
      // A zip starts with a local header; without the central directory at the end it was cut short.
      if (bytes.rfind("PK\x03\x04", 0) == 0) fail("{}: truncated or corrupt zip/npz file (no central directory)", where);
      fail("{}: not a zip/npz file", where);
    }
    // libzip's consistency check refuses a second member of the same name
    // ("File already exists"): numpy never writes one, and which of the two
    // is the array would be a guess.
    if (err == ZIP_ER_EXISTS) fail("{}: two members have the same name; an .npz holds each array once", where);
    fail("{}: corrupt zip/npz file ({})", where, zip_code_message(err));
  }
  src.release();  // the archive holds it now

  NamedTensors out;
  std::set<std::string> seen;
  uint64_t total = 0;
  const zip_int64_t n = zip_get_num_entries(za.get(), 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const auto idx = static_cast<zip_uint64_t>(i);
    const char* raw_name = zip_get_name(za.get(), idx, ZIP_FL_ENC_GUESS);
    if (!raw_name) fail("{}: corrupt zip/npz file ({})", where, zip_strerror(za.get()));
    std::string name = raw_name;
    if (!name.empty() && name.back() == '/') continue;  // a folder entry
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0)
      fail("{}: member '{}' is not a .npy array", where, printable(name));
    std::string key = name.substr(0, name.size() - 4);
    if (!seen.insert(key).second) fail("{}: array '{}' appears twice", where, printable(key));
    TensorData t = read_member(za.get(), idx, fmt::format("{}: array '{}'", where, printable(key)));
    total += t.nbytes();
    if (total > limits::kMaxFileBytes)
      fail("{}: the arrays hold more than {} bytes together, more than mlipc reads", where, limits::kMaxFileBytes);
    out.emplace_back(key, std::move(t));
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
