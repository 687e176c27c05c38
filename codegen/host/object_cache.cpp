#include "host/object_cache.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "host/cache_trim.h"
#include "support/error.h"
#include "support/file_util.h"

namespace fs = std::filesystem;

namespace mlipc::host::steps {

std::string sha256_hex(const std::string& bytes) { return sha256_hex({std::string_view(bytes)}); }

std::string sha256_hex(std::initializer_list<std::string_view> parts) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1;
  for (std::string_view p : parts) ok = ok && EVP_DigestUpdate(ctx.get(), p.data(), p.size()) == 1;
  if (!ok || EVP_DigestFinal_ex(ctx.get(), md, &len) != 1) fail("internal: SHA-256 failed");
  std::string hex;
  for (unsigned i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

std::vector<fs::path> c_sources(const fs::path& dir, const fs::path& sub) {
  std::vector<fs::path> srcs;
  if (fs::exists(dir / sub))
    for (const auto& e : fs::recursive_directory_iterator(dir / sub))
      if (e.path().extension() == ".c") srcs.push_back(fs::relative(e.path(), dir));
  std::sort(srcs.begin(), srcs.end());
  return srcs;
}

std::string headers_key(const fs::path& dir, const std::vector<fs::path>& subs, const Toolchain& tc) {
  std::string key = tc.cc;
  for (const std::string& f : tc.flags) key += " " + f;
  for (const fs::path& sub : subs) {
    std::vector<fs::path> headers;
    if (fs::exists(dir / sub))
      for (const auto& e : fs::recursive_directory_iterator(dir / sub))
        if (e.is_regular_file() && e.path().extension() == ".h") headers.push_back(e.path());
    std::sort(headers.begin(), headers.end());
    for (const fs::path& h : headers) key += "\n" + fs::relative(h, dir).generic_string() + "\n" + read_file(h);
  }
  return key;
}

// Every object is cached by what the compiler reads: the compiler and its
// flags, the headers the source can include and the source itself. The
// runtime's object is the same for every tarball of one mlipc build, and a
// model's generated sources are often the same for several tarballs (the
// same network compiled with other options, or for "mrvl, c" with nothing on
// the MLIP), so each is compiled once per content and shared.
fs::path cached_object(const fs::path& dir, const fs::path& src, const std::string& headers_key,
                       const fs::path& objects, const Toolchain& tc, int timeout) {
  const fs::path obj = objects / (sha256_hex(headers_key + src.string() + read_file(dir / src)).substr(0, 32) + ".o");
  if (fs::exists(obj)) {
    mark_used(obj);
    return obj;
  }
  fs::create_directories(objects);
  // Written in the build folder and renamed into the cache: a process killed
  // while compiling leaves its half object in its staging folder, which the
  // next build removes (build_cache.h), never in objects/.
  fs::create_directories(dir / ".tmp");
  const fs::path tmp = fs::absolute(dir) / ".tmp" / fmt::format("{}.{}", obj.filename().string(), static_cast<long>(getpid()));
  std::vector<std::string> argv = cc_command(tc);
  argv.insert(argv.end(), {"-c", src.string(), "-o", tmp.string()});
  compile_or_fail(argv, dir, tc.cc, timeout);
  std::error_code ec;
  fs::rename(tmp, obj, ec);  // losing a race to another process is fine
  if (ec && !fs::exists(obj)) fail("cannot store {} in the build cache: {}", obj.string(), ec.message());
  fs::remove(tmp, ec);
  return obj;
}

fs::path cached_program(const std::vector<std::string>& objects, const std::vector<std::string>& libs,
                        const fs::path& dir, const fs::path& cache, const Toolchain& tc, int timeout) {
  // The same objects link into the same program: linked once, then copied.
  std::string link_key = tc.cc;
  for (const std::string& f : tc.flags) link_key += " " + f;
  for (const std::string& o : objects) link_key += " " + o;
  for (const std::string& l : libs) link_key += " " + l;
  const fs::path programs = cache / "programs";
  const fs::path program = programs / sha256_hex(link_key).substr(0, 32);
  if (fs::exists(program)) {
    mark_used(program);
  } else {
    fs::create_directories(programs);
    fs::create_directories(dir / ".tmp");
    const fs::path tmp =
        fs::absolute(dir) / ".tmp" / fmt::format("{}.{}", program.filename().string(), static_cast<long>(getpid()));
    std::vector<std::string> link = cc_command(tc);
    link.insert(link.end(), objects.begin(), objects.end());
    link.insert(link.end(), {"-o", tmp.string()});
    link.insert(link.end(), libs.begin(), libs.end());
    compile_or_fail(link, dir, tc.cc, timeout);
    std::error_code ec;
    fs::rename(tmp, program, ec);
    if (ec && !fs::exists(program)) fail("cannot store {} in the build cache: {}", program.string(), ec.message());
    fs::remove(tmp, ec);
  }
  return program;
}

}  // namespace mlipc::host::steps
