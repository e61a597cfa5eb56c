#include <bench/internal/environment/cache_dir.hpp>
#include <bench/internal/environment/calibration_cache.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace bench {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t max_cache_bytes = 1u << 20;
constexpr std::size_t max_entries = 256;

std::string string_of(const rapidjson::Value& object, const char* name) {
    const auto it = object.FindMember(name);
    return it != object.MemberEnd() && it->value.IsString()
               ? std::string(it->value.GetString(), it->value.GetStringLength())
               : std::string();
}

/// The entry, or why it is not one.
std::optional<CalibrationEntry> entry_of(const rapidjson::Value& v, std::string& why) {
    if (!v.IsObject()) {
        why = "not an object";
        return std::nullopt;
    }
    const auto gflops = v.FindMember("gflops");
    if (gflops == v.MemberEnd() || !gflops->value.IsNumber() || !(gflops->value.GetDouble() > 0)) {
        why = "no positive \"gflops\"";
        return std::nullopt;
    }
    CalibrationEntry entry;
    entry.gflops = gflops->value.GetDouble();
    entry.method = string_of(v, "method");
    entry.torch_version = string_of(v, "torch_version");
    if (const auto c = v.FindMember("calibration"); c != v.MemberEnd() && c->value.IsInt())
        entry.calibration = c->value.GetInt();
    if (const auto t = v.FindMember("measured_at_unix"); t != v.MemberEnd() && t->value.IsInt64())
        entry.measured_at_unix = t->value.GetInt64();
    return entry;
}

}  // namespace

std::optional<fs::path> calibration_file() {
    if (auto dir = benchhost_cache_dir()) return *dir / "calibration.json";
    return std::nullopt;
}

CalibrationCache read_calibration_cache(const fs::path& file) {
    CalibrationCache cache;
    std::error_code ec;
    if (!fs::exists(file, ec)) return cache;
    const auto fail = [&](const std::string& what) { return std::runtime_error(file.string() + ": " + what); };
    const auto size = fs::file_size(file, ec);
    if (ec) throw fail(ec.message());
    if (size > max_cache_bytes) throw fail("larger than 1 MiB");
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    if (!(in && text << in.rdbuf()) && size > 0) throw fail("cannot be read");
    const std::string json = text.str();
    rapidjson::Document doc;
    // Iterative: a file of nested brackets cannot exhaust the stack.
    if (doc.Parse<rapidjson::kParseIterativeFlag>(json.c_str(), json.size()).HasParseError())
        throw fail(std::string("not valid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                   std::to_string(doc.GetErrorOffset()));
    if (!doc.IsObject()) throw fail("not a JSON object");
    const auto entries = doc.FindMember("entries");
    if (entries == doc.MemberEnd()) return cache;
    if (!entries->value.IsObject()) throw fail("\"entries\" is not an object");
    for (const auto& member : entries->value.GetObject()) {
        const std::string key(member.name.GetString(), member.name.GetStringLength());
        if (cache.entries.size() + cache.ignored.size() >= max_entries) {
            cache.ignored.push_back("entries after the first " + std::to_string(max_entries));
            break;
        }
        std::string why;
        if (auto entry = entry_of(member.value, why)) cache.entries.emplace(key, std::move(*entry));
        else cache.ignored.push_back(key + ": " + why);
    }
    return cache;
}

bool write_calibration_entry(const fs::path& file, const std::string& key, const CalibrationEntry& entry) {
    CalibrationCache cache;
    try {
        cache = read_calibration_cache(file);
    } catch (const std::exception&) {
        // Unreadable or corrupt: replaced by a cache with this entry.
    }
    cache.entries[key] = entry;

    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.StartObject();
    writer.Key("version");
    writer.Int(1);
    writer.Key("entries");
    writer.StartObject();
    for (const auto& [name, e] : cache.entries) {
        writer.Key(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
        writer.StartObject();
        writer.Key("gflops");
        writer.Double(e.gflops);
        writer.Key("method");
        writer.String(e.method.c_str(), static_cast<rapidjson::SizeType>(e.method.size()));
        writer.Key("calibration");
        writer.Int(e.calibration);
        writer.Key("torch_version");
        writer.String(e.torch_version.c_str(), static_cast<rapidjson::SizeType>(e.torch_version.size()));
        writer.Key("measured_at_unix");
        writer.Int64(e.measured_at_unix);
        writer.EndObject();
    }
    writer.EndObject();
    writer.EndObject();

    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
        out << '\n';
        out.flush();
        if (!out) {
            fs::remove(tmp, ec);
            return false;
        }
    }
    fs::rename(tmp, file, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return false;
    }
    return true;
}

}  // namespace bench
