#include "cli/options.hpp"

#include <new>

#include "core/error.hpp"

namespace sfr::cli {

bool parse_options(const char* cmd, const char* usage, const Args& args, po::options_description& opts,
                   const po::positional_options_description& pos, po::variables_map& vm) {
  opts.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: sf-replay " << cmd << " " << usage << "\n\n" << opts << "\n";
    return true;
  }
  po::notify(vm);
  return false;
}

std::uint64_t parse_seed(const std::string& option, const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && (text.size() < 20 || text <= "18446744073709551615")) return std::stoull(text);
  throw InputError(option, "expected an integer from 0 to 18446744073709551615, got '" + text + "'");
}

po::typed_value<std::string>* seed_value(std::uint64_t* target, bool required) {
  auto* v = po::value<std::string>()->notifier([target](const std::string& s) { *target = parse_seed("--seed", s); });
  return required ? v->required() : v->default_value(std::to_string(*target));
}

int run_guarded(const char* cmd, int (*body)(const Args&), const Args& args) {
  try {
    return body(args);
  } catch (const InputError& e) {
    std::cerr << "sf-replay " << cmd << ": error: " << e.what() << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "sf-replay " << cmd << ": error: " << InputError::one_line(e.what()) << " (see sf-replay " << cmd << " --help)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "sf-replay " << cmd << ": error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "sf-replay " << cmd << ": internal error: " << InputError::one_line(e.what()) << "\n";
    return 1;
  }
}

}  // namespace sfr::cli
