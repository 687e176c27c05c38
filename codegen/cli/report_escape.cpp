// report: HTML escaping of every string that comes from the model (node and
// tensor names are any bytes a model file holds).
#include "cli/report.h"

namespace mlipc::cli {

std::string html_escape(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&#39;"; break;
      default:
        // Control characters are not allowed in XML (the inline SVG).
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') r += "&#xFFFD;";
        else r += c;
    }
  }
  return r;
}

}  // namespace mlipc::cli
